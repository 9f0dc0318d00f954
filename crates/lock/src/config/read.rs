//! Reading a client config file into its servers.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::expand::{env_value, expand, Context, Syntax};
use super::{
    Client, ClientConfig, ConfigError, ConfiguredServer, Layout, Start, Unstartable, Written,
};

/// A config file of at most this many bytes is read (they are hand-written and small).
const MAX_CONFIG_BYTES: usize = 4 * 1024 * 1024;

/// Reads the config at `path`. `client` overrides what the path says; `workspace` is the folder
/// `${workspaceFolder}` names (default: the folder holding `.vscode/`, `.cursor/` or `.gemini/`,
/// else the config's own folder). `env` is the environment variables are read from.
pub fn read(
    path: &Path,
    client: Option<Client>,
    workspace: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ClientConfig, ConfigError> {
    let text = driftlab_contract::fs::read_text(path, MAX_CONFIG_BYTES)
        .map_err(|e| ConfigError(e.to_string()))?;
    parse(path, text, client, workspace, env)
}

/// [`read`] of `text`, as the file at `path` (which is not read) would be.
pub fn parse(
    path: &Path,
    text: String,
    client: Option<Client>,
    workspace: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ClientConfig, ConfigError> {
    let client = client.or_else(|| Client::from_path(path));
    let project = claude_project(workspace);
    let workspace = match workspace {
        Some(dir) => dir.to_path_buf(),
        None => default_workspace(path),
    };
    let cx = Context {
        syntax: syntax(client),
        workspace: &workspace,
        env,
    };
    let shown = path.display().to_string();
    let (layout, servers) = match client {
        Some(Client::Codex) => (Layout::CodexToml, codex(&text, &shown, &cx)?),
        Some(Client::ClaudeCode) if is_claude_state(path) => (
            Layout::McpServers,
            claude_state(&text, &shown, &project, &cx)?,
        ),
        _ => json(&text, &shown, client, &cx)?,
    };
    Ok(ClientConfig {
        path: path.to_path_buf(),
        text,
        layout,
        client,
        servers,
    })
}

fn syntax(client: Option<Client>) -> Syntax {
    client.map_or(Syntax::Any, |client| {
        super::clients::format_of(client).syntax
    })
}

/// The folder above `.vscode/`, `.cursor/` or `.gemini/`, else the config's folder; absolute.
fn default_workspace(path: &Path) -> PathBuf {
    let dir = path.parent().unwrap_or(Path::new("."));
    let dir = match dir.file_name().and_then(|n| n.to_str()) {
        Some(".vscode" | ".cursor" | ".gemini") => dir.parent().unwrap_or(Path::new(".")),
        _ => dir,
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
}

/// Whether `path` is Claude Code's own state file, `~/.claude.json`: user servers at the top,
/// each project's under `projects.PATH.mcpServers`.
fn is_claude_state(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == ".claude.json")
}

/// The project whose servers `~/.claude.json` adds: the workspace when one is given, else the
/// current folder (where Claude Code would be started), absolute.
fn claude_project(workspace: Option<&Path>) -> PathBuf {
    workspace
        .map(Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok())
        .map(|dir| dir.canonicalize().unwrap_or(dir))
        .unwrap_or_default()
}

/// `~/.claude.json` as Claude Code reads it started in `project`: the user's servers (top
/// `mcpServers`), then the project's own (`projects.<project>.mcpServers`, Claude Code's "local"
/// scope), which replace a user server of the same name. Either may be missing.
fn claude_state(
    text: &str,
    shown: &str,
    project: &Path,
    cx: &Context<'_>,
) -> Result<Vec<ConfiguredServer>, ConfigError> {
    let root = json_root(text, shown)?;
    let mut servers = match root.get("mcpServers") {
        None => Vec::new(),
        Some(_) => entries(&root, "mcpServers", "", shown, Some(Client::ClaudeCode), cx)?,
    };
    let key = project.display().to_string();
    if let Some(Value::Object(entry)) = root.get("projects").and_then(|p| p.get(&key)) {
        if entry.get("mcpServers").is_some() {
            let prefix = driftlab_contract::pointer::push("/projects", &key);
            let local = entries(
                entry,
                "mcpServers",
                &prefix,
                &format!("{shown}: `projects.{key}`"),
                Some(Client::ClaudeCode),
                cx,
            )?;
            servers.retain(|s| !local.iter().any(|l| l.name == s.name));
            servers.extend(local);
        }
    }
    Ok(servers)
}

/// A config's JSON object, comments and trailing commas allowed.
fn json_root(text: &str, shown: &str) -> Result<Map<String, Value>, ConfigError> {
    let blanked = super::jsonc::blank(text);
    let root: Value = serde_json::from_str(&blanked).map_err(|e| {
        ConfigError(format!(
            "{shown}:{}:{}: not a JSON client config: {e}",
            e.line(),
            e.column()
        ))
    })?;
    match root {
        Value::Object(root) => Ok(root),
        _ => Err(ConfigError(format!(
            "{shown}: not a client config: expected a JSON object with `mcpServers` or `servers`"
        ))),
    }
}

/// `mcpServers` or VS Code `servers` JSON, comments and trailing commas allowed.
fn json(
    text: &str,
    shown: &str,
    client: Option<Client>,
    cx: &Context<'_>,
) -> Result<(Layout, Vec<ConfiguredServer>), ConfigError> {
    let root = json_root(text, shown)?;
    let (layout, key) = match (root.get("mcpServers"), root.get("servers")) {
        (Some(_), _) => (Layout::McpServers, "mcpServers"),
        (None, Some(_)) => (Layout::VscodeServers, "servers"),
        (None, None) => {
            return Err(ConfigError(format!(
                "{shown}: no `mcpServers` (or VS Code `servers`) object: not an MCP client config \
                 (for Codex's TOML give --client codex)"
            )))
        }
    };
    Ok((layout, entries(&root, key, "", shown, client, cx)?))
}

/// The servers of object `key` of `holder`, which sits at JSON pointer `at` of the file.
fn entries(
    holder: &Map<String, Value>,
    key: &str,
    at: &str,
    shown: &str,
    client: Option<Client>,
    cx: &Context<'_>,
) -> Result<Vec<ConfiguredServer>, ConfigError> {
    let Some(servers) = holder[key].as_object() else {
        return Err(ConfigError(format!("{shown}: `{key}` is not an object")));
    };
    let mut out = Vec::new();
    for (name, entry) in servers {
        let place = format!("{shown}: `{key}.{name}`");
        let Some(entry) = entry.as_object() else {
            return Err(ConfigError(format!("{place} is not an object")));
        };
        let mut server = json_server(name, entry, &place, client, cx)?;
        server.pointer = driftlab_contract::pointer::push(&format!("{at}/{key}"), name);
        out.push(server);
    }
    Ok(out)
}

fn json_server(
    name: &str,
    entry: &Map<String, Value>,
    place: &str,
    client: Option<Client>,
    cx: &Context<'_>,
) -> Result<ConfiguredServer, ConfigError> {
    let string = |key: &str| -> Result<Option<String>, ConfigError> {
        match entry.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(ConfigError(format!("{place}.{key} is not a string"))),
        }
    };
    let strings = |key: &str| -> Result<Vec<String>, ConfigError> {
        match entry.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| ConfigError(format!("{place}.{key} is not a list of strings"))),
            Some(_) => Err(ConfigError(format!("{place}.{key} is not a list"))),
        }
    };
    let pairs = |key: &str| -> Result<Vec<(String, String)>, ConfigError> {
        match entry.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    // Clients pass numbers and booleans through as their text.
                    Value::Number(_) | Value::Bool(_) => Ok((k.clone(), v.to_string())),
                    _ => Err(ConfigError(format!("{place}.{key}.{k} is not a string"))),
                })
                .collect(),
            Some(_) => Err(ConfigError(format!("{place}.{key} is not an object"))),
        }
    };
    let transport = string("type")?;
    let command = string("command")?;
    let url_key = ["url", "serverUrl", "httpUrl"]
        .into_iter()
        .find(|k| entry.get(*k).is_some_and(Value::is_string));
    let written = match (&command, url_key) {
        (Some(command), _) => {
            let mut argv = vec![command.clone()];
            argv.extend(strings("args")?);
            Written::Command(argv)
        }
        (None, Some(key)) => Written::Url(string(key)?.unwrap_or_default()),
        (None, None) => {
            return Err(ConfigError(format!(
                "{place} has neither `command` nor a URL (`url`, `serverUrl`, `httpUrl`)"
            )))
        }
    };
    let disabled = entry.get("disabled") == Some(&Value::Bool(true))
        || entry.get("enabled") == Some(&Value::Bool(false));
    let sse = transport.as_deref() == Some("sse")
        || (client == Some(Client::Gemini) && url_key == Some("url"));
    let skip = if disabled {
        Some(Unstartable::Disabled)
    } else if sse && command.is_none() {
        Some(Unstartable::Sse)
    } else if entry.contains_key("envFile") {
        Some(Unstartable::EnvFile)
    } else if entry.contains_key("oauth") || entry.contains_key("authProviderType") {
        Some(Unstartable::OAuth)
    } else {
        None
    };
    let start = match skip {
        Some(why) => Err(why),
        None => start_of(
            &written,
            pairs("env")?,
            string("cwd")?,
            pairs("headers")?,
            cx,
        ),
    };
    Ok(ConfiguredServer {
        name: name.to_string(),
        written,
        start,
        pointer: driftlab_contract::pointer::push("/mcp_servers", name),
    })
}

