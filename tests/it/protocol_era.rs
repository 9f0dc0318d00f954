//! Both protocol eras: `capture --protocol auto|legacy|2026-07-28` against a real 2026-era server
//! (servers/notes_server.py on the pinned Python SDK, which serves both eras), the fixture
//! server speaking only the handshake, both, or only 2026-07-28 (over stdio and Streamable
//! HTTP), and a scan whose probes must carry `_meta` in the 2026-07-28 era.

use crate::common;

use std::path::Path;

use common::live::{fixture, fixture_server, installed, servers_dir};
use common::{read_json, repo, run, stderr, stdout};
use serde_json::Value;

/// `servers/.venv/bin/python servers/notes_server.py`, when the pinned SDK is installed.
pub(crate) fn notes_server() -> Option<Vec<String>> {
    let python = servers_dir().join(".venv/bin/python");
    installed(&python).then(|| {
        vec![
            python.display().to_string(),
            servers_dir().join("notes_server.py").display().to_string(),
        ]
    })
}

/// Captures `argv` with `flags` into `dir/<name>.json`: the exit code, stderr and the file.
fn capture(
    dir: &Path,
    name: &str,
    flags: &[&str],
    argv: &[String],
) -> (Option<i32>, String, Value) {
    let out = dir.join(format!("{name}.json"));
    let output = common::driftlab()
        .args(["capture", "-o", out.to_str().unwrap()])
        .args(flags)
        .arg("--")
        .args(argv)
        .output()
        .unwrap();
    let file = if out.exists() {
        read_json(&out)
    } else {
        Value::Null
    };
    (output.status.code(), stderr(&output), file)
}

