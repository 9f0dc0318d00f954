//! `driftlab guard --url`: the client speaks stdio to the guard, the guard Streamable HTTP to
//! the server, in both protocol eras, with the same refusals and audit as in front of a command.

use crate::common;
use crate::guard::{answer, audit_events, call, drifted, pin, refusal, INIT, INITIALIZED, LIST};

use common::live::{guard_args, http_fixture, stepwise};
use serde_json::Value;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// A request of the 2026-07-28 era: its version and capabilities in `params._meta`.
fn modern(id: u32, method: &str, params: &str) -> String {
    let params = match params {
        "" => format!("{{{META}}}"),
        fields => format!("{{{fields},{META}}}"),
    };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
}

/// The client's lines through `guard --url` to the fixture serving `served` with `flags`.
fn guarded_over_http(
    served: &std::path::Path,
    flags: &[&str],
    lines: &[String],
    audit: &std::path::Path,
) -> Vec<Value> {
    let (mut server, port) = http_fixture(served.to_str().unwrap(), flags);
    let mut args = guard_args(&pin(), audit);
    args.extend(["--url".to_string(), format!("http://127.0.0.1:{port}/mcp")]);
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (out, code, err) = stepwise(env!("CARGO_BIN_EXE_driftlab"), &args, &lines);
    server.kill().unwrap();
    server.wait().unwrap();
    assert_eq!(code, Some(0), "{err}");
    out.iter()
        .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
        .collect()
}

#[test]
fn guard_url_fronts_an_http_server_in_both_eras_and_refuses_a_drifted_call() {
    let dir = tempfile::tempdir().unwrap();
    let renamed = drifted(dir.path(), "parameter-renamed");
    let convert = r#""name":"convert_time","arguments":{"source_timezone":"UTC","time":"12:00","target_timezone":"UTC"}"#;
    let handshake = vec![
        INIT.to_string(),
        INITIALIZED.to_string(),
        LIST.to_string(),
        call(3, "get_current_time", r#"{"timezone":"UTC"}"#),
        format!(r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{{convert}}}}}"#),
    ];
    let stateless = vec![
        modern(1, "server/discover", ""),
        modern(2, "tools/list", ""),
        modern(
            3,
            "tools/call",
            r#""name":"get_current_time","arguments":{"timezone":"UTC"}"#,
        ),
        modern(4, "tools/call", convert),
    ];
    let pinned: Value = common::read_json(&pin());
    for (era, lines, era_flags) in [
        ("initialize", &handshake, &[][..]),
        ("2026-07-28", &stateless, &["--discover"][..]),
    ] {
        for body in [&[][..], &["--sse"][..]] {
            let case = format!("{era} {body:?}");
            let audit = dir.path().join(format!("{era}-{}.jsonl", body.len()));
            let flags = [&["--calls", "accept"][..], era_flags, body].concat();
            let out = guarded_over_http(&renamed, &flags, lines, &audit);
            assert_eq!(
                answer(&out, 2)["result"]["tools"],
                pinned["toolsList"]["tools"],
                "{case}: the pinned list, not the server's"
            );
            let (rule, problems) = refusal(&out, 3);
            assert_eq!(rule, "unknown-argument", "{case}");
            assert_eq!(problems, super::guard::RENAMED_BY_KIND, "{case}");
            assert_eq!(
                answer(&out, 4)["result"]["content"][0]["text"],
                "ok",
                "{case}: an undrifted tool is admitted and answered by the server"
            );
            let events = audit_events(&audit);
            assert!(
                events
                    .iter()
                    .any(|e| e["event"] == "pin-diff" && e["rule"] == "parameter-renamed"),
                "{case}: the guard listed the server over HTTP"
            );
            assert!(
                events
                    .iter()
                    .any(|e| e["event"] == "refuse" && e["id"] == 3),
                "{case}"
            );
            assert!(
                events.iter().any(|e| e["event"] == "admit" && e["id"] == 4),
                "{case}"
            );
        }
    }
}

