//! One fixture per client format (tests/fixtures/configs/), read with a fixed environment.

use std::path::{Path, PathBuf};

use super::*;

fn fixture(relative: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/configs")
        .join(relative)
}

fn env(name: &str) -> Option<String> {
    match name {
        "DEMO_KEY" => Some("k3y".into()),
        "DEMO_TOKEN" => Some("t0k".into()),
        "HOME" => Some("/home/u".into()),
        _ => None,
    }
}

fn read_fixture(relative: &str) -> ClientConfig {
    read(&fixture(relative), None, None, &env).unwrap()
}

fn argv(server: &ConfiguredServer) -> Vec<String> {
    match &server.start {
        Ok(Start::Stdio { argv, .. }) => argv.clone(),
        other => panic!("{}: not a stdio start: {other:?}", server.name),
    }
}

#[test]
fn claude_desktop_servers_in_file_order_with_env() {
    let config = read_fixture("claude-desktop/claude_desktop_config.json");
    assert_eq!(config.client, Some(Client::ClaudeDesktop));
    assert_eq!(config.layout, Layout::McpServers);
    let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["filesystem", "memory"]);
    assert_eq!(
        argv(&config.servers[0]),
        [
            "npx",
            "-y",
            "@modelcontextprotocol/server-filesystem@2025.8.21",
            "/Users/me/Desktop"
        ]
    );
    let Ok(Start::Stdio { env, .. }) = &config.servers[1].start else {
        panic!()
    };
    assert_eq!(
        env,
        &[("MEMORY_FILE_PATH".into(), "/Users/me/memory.jsonl".into())]
    );
}

#[test]
fn claude_code_defaults_unset_variables_and_skips_sse() {
    let config = read_fixture("claude-code/.mcp.json");
    assert_eq!(config.client, Some(Client::ClaudeCode));
    assert_eq!(
        argv(config.server("time").unwrap()),
        ["uvx", "mcp-server-time==2025.9.25", "--local-timezone=UTC"]
    );
    // GITHUB_TOKEN is unset and has no default: skipped, with the variable named.
    let github = config.server("github").unwrap();
    assert_eq!(
        github.start,
        Err(Unstartable::Unset("${GITHUB_TOKEN}".into()))
    );
    // The identity is the URL as written, the variable unexpanded.
    assert_eq!(
        github.written,
        Written::Url("${GITHUB_MCP_URL:-https://api.githubcopilot.com/mcp/}".into())
    );
    let legacy = config.server("legacy").unwrap();
    assert_eq!(legacy.start, Err(Unstartable::Sse));
}

#[test]
fn cursor_jsonc_with_env_variables() {
    let config = read_fixture("cursor/.cursor/mcp.json");
    assert_eq!(config.client, Some(Client::Cursor));
    let Ok(Start::Stdio { env, .. }) = &config.server("everything").unwrap().start else {
        panic!()
    };
    assert_eq!(env, &[("API_KEY".into(), "k3y".into())]);
    assert_eq!(
        config.server("docs").unwrap().start,
        Err(Unstartable::Unset("${env:DOCS_URL}".into()))
    );
}

#[test]
fn vscode_expands_the_workspace_and_skips_inputs() {
    let config = read_fixture("vscode/.vscode/mcp.json");
    assert_eq!(config.layout, Layout::VscodeServers);
    let workspace = fixture("vscode").canonicalize().unwrap();
    assert_eq!(
        argv(config.server("notes").unwrap()),
        [
            format!("{}/bin/notes-server", workspace.display()),
            "--data".into(),
            format!("{}/data", workspace.display()),
        ]
    );
    assert_eq!(
        config.server("github").unwrap().start,
        Err(Unstartable::NeedsInput("gh-token".into()))
    );
}

#[test]
fn windsurf_server_url_and_disabled_servers() {
    let config = read_fixture("windsurf/windsurf/mcp_config.json");
    assert_eq!(config.client, Some(Client::Windsurf));
    assert_eq!(
        config.server("remote").unwrap().start,
        Ok(Start::Http {
            url: "https://mcp.example.com/mcp".into(),
            headers: vec![("X-Key".into(), "k3y".into())],
        })
    );
    assert_eq!(
        config.server("off").unwrap().start,
        Err(Unstartable::Disabled)
    );
}

