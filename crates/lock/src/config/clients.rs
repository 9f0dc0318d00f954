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
}

/// Every client, in the order discovery lists their user configs (then their project configs).
pub(super) static CLIENTS: &[ClientFormat] = &[
    ClientFormat {
        client: Client::ClaudeDesktop,
        user: "@/Claude/claude_desktop_config.json",
        project: None,
        files: &[("*", "claude_desktop_config.json")],
        syntax: Syntax::Shell,
    },
    ClientFormat {
        client: Client::ClaudeCode,
        user: "~/.claude.json",
        project: Some(".mcp.json"),
        files: &[("*", ".mcp.json"), ("*", ".claude.json")],
        syntax: Syntax::Shell,
    },
    ClientFormat {
        client: Client::Cursor,
        user: "~/.cursor/mcp.json",
        project: Some(".cursor/mcp.json"),
        files: &[(".cursor", "mcp.json")],
        syntax: Syntax::Editor,
    },
    ClientFormat {
        client: Client::Vscode,
        user: "@/Code/User/mcp.json",
        project: Some(".vscode/mcp.json"),
        files: &[(".vscode", "mcp.json")],
        syntax: Syntax::Editor,
    },
    ClientFormat {
        client: Client::Windsurf,
        user: "~/.codeium/windsurf/mcp_config.json",
        project: None,
        files: &[("windsurf", "mcp_config.json")],
        syntax: Syntax::Editor,
    },
    ClientFormat {
        client: Client::Gemini,
        user: "~/.gemini/settings.json",
        project: Some(".gemini/settings.json"),
        files: &[(".gemini", "settings.json")],
        syntax: Syntax::ShellBare,
    },
    ClientFormat {
        client: Client::Codex,
        user: "~/.codex/config.toml",
        project: None,
        files: &[("*", "*.toml")],
        syntax: Syntax::Literal,
    },
];

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
