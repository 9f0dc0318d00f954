//! `driftlab wrap`: byte-identical pass-through, each fault, each drift class seen by a real
//! client (`driftlab capture`), seeded replay, and the crash and hang-up paths.

use crate::common;

use std::time::{Duration, Instant};

use common::live::{fixture, gone_soon, installed, servers_dir, session};
use common::{read_json, repo, run, stderr};
use serde_json::Value;

const TIME: &str = "corpus/mcp-server-time@2026.10.19.json";
const RICH: &str = "corpus/@modelcontextprotocol__server-filesystem@2026.8.31.json";
const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
const CALL: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_current_time","arguments":{"timezone":"UTC"}}}"#;
const PING: &str = r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#;

fn wrap_args(flags: &[&str], server: Vec<String>) -> Vec<String> {
    let mut args: Vec<String> = vec!["wrap".into()];
    args.extend(flags.iter().map(|s| s.to_string()));
    args.push("--".into());
    args.extend(server);
    args
}

fn wrapped(flags: &[&str], fixture_flags: &[&str]) -> (Vec<String>, Option<i32>, String) {
    let args = wrap_args(
        flags,
        fixture(TIME, &[&["--calls", "accept"], fixture_flags].concat()),
    );
    session(
        env!("CARGO_BIN_EXE_driftlab"),
        &args,
        &[INIT, CALL, PING],
        "4",
    )
}

fn answer_to(lines: &[String], id: &str) -> Option<String> {
    let needle = format!("\"id\":{id}");
    lines.iter().find(|l| l.contains(&needle)).cloned()
}

#[test]
fn untouched_messages_pass_byte_for_byte() {
    let server = fixture(TIME, &["--calls", "accept", "--garbage"]);
    let (direct, _, _) = session(&server[0], &server[1..], &[INIT, CALL, PING], "4");
    let (proxied, code, _) = session(
        env!("CARGO_BIN_EXE_driftlab"),
        &wrap_args(&[], server),
        &[INIT, CALL, PING],
        "4",
    );
    assert_eq!(code, Some(0));
    assert_eq!(direct, proxied);
    assert_eq!(
        direct.len(),
        6,
        "three answers and three non-JSON log lines: {direct:?}"
    );
}

#[test]
fn untouched_messages_from_a_real_server_pass_byte_for_byte() {
    let entry =
        servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if !installed(&entry) {
        return;
    }
    let echo = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}"#;
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let server = vec!["node".to_string(), entry.display().to_string()];
    let lines = [
        INIT,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        list,
        echo,
        PING,
    ];
    let (direct, _, _) = session("node", &server[1..], &lines, "4");
    let (proxied, _, _) = session(
        env!("CARGO_BIN_EXE_driftlab"),
        &wrap_args(&[], server),
        &lines,
        "4",
    );
    assert!(direct.len() >= 4, "{direct:?}");
    assert_eq!(
        direct, proxied,
        "the proxied bytes differ from a direct connection"
    );
}

