//! `driftlab lock`, `check --lock` and `guard install`/`uninstall` on client configs: the
//! scripted fixture server in every config format, and the four pinned real servers
//! (filesystem, memory, everything, time) launched from one config.

use crate::common;

use std::path::{Path, PathBuf};

use common::live::{fixture_server, installed, servers_dir, stepwise};
use common::{driftlab, stderr, stdout};
use serde_json::{json, Value};

pub(crate) const TOOLS: &str = r#"{"tools": [
  {"name": "search", "description": "Search the notes", "inputSchema": {"type": "object",
   "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["query"]}},
  {"name": "fetch", "description": "Fetch a note", "inputSchema": {"type": "object",
   "properties": {"id": {"type": "string"}}, "required": ["id"]}}
]}"#;

/// A temporary folder holding the fixture's payload, `tools.json` ([`TOOLS`]), and its path.
pub(crate) fn tools_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let payload = dir.path().join("tools.json");
    std::fs::write(&payload, TOOLS).unwrap();
    (dir, payload)
}

/// The names of a lockfile's servers, in its order.
pub(crate) fn locked_names(lock: &Value) -> Vec<&str> {
    lock["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect()
}

pub(crate) fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    driftlab()
        .current_dir(dir)
        .args(args)
        .env("GITHUB_WORKSPACE", dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_OUTPUT")
        .output()
        .unwrap()
}

/// `driftlab guard install --config CONFIG --lock mcp.lock` in `dir`.
fn guard_install(dir: &Path, config: &str) -> std::process::Output {
    run_in(
        dir,
        &["guard", "install", "--config", config, "--lock", "mcp.lock"],
    )
}

pub(crate) fn code(output: &std::process::Output) -> i32 {
    output.status.code().unwrap_or(-1)
}

/// A client session through the server a config entry starts: initialize, tools/list, one call.
pub(crate) fn session_through(command: &str, args: &[String], call: &Value) -> Vec<Value> {
    let lines = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "lock-test", "version": "1"}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string(),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call}).to_string(),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (out, _, err) = stepwise(command, args, &lines);
    let answers: Vec<Value> = out
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m.get("id").is_some())
        .collect();
    assert_eq!(answers.len(), 3, "{out:?}\n{err}");
    answers
}

/// A config in `layout` with one fixture server `notes` serving `payload`.
fn config_text(layout: &str, argv: &[String]) -> String {
    let (command, args) = argv.split_first().unwrap();
    let args = serde_json::to_string(args).unwrap();
    let command = serde_json::to_string(command).unwrap();
    match layout {
        "claude-desktop" => format!(
            "{{\n  \"mcpServers\": {{\n    \"notes\": {{\n      \"command\": {command},\n      \"args\": {args}\n    }},\n    \"web\": {{ \"url\": \"${{DRIFTLAB_TEST_UNSET_URL}}/mcp\" }}\n  }}\n}}\n"
        ),
        "cursor" => format!(
            "{{\n  // the notes server\n  \"mcpServers\": {{\n    \"notes\": {{ \"command\": {command}, \"args\": {args}, }},\n  }},\n}}\n"
        ),
        "vscode" => format!(
            "{{\n  \"inputs\": [{{\"type\": \"promptString\", \"id\": \"key\"}}],\n  \"servers\": {{\n    /* stdio */\n    \"notes\": {{\"type\": \"stdio\", \"command\": {command}, \"args\": {args}}},\n    \"gh\": {{\"type\": \"http\", \"url\": \"https://x/mcp\", \"headers\": {{\"K\": \"${{input:key}}\"}}}}\n  }}\n}}\n"
        ),
        "gemini" => format!(
            "{{\n  \"theme\": \"Default\",\n  \"mcpServers\": {{ \"notes\": {{ \"command\": {command}, \"args\": {args}, \"timeout\": 30000 }} }}\n}}\n"
        ),
        "codex" => format!(
            "model = \"o4-mini\"\n\n# the notes server\n[mcp_servers.notes]\ncommand = {command}\nargs = {args}\n"
        ),
        other => panic!("{other}"),
    }
}

fn config_path(dir: &Path, layout: &str) -> PathBuf {
    let relative = match layout {
        "claude-desktop" => "claude_desktop_config.json",
        "cursor" => ".cursor/mcp.json",
        "vscode" => ".vscode/mcp.json",
        "gemini" => ".gemini/settings.json",
        "codex" => ".codex/config.toml",
        other => panic!("{other}"),
    };
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    path
}

