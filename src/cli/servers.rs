//! The servers of a client config, for `lock` and `check --lock`: which to run, and the user's
//! consent to run them (capturing them is `lock::capture`).

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use driftlab_lock::config::discover::{self, Found, Place, Scope};
use driftlab_lock::config::{self, Client, ClientConfig, ConfiguredServer};
use driftlab_lock::lock::{self, Lockfile};

/// Options naming a client config and which of its servers run.
#[derive(clap::Args, Debug)]
#[command(next_help_heading = "Client config")]
pub struct ConfigArgs {
    /// Read the config as this client's (default: told by the file's path, else any of the
    /// `mcpServers` forms; a `.toml` file is Codex's).
    #[arg(long, value_enum, value_name = "CLIENT")]
    pub client: Option<Client>,
    /// Only this server of the config (repeatable).
    #[arg(long = "server", value_name = "NAME")]
    pub servers: Vec<String>,
    /// Start the servers without asking. Without it each command and URL is printed first and a
    /// terminal is asked; with no terminal to ask (CI), nothing runs.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Servers started and captured at once (0: one per core). Each waits mostly on its own
    /// start-up; the lockfile and the report are the same bytes at any number.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub jobs: usize,
    /// The folder `${workspaceFolder}` names (default: the folder holding `.vscode/`,
    /// `.cursor/` or `.gemini/`, else the config's folder).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
}

impl ConfigArgs {
    /// Reads the config at `path`, variables from this process's environment.
    pub fn read(&self, path: &Path) -> Result<ClientConfig> {
        let env = |name: &str| std::env::var(name).ok();
        Ok(config::read(
            path,
            self.client,
            self.workspace.as_deref(),
            &env,
        )?)
    }

    /// The config `lock` was made from, as it is now: `config_flag` or the one the lockfile
    /// names; for a lock of `lock --discover`, every config it found, read again and merged as
    /// then (a config gone since has no servers).
    pub fn read_locked(
        &self,
        lock: &Lockfile,
        lock_path: &Path,
        config_flag: Option<&Path>,
    ) -> Result<ClientConfig> {
        let Some(discovered) = &lock.discovered else {
            let path = match (config_flag, &lock.config) {
                (Some(path), _) => path.to_path_buf(),
                (None, Some(recorded)) => lock::config_path_from_lock(&recorded.path, lock_path),
                (None, None) => bail!("give --config FILE"),
            };
            return self.read(&path);
        };
        if config_flag.is_some() {
            bail!(
                "{}: made by `lock --discover`, it names its configs; --config does not apply",
                lock_path.display()
            );
        }
        let found = read_discovered(discovered, lock_path)?;
        Ok(discover::merged(&found, Path::new(DISCOVERED)))
    }

    /// `--jobs`, with 0 as the number of cores.
    pub fn jobs(&self) -> usize {
        match self.jobs {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            n => n,
        }
    }

    /// The servers `--server` picks (all without it), in config order.
    pub fn pick<'c>(&self, config: &'c ClientConfig) -> Result<Vec<&'c ConfiguredServer>> {
        pick(config, &self.servers)
    }
}

/// The configs a lock of `lock --discover` found, read again as then (a config gone since has
/// no servers).
pub fn read_discovered(
    discovered: &lock::Discovered,
    lock_path: &Path,
) -> Result<Vec<(Place, ClientConfig)>> {
    let env = |name: &str| std::env::var(name).ok();
    let project = PathBuf::from(&discovered.project);
    let mut found = Vec::new();
    for recorded in &discovered.configs {
        let place = Place {
            client: recorded
                .client
                .as_deref()
                .and_then(Client::named)
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "{}: config {} names no client driftlab knows",
                        lock_path.display(),
                        recorded.path
                    )
                })?,
            scope: match recorded.scope.as_deref() {
                Some("project") => Scope::Project,
                _ => Scope::User,
            },
            path: lock::config_path_from_lock(&recorded.path, lock_path),
        };
        match discover::look(&place, &project, &env) {
            Found::Read(config) => found.push((place, config)),
            Found::Missing => found.push((
                place.clone(),
                ClientConfig {
                    path: place.path.clone(),
                    text: String::new(),
                    layout: config::Layout::McpServers,
                    client: Some(place.client),
                    servers: Vec::new(),
                },
            )),
            Found::Skipped(why) => bail!("{why}"),
        }
    }
    Ok(found)
}

/// How the merged configs of `lock --discover` are named in messages.
pub const DISCOVERED: &str = "the configs found";

/// The servers `names` picks (all when empty), in config order; a name the config does not have
/// is an error naming those it has.
pub fn pick<'c>(config: &'c ClientConfig, names: &[String]) -> Result<Vec<&'c ConfiguredServer>> {
    {
        for name in names {
            if config.server(name).is_none() {
                let known: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
                bail!(
                    "--server {name}: {} has no such server (it has: {})",
                    config.path.display(),
                    known.join(", ")
                );
            }
        }
        Ok(config
            .servers
            .iter()
            .filter(|s| names.is_empty() || names.contains(&s.name))
            .collect())
    }
}

/// Prints what will run and asks for consent on a terminal; `--yes` consents up front. Skipped
/// servers are listed with their reason.
pub fn consent(config: &Path, servers: &[&ConfiguredServer], yes: bool) -> Result<()> {
    let runnable = servers.iter().filter(|s| s.start.is_ok()).count();
    let lines: Vec<String> = servers
        .iter()
        .map(|server| match &server.start {
            Ok(start) => format!("{}: {}", server.name, start.describe(&server.written)),
            Err(why) => format!("{}: skipped: {why}", server.name),
        })
        .collect();
    super::consent::ask(
        &format!(
            "about to start {runnable} server(s) of {}",
            config.display()
        ),
        &lines,
        yes || runnable == 0,
        "starting a config's servers runs their commands: give --yes to allow it where no \
         terminal can ask (CI), or --server NAME to pick servers",
    )
}
