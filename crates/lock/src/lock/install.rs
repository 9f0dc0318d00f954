//! `guard install`'s plan: which servers of a client config go behind `driftlab guard`, pinned to
//! their lockfile entry, and the config text that starts them so, read back before anything is
//! written. The backup record that `guard uninstall` restores from.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Lockfile;
use crate::config::{self, rewrite, ClientConfig, ConfiguredServer, Written};

/// Why nothing can be installed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// No chosen server can be guarded; each one's reason is listed.
    #[error("no server to guard ({})", .0.join("; "))]
    NothingToGuard(Vec<String>),
    /// A server's entry cannot be edited in this config.
    #[error("{0}")]
    Config(#[from] config::ConfigError),
    /// The rewritten text does not read back as intended: a defect in the rewrite, not the input.
    #[error("{0}")]
    Defect(String),
}

/// The config text with every guardable server behind the guard, and what happened to each.
#[derive(Debug)]
pub struct Installation {
    /// The config's new text.
    pub rewritten: String,
    /// Each guarded server and the argv it now starts.
    pub guarded: Vec<(String, Vec<String>)>,
    /// `name (why)` for each chosen server left as it was.
    pub not_guarded: Vec<String>,
    /// Guarded servers the config starts otherwise than the lockfile recorded (the guard pins
    /// the locked contract).
    pub launch_differs: Vec<String>,
}

/// Plans the install of `servers` of `config`: each stdio server the lock has a contract for
/// starts `driftlab guard --lock LOCK --server=NAME -- ARGV` instead of ARGV, and each URL
/// server `driftlab guard --lock LOCK --server=NAME --url URL [--header H]…`. `env` reads the
/// rewritten text back as the client would.
/// `lock_name` gives each server's name in the lock (its own, or `CLIENT/NAME` in a lock of
/// `lock --discover` where two configs name a server alike).
pub fn plan(
    config: &ClientConfig,
    servers: &[&ConfiguredServer],
    lock: &Lockfile,
    lock_path: &Path,
    driftlab: &Path,
    lock_name: &dyn Fn(&str) -> String,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Installation, InstallError> {
    let mut edits = Vec::new();
    let mut guarded = Vec::new();
    let mut not_guarded = Vec::new();
    let mut launch_differs = Vec::new();
    for server in servers {
        let name = &server.name;
        let locked_as = lock_name(name);
        let entry = lock.server(&locked_as);
        let why_not = match (&server.written, entry) {
            (Written::Command(argv), _) if is_guard(argv) => {
                Some("it already runs behind driftlab guard".into())
            }
            (_, None) => Some("the lockfile has no entry for it".into()),
            (_, Some(entry)) if entry.skipped.is_some() => Some(format!(
                "the lockfile has no contract for it (skipped: {})",
                entry.skipped.as_deref().unwrap_or_default()
            )),
            _ => None,
        };
        if let Some(why) = why_not {
            not_guarded.push(format!("{name} ({why})"));
            continue;
        }
        let guard = vec![
            driftlab.display().to_string(),
            "guard".into(),
            "--lock".into(),
            lock_path.display().to_string(),
            // One word: a name such as `-h` would otherwise read as a flag.
            format!("--server={locked_as}"),
        ];
        let argv = match &server.written {
            Written::Command(original) => {
                let mut argv = guard;
                argv.push("--".into());
                argv.extend(original.iter().cloned());
                edits.extend(rewrite::set_argv(config, name, &argv)?);
                argv
            }
            // The guard reaches the server over HTTP; the client starts the guard over stdio.
            Written::Url(_) => match rewrite::set_url_argv(config, name, &guard) {
                Ok((edit, argv)) => {
                    edits.push(edit);
                    argv
                }
                Err(why) => {
                    not_guarded.push(format!("{name} ({why})"));
                    continue;
                }
            },
        };
        // Only a server that is guarded gets the warning (a Codex URL entry is not).
        if entry.map(|e| &e.launch) != Some(&server.written.to_json()) {
            launch_differs.push(name.clone());
        }
        guarded.push((name.clone(), argv));
    }
    if guarded.is_empty() {
        return Err(InstallError::NothingToGuard(not_guarded));
    }
    let rewritten = rewrite::apply(&config.text, edits);
    // The rewritten file must read back as the same config with the new commands.
    let again = config::parse(&config.path, rewritten.clone(), config.client, None, env)
        .map_err(|e| InstallError::Defect(format!("the rewritten config does not read: {e}")))?;
    for (name, argv) in &guarded {
        if again.server(name).map(|s| &s.written) != Some(&Written::Command(argv.clone())) {
            return Err(InstallError::Defect(format!(
                "the rewritten config does not start {name:?} as intended"
            )));
        }
    }
    Ok(Installation {
        rewritten,
        guarded,
        not_guarded,
        launch_differs,
    })
}

/// Whether an argv already runs `driftlab guard`.
pub(crate) fn is_guard(argv: &[String]) -> bool {
    let program = argv
        .first()
        .and_then(|p| Path::new(p).file_name())
        .is_some_and(|n| n == "driftlab");
    program && argv.get(1).is_some_and(|w| w == "guard")
}

/// What `guard install` keeps beside the config: the original text, and the hash of what it
/// wrote (so uninstall can tell whether the config was edited since).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Backup {
    /// The backup format's version.
    pub driftlab_guard_backup: u32,
    /// The sha256 of the config text `guard install` wrote.
    pub installed_sha256: String,
    /// The config text before it.
    pub original: String,
}

/// `<config>.driftlab-backup`, beside the config.
pub fn backup_path(config: &Path) -> PathBuf {
    let mut name = config.file_name().unwrap_or_default().to_os_string();
    name.push(".driftlab-backup");
    config.with_file_name(name)
}