/// In every format: lock, check (pass), change the server's tools (drift naming it), install
/// the guard, talk through the rewritten entry, uninstall (byte for byte).
#[test]
fn every_config_format_locks_checks_guards_and_restores() {
    for layout in ["claude-desktop", "cursor", "vscode", "gemini", "codex"] {
        let (dir, payload) = tools_dir();
        let argv = vec![
            fixture_server().display().to_string(),
            payload.display().to_string(),
        ];
        let config = config_path(dir.path(), layout);
        let original = config_text(layout, &argv);
        std::fs::write(&config, &original).unwrap();
        let config_arg = config.display().to_string();

        let locked = run_in(dir.path(), &["lock", "--config", &config_arg, "--yes"]);
        assert_eq!(code(&locked), 0, "{layout}: {}", stderr(&locked));
        let first = std::fs::read(dir.path().join("mcp.lock")).unwrap();
        let again = run_in(dir.path(), &["lock", "--config", &config_arg, "--yes"]);
        assert_eq!(code(&again), 0, "{layout}: {}", stderr(&again));
        let second = std::fs::read(dir.path().join("mcp.lock")).unwrap();
        assert!(first == second, "{layout}: locking twice gave other bytes");
        let lock: Value = common::read_json(&dir.path().join("mcp.lock"));
        let notes = lock["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == "notes")
            .unwrap_or_else(|| panic!("{layout}: {lock}"));
        assert_eq!(notes["launch"]["command"], json!(argv), "{layout}");
        assert_eq!(notes["contract"]["tools"][1]["name"], "fetch", "{layout}");
        assert!(notes["digests"]["tools"][0]["inputSchema"]
            .as_str()
            .unwrap()
            .starts_with("sha256:"));
        if layout == "vscode" {
            let gh = &lock["servers"][1];
            assert!(
                gh["skipped"].as_str().unwrap().contains("${input:key}"),
                "{gh}"
            );
        }

        let check = run_in(dir.path(), &["check", "--lock", "mcp.lock", "--yes"]);
        assert_eq!(
            code(&check),
            0,
            "{layout}: {}{}",
            stdout(&check),
            stderr(&check)
        );

        std::fs::write(
            &payload,
            TOOLS.replace(
                "\"limit\": {\"type\": \"integer\"}",
                "\"limit\": {\"type\": \"string\"}",
            ),
        )
        .unwrap();
        let drift = run_in(
            dir.path(),
            &["check", "--lock", "mcp.lock", "--yes", "--format", "json"],
        );
        assert_eq!(code(&drift), 1, "{layout}: {}", stderr(&drift));
        let report: Value = serde_json::from_slice(&drift.stdout).unwrap();
        let server = &report["servers"][0];
        assert_eq!(
            (server["name"].as_str(), server["status"].as_str()),
            (Some("notes"), Some("drift"))
        );
        assert_eq!(
            common::finding_rules(&server["report"]),
            ["type-changed"],
            "{layout}"
        );
        std::fs::write(&payload, TOOLS).unwrap();

        let install = guard_install(dir.path(), &config_arg);
        assert_eq!(code(&install), 0, "{layout}: {}", stderr(&install));
        let rewritten = std::fs::read_to_string(&config).unwrap();
        assert_ne!(rewritten, original);
        // Only the notes server's command and args changed: the rest is byte for byte.
        for kept in [
            "model = \"o4-mini\"",
            "// the notes server",
            "/* stdio */",
            "\"theme\": \"Default\"",
            "\"timeout\": 30000",
            "127.0.0.1:9",
        ] {
            assert_eq!(
                original.contains(kept),
                rewritten.contains(kept),
                "{layout}: {kept}"
            );
        }
        let entry = guarded_entry(&config, layout);
        let answers = session_through(
            &entry[0],
            &entry[1..],
            &json!({"name": "search", "arguments": {"query": "x", "bogus": 1}}),
        );
        assert_eq!(answers[1]["result"]["tools"].as_array().unwrap().len(), 2);
        let refusal = answers[2]["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            refusal.contains("driftlab guard refused") && refusal.contains("bogus"),
            "{layout}: {answers:?}"
        );

        let again = guard_install(dir.path(), &config_arg);
        assert_eq!(code(&again), 2, "{layout}: installing twice is refused");
        let uninstall = run_in(dir.path(), &["guard", "uninstall", "--config", &config_arg]);
        assert_eq!(code(&uninstall), 0, "{layout}: {}", stderr(&uninstall));
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            original,
            "{layout}"
        );
        assert!(!dir
            .path()
            .join(format!("{}.driftlab-backup", config.display()))
            .exists());
    }
}

/// A folder with the fixture server `notes` (serving `tools.json`) in a Claude Desktop config,
/// locked: the folder, the payload the server serves, and the config's path.
fn locked_notes() -> (tempfile::TempDir, PathBuf, String) {
    let (dir, payload) = tools_dir();
    let argv = vec![
        fixture_server().display().to_string(),
        payload.display().to_string(),
    ];
    let config = config_path(dir.path(), "claude-desktop");
    std::fs::write(&config, config_text("claude-desktop", &argv)).unwrap();
    let config_arg = config.display().to_string();
    let locked = run_in(dir.path(), &["lock", "--config", &config_arg, "--yes"]);
    assert_eq!(code(&locked), 0, "{}", stderr(&locked));
    (dir, payload, config_arg)
}

