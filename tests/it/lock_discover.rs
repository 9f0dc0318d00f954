//! `driftlab lock --discover`: every client config in a fake home and project (nothing reads
//! the real home) locked into one lockfile, names qualified where two configs share one, and
//! `check --lock` and `guard install` on that lock.

use crate::common;
use crate::lock::{code, configs_in, locked_names, run_in, APP_SETTINGS, TOOLS};

use std::path::Path;

use common::live::fixture_server;
use common::{stderr, stdout};
use serde_json::{json, Value};

/// Writes `text` at `path`, making its folders.
fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn lock_discover_locks_every_clients_config_and_check_and_install_use_it() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let project_path = project.path().canonicalize().unwrap();
    let payload = home.path().join("tools.json");
    std::fs::write(&payload, TOOLS).unwrap();
    let fixture = fixture_server().display().to_string();
    let payload = payload.display().to_string();
    let stdio = |name: &str| json!({ name: {"command": fixture, "args": [payload]} });
    let h = home.path();
    let p = project.path();
    put(
        &h.join(APP_SETTINGS)
            .join("Claude/claude_desktop_config.json"),
        &json!({ "mcpServers": stdio("notes") }).to_string(),
    );
    put(
        &h.join(".claude.json"),
        &json!({"mcpServers": stdio("code"), "numStartups": 3, "projects": {
            project_path.display().to_string(): {"mcpServers": stdio("local")},
            "/elsewhere": {"mcpServers": stdio("not-this-project")}}})
        .to_string(),
    );
    put(
        &h.join(".cursor/mcp.json"),
        &json!({ "mcpServers": stdio("notes") }).to_string(),
    );
    put(
        &h.join(APP_SETTINGS).join("Code/User/mcp.json"),
        &json!({"servers": {"vs": {"type": "stdio", "command": fixture, "args": [payload]}}})
            .to_string(),
    );
    put(
        &h.join(".codeium/windsurf/mcp_config.json"),
        &json!({ "mcpServers": stdio("surf") }).to_string(),
    );
    put(
        &h.join(".gemini/settings.json"),
        &json!({ "mcpServers": stdio("gem") }).to_string(),
    );
    put(
        &h.join(".codex/config.toml"),
        &format!("[mcp_servers.cx]\ncommand = {fixture:?}\nargs = [{payload:?}]\n"),
    );
    put(
        &p.join(".mcp.json"),
        &json!({ "mcpServers": stdio("proj") }).to_string(),
    );
    put(
        &p.join(".cursor/mcp.json"),
        &json!({ "mcpServers": stdio("notes") }).to_string(),
    );
    let home_arg = h.display().to_string();
    let locked = run_in(
        p,
        &[
            "lock",
            "--discover",
            "--home",
            &home_arg,
            "--yes",
            "--jobs",
            "4",
        ],
    );
    assert_eq!(code(&locked), 0, "{}", stderr(&locked));
    assert!(
        stderr(&locked).contains("found codex user config"),
        "{}",
        stderr(&locked)
    );
    let lock: Value = common::read_json(&p.join("mcp.lock"));
    let names = locked_names(&lock);
    assert_eq!(
        names,
        [
            "claude-desktop/notes",
            "code",
            "local",
            "cursor-user/notes",
            "vs",
            "surf",
            "gem",
            "cx",
            "proj",
            "cursor-project/notes"
        ],
        "every client's config, in discovery order; only this project's Claude Code servers"
    );
    assert!(lock["servers"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["contract"]["tools"][1]["name"] == "fetch"));
    let configs = &lock["discovered"]["configs"];
    assert_eq!(configs.as_array().unwrap().len(), 9, "{configs}");
    assert_eq!(
        lock["discovered"]["project"],
        project_path.display().to_string()
    );
    assert!(lock.get("config").is_none());

    let check = run_in(p, &["check", "--lock", "mcp.lock", "--yes"]);
    assert_eq!(code(&check), 0, "{}{}", stdout(&check), stderr(&check));
    // A server added to one config is a new server of the discovered set.
    put(
        &h.join(".gemini/settings.json"),
        &json!({ "mcpServers": {"gem": stdio("gem")["gem"], "extra": stdio("x")["x"]} })
            .to_string(),
    );
    let unlocked = run_in(p, &["check", "--lock", "mcp.lock", "--yes"]);
    assert_eq!(code(&unlocked), 1, "{}", stdout(&unlocked));
    assert!(stdout(&unlocked).contains("extra"), "{}", stdout(&unlocked));
    let with_config = run_in(
        p,
        &[
            "check",
            "--lock",
            "mcp.lock",
            "--config",
            ".mcp.json",
            "--yes",
        ],
    );
    assert_eq!(code(&with_config), 2);

    let cursor = p.join(".cursor/mcp.json").display().to_string();
    let install = run_in(
        p,
        &[
            "guard", "install", "--config", &cursor, "--lock", "mcp.lock",
        ],
    );
    assert_eq!(code(&install), 0, "{}", stderr(&install));
    let rewritten = std::fs::read_to_string(p.join(".cursor/mcp.json")).unwrap();
    assert!(
        rewritten.contains("--server=cursor-project/notes"),
        "the entry is pinned to its qualified lock name: {rewritten}"
    );
}

/// `driftlab clients` is the registry discovery reads: a config written at each listed user
/// and project path, laid out as the client's `servers` column says, is found by `configs` as
/// that client's, and every listed client is found.
#[test]
fn every_client_that_clients_lists_is_found_where_it_says() {
    let listed = run_in(Path::new("."), &["clients", "--format", "json"]);
    assert_eq!(code(&listed), 0, "{}", stderr(&listed));
    let clients: Vec<Value> = serde_json::from_str(&stdout(&listed)).unwrap();
    assert!(clients.len() >= 7, "{clients:?}");
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let mut expected = Vec::new();
    for client in &clients {
        let id = client["client"].as_str().unwrap();
        let servers = client["servers"].as_str().unwrap();
        let text = match servers {
            s if s.starts_with("`servers`") => json!({"servers": {id: {"command": "node"}}}),
            s if s.starts_with("`[mcp_servers") => {
                Value::from(format!("[mcp_servers.{id}]\ncommand = \"node\"\n"))
            }
            _ => json!({"mcpServers": {id: {"command": "node"}}}),
        };
        let text = text.as_str().map_or(text.to_string(), String::from);
        let user = client["user config"].as_str().unwrap();
        let user = match (user.strip_prefix("~/"), user.strip_prefix("@/")) {
            (Some(below_home), _) => home.path().join(below_home),
            (_, Some(below_app)) => home.path().join(APP_SETTINGS).join(below_app),
            _ => panic!("{id}: a user config below neither ~/ nor @/: {user}"),
        };
        put(&user, &text);
        expected.push((id.to_string(), "user"));
        if let Some(path) = client["project config"].as_str().filter(|p| *p != "–") {
            put(&project.path().join(path), &text);
            expected.push((id.to_string(), "project"));
        }
    }
    let (out, _) = configs_in(home.path(), project.path());
    for (id, scope) in &expected {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{id} ")) && l.contains(scope))
            .unwrap_or_else(|| panic!("no {id} {scope} config: {out}"));
        assert!(line.contains(&format!(": {id}")), "{line}");
    }
    assert_eq!(out.lines().count(), expected.len(), "{out}");
}
