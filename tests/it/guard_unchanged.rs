//! A guard in front of the very server it was pinned from admits every call and records no
//! drift (issue 71): for each way to pin (a whole `snapshot`, `snapshot --scope tools`, a `lock`
//! entry), both refuse scopes, and both protocol eras (the handshake era on the real time and
//! memory servers, 2026-07-28 on the notes server). The guard lists tools only, so it compares
//! tools only.

use std::path::Path;

use serde_json::{json, Value};

use super::guard::{audit_events, INIT, INITIALIZED, PING};
use super::protocol_era::notes_server;
use crate::common::live::{installed, servers_dir, stepwise};
use crate::common::*;

/// The guard flags of each way to pin `argv`, made in `dir`.
fn pins(dir: &Path, argv: &[String]) -> Vec<(&'static str, Vec<String>)> {
    let snapshot = |name: &str, scope: &[&str]| {
        let path = dir.join(name);
        let output = driftlab()
            .arg("snapshot")
            .args(scope)
            .arg("-o")
            .arg(&path)
            .arg("--")
            .args(argv)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        vec!["--approved".to_string(), path.display().to_string()]
    };
    let config = dir.join(".mcp.json");
    let entry = json!({"mcpServers": {"pinned": {"command": argv[0], "args": argv[1..]}}});
    std::fs::write(&config, entry.to_string()).unwrap();
    let locked = run_in(
        dir,
        &["lock", "--config", config.to_str().unwrap(), "--yes"],
        None,
    );
    assert!(locked.status.success(), "{}", stderr(&locked));
    vec![
        ("snapshot", snapshot("whole.json", &[])),
        (
            "snapshot --scope tools",
            snapshot("tools.json", &["--scope", "tools"]),
        ),
        (
            "lock entry",
            [
                "--lock",
                dir.join("mcp.lock").to_str().unwrap(),
                "--server",
                "pinned",
            ]
            .map(String::from)
            .to_vec(),
        ),
    ]
}

/// Runs a guard with `pin` and each refuse scope in front of `argv`, sends `lines`, and checks
/// that the call with id `call_id` was admitted (the server's own answer) and that the audit
/// log holds no drift.
fn admits_everything(argv: &[String], lines: &[&str], call_id: u32) {
    let dir = tempfile::tempdir().unwrap();
    for (source, pin) in pins(dir.path(), argv) {
        for scope in ["tool", "server"] {
            let audit = dir.path().join(format!("audit-{scope}.jsonl"));
            let mut args = vec!["guard".to_string()];
            args.extend(pin.iter().cloned());
            args.extend(["--refuse-scope".into(), scope.into(), "--audit".into()]);
            args.push(audit.display().to_string());
            args.push("--".into());
            args.extend(argv.iter().cloned());
            let (out, code, err) = stepwise(env!("CARGO_BIN_EXE_driftlab"), &args, lines);
            let case = format!("{source}, --refuse-scope {scope}");
            assert_eq!(code, Some(0), "{case}: {err}");
            let answer: Value = out
                .iter()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .find(|v| v["id"] == call_id)
                .unwrap_or_else(|| panic!("{case}: no answer to the call: {out:?} {err}"));
            assert!(
                answer["result"].is_object() && answer["result"]["isError"] != true,
                "{case}: the call was not admitted: {answer}"
            );
            let events = audit_events(&audit);
            let listed: Vec<&Value> = events
                .iter()
                .filter(|e| e["event"] == "live-listed")
                .collect();
            assert!(!listed.is_empty(), "{case}: {events:?}");
            assert!(
                listed.iter().all(|e| e["breaking_tools"] == 0),
                "{case}: drift recorded for an unchanged server: {events:?}"
            );
            let drift: Vec<&Value> = events.iter().filter(|e| e["event"] == "pin-diff").collect();
            assert!(drift.is_empty(), "{case}: {drift:?}");
        }
    }
}

fn call(id: u32, tool: &str, arguments: &str) -> String {
    super::guard::call(id, tool, arguments)
}

#[test]
fn a_guard_before_the_unchanged_time_and_memory_servers_admits_every_call_and_records_no_drift() {
    let time = servers_dir().join(".venv/bin/mcp-server-time");
    let memory =
        servers_dir().join("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    if !installed(&time) || !installed(&memory) {
        return;
    }
    let get_time = call(3, "get_current_time", r#"{"timezone":"UTC"}"#);
    admits_everything(
        &[time.display().to_string(), "--local-timezone=UTC".into()],
        &[INIT, INITIALIZED, &get_time, PING],
        3,
    );
    let dir = tempfile::tempdir().unwrap();
    let read_graph = call(3, "read_graph", "{}");
    let memory_file = dir.path().join("memory.jsonl");
    // The memory server reads its file from the environment: `env` keeps the command one argv.
    admits_everything(
        &[
            "env".into(),
            format!("MEMORY_FILE_PATH={}", memory_file.display()),
            "node".into(),
            memory.display().to_string(),
        ],
        &[INIT, INITIALIZED, &read_graph, PING],
        3,
    );
}

#[test]
fn a_guard_before_an_unchanged_2026_server_admits_every_call_and_records_no_drift() {
    let Some(argv) = notes_server() else { return };
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let discover =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{meta}}}}}"#);
    let search = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{{meta},"name":"search","arguments":{{"query":"x"}}}}}}"#
    );
    admits_everything(&argv, &[&discover, &search], 2);
}

/// A tools/list payload of the time server's tools with `get_current_time` listed twice: a
/// drifted copy (its `timezone` now an integer) and the pinned copy, in the order `drifted_first`
/// says, on pages of two tools.
fn listed_twice(dir: &Path, drifted_first: bool) -> std::path::PathBuf {
    let pin = read_json(&super::guard::pin());
    let tools = pin["toolsList"]["tools"].as_array().unwrap().clone();
    let pinned = tools
        .iter()
        .find(|t| t["name"] == "get_current_time")
        .unwrap()
        .clone();
    let other = tools
        .iter()
        .find(|t| t["name"] == "convert_time")
        .unwrap()
        .clone();
    let mut drifted = pinned.clone();
    drifted["inputSchema"]["properties"]["timezone"]["type"] = json!("integer");
    let list = match drifted_first {
        true => vec![drifted, other, pinned],
        false => vec![pinned, other, drifted],
    };
    let path = dir.join(format!("twice-{drifted_first}.json"));
    std::fs::write(&path, json!({ "tools": list }).to_string()).unwrap();
    path
}

#[test]
fn a_tool_listed_twice_is_refused_in_either_page_order() {
    for drifted_first in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let served = listed_twice(dir.path(), drifted_first);
        let audit = dir.path().join("audit.jsonl");
        for scope in ["tool", "server"] {
            let args = super::guard::guard_fixture_args(
                &["--refuse-scope", scope],
                &served,
                &["--page-size", "2"],
                &audit,
            );
            let get_time = call(3, "get_current_time", r#"{"timezone":"UTC"}"#);
            let lines = [INIT, INITIALIZED, get_time.as_str(), PING];
            let (out, code, err) = stepwise(env!("CARGO_BIN_EXE_driftlab"), &args, &lines);
            assert_eq!(code, Some(0), "{err}");
            let out: Vec<Value> = out
                .iter()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect();
            let (rule, problems) = super::guard::refusal(&out, 3);
            let case = format!("drifted copy first: {drifted_first}, --refuse-scope {scope}");
            assert_eq!(rule, "contract-drift", "{case}: {problems:?}");
            assert!(
                problems.iter().any(|p| p.starts_with("tool-duplicated (")),
                "{case}: {problems:?}"
            );
        }
    }
}
