//! MCP client configs: which servers an agent runs, read from the file its client keeps (every
//! client of the registry in `clients`, which `driftlab clients` lists: `mcpServers` JSON, VS
//! Code's `servers` JSON with `inputs`, Codex's `[mcp_servers.NAME]` TOML), with the variables each
//! client documents expanded. A server that cannot be started as the client would start it (a
//! variable only a person can fill, an unset variable, a transport driftlab does not speak) is kept
//! with the reason it is skipped, never guessed.

mod clients;
pub mod discover;
mod expand;
pub(crate) mod jsonc;
mod read;
pub mod rewrite;
mod unstartable;

use std::path::{Path, PathBuf};

pub use clients::{listing_rows, names_in_prose, LISTING_COLUMNS};
pub use read::{parse, read};
pub use unstartable::Unstartable;

/// The client whose config a file is: it decides the layout and which variables expand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    /// `claude_desktop_config.json`: `mcpServers`
    ClaudeDesktop,
    /// `.mcp.json`, `~/.claude.json`: `mcpServers`, `${VAR}` and `${VAR:-default}`
    ClaudeCode,
    /// `.cursor/mcp.json`: `mcpServers`, `${env:VAR}`, `${userHome}`, `${workspaceFolder}`
    Cursor,
    /// `mcp_config.json`: `mcpServers` with `serverUrl`, `${env:VAR}`
    Windsurf,
    /// `.gemini/settings.json`: `mcpServers` with `httpUrl` (and `url` for SSE), `$VAR`, `${VAR}`
    Gemini,
    /// `.vscode/mcp.json`: `servers` with `type`, `inputs`, `${input:ID}`, `${env:VAR}`
    Vscode,
    /// `~/.codex/config.toml`: `[mcp_servers.NAME]`
    Codex,
}

impl Client {
    /// How `--client` and reports spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "claude-desktop",
            Client::ClaudeCode => "claude-code",
            Client::Cursor => "cursor",
            Client::Windsurf => "windsurf",
            Client::Gemini => "gemini",
            Client::Vscode => "vscode",
            Client::Codex => "codex",
        }
    }

    /// The client named `name` ([`Client::as_str`]).
    pub fn named(name: &str) -> Option<Client> {
        <Client as clap::ValueEnum>::value_variants()
            .iter()
            .copied()
            .find(|c| c.as_str() == name)
    }

    /// The client a file belongs to, from its path, when the path says so.
    pub fn from_path(path: &Path) -> Option<Client> {
        clients::client_of_path(path)
    }
}

/// How the servers are laid out in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `{"mcpServers": {NAME: {…}}}`
    McpServers,
    /// `{"servers": {NAME: {…}}, "inputs": […]}` (VS Code)
    VscodeServers,
    /// `[mcp_servers.NAME]` tables (Codex)
    CodexToml,
}

impl Layout {
    /// The key its servers sit under.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::McpServers => "mcpServers",
            Layout::VscodeServers => "servers",
            Layout::CodexToml => "mcp_servers",
        }
    }
}

/// A client config as read: its text (kept for rewriting) and its servers in file order.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// The file.
    pub path: PathBuf,
    /// Its text, as read.
    pub text: String,
    /// How its servers are laid out.
    pub layout: Layout,
    /// The client, when named (`--client`) or told by the path.
    pub client: Option<Client>,
    /// Its servers, in file order.
    pub servers: Vec<ConfiguredServer>,
}

impl ClientConfig {
    /// The server named `name`.
    pub fn server(&self, name: &str) -> Option<&ConfiguredServer> {
        self.servers.iter().find(|s| s.name == name)
    }
}

/// One server of a config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredServer {
    /// Its name in the config.
    pub name: String,
    /// What the config says, variables unexpanded: the server's identity in a lockfile (an
    /// expanded variable may hold a secret, and must not make a lock differ between machines).
    pub written: Written,
    /// How to start it, variables expanded; or why it is skipped.
    pub start: Result<Start, Unstartable>,
    /// Where its entry is in the file, as a JSON pointer (`/mcpServers/NAME`; a Claude Code
    /// project's `/projects/PATH/mcpServers/NAME`): where `guard install` edits it.
    pub pointer: String,
}

