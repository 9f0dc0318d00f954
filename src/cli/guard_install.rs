//! `driftlab guard install` and `guard uninstall`: put every stdio server of a client config
//! behind the guard, pinned to its lockfile entry, and put the config back byte for byte.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Context, Result};

use driftlab_contract::text::sha256_hex;
use driftlab_lock::config::{self, Client};
use driftlab_lock::lock::install::{self, backup_path, Backup, InstallError};
use driftlab_lock::lock::Lockfile;

#[derive(clap::Subcommand)]
pub enum Action {
    /// Put every server of a client config behind the guard, pinned to the lockfile.
    ///
    /// Rewrites the config so that each of its stdio servers runs as `driftlab guard --lock
    /// LOCK --server=NAME -- <its command>`, and each URL server as `driftlab guard --lock LOCK
    /// --server=NAME --url <its URL> --header <each header>` (as written: the client expands
    /// its variables), pinned to its entry in the lockfile. The original is kept next to the
    /// config (`<config>.driftlab-backup`); only each server's `command` and `args` values (a
    /// URL server's whole entry) change. Servers the lock does not pin are listed as not
    /// guarded. A config that changed while driftlab worked is left alone.
    Install(InstallArgs),
    /// Restore the config `guard install` rewrote, byte for byte, from its backup.
    ///
    /// Refused when the config changed since the install (the changes would be lost) unless
    /// --force.
    Uninstall(UninstallArgs),
}

