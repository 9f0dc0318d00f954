//! Where MCP clients keep their configs: a user's (below the home folder, per OS) and a
//! project's (below its folder). `driftlab configs` lists what is found there and why a file
//! was skipped; nothing here starts a server.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::clients::{ClientFormat, CLIENTS};
use super::{read, Client, ClientConfig, ConfigError};

/// Whose config a place holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The user's own config, below the home folder.
    User,
    /// A project's config, below the project folder.
    Project,
}

impl Scope {
    /// `user` or `project`, as `driftlab configs` prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project => "project",
        }
    }
}

/// One place a client reads its config from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The client.
    pub client: Client,
    /// Whose config it is.
    pub scope: Scope,
    /// The file.
    pub path: PathBuf,
}

/// Every place, in a fixed order: user configs below `home` (the folders this OS uses), then
/// the project configs below `project`.
pub fn places(home: &Path, project: &Path) -> Vec<Place> {
    let app_support = if cfg!(target_os = "macos") {
        home.join("Library/Application Support")
    } else {
        home.join(".config")
    };
    let user = |format: &ClientFormat| {
        let path = match format.user.split_once('/') {
            Some(("@", rest)) => app_support.join(rest),
            Some((_, rest)) => home.join(rest),
            None => home.join(format.user),
        };
        Place {
            client: format.client,
            scope: Scope::User,
            path,
        }
    };
    let in_project = |format: &ClientFormat| {
        format.project.map(|path| Place {
            client: format.client,
            scope: Scope::Project,
            path: project.join(path),
        })
    };
    CLIENTS
        .iter()
        .map(user)
        .chain(CLIENTS.iter().filter_map(in_project))
        .collect()
}

/// What was found at a place.
pub enum Found {
    /// No file there.
    Missing,
    /// The config, read.
    Read(ClientConfig),
    /// The file is there but cannot be read as the client's config: why.
    Skipped(ConfigError),
}

/// Reads the config at `place` (variables from `env`; `${workspaceFolder}` is `project`).
pub fn look(place: &Place, project: &Path, env: &dyn Fn(&str) -> Option<String>) -> Found {
    if !place.path.exists() {
        return Found::Missing;
    }
    // `~/.claude.json` adds the servers of the project Claude Code runs in.
    let claude_state = place.path.file_name().is_some_and(|n| n == ".claude.json");
    let workspace = (place.scope == Scope::Project || claude_state).then_some(project);
    match read(&place.path, Some(place.client), workspace, env) {
        Ok(config) => Found::Read(config),
        Err(e) => Found::Skipped(e),
    }
}

/// Every config found at the [`places`] of `home` and `project`, and the files that could not
/// be read as their client's config, with why.
pub struct Discovery {
    /// The configs read, in [`places`] order.
    pub found: Vec<(Place, ClientConfig)>,
    /// The files that could not be read as their client's config, and why.
    pub skipped: Vec<(Place, ConfigError)>,
}

/// Looks at every place, in [`places`] order.
pub fn discover(home: &Path, project: &Path, env: &dyn Fn(&str) -> Option<String>) -> Discovery {
    let mut discovery = Discovery {
        found: Vec::new(),
        skipped: Vec::new(),
    };
    for place in places(home, project) {
        match look(&place, project, env) {
            Found::Missing => {}
            Found::Read(config) => discovery.found.push((place, config)),
            Found::Skipped(why) => discovery.skipped.push((place, why)),
        }
    }
    discovery
}

/// A config's label in qualified server names: its client's name, with `-user` or `-project`
/// where that client has a config of each scope among `found`.
pub fn label(place: &Place, found: &[(Place, ClientConfig)]) -> String {
    let twice = found
        .iter()
        .filter(|(p, _)| p.client == place.client)
        .count()
        > 1;
    match twice {
        true => format!("{}-{}", place.client.as_str(), place.scope.as_str()),
        false => place.client.as_str().to_string(),
    }
}

/// The name server `name` of `found[index]` has among every found config: its own, unless
/// another config has a server of the same name, when both are named `LABEL/NAME` ([`label`]).
pub fn lock_name(found: &[(Place, ClientConfig)], index: usize, name: &str) -> String {
    let namesakes = found
        .iter()
        .filter(|(_, config)| config.server(name).is_some())
        .count();
    match namesakes > 1 {
        true => format!("{}/{name}", label(&found[index].0, found)),
        false => name.to_string(),
    }
}

/// The servers of every found config as one config, in `found` order, each named by
/// [`lock_name`]. The result is named `shown` and has no text of its own (nothing rewrites it).
pub fn merged(found: &[(Place, ClientConfig)], shown: &Path) -> ClientConfig {
    let mut servers = Vec::new();
    for (index, (_, config)) in found.iter().enumerate() {
        for server in &config.servers {
            let mut server = server.clone();
            server.name = lock_name(found, index, &server.name);
            servers.push(server);
        }
    }
    ClientConfig {
        path: shown.to_path_buf(),
        text: String::new(),
        layout: super::Layout::McpServers,
        client: None,
        servers,
    }
}

/// Claude Code keeps per-project servers in `~/.claude.json` under `projects.<path>.mcpServers`;
/// the config is read with those of `project` only (as Claude Code started there would): how
/// many other projects have some, so a listing can say so.
pub fn other_project_servers(config: &ClientConfig, project: &Path) -> usize {
    if config.client != Some(Client::ClaudeCode) || !config.path.ends_with(".claude.json") {
        return 0;
    }
    let Ok(Value::Object(root)) = serde_json::from_str::<Value>(&config.text) else {
        return 0;
    };
    let project = project.canonicalize().unwrap_or(project.to_path_buf());
    let this = project.display().to_string();
    root.get("projects")
        .and_then(Value::as_object)
        .map_or(0, |projects| {
            projects
                .iter()
                .filter(|(path, _)| **path != this)
                .map(|(_, p)| p)
                .filter(|p| {
                    p.get("mcpServers")
                        .and_then(Value::as_object)
                        .is_some_and(|s| !s.is_empty())
                })
                .count()
        })
}