/// A server as the config writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// A command and its arguments.
    Command(Vec<String>),
    /// A remote endpoint's URL.
    Url(String),
}

impl Written {
    /// `{"command": [argv…]}` or `{"url": …}`.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Written::Command(argv) => serde_json::json!({ "command": argv }),
            Written::Url(url) => serde_json::json!({ "url": url }),
        }
    }

    /// The argv or URL on one line.
    pub fn display(&self) -> String {
        match self {
            Written::Command(argv) => argv.join(" "),
            Written::Url(url) => url.clone(),
        }
    }
}

/// How a server is started, its variables expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// A process that speaks over stdio.
    Stdio {
        /// Its argv, run directly (never through a shell).
        argv: Vec<String>,
        /// Added to driftlab's own environment, as clients do.
        env: Vec<(String, String)>,
        /// The folder it starts in, when the config names one.
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint's URL.
        url: String,
        /// Headers sent with every request (`name`, `value`).
        headers: Vec<(String, String)>,
    },
}

impl Start {
    /// What runs, as a person approving it should see it: the argv (with the folder and the
    /// names of the variables set) or the URL, each as the config `written` has it: a `${VAR}`
    /// it expands may hold a secret, and this is printed (in CI logs too).
    pub fn describe(&self, written: &Written) -> String {
        match self {
            Start::Stdio { argv, env, cwd } => {
                let argv = match written {
                    Written::Command(as_written) => as_written,
                    Written::Url(_) => argv,
                };
                let mut text = driftlab_contract::text::shell_line(argv);
                if !env.is_empty() {
                    let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
                    text.push_str(&format!("  (env: {})", names.join(", ")));
                }
                if let Some(dir) = cwd {
                    text.push_str(&format!("  (in {})", dir.display()));
                }
                text
            }
            Start::Http { url, headers } => {
                let url = match written {
                    Written::Url(as_written) => as_written,
                    Written::Command(_) => url,
                };
                let mut text = format!("POST {url}");
                if !headers.is_empty() {
                    let names: Vec<&str> = headers.iter().map(|(k, _)| k.as_str()).collect();
                    text.push_str(&format!("  (headers: {})", names.join(", ")));
                }
                text
            }
        }
    }
}

impl Start {
    /// `text`, a message about this server, with each argv word or URL the config's variables
    /// expanded put back as `written` has it: a `${VAR}` may hold a secret.
    pub(crate) fn as_written(&self, written: &Written, text: &str) -> String {
        let expanded: Vec<(&str, &str)> = match (self, written) {
            (Start::Stdio { argv, .. }, Written::Command(as_written)) => argv
                .iter()
                .zip(as_written)
                // A word of a few characters (`1`, `on`) would garble the message wherever it
                // appears, and is no secret.
                .filter(|(word, as_written)| word != as_written && word.len() >= 4)
                .map(|(word, as_written)| (word.as_str(), as_written.as_str()))
                .collect(),
            (Start::Http { url, .. }, Written::Url(as_written)) if url != as_written => {
                vec![(url.as_str(), as_written.as_str())]
            }
            _ => Vec::new(),
        };
        expanded
            .iter()
            .fold(text.to_string(), |text, (word, as_written)| {
                text.replace(word, as_written)
            })
    }
}

/// Why a config cannot be read: one line naming the file and the place.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_expanded_words_as_written_but_leave_short_ones() {
        let start = Start::Stdio {
            argv: vec!["srv".into(), "1".into(), "tok-s3cr3t".into()],
            env: Vec::new(),
            cwd: None,
        };
        let written = Written::Command(vec!["srv".into(), "${LEVEL}".into(), "${TOKEN}".into()]);
        assert_eq!(
            start.as_written(&written, "exit code 1: bad token tok-s3cr3t"),
            "exit code 1: bad token ${TOKEN}"
        );
        let http = Start::Http {
            url: "https://x/mcp?key=k3y".into(),
            headers: Vec::new(),
        };
        let written = Written::Url("https://x/mcp?key=${KEY}".into());
        assert_eq!(
            http.as_written(&written, "https://x/mcp?key=k3y: refused"),
            "https://x/mcp?key=${KEY}: refused"
        );
    }
}
