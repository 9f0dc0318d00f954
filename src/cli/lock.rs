//! `driftlab lock`: capture every server of a client config into one lockfile.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};

use super::servers::{self, ConfigArgs};
use driftlab_contract::payload::DEFAULT_MAX_BYTES;
use driftlab_lock::config::discover::{self, Place};
use driftlab_lock::config::{ClientConfig, ConfiguredServer};
use driftlab_lock::lock::build::{discovered_lockfile, lock_servers, new_lockfile};
use driftlab_lock::lock::check::updated;
use driftlab_lock::lock::Lockfile;

/// Pin every server your agent uses: start each server of a client config (any client
/// `driftlab clients` lists), capture its whole contract and
/// write one lockfile with, per server, how it is started (argv or URL, as written), the package
/// and version its argv runs, the protocol it spoke, its contract as `driftlab snapshot` records
/// it, and the contract's canonical digests (docs/digests.md).
///
/// `driftlab check --lock mcp.lock` then gates every server against its entry. Starting the
/// servers runs their commands: each is printed first, and a terminal is asked (`--yes` for
/// CI). A server that needs a person's input, OAuth or a transport driftlab does not speak is
/// locked as skipped, with the reason. Format: docs/lock.md.
///
/// `--discover` locks every config found where clients keep them (`driftlab configs` lists
/// them) into one lockfile; a server two configs name alike is named `CLIENT/NAME` (with
/// `-user` or `-project` where one client has both).
///
/// Exit codes: 0 locked, 2 unreadable config, a server that failed (nothing is written), or no
/// consent.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    driftlab lock --config ~/.cursor/mcp.json --yes\n  \
    driftlab lock --discover\n  \
    driftlab lock --config .vscode/mcp.json -o mcp.lock --server github --server memory\n  \
    driftlab lock --update memory --yes")]
pub struct Args {
    /// The client config (with --update: default, the config the lockfile names).
    #[arg(long, value_name = "FILE", required_unless_present_any = ["update", "discover"])]
    config: Option<PathBuf>,
    /// Lock every client config found below the home folder and in the project instead.
    #[arg(long, conflicts_with_all = ["config", "update"])]
    discover: bool,
    /// With --discover: the home folder to look in [default: $HOME].
    #[arg(long, value_name = "DIR", requires = "discover")]
    home: Option<PathBuf>,
    /// With --discover: the project folder to look in [default: the current folder].
    #[arg(long, value_name = "DIR", requires = "discover")]
    project: Option<PathBuf>,
    /// The lockfile to write (atomically).
    #[arg(long, short, value_name = "FILE", default_value = "mcp.lock")]
    out: PathBuf,
    /// Re-record only this server in the existing lockfile (repeatable); the other entries stay
    /// byte for byte.
    #[arg(long, value_name = "NAME", conflicts_with = "servers")]
    update: Vec<String>,
    /// Seconds each server may take for each phase (start and initialize, each list page).
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    timeout: f64,
    /// Largest message accepted from a server, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_BYTES)]
    max_bytes: usize,
    #[command(flatten)]
    select: ConfigArgs,
}

pub fn run(args: Args) -> Result<u8> {
    let timeout = super::live::timeout(args.timeout)?;
    let existing = match args.update.is_empty() {
        true => None,
        false => Some(
            Lockfile::read(&args.out)
                .map_err(|e| anyhow!("--update: {e}"))?
                .0,
        ),
    };
    let discovery = match args.discover {
        true => Some(discover(&args)?),
        false => None,
    };
    let config = match (&discovery, &existing) {
        (Some((found, _)), _) => discover::merged(found, Path::new(servers::DISCOVERED)),
        (None, Some(lock)) => args
            .select
            .read_locked(lock, &args.out, args.config.as_deref())?,
        (None, None) => match &args.config {
            Some(path) => args.select.read(path)?,
            None => bail!("give --config FILE or --discover"),
        },
    };
    let chosen: Vec<&ConfiguredServer> = match args.update.is_empty() {
        true => args.select.pick(&config)?,
        false => servers::pick(&config, &args.update)?,
    };
    servers::consent(&config.path, &chosen, args.select.yes)?;
    let note = |line: &str| eprintln!("driftlab: {line}");
    let jobs = args.select.jobs();
    let entries = match lock_servers(&chosen, timeout, args.max_bytes, jobs, &note) {
        Ok(entries) => entries,
        Err(not_locked) => {
            for failure in &not_locked.failures {
                eprintln!("driftlab: {failure}");
            }
            return Err(not_locked.into());
        }
    };
    let lock = match (existing, &discovery) {
        (Some(old), _) => updated(old, entries, &config),
        (None, Some((found, project))) => discovered_lockfile(found, project, &args.out, entries),
        (None, None) => new_lockfile(&config, &args.out, entries),
    };
    driftlab_contract::fs::write_atomic(&args.out, &lock.render())
        .map_err(|e| anyhow!("{}: cannot write: {e}", args.out.display()))?;
    let skipped = lock.servers.iter().filter(|s| s.skipped.is_some()).count();
    eprintln!(
        "driftlab: locked {} server(s){} in {}",
        lock.servers.len() - skipped,
        match skipped {
            0 => String::new(),
            n => format!(" and {n} skipped"),
        },
        args.out.display()
    );
    Ok(super::exit::PASS)
}

/// The configs `--discover` finds, each listed with its servers (and each skipped file with
/// why), and the absolute project folder they were read for.
type Discovery = (Vec<(Place, ClientConfig)>, PathBuf);

fn discover(args: &Args) -> Result<Discovery> {
    let home = super::configs::home_folder(args.home.clone())?;
    let project = args.project.clone().unwrap_or_else(|| PathBuf::from("."));
    let project = project
        .canonicalize()
        .map_err(|e| anyhow!("--project {}: {e}", project.display()))?;
    let env = |name: &str| std::env::var(name).ok();
    let discovery = discover::discover(&home, &project, &env);
    for (place, why) in &discovery.skipped {
        eprintln!(
            "driftlab: skipped {} config {}: {why}",
            place.client.as_str(),
            place.path.display()
        );
    }
    for (place, config) in &discovery.found {
        eprintln!(
            "driftlab: found {} {} config {}: {} server(s)",
            place.client.as_str(),
            place.scope.as_str(),
            place.path.display(),
            config.servers.len()
        );
    }
    if discovery.found.is_empty() {
        bail!(
            "no client config found below {} or in {} (`driftlab configs --all` lists where it \
             looked)",
            home.display(),
            project.display()
        );
    }
    Ok((discovery.found, project))
}
