//! Every client config format driftlab reads, as a registry (like the rules' and the mutation
//! classes'): where each client keeps its config, which file names say a path is its, and how
//! its values name variables. Discovery, path recognition and variable expansion all read this
//! table, so a new client is one entry (CONTRIBUTING, *Adding a client-config format*).

use std::path::Path;

use super::expand::Syntax;
use super::Client;

/// One client's config format.
pub(super) struct ClientFormat {
    pub client: Client,
    /// Its name, as its users know it.
    pub name: &'static str,
    /// Its per-user config: below the home folder (`~/…`) or below the folder this OS keeps
    /// applications' settings in (`@/…`: `~/Library/Application Support` on macOS,
    /// `~/.config` elsewhere).
    pub user: &'static str,
    /// The config a project may hold, relative to the project's folder.
    pub project: Option<&'static str>,
    /// `(folder, file)` names that say a path is this client's config: `*` for any folder, and
    /// a file name starting with `*` matches by its ending.
    pub files: &'static [(&'static str, &'static str)],
    /// How its values name variables.
    pub syntax: Syntax,
    /// Where in the file its servers are, and how a remote one is written (`driftlab clients`).
    pub servers: &'static str,
    /// The variables its values may name, which driftlab expands (`driftlab clients`).
    pub variables: &'static str,
}

/// Every client, in the order discovery lists their user configs (then their project configs).
pub(super) static CLIENTS: &[ClientFormat] = &[
    ClientFormat {
        client: Client::ClaudeDesktop,
        name: "Claude Desktop",
        user: "@/Claude/claude_desktop_config.json",
        project: None,
        files: &[("*", "claude_desktop_config.json")],
        syntax: Syntax::Shell,
        servers: "`mcpServers`",
        variables: "`${VAR}`, `${VAR:-default}`",
    },
    ClientFormat {
        client: Client::ClaudeCode,
        name: "Claude Code",
        user: "~/.claude.json",
        project: Some(".mcp.json"),
        files: &[("*", ".mcp.json"), ("*", ".claude.json")],
        syntax: Syntax::Shell,
        servers: "`mcpServers` (`type`: `stdio`, `http`, `sse`); in `~/.claude.json` also the project's `projects.<path>.mcpServers`",
        variables: "`${VAR}`, `${VAR:-default}`",
    },
    ClientFormat {
        client: Client::Cursor,
        name: "Cursor",
        user: "~/.cursor/mcp.json",
        project: Some(".cursor/mcp.json"),
        files: &[(".cursor", "mcp.json")],
        syntax: Syntax::Editor,
        servers: "`mcpServers`, `url`",
        variables: "`${env:VAR}`, `${userHome}`, `${workspaceFolder}`, `${workspaceFolderBasename}`, `${pathSeparator}`",
    },
    ClientFormat {
        client: Client::Vscode,
        name: "VS Code",
        user: "@/Code/User/mcp.json",
        project: Some(".vscode/mcp.json"),
        files: &[(".vscode", "mcp.json")],
        syntax: Syntax::Editor,
        servers: "`servers` with `type`, `inputs`",
        variables: "as Cursor, and `${input:ID}`",
    },
    ClientFormat {
        client: Client::Windsurf,
        name: "Windsurf",
        user: "~/.codeium/windsurf/mcp_config.json",
        project: None,
        files: &[("windsurf", "mcp_config.json")],
        syntax: Syntax::Editor,
        servers: "`mcpServers`, `serverUrl`",
        variables: "as Cursor",
    },
    ClientFormat {
        client: Client::Gemini,
        name: "Gemini CLI",
        user: "~/.gemini/settings.json",
        project: Some(".gemini/settings.json"),
        files: &[(".gemini", "settings.json")],
        syntax: Syntax::ShellBare,
        servers: "`mcpServers`, `httpUrl` (and `url` = SSE)",
        variables: "`$VAR`, `${VAR}`",
    },
    ClientFormat {
        client: Client::Codex,
        name: "Codex",
        user: "~/.codex/config.toml",
        project: None,
        files: &[("*", "*.toml")],
        syntax: Syntax::Literal,
        servers: "`[mcp_servers.NAME]`, `url`, `bearer_token_env_var`, `http_headers`, `env_http_headers`",
        variables: "none",
    },
];

/// The columns of `driftlab clients`: `client` is the `--client` value; `user config` is below
/// the home folder (`~/`) or the folder the OS keeps applications' settings in (`@/`);
/// `recognised by` is the folder and file names that make `--config` read a file as this
/// client's.
pub const LISTING_COLUMNS: [&str; 7] = [
    "client",
    "name",
    "user config",
    "project config",
    "recognised by",
    "servers",
    "variables",
];

/// One row per client, in the registry's order: what `driftlab clients` lists.
pub fn listing_rows() -> Vec<[String; 7]> {
    CLIENTS
        .iter()
        .map(|f| {
            let recognised: Vec<String> = f
                .files
                .iter()
                .map(|&(folder, file)| match (folder, file.strip_prefix('*')) {
                    (_, Some(ending)) => format!("any {ending}"),
                    ("*", None) => file.to_string(),
                    (folder, None) => format!("{folder}/{file}"),
                })
                .collect();
            [
                f.client.as_str().to_string(),
                f.name.to_string(),
                f.user.to_string(),
                f.project.unwrap_or("–").to_string(),
                recognised.join(", "),
                f.servers.to_string(),
                f.variables.to_string(),
            ]
        })
        .collect()
}

/// Every client's name in the registry's order, as prose: "A, B and C".
pub fn names_in_prose() -> String {
    let names: Vec<&str> = CLIENTS.iter().map(|f| f.name).collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The registry's entry for `client`.
pub(super) fn format_of(client: Client) -> &'static ClientFormat {
    CLIENTS
        .iter()
        .find(|f| f.client == client)
        .expect("every client is registered (a test checks)")
}

/// The client whose config `path` is, when its folder and file name say so.
pub(super) fn client_of_path(path: &Path) -> Option<Client> {
    let name = path.file_name()?.to_str()?;
    let folder = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|p| p.to_str())
        .unwrap_or("");
    let matches = |&(want_folder, want_name): &(&str, &str)| {
        (want_folder == "*" || want_folder == folder)
            && match want_name.strip_prefix('*') {
                Some(ending) => name.ends_with(ending),
                None => name == want_name,
            }
    };
    CLIENTS
        .iter()
        .find(|format| format.files.iter().any(matches))
        .map(|format| format.client)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// Every client is registered once; the path of its project config is recognised as its
    /// own, and its user config's path never as another client's.
    #[test]
    fn every_client_is_registered_once_and_knows_its_own_files() {
        let variants = <Client as clap::ValueEnum>::value_variants();
        assert_eq!(CLIENTS.len(), variants.len());
        for client in variants {
            assert_eq!(CLIENTS.iter().filter(|f| f.client == *client).count(), 1);
            let format = format_of(*client);
            let user = PathBuf::from(format.user.replace(['~', '@'], "/home/u"));
            let recognised = client_of_path(&user);
            assert!(recognised.is_none_or(|c| c == *client), "{}", format.user);
            if let Some(project) = format.project {
                let path = Path::new("/work/project").join(project);
                assert_eq!(client_of_path(&path), Some(*client), "{project}");
            }
        }
        assert_eq!(client_of_path(Path::new("/x/mcp.json")), None);
        assert_eq!(client_of_path(Path::new("/x/settings.json")), None);
    }
}