#[test]
fn gemini_http_url_bare_variables_cwd_and_sse_url() {
    let config = read_fixture("gemini/.gemini/settings.json");
    assert_eq!(config.client, Some(Client::Gemini));
    let Ok(Start::Http { headers, .. }) = &config.server("stream").unwrap().start else {
        panic!()
    };
    assert_eq!(headers, &[("X-Key".into(), "k3y".into())]);
    assert!(config.server("events").unwrap().start.is_err());
    let Ok(Start::Stdio { cwd, env, .. }) = &config.server("local").unwrap().start else {
        panic!()
    };
    assert_eq!(
        cwd.as_deref(),
        Some(
            fixture("gemini")
                .canonicalize()
                .unwrap()
                .join("./tools")
                .as_path()
        )
    );
    assert_eq!(env, &[("KEY".into(), "k3y".into())]);
}

#[test]
fn codex_toml_tables_bearer_token_and_enabled() {
    let config = read_fixture("codex/.codex/config.toml");
    assert_eq!(config.layout, Layout::CodexToml);
    let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["memory", "remote", "off"]);
    assert_eq!(
        config.server("remote").unwrap().start,
        Ok(Start::Http {
            url: "https://mcp.example.com/mcp".into(),
            headers: vec![("Authorization".into(), "Bearer t0k".into())],
        })
    );
    assert!(config.server("off").unwrap().start.is_err());
}

#[test]
fn client_flag_overrides_the_path_and_bad_files_name_the_place() {
    let path = fixture("claude-desktop/claude_desktop_config.json");
    let as_gemini = read(&path, Some(Client::Gemini), None, &env).unwrap();
    assert_eq!(as_gemini.client, Some(Client::Gemini));
    let dir = std::env::temp_dir().join(format!("driftlab-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        ("a.json", "{\"mcpServers\": {\"x\": }", "a.json:1:"),
        ("b.json", "{\"other\": 1}", "no `mcpServers`"),
        (
            "c.json",
            "{\"mcpServers\": {\"x\": {\"args\": 1}}}",
            "`mcpServers.x`",
        ),
        (
            "d.json",
            "{\"mcpServers\": {\"x\": {\"command\": \"a\", \"args\": [1]}}}",
            "args is not a list of strings",
        ),
        ("e.toml", "[mcp_servers.x\ncommand = 1", "e.toml:1:"),
    ];
    for (name, text, expected) in cases {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let error = read(&file, None, None, &env).unwrap_err().to_string();
        assert!(error.contains(expected), "{name}: {error}");
        assert!(!error.contains('\n'), "{name}: {error}");
    }
    let missing = read(&dir.join("none.json"), None, None, &env).unwrap_err();
    assert!(missing.to_string().contains("none.json"), "{missing}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn claude_state_adds_the_projects_servers_which_replace_user_namesakes() {
    let text = r#"{"mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}},
        "projects": {"/work/app": {"mcpServers": {"b": {"command": "local-b"}, "c": {"command": "local-c"}}},
                     "/other": {"mcpServers": {"d": {"command": "d"}}}}}"#;
    let path = Path::new("/home/u/.claude.json");
    let config = parse(path, text.into(), None, Some(Path::new("/work/app")), &env).unwrap();
    let servers: Vec<(&str, &str)> = config
        .servers
        .iter()
        .map(|s| (s.name.as_str(), s.pointer.as_str()))
        .collect();
    assert_eq!(
        servers,
        [
            ("a", "/mcpServers/a"),
            ("b", "/projects/~1work~1app/mcpServers/b"),
            ("c", "/projects/~1work~1app/mcpServers/c"),
        ]
    );
    assert_eq!(argv(&config.servers[1]), ["local-b"]);
    // Only projects: no user servers is not an error for Claude Code's state file.
    let only = r#"{"projects": {"/work/app": {"mcpServers": {"c": {"command": "c"}}}}}"#;
    let config = parse(path, only.into(), None, Some(Path::new("/work/app")), &env).unwrap();
    assert_eq!(config.servers.len(), 1);
}
