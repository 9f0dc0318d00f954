//! Where MCP clients keep their configs: a user's (below the home folder, per OS) and a
//! project's (below its folder). `driftlab configs` lists what is found there and why a file
//! was skipped; nothing here starts a server.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{read, Client, ClientConfig, ConfigError};

/// Whose config a place holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    User,
    Project,
}

impl Scope {
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
    pub client: Client,
    pub scope: Scope,
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
    let user = |client, path: PathBuf| Place {
        client,
        scope: Scope::User,
        path,
    };
    let in_project = |client, path: &str| Place {
        client,
        scope: Scope::Project,
        path: project.join(path),
    };
    vec![
        user(
            Client::ClaudeDesktop,
            app_support.join("Claude/claude_desktop_config.json"),
        ),
        user(Client::ClaudeCode, home.join(".claude.json")),
        user(Client::Cursor, home.join(".cursor/mcp.json")),
        user(Client::Vscode, app_support.join("Code/User/mcp.json")),
        user(
            Client::Windsurf,
            home.join(".codeium/windsurf/mcp_config.json"),
        ),
        user(Client::Gemini, home.join(".gemini/settings.json")),
        user(Client::Codex, home.join(".codex/config.toml")),
        in_project(Client::ClaudeCode, ".mcp.json"),
        in_project(Client::Cursor, ".cursor/mcp.json"),
        in_project(Client::Vscode, ".vscode/mcp.json"),
        in_project(Client::Gemini, ".gemini/settings.json"),
    ]
}

/// What was found at a place.
pub enum Found {
    Missing,
    Read(ClientConfig),
    /// The file is there but cannot be read as the client's config: why.
    Skipped(ConfigError),
}

/// Reads the config at `place` (variables from `env`; `${workspaceFolder}` is `project`).
pub fn look(place: &Place, project: &Path, env: &dyn Fn(&str) -> Option<String>) -> Found {
    if !place.path.exists() {
        return Found::Missing;
    }
    let workspace = (place.scope == Scope::Project).then_some(project);
    match read(&place.path, Some(place.client), workspace, env) {
        Ok(config) => Found::Read(config),
        Err(e) => Found::Skipped(e),
    }
}

/// Claude Code keeps per-project servers in `~/.claude.json` under `projects.<path>.mcpServers`;
/// driftlab does not read them yet: how many projects have some, so a listing can say so.
pub fn unread_project_servers(config: &ClientConfig) -> usize {
    if config.client != Some(Client::ClaudeCode) || !config.path.ends_with(".claude.json") {
        return 0;
    }
    let Ok(Value::Object(root)) = serde_json::from_str::<Value>(&config.text) else {
        return 0;
    };
    root.get("projects")
        .and_then(Value::as_object)
        .map_or(0, |projects| {
            projects
                .values()
                .filter(|p| {
                    p.get("mcpServers")
                        .and_then(Value::as_object)
                        .is_some_and(|s| !s.is_empty())
                })
                .count()
        })
}
