//! The servers of a client config, for `lock` and `check --lock`: which to run, and the user's
//! consent to run them (capturing them is `lock::capture`).

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use crate::config::{self, Client, ClientConfig, ConfiguredServer};

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