#[test]
fn an_unreachable_url_answers_the_clients_request_with_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = guard_args(&pin(), &dir.path().join("audit.jsonl"));
    // Nothing listens on port 9 of loopback.
    args.extend(["--url".into(), "http://127.0.0.1:9/mcp".into()]);
    let (out, code, err) = stepwise(env!("CARGO_BIN_EXE_driftlab"), &args, &[INIT]);
    assert_eq!(code, Some(0), "{err}");
    let first: Value = serde_json::from_str(&out[0]).unwrap();
    assert_eq!(first["id"], 1, "{first}");
    let message = first["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("http://127.0.0.1:9/mcp"), "{first}");
}

#[test]
fn guard_url_flags_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let mut args = guard_args(&pin(), &audit);
    args.extend(["--url".into(), "ftp://x".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = common::run(&args);
    assert_eq!(output.status.code(), Some(2));
    assert!(common::stderr(&output).contains("expected an http:// or https:// URL"));
    let mut both = args.clone();
    both.extend(["http://127.0.0.1:9/mcp", "--", "true"]);
    both.retain(|a| *a != "ftp://x");
    let output = common::run(&both);
    assert_eq!(
        output.status.code(),
        Some(2),
        "--url and a command conflict"
    );
}

/// `guard install` turns a URL entry into a stdio entry that runs `guard --url`, with the
/// headers as the config writes them (the client's variable references, never their values),
/// and `uninstall` puts the file back byte for byte.
#[test]
fn guard_install_fronts_a_url_entry_and_uninstall_restores_it() {
    use crate::lock::{code, run_in, session_through, tools_dir};
    let (dir, payload) = tools_dir();
    let (mut server, port) = http_fixture(payload.to_str().unwrap(), &["--calls", "accept"]);
    let url = format!("http://127.0.0.1:{port}/mcp");
    std::fs::create_dir(dir.path().join(".vscode")).unwrap();
    let config = dir.path().join(".vscode/mcp.json");
    let original = format!(
        "{{\n  \"servers\": {{\n    // remote\n    \"web\": {{\"type\": \"http\", \"url\": \"{url}\", \"headers\": {{\"X-Key\": \"${{env:DRIFTLAB_TEST_KEY}}\"}}}}\n  }}\n}}\n"
    );
    std::fs::write(&config, &original).unwrap();
    let config_arg = config.display().to_string();
    let locked = common::driftlab()
        .current_dir(dir.path())
        .args(["lock", "--config", &config_arg, "--yes"])
        .env("DRIFTLAB_TEST_KEY", "secret-value-42")
        .output()
        .unwrap();
    assert_eq!(code(&locked), 0, "{}", common::stderr(&locked));

    let install = run_in(
        dir.path(),
        &[
            "guard",
            "install",
            "--config",
            &config_arg,
            "--lock",
            "mcp.lock",
        ],
    );
    assert_eq!(code(&install), 0, "{}", common::stderr(&install));
    let rewritten = std::fs::read_to_string(&config).unwrap();
    assert!(rewritten.contains("// remote"), "{rewritten}");
    assert!(!rewritten.contains("secret-value-42"), "{rewritten}");
    let blanked = rewritten.replace("    // remote\n", "");
    let entry = &serde_json::from_str::<Value>(&blanked).unwrap()["servers"]["web"];
    assert_eq!(entry["type"], "stdio", "{entry}");
    let mut argv = vec![entry["command"].as_str().unwrap().to_string()];
    argv.extend(
        entry["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string()),
    );
    let tail: Vec<&str> = argv[argv.len() - 4..].iter().map(String::as_str).collect();
    assert_eq!(
        tail,
        [
            "--url",
            url.as_str(),
            "--header",
            "X-Key: ${env:DRIFTLAB_TEST_KEY}"
        ]
    );
    let answered = session_through(
        &argv[0],
        &argv[1..],
        &serde_json::json!({"name": "search", "arguments": {"query": "x"}}),
    );
    assert_eq!(
        answered[2]["result"]["content"][0]["text"], "ok",
        "the server answered through the guard over HTTP: {answered:?}"
    );
    let refused = session_through(
        &argv[0],
        &argv[1..],
        &serde_json::json!({"name": "search", "arguments": {"query": "x", "bogus": 1}}),
    );
    let text = refused[2]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("driftlab guard refused"), "{refused:?}");
    server.kill().unwrap();
    server.wait().unwrap();

    let uninstall = run_in(dir.path(), &["guard", "uninstall", "--config", &config_arg]);
    assert_eq!(code(&uninstall), 0, "{}", common::stderr(&uninstall));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
}