/// How the server starts, its variables expanded; or why it cannot be started as written.
fn start_of(
    written: &Written,
    env: Vec<(String, String)>,
    cwd: Option<String>,
    headers: Vec<(String, String)>,
    cx: &Context<'_>,
) -> Result<Start, Unstartable> {
    let pairs = |pairs: Vec<(String, String)>| -> Result<Vec<(String, String)>, Unstartable> {
        pairs
            .into_iter()
            .map(|(k, v)| Ok((k, expand(&v, cx)?)))
            .collect()
    };
    match written {
        Written::Command(argv) => {
            let argv = argv
                .iter()
                .map(|w| expand(w, cx))
                .collect::<Result<Vec<_>, _>>()?;
            let cwd = cwd.map(|dir| expand(&dir, cx)).transpose()?;
            Ok(Start::Stdio {
                argv,
                env: pairs(env)?,
                cwd: cwd.map(|dir| cx.workspace.join(dir)),
            })
        }
        Written::Url(url) => Ok(Start::Http {
            url: expand(url, cx)?,
            headers: pairs(headers)?,
        }),
    }
}

/// Codex's `[mcp_servers.NAME]` tables.
fn codex(text: &str, shown: &str, cx: &Context<'_>) -> Result<Vec<ConfiguredServer>, ConfigError> {
    let root: toml::Table = toml::from_str(text).map_err(|e| {
        let (line, column, message) = driftlab_contract::text::toml_error(text, &e);
        ConfigError(format!(
            "{shown}:{line}:{column}: not a TOML client config: {message}"
        ))
    })?;
    let Some(servers) = root.get("mcp_servers") else {
        return Err(ConfigError(format!(
            "{shown}: no `[mcp_servers.NAME]` table: not a Codex MCP config"
        )));
    };
    let Some(servers) = servers.as_table() else {
        return Err(ConfigError(format!(
            "{shown}: `mcp_servers` is not a table"
        )));
    };
    let mut out = Vec::new();
    for (name, entry) in servers {
        let place = format!("{shown}: `mcp_servers.{name}`");
        let Some(entry) = entry.as_table() else {
            return Err(ConfigError(format!("{place} is not a table")));
        };
        // Codex's keys are TOML; as JSON they read with the same checks as the other clients'.
        let mut json: Map<String, Value> = serde_json::to_value(entry)
            .ok()
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default();
        let mut headers = json
            .remove("http_headers")
            .and_then(|h| h.as_object().cloned())
            .unwrap_or_default();
        let mut skip = None;
        if let Some(Value::String(var)) = json.get("bearer_token_env_var") {
            match env_value(var, cx) {
                Some(token) => {
                    headers.insert("Authorization".into(), format!("Bearer {token}").into());
                }
                None => {
                    skip = Some(Unstartable::HeaderUnset {
                        var: var.clone(),
                        what: "its bearer_token_env_var".into(),
                    })
                }
            }
        }
        if let Some(Value::Object(from_env)) = json.get("env_http_headers") {
            for (header, var) in from_env {
                let var = var.as_str().unwrap_or_default();
                match env_value(var, cx) {
                    Some(value) => {
                        headers.insert(header.clone(), value.into());
                    }
                    None => {
                        skip = Some(Unstartable::HeaderUnset {
                            var: var.to_string(),
                            what: format!("header {header}"),
                        })
                    }
                }
            }
        }
        json.insert("headers".into(), Value::Object(headers));
        let mut server = json_server(name, &json, &place, Some(Client::Codex), cx)?;
        if let (Some(why), Ok(_)) = (skip, &server.start) {
            server.start = Err(why);
        }
        out.push(server);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