/// Issue 49: a server that starts listing a tool whose parameter is a chain of 5,000 local
/// `$ref`s (a 5,000-deep recursion once) gets a verdict from `check --lock`, not a crash; so does
/// locking it.
#[test]
fn a_ref_chain_too_deep_to_follow_gets_a_verdict_from_check_lock() {
    let (dir, payload, config_arg) = locked_notes();

    let chain = common::ref_chain_payload("search", "query");
    std::fs::write(&payload, chain.to_string()).unwrap();
    let check = run_in(dir.path(), &["check", "--lock", "mcp.lock", "--yes"]);
    let text = format!("{}{}", stdout(&check), stderr(&check));
    assert_eq!(code(&check), 1, "{text}");
    assert!(text.contains("nest more than 128 deep"), "{text}");
    let relocked = run_in(dir.path(), &["lock", "--config", &config_arg, "--yes"]);
    assert!(matches!(code(&relocked), 0..=2), "{}", stderr(&relocked));
}

/// Issue 50: a server named `-h` still starts behind the guard (its name is one word,
/// `--server=-h`), and the backup `guard install` keeps of a 0600 config, which holds the
/// config's tokens, is 0600 too.
#[cfg(unix)]
#[test]
fn guard_install_keeps_a_dash_name_a_name_and_the_backup_as_private_as_the_config() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, payload) = tools_dir();
    let fixture = fixture_server().display().to_string();
    let config = dir.path().join("claude_desktop_config.json");
    let text = json!({"mcpServers": {"-h": {"command": fixture, "args": [payload],
        "env": {"NOTES_TOKEN": "secret-token-123"}}}});
    std::fs::write(&config, serde_json::to_string_pretty(&text).unwrap()).unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    let config_arg = config.display().to_string();
    let locked = run_in(dir.path(), &["lock", "--config", &config_arg, "--yes"]);
    assert_eq!(code(&locked), 0, "{}", stderr(&locked));
    let installed = guard_install(dir.path(), &config_arg);
    assert_eq!(code(&installed), 0, "{}", stderr(&installed));

    let backup = dir
        .path()
        .join("claude_desktop_config.json.driftlab-backup");
    assert!(std::fs::read_to_string(&backup)
        .unwrap()
        .contains("secret-token-123"));
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode(&config), mode(&backup)), (0o600, 0o600));

    let entry = &common::read_json(&config)["mcpServers"]["-h"];
    let args: Vec<String> = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    assert!(args.contains(&"--server=-h".to_string()), "{args:?}");
    let call = json!({"name": "search", "arguments": {"query": "x"}});
    let answers = session_through(entry["command"].as_str().unwrap(), &args, &call);
    assert!(answers[1]["result"]["tools"].is_array(), "{answers:?}");
}

/// Issue 50: the digests are the pin; a lockfile whose digests were edited (all zeros) or whose
/// digest algorithm is another is refused with the reason, not passed.
#[test]
fn a_lockfile_whose_digests_were_edited_is_refused() {
    let (dir, _, _) = locked_notes();
    let lock_path = dir.path().join("mcp.lock");
    let lock: Value = common::read_json(&lock_path);

    fn zeroed(value: &mut Value) {
        match value {
            Value::String(s) if s.starts_with("sha256:") => {
                *s = format!("sha256:{}", "0".repeat(64))
            }
            Value::Object(m) => m.values_mut().for_each(zeroed),
            Value::Array(a) => a.iter_mut().for_each(zeroed),
            _ => {}
        }
    }
    let mut edited = lock.clone();
    for server in edited["servers"].as_array_mut().unwrap() {
        zeroed(&mut server["digests"]);
    }
    assert_ne!(edited, lock);
    std::fs::write(&lock_path, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
    let check = run_in(dir.path(), &["check", "--lock", "mcp.lock", "--yes"]);
    assert_eq!(code(&check), 2, "{}", stdout(&check));
    assert!(
        stderr(&check).contains("digests do not match"),
        "{}",
        stderr(&check)
    );

    let mut other = lock.clone();
    other["digestAlgorithm"] = json!("md5");
    std::fs::write(&lock_path, serde_json::to_string_pretty(&other).unwrap()).unwrap();
    let check = run_in(dir.path(), &["check", "--lock", "mcp.lock", "--yes"]);
    assert_eq!(code(&check), 2, "{}", stdout(&check));
    assert!(
        stderr(&check).contains("another algorithm"),
        "{}",
        stderr(&check)
    );

    // The lockfile as written still passes.
    std::fs::write(&lock_path, serde_json::to_string_pretty(&lock).unwrap()).unwrap();
    let check = run_in(dir.path(), &["check", "--lock", "mcp.lock", "--yes"]);
    assert_eq!(code(&check), 0, "{}{}", stdout(&check), stderr(&check));
}

/// Issue 50: a config kept as a symbolic link (`.mcp.json -> dotfiles/mcp.json`) stays a link
/// through `guard install` and `uninstall`; the file it points to is rewritten and restored.
#[cfg(unix)]
#[test]
fn guard_install_and_uninstall_write_through_a_symlinked_config() {
    let (dir, payload) = tools_dir();
    let argv = vec![
        fixture_server().display().to_string(),
        payload.display().to_string(),
    ];
    std::fs::create_dir(dir.path().join("dotfiles")).unwrap();
    let target = dir.path().join("dotfiles/claude_desktop_config.json");
    let original = config_text("claude-desktop", &argv);
    std::fs::write(&target, &original).unwrap();
    let link = dir.path().join("claude_desktop_config.json");
    std::os::unix::fs::symlink("dotfiles/claude_desktop_config.json", &link).unwrap();
    let link_arg = link.display().to_string();
    let locked = run_in(dir.path(), &["lock", "--config", &link_arg, "--yes"]);
    assert_eq!(code(&locked), 0, "{}", stderr(&locked));

    let installed = guard_install(dir.path(), &link_arg);
    assert_eq!(code(&installed), 0, "{}", stderr(&installed));
    let is_link = || {
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    };
    assert!(is_link(), "install replaced the link with a file");
    assert!(std::fs::read_to_string(&target).unwrap().contains("guard"));

    let uninstalled = run_in(dir.path(), &["guard", "uninstall", "--config", &link_arg]);
    assert_eq!(code(&uninstalled), 0, "{}", stderr(&uninstalled));
    assert!(is_link(), "uninstall replaced the link with a file");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), original);
}

