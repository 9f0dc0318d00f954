//! `driftlab lock`: capture every server of a client config into one lockfile.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Result};

use super::servers::{self, Captured, ConfigArgs, NotCaptured};
use crate::config::{ClientConfig, ConfiguredServer};
use crate::lock::check::{package_of, updated};
use crate::lock::{self, LockedConfig, LockedServer, Lockfile};
use crate::payload::DEFAULT_MAX_BYTES;

/// Pin every server your agent uses: start each server of a client config (Claude Desktop,
/// Claude Code, Cursor, Windsurf, Gemini CLI, VS Code, Codex), capture its whole contract and
/// write one lockfile with, per server, how it is started (argv or URL, as written), the package
/// and version its argv runs, the protocol it spoke, its contract as `driftlab snapshot` records
/// it, and the contract's canonical digests (docs/digests.md).
///
/// `driftlab check --lock mcp.lock` then gates every server against its entry. Starting the
/// servers runs their commands: each is printed first, and a terminal is asked (`--yes` for
/// CI). A server that needs a person's input, OAuth or a transport driftlab does not speak is
/// locked as skipped, with the reason. Format: docs/lock.md.
///
/// Exit codes: 0 locked, 2 unreadable config, a server that failed (nothing is written), or no
/// consent.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  \
    driftlab lock --config ~/.cursor/mcp.json --yes\n  \
    driftlab lock --config .vscode/mcp.json -o mcp.lock --server github --server memory\n  \
    driftlab lock --update memory --yes")]
pub struct Args {
    /// The client config (with --update: default, the config the lockfile names).
    #[arg(long, value_name = "FILE", required_unless_present = "update")]
    config: Option<PathBuf>,
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
    let config_path = match (&args.config, &existing) {
        (Some(path), _) => path.clone(),
        (None, Some(lock)) => lock::config_path_from_lock(&lock.config.path, &args.out),
        (None, None) => bail!("give --config FILE"),
    };
    let config = args.select.read(&config_path)?;
    let chosen: Vec<&ConfiguredServer> = match args.update.is_empty() {
        true => args.select.pick(&config)?,
        false => servers::pick(&config, &args.update)?,
    };
    servers::consent(&config_path, &chosen, args.select.yes)?;
    let mut entries = Vec::new();
    let mut failures = Vec::new();
    for server in &chosen {
        match entry(server, timeout, args.max_bytes) {
            Ok(entry) => entries.push(entry),
            Err(e) => failures.push(format!("server {:?}: {e:#}", server.name)),
        }
    }
    if !failures.is_empty() {
        for failure in &failures {
            eprintln!("driftlab: {failure}");
        }
        bail!(
            "{} of {} server(s) could not be captured; nothing was written",
            failures.len(),
            chosen.len()
        );
    }
    let lock = match existing {
        Some(old) => updated(old, entries, &config),
        None => Lockfile {
            lockfile_version: lock::LOCKFILE_VERSION.into(),
            digest_algorithm: crate::digest::ALGORITHM.into(),
            config: locked_config(&config, &args.out),
            servers: entries,
        },
    };
    crate::fs::write_atomic(&args.out, &lock.render())
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

/// The lock entry of one server: captured, or skipped with the reason.
fn entry(
    server: &ConfiguredServer,
    timeout: std::time::Duration,
    max_bytes: usize,
) -> Result<LockedServer> {
    let launch = server.written.to_json();
    let package = package_of(server);
    let start = match &server.start {
        Ok(start) => start,
        Err(why) => {
            eprintln!("driftlab: {}: skipped: {why}", server.name);
            return Ok(LockedServer::skipped(&server.name, launch, package, why));
        }
    };
    let started = Instant::now();
    match servers::capture(start, timeout, max_bytes) {
        Ok(Captured { surface, protocol }) => {
            eprintln!(
                "driftlab: {}: {} tools{}, protocol {}, in {:.2} s",
                server.name,
                surface.len(),
                package
                    .as_ref()
                    .map(|p| format!(" ({})", p.describe()))
                    .unwrap_or_default(),
                protocol.version.as_deref().unwrap_or(&protocol.era),
                started.elapsed().as_secs_f64()
            );
            if let Some(p) = package.as_ref().filter(|p| p.version.is_none()) {
                eprintln!(
                    "driftlab: warning: {}: {} is not pinned to a version: the runner may start a \
                     newer one than was locked; pin it in the config",
                    server.name,
                    p.describe()
                );
            }
            Ok(LockedServer::locked(
                &server.name,
                launch,
                package,
                protocol,
                &surface,
            ))
        }
        Err(NotCaptured::NeedsAuthorization(why)) => {
            eprintln!("driftlab: {}: skipped: {why}", server.name);
            Ok(LockedServer::skipped(&server.name, launch, package, &why))
        }
        Err(NotCaptured::Failed(e)) => Err(e),
    }
}

fn locked_config(config: &ClientConfig, lock_path: &Path) -> LockedConfig {
    LockedConfig {
        path: lock::config_path_for_lock(&config.path, lock_path),
        client: config.client.map(|c| c.as_str().to_string()),
        layout: config.layout.as_str().to_string(),
    }
}