#[test]
fn a_real_2026_server_is_captured_in_either_era() {
    let Some(argv) = notes_server() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (code, err, modern) = capture(dir.path(), "auto", &[], &argv);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        modern["capture"]["negotiation"]["era"], "2026-07-28",
        "{err}"
    );
    assert_eq!(modern["protocolVersion"], "2026-07-28");
    assert!(modern.get("initializeResult").is_none());
    assert_eq!(
        modern["discoverResult"]["instructions"],
        "Search before you read a note."
    );
    // 2026-07-28 lists carry their caching hints; every part is captured.
    assert_eq!(modern["toolsList"]["resultType"], "complete");
    assert!(modern["toolsList"]["ttlMs"].is_u64() && modern["toolsList"]["cacheScope"].is_string());
    assert_eq!(modern["promptsList"]["prompts"][0]["name"], "summarize");
    assert_eq!(
        modern["resourceTemplatesList"]["resourceTemplates"][0]["uriTemplate"],
        "notes://note/{id}"
    );

    let (code, err, legacy) = capture(dir.path(), "legacy", &["--protocol", "legacy"], &argv);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(legacy["capture"]["negotiation"]["era"], "initialize");
    assert_eq!(legacy["initializeResult"]["serverInfo"]["name"], "notes");

    // The same contract in both eras: the tools are equal; what differs is what the server
    // announces (this SDK declares listChanged only in the 2026-07-28 era), reported as info.
    let output = run(&[
        "diff",
        "--format",
        "json",
        dir.path().join("legacy.json").to_str().unwrap(),
        dir.path().join("auto.json").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    for f in report["findings"].as_array().unwrap() {
        assert_eq!(f["rule"], "capability-changed", "{f}");
    }
    // The snapshot of a 2026-era capture names its server from the discover result's _meta.
    let snapshot = dir.path().join("approved.json");
    let output = run(&[
        "snapshot",
        "-o",
        snapshot.to_str().unwrap(),
        dir.path().join("auto.json").to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(read_json(&snapshot)["serverInfo"]["name"], "notes");
}

#[test]
fn auto_falls_back_to_initialize_and_each_mode_says_what_it_needs() {
    let dir = tempfile::tempdir().unwrap();
    let payload = "contract/whole.json";
    let legacy_only = fixture(payload, &[]);
    let both = fixture(payload, &["--discover"]);
    let modern_only = fixture(payload, &["--discover", "--discover-only"]);

    let (code, err, file) = capture(dir.path(), "a", &[], &legacy_only);
    assert_eq!(code, Some(0), "{err}");
    let negotiation = &file["capture"]["negotiation"];
    assert_eq!(negotiation["era"], "initialize");
    assert_eq!(
        negotiation["how"],
        "auto: server/discover refused with JSON-RPC error -32601 (Method not found); fell back to initialize"
    );
    let (code, err, _) = capture(dir.path(), "b", &["--protocol", "2026-07-28"], &legacy_only);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("the server may speak only initialize (try --protocol auto)"),
        "{err}"
    );

    for (argv, flags, era) in [
        (&both, &[][..], "2026-07-28"),
        (&both, &["--protocol", "legacy"][..], "initialize"),
        (&modern_only, &[][..], "2026-07-28"),
        (
            &modern_only,
            &["--protocol", "2026-07-28"][..],
            "2026-07-28",
        ),
    ] {
        let (code, err, file) = capture(dir.path(), "c", flags, argv);
        assert_eq!(code, Some(0), "{flags:?}: {err}");
        assert_eq!(file["capture"]["negotiation"]["era"], era, "{flags:?}");
        // The fixture refuses any 2026-07-28 request without `_meta`: every list got one.
        assert_eq!(
            file["capture"]["lists"]["prompts/list"]["outcome"], "listed",
            "{flags:?}"
        );
        // The whole contract equals the snapshot the fixture serves, in either era.
        let out = dir.path().join("c.json");
        let whole = repo().join("tests/data").join(payload);
        let check = run(&[
            "check",
            "--approved",
            whole.to_str().unwrap(),
            out.to_str().unwrap(),
        ]);
        assert_eq!(
            check.status.code(),
            Some(0),
            "{flags:?}: {}",
            stdout(&check)
        );
    }
    let (code, err, _) = capture(dir.path(), "d", &["--protocol", "legacy"], &modern_only);
    assert_eq!(code, Some(2));
    assert!(err.contains("-32022"), "{err}");
}

#[test]
fn the_2026_era_over_streamable_http() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut server = Command::new(fixture_server())
        .arg(repo().join("tests/data/contract/whole.json"))
        .args(["--discover", "--discover-only", "--http", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let port = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("http.json");
    let output = run(&[
        "capture",
        "-o",
        out.to_str().unwrap(),
        "--url",
        &format!("http://127.0.0.1:{port}/mcp"),
    ]);
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let file = read_json(&out);
    assert_eq!(file["capture"]["negotiation"]["era"], "2026-07-28");
    assert_eq!(file["promptsList"]["prompts"][0]["name"], "summarize");
}

#[test]
fn a_scan_probes_a_2026_server_with_meta_on_every_call() {
    let Some(argv) = notes_server() else {
        return;
    };
    let output = common::driftlab()
        .args(["scan", "--format", "json", "--"])
        .args(&argv)
        .output()
        .unwrap();
    assert!(
        output.status.success() || output.status.code() == Some(1),
        "{}",
        stderr(&output)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    // A probe without `_meta` is refused (-32602) before it reaches the tool; with it, the
    // server's own validation answers, so the missing required parameter is seen rejected.
    assert_eq!(report["input"]["rejects_missing_required"], 1, "{report}");
    assert!(
        !stdout(&output).contains("params._meta must be"),
        "{report}"
    );
}

#[test]
fn the_guard_and_wrap_serve_a_2026_client_of_a_2026_server() {
    let Some(argv) = notes_server() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pin = dir.path().join("pin.json");
    let output = common::driftlab()
        .args([
            "snapshot",
            "--scope",
            "tools",
            "-o",
            pin.to_str().unwrap(),
            "--",
        ])
        .args(&argv)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let lines = [
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{meta}}}}}"#),
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{{meta},"name":"search","arguments":{{"query":"x"}}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{{meta},"name":"search","arguments":{{"query":5}}}}}}"#
        ),
        format!(r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{{meta}}}}}"#),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let answer = |out: &[String], id: &str| {
        out.iter()
            .find(|l| l.contains(&format!("\"id\":{id}")))
            .cloned()
            .unwrap_or_default()
    };
    let driftlab = env!("CARGO_BIN_EXE_driftlab");
    // The guard lists the server itself before admitting a call: that request must speak the
    // client's era (a 2026-07-28 server refuses a request without `_meta`).
    let mut args: Vec<String> = ["guard", "--approved", pin.to_str().unwrap(), "--"]
        .map(String::from)
        .to_vec();
    args.extend(argv.iter().cloned());
    let (out, _, err) = common::live::stepwise(driftlab, &args, &lines);
    assert!(
        answer(&out, "1").contains("\"supportedVersions\""),
        "{out:?} {err}"
    );
    let admitted = answer(&out, "2");
    assert!(
        admitted.contains("\"structuredContent\"") && !admitted.contains("refused"),
        "{admitted}"
    );
    let refused = answer(&out, "3");
    assert!(
        refused.contains("driftlab guard refused this call to `search` (invalid-arguments)"),
        "{refused}"
    );
    // The pinned list, answered in the client's era: the server's own resultType, ttlMs and
    // cacheScope beside the pinned tools.
    let listed: serde_json::Value = serde_json::from_str(&answer(&out, "4")).unwrap();
    let result = &listed["result"];
    assert_eq!(result["tools"][0]["name"], "search", "{listed}");
    assert_eq!(result["resultType"], "complete", "{listed}");
    assert!(
        result["ttlMs"].is_u64() && result["cacheScope"].is_string(),
        "{listed}"
    );
    assert!(result.get("nextCursor").is_none(), "{listed}");

    // wrap relays the era's messages unchanged: the server's own validation answers.
    let mut args: Vec<String> = vec!["wrap".into(), "--".into()];
    args.extend(argv.iter().cloned());
    let (out, _, err) = common::live::stepwise(driftlab, &args, &lines);
    assert!(
        answer(&out, "2").contains("\"structuredContent\""),
        "{out:?} {err}"
    );
    assert!(answer(&out, "3").contains("validation error"), "{out:?}");
}

/// An empty `nextCursor` ends a listing before 2026-07-28 and is a cursor to follow from then on
/// (the specification's rule): the capture gets the second page in that era only.
#[test]
fn an_empty_cursor_is_followed_only_in_the_2026_era() {
    let dir = tempfile::tempdir().unwrap();
    let argv = fixture(
        "corpus/mcp-server-time@2026.10.19.json",
        &["--discover", "--page-size", "1", "--empty-first-cursor"],
    );
    // A paged capture records each page; count the tools over them.
    let tools = |file: &Value| {
        let pages = file["toolsList"]
            .as_array()
            .cloned()
            .unwrap_or_else(|| vec![file["toolsList"].clone()]);
        pages
            .iter()
            .map(|p| p["tools"].as_array().map_or(0, Vec::len))
            .sum::<usize>()
    };
    let (code, err, modern) = capture(dir.path(), "modern", &["--protocol", "2026-07-28"], &argv);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(tools(&modern), 2, "{modern}");
    let (code, err, legacy) = capture(dir.path(), "legacy", &["--protocol", "legacy"], &argv);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(tools(&legacy), 1, "{legacy}");
}