#[test]
fn each_fault_does_what_it_says() {
    let normal = answer_to(&wrapped(&[], &[]).0, "3").unwrap();
    assert!(normal.contains(r#""text":"ok""#), "{normal}");

    let (out, _, _) = wrapped(&["--faults", "timeout"], &[]);
    assert_eq!(answer_to(&out, "3"), None, "dropped: {out:?}");
    assert!(answer_to(&out, "4").is_some());

    let (out, _, _) = wrapped(&["--faults", "latency", "--latency-ms", "300"], &[]);
    let order: Vec<bool> = out.iter().map(|l| l.contains("\"id\":3")).collect();
    let (ping, call) = (
        out.iter().position(|l| l.contains("\"id\":4")),
        order.iter().position(|x| *x),
    );
    assert!(
        ping.is_some() && (call.is_none() || call > ping),
        "the call's answer comes after the ping's: {out:?}"
    );

    let (out, _, _) = wrapped(&["--faults", "truncate"], &[]);
    let cut = answer_to(&out, "3").unwrap();
    assert!(
        normal.starts_with(&cut) && cut.len() < normal.len(),
        "{cut}"
    );
    assert!(serde_json::from_str::<Value>(&cut).is_err());

    let (out, _, _) = wrapped(&["--faults", "corrupt"], &[]);
    let corrupted: Value = serde_json::from_str(&answer_to(&out, "3").unwrap()).unwrap();
    assert_eq!(
        corrupted["result"]["content"][0]["text"],
        driftlab_study::scan::corrupt::SENTINEL
    );

    let (out, _, _) = wrapped(&["--faults", "malformed"], &[]);
    assert!(serde_json::from_str::<Value>(&answer_to(&out, "3").unwrap()).is_err());

    for seed in ["1", "2", "3", "4"] {
        let (out, _, _) = wrapped(&["--faults", "error", "--seed", seed], &[]);
        let error: Value = serde_json::from_str(&answer_to(&out, "3").unwrap()).unwrap();
        assert!(
            error["error"]["code"] == -32603 || error["result"]["isError"] == true,
            "{error}"
        );
    }

    let (out, code, err) = wrapped(&["--faults", "crash"], &[]);
    assert_eq!(answer_to(&out, "3"), None);
    assert_eq!(code, Some(0));
    assert!(
        err.contains("the server ended (killed by signal 9)"),
        "{err}"
    );

    // Only the chosen methods are touched.
    let (out, _, _) = wrapped(&["--faults", "malformed", "--only", "ping"], &[]);
    assert_eq!(answer_to(&out, "3").unwrap(), normal);
    assert!(serde_json::from_str::<Value>(&answer_to(&out, "4").unwrap()).is_err());
}

#[test]
fn the_same_seed_replays_the_same_bytes() {
    let calls: Vec<String> = (10..40)
        .map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"x","arguments":{{}}}}}}"#))
        .collect();
    let mut lines: Vec<&str> = vec![INIT];
    lines.extend(calls.iter().map(String::as_str));
    lines.push(PING);
    let run_with = |seed: &str, log: &std::path::Path| {
        let args = wrap_args(
            &[
                "--faults",
                "truncate,corrupt,malformed,error,timeout",
                "-p",
                "0.5",
                "--seed",
                seed,
                "--log",
                log.to_str().unwrap(),
            ],
            fixture(TIME, &["--calls", "accept"]),
        );
        session(env!("CARGO_BIN_EXE_driftlab"), &args, &lines, "4").0
    };
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("c"),
    );
    let first = run_with("7", &a);
    assert_eq!(first, run_with("7", &b));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    let log = std::fs::read_to_string(&a).unwrap();
    let faults = log
        .lines()
        .filter(|l| l.contains("\"action\":\"fault\""))
        .count();
    assert!(
        (5..=25).contains(&faults),
        "about half of 30 responses: {faults}\n{log}"
    );
    assert_eq!(
        log.lines().count(),
        30,
        "one decision per response in scope"
    );
    assert_ne!(log, {
        run_with("8", &c);
        std::fs::read_to_string(&c).unwrap()
    });
}

#[test]
fn every_drift_class_reaches_a_real_client() {
    let dir = tempfile::tempdir().unwrap();
    let direct = dir.path().join("direct.json");
    let output = run(&[
        &["capture", "-o", direct.to_str().unwrap(), "--"][..],
        &fixture(RICH, &[])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    ]
    .concat());
    assert!(output.status.success(), "{}", stderr(&output));
    let direct_list = read_json(&direct)["capture"]["toolsListRawSha256"].clone();
    // wrap drifts tools/list: the classes of part `tools` (it refuses the others, tested above).
    for class in driftlab_mutate::mutate::REGISTRY
        .iter()
        .filter(|c| c.part() == "tools")
    {
        let out = dir.path().join(format!("{}.json", class.id()));
        let log = dir.path().join(format!("{}.jsonl", class.id()));
        let mut args = vec![
            "capture".to_string(),
            "-o".into(),
            out.display().to_string(),
            "--".into(),
            env!("CARGO_BIN_EXE_driftlab").into(),
        ];
        args.extend(wrap_args(
            &["--drift", class.id(), "--log", log.to_str().unwrap()],
            fixture(RICH, &[]),
        ));
        let output = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(
            output.status.success(),
            "{}: {}",
            class.id(),
            stderr(&output)
        );
        let log = std::fs::read_to_string(&log).unwrap();
        let changed = read_json(&out)["capture"]["toolsListRawSha256"] != direct_list;
        if class.id() == "identity" {
            assert!(!changed, "the control changes nothing");
        } else if log.contains("drift-not-applicable") {
            assert!(!changed, "{}: not applicable, yet changed", class.id());
        } else {
            assert!(changed, "{}: the client saw no change\n{log}", class.id());
            assert!(log.contains(&format!("\"class\":\"{}\"", class.id())));
        }
    }
}

#[test]
fn a_client_hang_up_ends_the_server_and_its_children() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let args = wrap_args(
        &[],
        fixture(
            TIME,
            &[
                "--spawn-grandchild",
                pidfile.to_str().unwrap(),
                "--ignore-stdin-close",
            ],
        ),
    );
    let (out, code, _) = session(env!("CARGO_BIN_EXE_driftlab"), &args, &[INIT], "1");
    assert_eq!(code, Some(0));
    assert!(answer_to(&out, "1").is_some());
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(gone_soon(pid));
}