/// Issue 50: what `lock` prints (the consent list, each failure) shows argv words and URLs as
/// the config writes them: a `${VAR}` they expand to may be a secret, and CI logs keep stderr.
#[test]
fn lock_never_prints_what_a_configs_variables_expand_to() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("claude_desktop_config.json");
    let text = json!({"mcpServers": {
        // The fixture refuses the extra argument, so its failure is printed too.
        "notes": {"command": fixture_server(), "args": ["tools.json", "--token", "${DRIFTLAB_TEST_SECRET}"]},
        "web": {"url": "http://127.0.0.1:9/mcp?api_key=${DRIFTLAB_TEST_KEY}"}
    }});
    std::fs::write(&config, text.to_string()).unwrap();
    std::fs::write(dir.path().join("tools.json"), TOOLS).unwrap();
    let output = driftlab()
        .current_dir(dir.path())
        .args(["lock", "--config", config.to_str().unwrap(), "--yes"])
        .env("DRIFTLAB_TEST_SECRET", "s3cr3t-value")
        .env("DRIFTLAB_TEST_KEY", "k3y-value")
        .output()
        .unwrap();
    let err = stderr(&output);
    assert_eq!(code(&output), 2, "{err}");
    assert!(
        !err.contains("s3cr3t-value") && !err.contains("k3y-value"),
        "{err}"
    );
    assert!(err.contains("--token '${DRIFTLAB_TEST_SECRET}'"), "{err}");
    assert!(
        err.contains("api_key=${DRIFTLAB_TEST_KEY}: "),
        "a failure names the URL: {err}"
    );
}