#[derive(clap::Args)]
pub struct InstallArgs {
    /// The client config to rewrite.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// The lockfile whose entries pin the servers (see `driftlab lock`).
    #[arg(long, value_name = "FILE")]
    lock: PathBuf,
    /// Read the config as this client's (default: told by the file's path).
    #[arg(long, value_enum, value_name = "CLIENT")]
    client: Option<Client>,
    /// Only this server (repeatable).
    #[arg(long = "server", value_name = "NAME")]
    servers: Vec<String>,
    /// The driftlab the rewritten entries run (default: this one, by its absolute path).
    #[arg(long, value_name = "PATH")]
    driftlab: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct UninstallArgs {
    /// The client config `guard install` rewrote.
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// Restore the original even if the config changed since the install.
    #[arg(long)]
    force: bool,
}

/// What `guard install` keeps beside the config.
pub fn run(action: Action) -> Result<u8> {
    match action {
        Action::Install(args) => install(args),
        Action::Uninstall(args) => uninstall(args),
    }
}

/// `<config>.driftlab-backup`, beside the config.
fn install(args: InstallArgs) -> Result<u8> {
    let backup = backup_path(&args.config);
    if backup.exists() {
        bail!(
            "{}: already installed ({} exists): run `driftlab guard uninstall --config {}` first",
            args.config.display(),
            backup.display(),
            args.config.display()
        );
    }
    let env = |name: &str| std::env::var(name).ok();
    let config = config::read(&args.config, args.client, None, &env)?;
    let (lock, _) = Lockfile::read(&args.lock)?;
    let lock_path = args
        .lock
        .canonicalize()
        .with_context(|| format!("{}: cannot resolve", args.lock.display()))?;
    let driftlab = match &args.driftlab {
        Some(path) => path.clone(),
        None => std::env::current_exe()
            .and_then(|p| p.canonicalize())
            .context("cannot tell where this driftlab is: give --driftlab PATH")?,
    };
    let servers = super::servers::pick(&config, &args.servers)?;
    let lock_name = lock_names(&lock, &args.lock, &config)?;
    let plan = match install::plan(
        &config, &servers, &lock, &lock_path, &driftlab, &lock_name, &env,
    ) {
        Ok(plan) => plan,
        Err(InstallError::Defect(why)) => bail!(super::exit::Internal(why)),
        Err(e) => bail!("{}: {e}; nothing was written", args.config.display()),
    };
    for name in &plan.launch_differs {
        eprintln!(
            "driftlab: warning: {name}: the config starts it otherwise than the lockfile \
             recorded; the guard pins the locked contract (`driftlab check --lock` shows the \
             difference)"
        );
    }
    let (rewritten, guarded, not_guarded) = (plan.rewritten, plan.guarded, plan.not_guarded);
    let record = Backup {
        driftlab_guard_backup: 1,
        installed_sha256: sha256_hex(rewritten.as_bytes()),
        original: config.text.clone(),
    };
    let mut bytes = serde_json::to_vec_pretty(&record)?;
    bytes.push(b'\n');
    driftlab_contract::fs::write_atomic_like(&backup, &bytes, &args.config)
        .with_context(|| format!("{}: cannot write the backup", backup.display()))?;
    if let Err(e) = driftlab_contract::fs::replace_if_unchanged(
        &args.config,
        rewritten.as_bytes(),
        config.text.as_bytes(),
    ) {
        let _ = std::fs::remove_file(&backup);
        bail!("{}: {e}", args.config.display());
    }
    let names: Vec<&str> = guarded.iter().map(|(n, _)| n.as_str()).collect();
    eprintln!(
        "driftlab: guarded {} server(s) in {}: {} (original kept in {}; `driftlab guard uninstall --config {}` restores it)",
        guarded.len(),
        args.config.display(),
        names.join(", "),
        backup.display(),
        args.config.display()
    );
    if !not_guarded.is_empty() {
        eprintln!("driftlab: not guarded: {}", not_guarded.join("; "));
    }
    Ok(super::exit::PASS)
}

/// A server's name in the lock, from its name in the config.
type LockName = Box<dyn Fn(&str) -> String>;

/// How the config's servers are named in the lock: as in the config, or, in a lock of `lock
/// --discover`, as that lock named them among every config it found.
fn lock_names(
    lock: &Lockfile,
    lock_path: &std::path::Path,
    config: &config::ClientConfig,
) -> Result<LockName> {
    let Some(discovered) = &lock.discovered else {
        return Ok(Box::new(str::to_string));
    };
    let found = super::servers::read_discovered(discovered, lock_path)?;
    let same = |path: &std::path::Path| path.canonicalize().ok() == config.path.canonicalize().ok();
    let Some(index) = found.iter().position(|(place, _)| same(&place.path)) else {
        bail!(
            "{}: not one of the configs {} was made from (`driftlab lock --discover` found \
             them; it lists each)",
            config.path.display(),
            lock_path.display()
        );
    };
    Ok(Box::new(move |name: &str| {
        config::discover::lock_name(&found, index, name)
    }))
}

fn uninstall(args: UninstallArgs) -> Result<u8> {
    let backup = backup_path(&args.config);
    let text = driftlab_contract::fs::read_text(&backup, 64 * 1024 * 1024).map_err(|e| {
        anyhow!("{e} (`driftlab guard install` keeps the original there; was it installed?)")
    })?;
    let record: Backup = serde_json::from_str(&text)
        .map_err(|e| anyhow!("{}: not a driftlab guard backup: {e}", backup.display()))?;
    if record.driftlab_guard_backup != 1 {
        bail!(
            "{}: a backup of another version ({})",
            backup.display(),
            record.driftlab_guard_backup
        );
    }
    let current = std::fs::read(&args.config)
        .with_context(|| format!("{}: cannot read", args.config.display()))?;
    if sha256_hex(&current) != record.installed_sha256 && !args.force {
        bail!(
            "{}: changed since `guard install` wrote it; restoring would lose those changes \
             (--force restores the original anyway; it is kept in {})",
            args.config.display(),
            backup.display()
        );
    }
    driftlab_contract::fs::replace_if_unchanged(&args.config, record.original.as_bytes(), &current)
        .map_err(|e| anyhow!("{}: {e}", args.config.display()))?;
    std::fs::remove_file(&backup).with_context(|| {
        format!(
            "{}: restored, but the backup cannot be removed",
            backup.display()
        )
    })?;
    eprintln!(
        "driftlab: restored {} as it was before `guard install`",
        args.config.display()
    );
    Ok(super::exit::PASS)
}