#[test]
fn a_server_crash_ends_the_proxy_cleanly() {
    let args = wrap_args(&[], fixture(TIME, &["--crash-on", "tools/call"]));
    let (out, code, err) = session(env!("CARGO_BIN_EXE_driftlab"), &args, &[INIT, CALL], "3");
    assert_eq!(code, Some(0));
    assert!(answer_to(&out, "1").is_some() && answer_to(&out, "3").is_none());
    assert!(
        err.contains("driftlab wrap: seed 1 (replay with --seed 1)"),
        "{err}"
    );
    assert!(err.contains("the server ended (exit code 1)"), "{err}");
}

#[test]
fn server_requests_and_notifications_cross_the_proxy() {
    // The fixture asks the client three questions and exits 3 on a wrong answer; `capture`
    // answers them through the proxy.
    let mut args = vec![
        "capture".to_string(),
        "--timeout".into(),
        "10".into(),
        "--".into(),
    ];
    args.push(env!("CARGO_BIN_EXE_driftlab").into());
    args.extend(wrap_args(
        &[],
        fixture(TIME, &["--server-requests", "--garbage"]),
    ));
    let output = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(output.status.success(), "{}", stderr(&output));
    let capture: Value = serde_json::from_slice(&output.stdout).unwrap();
    let methods: Vec<&str> = capture["capture"]["serverMessagesDuringCapture"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        [
            "notifications/message",
            "ping",
            "roots/list",
            "sampling/createMessage"
        ]
    );
}

#[test]
fn bad_options_are_usage_errors() {
    let output = run(&["wrap", "--drift", "no-such-class", "--", "true"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--drift no-such-class: no such mutation class"));
    let output = run(&["wrap", "--drift", "resource-removed", "--", "true"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("the class changes the resources, and wrap drifts tools/list"),
        "{}",
        stderr(&output)
    );
    let output = run(&["wrap", "-p", "2", "--", "true"]);
    assert_eq!(output.status.code(), Some(2));
    let output = run(&["wrap", "--", "driftlab-no-such-server"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("command not found"),
        "{}",
        stderr(&output)
    );
    let _ = repo();
}

#[test]
fn an_enforced_drift_makes_the_server_behave_by_the_drifted_contract() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("wrap.jsonl");
    let args = wrap_args(
        &[
            "--drift",
            "parameter-renamed",
            "--enforce-drift",
            "--log",
            log.to_str().unwrap(),
        ],
        fixture(TIME, &["--calls", "echo"]),
    );
    let list = |id: u32| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
    let answers = |lines: &[&str]| -> Vec<Value> {
        let (out, code, err) = common::live::stepwise(env!("CARGO_BIN_EXE_driftlab"), &args, lines);
        assert_eq!(code, Some(0), "{err}");
        out.iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let by_id =
        |out: &[Value], id: u64| -> Value { out.iter().find(|v| v["id"] == id).cloned().unwrap() };
    // Which parameter of which tool the seed renamed: the old name is `X`, the new `renamed_X`.
    let first = answers(&[INIT, &list(2)]);
    let tools = by_id(&first, 2)["result"]["tools"]
        .as_array()
        .unwrap()
        .clone();
    let (tool, new_name) = tools
        .iter()
        .find_map(|t| {
            let props = t["inputSchema"]["properties"].as_object()?;
            let renamed = props.keys().find(|k| k.starts_with("renamed_"))?;
            Some((t["name"].as_str()?.to_string(), renamed.clone()))
        })
        .expect("a renamed parameter");
    let old_name = new_name.trim_start_matches("renamed_").to_string();
    let required: Vec<String> = tools.iter().find(|t| t["name"] == tool.as_str()).unwrap()
        ["inputSchema"]["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect();
    assert!(
        required.contains(&new_name),
        "the time server's parameters are all required"
    );
    let arguments = |names: &[String]| -> Value {
        names
            .iter()
            .map(|n| (n.clone(), Value::from("UTC")))
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    let mut stale: Vec<String> = required
        .iter()
        .filter(|n| **n != new_name)
        .cloned()
        .collect();
    stale.push(old_name.clone());
    let call = |id: u32, tool: &str, args: &Value| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args}}}}}"#
        )
    };
    let out = answers(&[
        INIT,
        &list(2),
        &call(3, &tool, &arguments(&stale)),
        &call(4, &tool, &arguments(&required)),
        &call(5, "no-such-tool", &Value::Object(Default::default())),
        &list(6),
    ]);
    // An old client's call lacks the renamed (required) parameter: refused as the SDKs do.
    let refused = &by_id(&out, 3)["error"];
    assert_eq!(refused["code"], -32602, "{out:?}");
    assert!(refused["message"]
        .as_str()
        .unwrap()
        .contains(&format!("Invalid arguments for tool {tool}")));
    // A new client's call runs on the real server under the parameter's real name.
    let received = &by_id(&out, 4)["result"]["structuredContent"]["received"];
    assert_eq!(received["name"], tool.as_str());
    assert!(
        received["arguments"].get(&old_name).is_some()
            && received["arguments"].get(&new_name).is_none()
    );
    assert_eq!(
        by_id(&out, 5)["error"]["message"],
        "Tool no-such-tool not found"
    );
    // A server implements one contract: every listing shows the same drift.
    assert_eq!(by_id(&out, 2)["result"], by_id(&out, 6)["result"]);
    assert_eq!(by_id(&out, 2)["result"], by_id(&first, 2)["result"]);
    let log = std::fs::read_to_string(&log).unwrap();
    for action in ["drifted-server-refused", "drifted-server-ran"] {
        assert!(log.contains(action), "{log}");
    }
}