/// The argv the rewritten config starts the `notes` server with.
fn guarded_entry(config: &Path, layout: &str) -> Vec<String> {
    let text = std::fs::read_to_string(config).unwrap();
    let entry: Value = if layout == "codex" {
        let table: toml::Table = toml::from_str(&text).unwrap();
        serde_json::to_value(&table["mcp_servers"]["notes"]).unwrap()
    } else {
        let blanked: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//") && !l.trim_start().starts_with("/*"))
            .collect::<Vec<_>>()
            .join("\n")
            .replace(", }", " }")
            .replace(",\n}", "\n}")
            .replace(",\n  }", "\n  }");
        let root: Value =
            serde_json::from_str(&blanked).unwrap_or_else(|e| panic!("{e}: {blanked}"));
        root.get("mcpServers").or(root.get("servers")).unwrap()["notes"].clone()
    };
    let mut argv = vec![entry["command"].as_str().unwrap().to_string()];
    argv.extend(
        entry["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string()),
    );
    assert_eq!(
        argv[1..4],
        ["guard".to_string(), "--lock".into(), argv[3].clone()]
    );
    argv
}

#[test]
fn running_a_configs_servers_needs_consent_and_names_what_runs() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let config = dir.path().join("claude_desktop_config.json");
    let touch =
        json!({"mcpServers": {"x": {"command": "touch", "args": [marker.display().to_string()]}}});
    std::fs::write(&config, touch.to_string()).unwrap();
    let config_arg = config.display().to_string();
    // No terminal, no --yes: nothing runs.
    let out = driftlab()
        .current_dir(dir.path())
        .args(["lock", "--config", &config_arg])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains(&format!("x: touch {}", marker.display())),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("--yes"));
    assert!(!marker.exists() && !dir.path().join("mcp.lock").exists());
    // An unknown --server names those the config has.
    let out = run_in(
        dir.path(),
        &["lock", "--config", &config_arg, "--server", "nope", "--yes"],
    );
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("(it has: x)"), "{}", stderr(&out));
    // A server that fails to start writes no lock.
    let out = run_in(dir.path(), &["lock", "--config", &config_arg, "--yes"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing was written"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("mcp.lock").exists());
}

/// The issue's "done when": four real servers and the fixture from one config.
#[test]
fn four_real_servers_lock_check_drift_update_guard_and_restore() {
    let node = |package: &str| {
        servers_dir()
            .join("node_modules/@modelcontextprotocol")
            .join(package)
            .join("dist/index.js")
    };
    let time = servers_dir().join(".venv/bin/mcp-server-time");
    let (fs, memory, everything) = (
        node("server-filesystem"),
        node("server-memory"),
        node("server-everything"),
    );
    if ![&fs, &memory, &everything, &time]
        .into_iter()
        .all(|p| installed(p))
    {
        return;
    }
    let (dir, payload) = tools_dir();
    let d = dir.path().display().to_string();
    let config = dir.path().join(".mcp.json");
    let text = serde_json::to_string_pretty(&json!({"mcpServers": {
        "filesystem": {"command": "node", "args": [fs.display().to_string(), d]},
        "memory": {"command": "node", "args": [memory.display().to_string()],
                   "env": {"MEMORY_FILE_PATH": format!("{d}/memory.jsonl")}},
        "everything": {"command": "node", "args": [everything.display().to_string(), "stdio"]},
        "time": {"command": time.display().to_string(), "args": ["--local-timezone=${TZ_NAME:-UTC}"]},
        "notes": {"command": fixture_server().display().to_string(), "args": [payload.display().to_string()]},
    }}))
    .unwrap();
    std::fs::write(&config, &text).unwrap();
    let config_arg = config.display().to_string();

    let locked = run_in(dir.path(), &["lock", "--config", &config_arg, "--yes"]);
    assert_eq!(code(&locked), 0, "{}", stderr(&locked));
    let lock_text = std::fs::read_to_string(dir.path().join("mcp.lock")).unwrap();
    let lock: Value = serde_json::from_str(&lock_text).unwrap();
    let entry = |name: &str| {
        lock["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(
        entry("memory")["package"]["name"],
        "@modelcontextprotocol/server-memory"
    );
    assert_eq!(entry("time")["package"]["name"], "mcp-server-time");
    assert_eq!(
        entry("time")["launch"]["command"][1],
        "--local-timezone=${TZ_NAME:-UTC}",
        "written, not expanded"
    );
    assert_eq!(
        entry("everything")["contract"]["tools"]
            .as_array()
            .unwrap()
            .len(),
        13
    );

    let pass = run_in(dir.path(), &["check", "--lock", "mcp.lock", "--yes"]);
    assert_eq!(code(&pass), 0, "{}{}", stdout(&pass), stderr(&pass));
    assert!(
        stdout(&pass).contains("5 server(s): 5 pass"),
        "{}",
        stdout(&pass)
    );

    // One server's tools change, another's launch: both named, one SARIF run per server.
    std::fs::write(
        &payload,
        TOOLS.replace(
            ",\n  {\"name\": \"fetch\"",
            ",\n  {\"name\": \"fetch_note\"",
        ),
    )
    .unwrap();
    std::fs::write(&config, text.replace("${TZ_NAME:-UTC}", "Europe/Paris")).unwrap();
    let drift = run_in(
        dir.path(),
        &["check", "--lock", "mcp.lock", "--yes", "--format", "sarif"],
    );
    assert_eq!(code(&drift), 1, "{}", stderr(&drift));
    let sarif: Value = serde_json::from_slice(&drift.stdout).unwrap();
    let runs = sarif["runs"].as_array().unwrap();
    let ids: Vec<&str> = runs
        .iter()
        .map(|r| r["automationDetails"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "driftlab/filesystem/",
            "driftlab/memory/",
            "driftlab/everything/",
            "driftlab/time/",
            "driftlab/notes/"
        ]
    );
    let results = |i: usize| -> Vec<(String, u64)> {
        runs[i]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let location = &r["locations"][0]["physicalLocation"];
                assert_eq!(location["artifactLocation"]["uri"], "mcp.lock");
                (
                    r["ruleId"].as_str().unwrap().to_string(),
                    location["region"]["startLine"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert!(results(0).is_empty() && results(1).is_empty() && results(2).is_empty());
    let line_of =
        |needle: &str| lock_text.lines().position(|l| l.contains(needle)).unwrap() as u64 + 1;
    // The time server names its timezone in its parameter descriptions: they change too.
    let time_results = results(3);
    assert_eq!(time_results[0].0, "launch-changed", "{time_results:?}");
    assert!(
        time_results[1..]
            .iter()
            .all(|r| r.0 == "parameter-description-changed"),
        "{time_results:?}"
    );
    let time_start = line_of("\"name\": \"time\"");
    let launch_line = lock_text
        .lines()
        .enumerate()
        .skip(time_start as usize)
        .find(|(_, l)| l.contains("\"launch\""))
        .unwrap()
        .0 as u64
        + 1;
    assert_eq!(time_results[0].1, launch_line);
    let notes_results = results(4);
    assert_eq!(
        notes_results
            .iter()
            .map(|r| r.0.as_str())
            .collect::<Vec<_>>(),
        ["tool-renamed"]
    );
    // On the line of the renamed tool inside the notes entry of the lockfile.
    let line_after = |from: usize, needle: &str| {
        let found = lock_text.lines().enumerate().skip(from);
        found
            .filter(|(_, l)| l.contains(needle))
            .map(|(i, _)| i + 1)
            .next()
            .unwrap()
    };
    let contract = line_after(line_of("\"name\": \"notes\"") as usize, "\"contract\": {");
    let fetch_line = line_after(contract, "\"name\": \"fetch\"") as u64;
    assert_eq!(notes_results[0].1, fetch_line);

    // Re-recording one server leaves the others byte for byte; the lock passes again.
    std::fs::write(&config, &text).unwrap();
    let update = run_in(dir.path(), &["lock", "--update", "notes", "--yes"]);
    assert_eq!(code(&update), 0, "{}", stderr(&update));
    let updated = std::fs::read_to_string(dir.path().join("mcp.lock")).unwrap();
    let before_notes = |t: &str| t[..t.find("\"name\": \"notes\"").unwrap()].to_string();
    assert_eq!(before_notes(&updated), before_notes(&lock_text));
    assert!(updated.contains("\"fetch_note\""));
    let pass = run_in(
        dir.path(),
        &[
            "check", "--lock", "mcp.lock", "--yes", "--server", "notes", "--server", "time",
        ],
    );
    assert_eq!(code(&pass), 0, "{}{}", stdout(&pass), stderr(&pass));

    // Guard every server; a client session through the rewritten everything entry works.
    let install = guard_install(dir.path(), &config_arg);
    assert_eq!(code(&install), 0, "{}", stderr(&install));
    assert!(
        stderr(&install).contains("guarded 5 server(s)"),
        "{}",
        stderr(&install)
    );
    let rewritten: Value = common::read_json(&config);
    let everything_entry = &rewritten["mcpServers"]["everything"];
    let args: Vec<String> = everything_entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let answers = session_through(
        everything_entry["command"].as_str().unwrap(),
        &args,
        &json!({"name": "echo", "arguments": {"message": "through the guard"}}),
    );
    assert_eq!(answers[1]["result"]["tools"].as_array().unwrap().len(), 13);
    assert!(
        answers[2]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("through the guard"),
        "{answers:?}"
    );
    let uninstall = run_in(dir.path(), &["guard", "uninstall", "--config", &config_arg]);
    assert_eq!(code(&uninstall), 0, "{}", stderr(&uninstall));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), text);
}

#[test]
fn uninstall_refuses_a_config_edited_since_the_install() {
    let (dir, _, config_arg) = locked_notes();
    let config = PathBuf::from(&config_arg);
    let original = std::fs::read_to_string(&config).unwrap();
    assert_eq!(code(&guard_install(dir.path(), &config_arg)), 0);
    let edited = std::fs::read_to_string(&config)
        .unwrap()
        .replace("DRIFTLAB_TEST_UNSET_URL", "DRIFTLAB_TEST_UNSET");
    std::fs::write(&config, &edited).unwrap();
    let refused = run_in(dir.path(), &["guard", "uninstall", "--config", &config_arg]);
    assert_eq!(code(&refused), 2);
    assert!(stderr(&refused).contains("--force"), "{}", stderr(&refused));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), edited);
    let forced = run_in(
        dir.path(),
        &["guard", "uninstall", "--config", &config_arg, "--force"],
    );
    assert_eq!(code(&forced), 0);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
}

/// `lock` and `check --lock` start the servers `--jobs` at once: three fixture servers that
/// start only once all three are running (a barrier, no timing) lock with `--jobs 3`, while
/// `--jobs 1` cannot; the lockfile is the same bytes at any `--jobs`, servers in config order.
#[test]
fn servers_are_captured_at_once_and_the_lockfile_does_not_depend_on_it() {
    let (dir, payload) = tools_dir();
    let barrier = dir.path().join("barrier");
    std::fs::create_dir(&barrier).unwrap();
    let server = |name: &str| {
        (
            name.to_string(),
            json!({"command": fixture_server().display().to_string(), "args": [
                payload.display().to_string(), "--barrier", "3", "--barrier-secs", "4",
                "--barrier-dir", barrier.display().to_string()]}),
        )
    };
    let servers: serde_json::Map<String, Value> =
        ["zeta", "alpha", "mid"].into_iter().map(server).collect();
    let config = dir.path().join(".mcp.json");
    std::fs::write(&config, json!({ "mcpServers": servers }).to_string()).unwrap();
    let config = config.display().to_string();
    let lock_with = |jobs: &str, out: &str| {
        run_in(
            dir.path(),
            &[
                "lock", "--config", &config, "--yes", "--jobs", jobs, "-o", out,
            ],
        )
    };
    let three = lock_with("3", "three.lock");
    assert_eq!(code(&three), 0, "{}", stderr(&three));
    let eight = lock_with("8", "eight.lock");
    assert_eq!(code(&eight), 0, "{}", stderr(&eight));
    let read = |name: &str| std::fs::read(dir.path().join(name)).unwrap();
    assert_eq!(read("three.lock"), read("eight.lock"));
    let lock: Value = serde_json::from_slice(&read("three.lock")).unwrap();
    let names = locked_names(&lock);
    let err = stderr(&three);
    let said: Vec<usize> = names
        .iter()
        .map(|n| err.find(&format!("{n}: 2 tools")).unwrap())
        .collect();
    assert!(
        said.windows(2).all(|w| w[0] < w[1]),
        "notes out of config order: {err}"
    );
    // One at a time, the first server waits for the others in vain.
    let one = lock_with("1", "one.lock");
    assert_eq!(code(&one), 2, "{}", stderr(&one));
    assert!(!dir.path().join("one.lock").exists());
    let checked = run_in(
        dir.path(),
        &[
            "check",
            "--lock",
            "three.lock",
            "--config",
            &config,
            "--yes",
            "--jobs",
            "3",
        ],
    );
    assert_eq!(code(&checked), 0, "{}", stderr(&checked));
    let err = stderr(&checked);
    assert!(
        ["zeta", "alpha", "mid"]
            .iter()
            .all(|n| err.contains(&format!("{n}: captured in "))),
        "{err}"
    );
}

/// A waiver with `server = "NAME"` holds for that server of `check --lock` only; one without
/// it still holds for every server.
#[test]
fn a_waiver_scoped_to_a_server_waives_its_finding_there_only() {
    let (dir, payload) = tools_dir();
    let server = json!({"command": fixture_server().display().to_string(),
        "args": [payload.display().to_string()]});
    let config = dir.path().join(".mcp.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {"left": server, "right": server}}).to_string(),
    )
    .unwrap();
    let config = config.display().to_string();
    let locked = run_in(dir.path(), &["lock", "--config", &config, "--yes"]);
    assert_eq!(code(&locked), 0, "{}", stderr(&locked));
    // Both servers now drop the `fetch` tool: the same finding, the same fingerprint, twice.
    let tools: Value = serde_json::from_str(TOOLS).unwrap();
    let search_only = json!({"tools": [tools["tools"][0]]});
    std::fs::write(&payload, search_only.to_string()).unwrap();
    let check = |policy: &str| {
        std::fs::write(dir.path().join("policy.toml"), policy).unwrap();
        run_in(
            dir.path(),
            &[
                "check",
                "--lock",
                "mcp.lock",
                "--yes",
                "--policy",
                "policy.toml",
                "--format",
                "json",
            ],
        )
    };
    let drifted = check("");
    assert_eq!(code(&drifted), 1, "{}", stderr(&drifted));
    let report: Value = serde_json::from_slice(&drifted.stdout).unwrap();
    let fingerprint = report.to_string();
    let fingerprint = fingerprint
        .split("\"fingerprint\":\"")
        .nth(1)
        .and_then(|rest| rest.get(..16))
        .expect("a finding with a fingerprint")
        .to_string();
    let verdicts = |output: &std::process::Output| -> Vec<(String, String)> {
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        report["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let name = s["name"].as_str().unwrap().to_string();
                (
                    name,
                    s["report"]["verdict"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    let scoped = check(&format!(
        "[[accept]]\nfingerprint = \"{fingerprint}\"\nreason = \"left drops fetch on purpose\"\nserver = \"left\"\n"
    ));
    assert_eq!(code(&scoped), 1, "{}", stderr(&scoped));
    assert_eq!(
        verdicts(&scoped),
        [
            ("left".into(), "pass".into()),
            ("right".into(), "drift".into())
        ],
        "{}",
        String::from_utf8_lossy(&scoped.stdout)
    );
    let everywhere = check(&format!(
        "[[accept]]\nfingerprint = \"{fingerprint}\"\nreason = \"fetch is gone everywhere\"\n"
    ));
    assert_eq!(code(&everywhere), 0, "{}", stderr(&everywhere));
}

/// A server swapped in place (same command, same package and version, same contract, other code)
/// fails `check --lock` with `artifact-changed`: the lock records the digest of the installed
/// package's files.
#[test]
fn a_server_swapped_in_place_under_the_same_version_is_an_artifact_change() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, payload) = tools_dir();
    let package = dir.path().join("node_modules/@acme/notes");
    std::fs::create_dir_all(package.join("bin")).unwrap();
    std::fs::write(
        package.join("package.json"),
        r#"{"name": "@acme/notes", "version": "1.0.0"}"#,
    )
    .unwrap();
    let program = package.join("bin/notes");
    let script = format!(
        "#!/bin/sh\nexec {} {} \"$@\"\n",
        fixture_server().display(),
        payload.display()
    );
    std::fs::write(&program, &script).unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = dir.path().join(".mcp.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {"notes": {"command": program.display().to_string()}}}).to_string(),
    )
    .unwrap();
    let config = config.display().to_string();
    let locked = run_in(dir.path(), &["lock", "--config", &config, "--yes"]);
    assert_eq!(code(&locked), 0, "{}", stderr(&locked));
    let lock: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("mcp.lock")).unwrap())
            .unwrap();
    let entry = &lock["servers"][0];
    assert_eq!(entry["package"]["version"], "1.0.0");
    assert_eq!(entry["artifact"]["kind"], "npm-closure", "{entry}");
    let check = || run_in(dir.path(), &["check", "--lock", "mcp.lock", "--yes"]);
    let same = check();
    assert_eq!(code(&same), 0, "{}{}", stdout(&same), stderr(&same));
    // The same version, edited where it is installed: the contract does not change.
    std::fs::write(&program, format!("{script}# patched in place\n")).unwrap();
    let swapped = check();
    assert_eq!(
        code(&swapped),
        1,
        "{}{}",
        stdout(&swapped),
        stderr(&swapped)
    );
    let out = stdout(&swapped);
    assert!(out.contains("artifact-changed"), "{out}");
    assert!(
        !out.contains("tool-removed") && !out.contains("launch-changed"),
        "{out}"
    );
}

/// The folder below the home folder where this OS keeps applications' settings (`@/` in
/// `driftlab clients`).
pub(crate) const APP_SETTINGS: &str = if cfg!(target_os = "macos") {
    "Library/Application Support"
} else {
    ".config"
};

/// What `driftlab configs` lists (stdout, stderr) for a fake home and project; it must pass.
pub(crate) fn configs_in(home: &Path, project: &Path) -> (String, String) {
    let home = home.to_str().unwrap();
    let listed = run_in(project, &["configs", "--home", home, "--project", "."]);
    assert_eq!(code(&listed), 0, "{}", stderr(&listed));
    (stdout(&listed), stderr(&listed))
}

/// `driftlab configs` finds each client's config where that client keeps it, in a fake home and
/// project folder (nothing reads the real home), names each one's servers, and says why a file
/// it cannot read was skipped.
#[test]
fn configs_lists_every_clients_config_in_a_fake_home_and_project() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let stdio = |name: &str| json!({ name: {"command": "node", "args": ["s.js"]} });
    let files: Vec<(PathBuf, String)> = vec![
        (
            home.path()
                .join(APP_SETTINGS)
                .join("Claude/claude_desktop_config.json"),
            json!({ "mcpServers": stdio("desktop") }).to_string(),
        ),
        (
            home.path().join(".claude.json"),
            json!({"mcpServers": stdio("code"),
                   "projects": {"/x": {"mcpServers": stdio("nested")}}})
            .to_string(),
        ),
        (home.path().join(".cursor/mcp.json"), "{broken".into()),
        (
            home.path().join(APP_SETTINGS).join("Code/User/mcp.json"),
            json!({"servers": {"vs": {"type": "stdio", "command": "node"}}}).to_string(),
        ),
        (
            home.path().join(".codeium/windsurf/mcp_config.json"),
            json!({ "mcpServers": stdio("surf") }).to_string(),
        ),
        (
            home.path().join(".gemini/settings.json"),
            json!({ "mcpServers": stdio("gem") }).to_string(),
        ),
        (
            home.path().join(".codex/config.toml"),
            "[mcp_servers.cx]\ncommand = \"node\"\n".into(),
        ),
        (
            project.path().join(".mcp.json"),
            json!({ "mcpServers": stdio("proj") }).to_string(),
        ),
        (
            project.path().join(".vscode/mcp.json"),
            json!({"servers": {"pvs": {"command": "node"}}}).to_string(),
        ),
    ];
    for (path, text) in &files {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let (out, err) = configs_in(home.path(), project.path());
    for (client, scope, server) in [
        ("claude-desktop", "user", "desktop"),
        ("claude-code", "user", "code"),
        ("vscode", "user", "vs"),
        ("windsurf", "user", "surf"),
        ("gemini", "user", "gem"),
        ("codex", "user", "cx"),
        ("claude-code", "project", "proj"),
        ("vscode", "project", "pvs"),
    ] {
        let line = out
            .lines()
            .find(|l| {
                l.starts_with(client) && l.contains(scope) && l.contains(&format!(": {server}"))
            })
            .unwrap_or_else(|| panic!("no {client} {scope} config with {server}: {out}"));
        assert!(line.contains("1 server(s)"), "{line}");
    }
    assert!(out.contains("1 other project(s) under `projects`"), "{out}");
    let cursor = out.lines().find(|l| l.starts_with("cursor")).unwrap();
    assert!(
        cursor.contains("skipped:") && cursor.contains("mcp.json"),
        "{cursor}"
    );
    assert_eq!(out.lines().count(), files.len(), "{out}");
    assert!(err.contains("9 config(s) found"), "{err}");
}