#[test]
fn a_drift_aimed_at_one_tool_changes_that_tool_alone_and_the_log_says_what_ran() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("wrap.jsonl");
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let tools_of = |flags: &[&str], lines: &[&str]| -> Vec<Value> {
        let args = wrap_args(flags, fixture(RICH, &["--calls", "echo"]));
        let (out, code, err) = common::live::stepwise(env!("CARGO_BIN_EXE_driftlab"), &args, lines);
        assert_eq!(code, Some(0), "{err}");
        out.iter()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect()
    };
    let tools = |out: &[Value]| -> Vec<Value> {
        let listing = out.iter().find(|v| v["id"] == 2).unwrap();
        listing["result"]["tools"].as_array().unwrap().clone()
    };
    let real = tools(&tools_of(&["--drift", "identity"], &[INIT, list]));
    // At these seeds the class picks an optional parameter (at seed 1 it renames `path`).
    for seed in ["2", "3", "4"] {
        let flags = [
            "--drift",
            "parameter-renamed",
            "--drift-tool",
            "read_text_file",
            "--seed",
            seed,
            "--enforce-drift",
            "--log",
            log.to_str().unwrap(),
        ];
        let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"x","head":2,"tail":1}}}"#;
        let out = tools_of(&flags, &[INIT, list, call]);
        let drifted = tools(&out);
        assert_eq!(drifted.len(), real.len());
        for (old, new) in real.iter().zip(&drifted) {
            let aimed = old["name"] == "read_text_file";
            assert_eq!(old != new, aimed, "seed {seed}: {}", old["name"]);
        }
        // What the call ran with, under the listed names: the renamed parameter was dropped.
        let renamed: Vec<&String> = drifted
            .iter()
            .find(|t| t["name"] == "read_text_file")
            .unwrap()["inputSchema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| k.starts_with("renamed_"))
            .collect();
        assert_eq!(renamed.len(), 1, "seed {seed}");
        let gone = renamed[0].trim_start_matches("renamed_");
        let text = std::fs::read_to_string(&log).unwrap();
        let ran: Value = text
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|e| e["action"] == "drifted-server-ran")
            .unwrap_or_else(|| panic!("seed {seed}: {text}"));
        assert!(ran["received"].get(gone).is_none(), "seed {seed}: {ran}");
        assert_eq!(
            ran["dropped"],
            serde_json::json!([gone]),
            "seed {seed}: {ran}"
        );
        std::fs::remove_file(&log).unwrap();
    }
}

/// `wrap` and `guard` killed with SIGKILL run no cleanup of their own: the server's group (a
/// server that ignores end of input, and its child) must still end, through the sentinel.
#[test]
fn a_proxy_killed_with_sigkill_takes_its_server_group_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let pin = repo().join("tests/data").join(TIME);
    let audit = dir.path().join("audit.jsonl");
    for proxy in ["wrap", "guard"] {
        let pidfile = dir.path().join(format!("{proxy}.pid"));
        let server = fixture(
            TIME,
            &[
                "--spawn-grandchild",
                pidfile.to_str().unwrap(),
                "--ignore-stdin-close",
            ],
        );
        let mut args: Vec<String> = match proxy {
            "wrap" => vec!["wrap".into()],
            _ => common::live::guard_args(&pin, &audit),
        };
        args.push("--".into());
        args.extend(server);
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_driftlab"))
            .args(&args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let until = Instant::now() + Duration::from_secs(10);
        while !pidfile.exists() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(100));
        let pid: u32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let gone = gone_soon(pid);
        assert!(gone, "{proxy}: the server's child {pid} outlived driftlab");
    }
}
