//! `driftlab snapshot`, `check` and `diff` as a CI job runs them: formats, exit codes, bad input.

use crate::common;

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use common::*;
use serde_json::{json, Value};

fn write(dir: &Path, name: &str, value: &Value) -> String {
    let path = dir.join(name);
    fs::write(&path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

fn tool(name: &str, props: Value, required: Value) -> Value {
    json!({"name": name, "description": format!("{name} tool"), "inputSchema": {"type": "object", "properties": props, "required": required}})
}

fn approved() -> Value {
    json!({"tools": [
        tool("get_user", json!({"id": {"type": "string"}}), json!(["id"])),
        tool("list_users", json!({"limit": {"type": "integer", "maximum": 100}}), json!([])),
    ]})
}

#[test]
fn snapshot_records_any_payload_shape_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let rpc = json!({"jsonrpc": "2.0", "id": 3, "result": approved()});
    let input = write(dir.path(), "rpc.json", &rpc);
    let out = dir.path().join("approved.json");
    let output = run(&["snapshot", &input, "-o", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(read_json(&out), approved());
    // stdin, and pages
    let pages = json!([{"tools": [approved()["tools"][0]], "nextCursor": "2"}, {"tools": [approved()["tools"][1]]}]);
    let mut child = driftlab()
        .args(["snapshot", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(pages.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    assert_eq!(
        serde_json::from_slice::<Value>(&output.stdout).unwrap(),
        approved()
    );
}

#[test]
fn check_passes_an_unchanged_surface_and_fails_a_breaking_change() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &approved());
    let output = run(&["check", "--approved", &a, &a]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(stdout(&output).starts_with("PASS"));

    let mut changed = approved();
    changed["tools"][0]["inputSchema"]["required"] = json!(["id", "org"]);
    changed["tools"][0]["inputSchema"]["properties"]["org"] = json!({"type": "string"});
    changed["tools"][1]["inputSchema"]["properties"]["limit"]["maximum"] = json!(50);
    let c = write(dir.path(), "c.json", &changed);
    let output = run(&["check", "--approved", &a, &c, "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["verdict"], "drift");
    assert_eq!(report["counts"]["breaking"], 2);
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["required-parameter-added", "constraint-tightened"]);
    let first = &report["findings"][0];
    let keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "rule",
            "severity",
            "tool",
            "pointer",
            "old_pointer",
            "old",
            "new",
            "message",
            "fingerprint",
            "baseline_state",
            "witness"
        ]
    );
    // The witness is a call valid before and refused now: it lacks the new required `org`.
    assert!(first["witness"]["id"].is_string() && first["witness"].get("org").is_none());
    assert_eq!(first["tool"], "get_user");
    assert_eq!(first["pointer"], "/tools/0/inputSchema/properties/org");
    assert_eq!(first["fingerprint"].as_str().unwrap().len(), 16);
}

#[test]
fn fail_on_and_policy_decide_the_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &approved());
    let mut changed = approved();
    changed["tools"][0]["description"] = json!("get_user tool, reworded.");
    let c = write(dir.path(), "c.json", &changed);
    assert_eq!(run(&["diff", &a, &c]).status.code(), Some(0));
    assert_eq!(
        run(&["diff", &a, &c, "--fail-on", "warning"]).status.code(),
        Some(1)
    );
    let output = run(&["diff", &a, &c, "--fail-on", "warning", "--format", "json"]);
    let fingerprint = serde_json::from_slice::<Value>(&output.stdout).unwrap()["findings"][0]
        ["fingerprint"]
        .as_str()
        .unwrap()
        .to_string();
    let policy = dir.path().join("policy.toml");
    fs::write(
        &policy,
        format!("[[accept]]\nfingerprint = \"{fingerprint}\"\nreason = \"reviewed\"\n"),
    )
    .unwrap();
    let output = run(&[
        "diff",
        &a,
        &c,
        "--fail-on",
        "any",
        "--policy",
        policy.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["accepted"][0]["reason"], "reviewed");
    fs::write(
        &policy,
        "[severity]\ntool-description-changed = \"breaking\"\n",
    )
    .unwrap();
    assert_eq!(
        run(&["diff", &a, &c, "--policy", policy.to_str().unwrap()])
            .status
            .code(),
        Some(1)
    );
    fs::write(&policy, "[severity]\nno-such-rule = \"info\"\n").unwrap();
    let output = run(&["diff", &a, &c, "--policy", policy.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("`severity.no-such-rule`: unknown rule"));
}

#[test]
fn every_format_renders_the_findings() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &approved());
    let mut changed = approved();
    changed["tools"].as_array_mut().unwrap().remove(1);
    let c = write(dir.path(), "c.json", &changed);

    let in_dir = |args: &[&str]| common::run_in(dir.path(), args, None);
    let sarif: Value =
        serde_json::from_slice(&in_dir(&["diff", &a, &c, "--format", "sarif"]).stdout).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "tool-removed");
    assert_eq!(result["level"], "error");
    assert_eq!(
        sarif["runs"][0]["tool"]["driver"]["rules"][0]["id"],
        "tool-removed"
    );

    let github = stdout(&in_dir(&["diff", &a, &c, "--format", "github"]));
    assert!(github.starts_with("::error file=c.json,line="), "{github}");
    assert!(
        github
            .contains("title=driftlab tool-removed (list_users)::tool \"list_users\" was removed"),
        "{github}"
    );

    let markdown = stdout(&run(&["diff", &a, &c, "--format", "markdown"]));
    assert!(
        markdown.contains("❌ DRIFT") && markdown.contains("| breaking | `tool-removed` |"),
        "{markdown}"
    );

    // Text: colour only on a terminal; tests capture stdout, so none here even without NO_COLOR.
    let text = stdout(&run(&["diff", &a, &c]));
    assert!(
        text.starts_with("DRIFT") && !text.contains('\x1b'),
        "{text}"
    );
    assert!(text.contains("BREAKING") && text.contains("tool-removed  list_users"));
}

#[test]
fn check_without_a_snapshot_runs_payload_rules_only() {
    let dir = tempfile::tempdir().unwrap();
    let bad = json!({"tools": [{"name": "get user", "inputSchema": null}, {"name": "x", "inputSchema": {"type": "object"}}, {"name": "x", "inputSchema": {"type": "object"}}]});
    let c = write(dir.path(), "c.json", &bad);
    let output = run(&["check", &c, "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let rules: BTreeSetOf = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect();
    // Only payload rules run (whichever the registry holds: a new payload rule may fire too),
    // and these three must.
    let payload: BTreeSetOf =
        driftlab_check::check::rules::of_kind(driftlab_check::check::RuleKind::Payload)
            .iter()
            .map(|r| r.id().to_string())
            .collect();
    assert!(rules.is_subset(&payload), "{rules:?}");
    for expected in [
        "duplicate-tool-name",
        "input-schema-null",
        "tool-name-invalid",
    ] {
        assert!(
            rules.contains(expected),
            "{expected} missing from {rules:?}"
        );
    }
}

type BTreeSetOf = std::collections::BTreeSet<String>;

/// Bad input: one line on stderr naming the file and the place, exit 2, never a panic.
#[test]
fn bad_input_exits_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.json", &approved());
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "not-json.json",
            b"{\"tools\": [".to_vec(),
            "not-json.json:1:11: invalid JSON: EOF while parsing a list",
        ),
        (
            "latin1.json",
            b"{\"tools\": [{\"name\": \"caf\xe9\"}]}".to_vec(),
            "latin1.json: not UTF-8 (invalid byte at offset 24)",
        ),
        ("empty.json", Vec::new(), "empty.json: empty payload"),
        (
            "string.json",
            b"\"tools\"".to_vec(),
            "string.json: at /: expected a tools/list result object or an array, found a string",
        ),
        (
            "tools-object.json",
            b"{\"tools\": {}}".to_vec(),
            "tools-object.json: at /tools: `tools` must be an array",
        ),
        (
            "tool-number.json",
            b"{\"tools\": [1]}".to_vec(),
            "tool-number.json: at /tools/0: a tool must be an object",
        ),
        (
            "deep.json",
            "[".repeat(100_000).into_bytes(),
            "deep.json:1:2001: nested deeper than 2000 levels",
        ),
    ];
    for (name, bytes, expected) in cases {
        let path = dir.path().join(name);
        fs::write(&path, &bytes).unwrap();
        let output = run_in(dir.path(), &["check", "--approved", &good, name], None);
        assert_eq!(output.status.code(), Some(2), "{name}: {}", stderr(&output));
        let message = stderr(&output);
        assert!(
            message.contains(expected),
            "{name}: {message:?} lacks {expected:?}"
        );
        assert_eq!(message.trim_end().lines().count(), 1, "{name}: {message:?}");
    }
    let output = run_in(dir.path(), &["diff", "missing.json", &good], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("missing.json: cannot read"));
}

#[test]
fn a_payload_over_the_size_limit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.json");
    // 100 MB of valid JSON: one tool with a very long description.
    let mut file = fs::File::create(&path).unwrap();
    file.write_all(b"{\"tools\":[{\"name\":\"a\",\"description\":\"")
        .unwrap();
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..100 {
        file.write_all(&chunk).unwrap();
    }
    file.write_all(b"\",\"inputSchema\":{\"type\":\"object\"}}]}")
        .unwrap();
    drop(file);
    let output = run(&["check", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("over the 67108864-byte limit (raise it with --max-bytes)"),
        "{}",
        stderr(&output)
    );
    let output = run(&["check", path.to_str().unwrap(), "--max-bytes", "200000000"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn ref_cycles_and_deep_schemas_are_judged_or_reported_never_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let node = |extra: &str| json!({"type": "object", "properties": {"name": {"type": "string", "description": extra}, "child": {"$ref": "#/$defs/Node"}}});
    let schema = |extra: &str| json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}, "$defs": {"Node": node(extra)}});
    let a = write(
        dir.path(),
        "a.json",
        &json!({"tools": [{"name": "t", "inputSchema": schema("old")}]}),
    );
    let c = write(
        dir.path(),
        "c.json",
        &json!({"tools": [{"name": "t", "inputSchema": schema("new")}]}),
    );
    let output = run(&["diff", &a, &c, "--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["findings"][0]["rule"],
        "parameter-description-changed"
    );
    assert_eq!(
        report["findings"][0]["pointer"],
        "/tools/0/inputSchema/$defs/Node/properties/name/description"
    );
    // A pure ref cycle where the refs differ cannot be resolved: unknown, and the gate fails.
    let cyclic = |target: &str| json!({"tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"p": {"$ref": target}}, "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}}}]});
    let a = write(dir.path(), "a2.json", &cyclic("#/$defs/A"));
    let c = write(dir.path(), "c2.json", &cyclic("#/$defs/B"));
    let output = run(&["diff", &a, &c, "--format", "json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["findings"][0]["rule"], "schema-change-unjudged");
    assert_eq!(report["findings"][0]["severity"], "unknown");
    // Schemas nested near the reader's depth limit are compared without overflowing the stack.
    let mut deep_a = json!({"type": "string"});
    let mut deep_c = json!({"type": "integer"});
    for _ in 0..60 {
        deep_a = json!({"type": "object", "properties": {"p": deep_a}});
        deep_c = json!({"type": "object", "properties": {"p": deep_c}});
    }
    let a = write(
        dir.path(),
        "a3.json",
        &json!([{"name": "t", "inputSchema": deep_a}]),
    );
    let c = write(
        dir.path(),
        "c3.json",
        &json!([{"name": "t", "inputSchema": deep_c}]),
    );
    let output = run(&["diff", &a, &c, "--format", "json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
}

#[test]
fn the_readme_json_example_is_real_output() {
    let dir = repo().join("examples/gate");
    let output = run_in(
        &dir,
        &[
            "check",
            "--approved",
            "approved.json",
            "candidate.json",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(1));
    let readme = fs::read_to_string(repo().join("docs/gate.md")).unwrap();
    let marker = "<!-- example: examples/gate -->\n```json\n";
    let start = readme.find(marker).unwrap() + marker.len();
    let end = start + readme[start..].find("```").unwrap();
    assert_eq!(
        &readme[start..end],
        stdout(&output),
        "docs/gate.md's JSON example is stale: paste the output of `driftlab check --approved \
         approved.json candidate.json --format json` run in examples/gate"
    );
}

#[test]
fn deep_legitimate_schemas_are_read_and_only_absurd_depth_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // 200 nested object schemas (about 400 JSON levels), changed at the bottom: judged precisely.
    let mut deep_a = json!({"type": "string"});
    let mut deep_c = json!({"type": "integer"});
    for _ in 0..200 {
        deep_a = json!({"type": "object", "properties": {"p": deep_a}});
        deep_c = json!({"type": "object", "properties": {"p": deep_c}});
    }
    let a = write(
        dir.path(),
        "a.json",
        &json!([{"name": "t", "inputSchema": deep_a}]),
    );
    let c = write(
        dir.path(),
        "c.json",
        &json!([{"name": "t", "inputSchema": deep_c}]),
    );
    let output = run(&["diff", &a, &c, "--format", "json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["findings"].as_array().unwrap().len(), 1, "{report}");
    assert_ne!(report["findings"][0]["rule"], "schema-change-unjudged");
    // A document exactly at the limit (2,000 levels) is read; one level more is refused.
    let at_depth = |levels: usize| {
        // {"tools":[{…,"_meta":{"x": [[…]]}}]}: four levels before the arrays.
        let arrays = levels - 4;
        format!(
            r#"{{"tools":[{{"name":"t","inputSchema":{{"type":"object"}},"_meta":{{"x":{}{}}}}}]}}"#,
            "[".repeat(arrays),
            "]".repeat(arrays)
        )
    };
    let limit = dir.path().join("limit.json");
    fs::write(&limit, at_depth(2000)).unwrap();
    let output = run(&["check", limit.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    fs::write(&limit, at_depth(2001)).unwrap();
    let output = run(&["check", limit.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("nested deeper than 2000 levels"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn server_controlled_text_cannot_inject_into_reports() {
    let dir = tempfile::tempdir().unwrap();
    let evil = "x\u{1b}[2K\rPASS `@octocat ![i](https://e.example/i.png)`";
    let a = write(
        dir.path(),
        "a.json",
        &json!([{"name": "t", "inputSchema": {"type": "object"}}]),
    );
    let b = write(
        dir.path(),
        "b.json",
        &json!([{"name": "t", "inputSchema": {"type": "object"}}, {"name": evil, "inputSchema": {"type": "object"}}]),
    );
    for format in ["text", "markdown", "github", "sarif"] {
        let output = common::run_in(
            dir.path(),
            &["check", "--approved", &a, &b, "--format", format],
            None,
        );
        assert_eq!(
            output.status.code(),
            Some(1),
            "{format}: {}",
            stderr(&output)
        );
        let out = stdout(&output);
        assert!(
            !out.contains('\u{1b}') && !out.contains('\r'),
            "{format}: {out:?}"
        );
        assert!(
            out.contains("\\u{1b}[2K") || out.contains("\\\\u{1b}[2K"),
            "{format}: {out}"
        );
    }
    let markdown = stdout(&run(&[
        "check",
        "--approved",
        &a,
        &b,
        "--format",
        "markdown",
    ]));
    // The name sits in a code span whose fence is longer than its backticks; prose is escaped.
    assert!(
        markdown.contains("`` x\\u{1b}[2K\\u{d}PASS `@octocat"),
        "{markdown}"
    );
    assert!(
        !markdown.contains(" @octocat") || markdown.contains("\\@octocat"),
        "{markdown}"
    );
}

#[test]
fn a_reader_that_stops_early_is_normal_and_a_full_disk_is_an_error() {
    // The reader is gone before driftlab writes: EPIPE is ignored and the exit code is the verdict.
    let mut child = driftlab()
        .args(["rules"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).is_empty(), "{}", stderr(&output));
    // A full disk: exit 2 naming stdout, not a panic.
    let full = fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let output = driftlab().args(["rules"]).stdout(full).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("cannot write to stdout"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn fifos_and_devices_are_refused_before_they_are_opened() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(
        dir.path(),
        "good.json",
        &json!([{"name": "t", "inputSchema": {"type": "object"}}]),
    );
    let fifo = dir.path().join("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let fifo = fifo.to_str().unwrap();
    let spec = dir.path().join("spec.toml");
    for args in [
        vec!["check", fifo],
        vec!["check", "--approved", fifo, &good],
        vec!["check", &good, "--policy", fifo],
        vec!["check", &good, "--policy", "/dev/zero"],
        vec!["study", "--out", spec.to_str().unwrap(), "/dev/urandom"],
        vec!["study", "--out", spec.to_str().unwrap(), fifo],
    ] {
        // A reader that blocked on the FIFO (no writer ever comes) would hang: bound the wait.
        let mut child = driftlab()
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > std::time::Duration::from_secs(20) {
                child.kill().unwrap();
                panic!("{args:?} blocked");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output).contains("not a regular file"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn the_largest_max_bytes_is_no_limit_not_zero() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(
        dir.path(),
        "good.json",
        &json!([{"name": "t", "inputSchema": {"type": "object"}}]),
    );
    let output = run(&["check", &good, "--max-bytes", "18446744073709551615"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let output = run(&["check", "-", "--max-bytes", "18446744073709551615"]);
    assert_eq!(
        output.status.code(),
        Some(2),
        "stdin is empty here: {}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains("empty payload"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_byte_order_mark_is_skipped_and_two_stdins_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bom = dir.path().join("bom.json");
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(br#"[{"name": "t", "inputSchema": {"type": "object"}}]"#);
    fs::write(&bom, bytes).unwrap();
    let output = run(&["check", bom.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let output = run(&["diff", "-", "-"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("stdin can be read once"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn junit_has_a_failed_case_per_failing_finding_and_escapes_server_text() {
    let dir = tempfile::tempdir().unwrap();
    let gate = repo().join("examples/gate");
    let check = |format: &str| {
        run(&[
            "check",
            "--approved",
            gate.join("approved.json").to_str().unwrap(),
            gate.join("candidate.json").to_str().unwrap(),
            "--format",
            format,
        ])
    };
    let output = check("junit");
    assert_eq!(output.status.code(), Some(1));
    let xml = stdout(&output);
    let report: Value = serde_json::from_slice(&check("json").stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    let failing = findings
        .iter()
        .filter(|f| matches!(f["severity"].as_str(), Some("breaking" | "unknown")))
        .count();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    assert_eq!(xml.matches("<testcase ").count(), findings.len());
    assert_eq!(xml.matches("<failure ").count(), failing);
    assert!(xml.contains(&format!("failures=\"{failing}\"")));

    // A hostile tool name cannot close a tag or smuggle control characters.
    let hostile = json!({"tools": [{"name": "x\"/><evil a='1'>\u{1b}[2K", "inputSchema": null}]});
    let c = write(dir.path(), "c.json", &hostile);
    let output = run(&["check", &c, "--format", "junit"]);
    let xml = stdout(&output);
    assert!(!xml.contains("<evil"), "{xml}");
    assert!(!xml.contains('\u{1b}'), "{xml}");
    assert!(
        xml.contains("&lt;evil a=&apos;1&apos;&gt;\\u{1b}[2K"),
        "{xml}"
    );
}

/// An `[[accept]]` waiver holds through its `until` day and no longer after it; a waiver no
/// finding matches is reported as stale, in text and JSON.
#[test]
fn waivers_expire_and_stale_ones_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", &approved());
    let mut changed = approved();
    changed["tools"][1]["inputSchema"]["properties"]["limit"]["maximum"] = json!(50);
    let c = write(dir.path(), "c.json", &changed);
    let output = run(&["diff", &a, &c, "--format", "json"]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let fingerprint = report["findings"][0]["fingerprint"]
        .as_str()
        .unwrap()
        .to_string();
    let policy = dir.path().join("policy.toml");
    fs::write(
        &policy,
        format!(
            "[[accept]]\nfingerprint = \"{fingerprint}\"\nreason = \"limit lowered on purpose\"\nuntil = \"2027-01-31\"\n\n\
             [[accept]]\nfingerprint = \"0123456789abcdef\"\nreason = \"an old waiver\"\n"
        ),
    )
    .unwrap();
    let gate = |today: &str, format: &str| {
        driftlab()
            .env("DRIFTLAB_TODAY", today)
            .args([
                "diff",
                &a,
                &c,
                "--policy",
                policy.to_str().unwrap(),
                "--format",
                format,
            ])
            .output()
            .unwrap()
    };
    let held = gate("2027-01-31", "json");
    assert_eq!(held.status.code(), Some(0), "{}", stderr(&held));
    let report: Value = serde_json::from_slice(&held.stdout).unwrap();
    assert_eq!(report["accepted"][0]["reason"], "limit lowered on purpose");
    assert!(report.get("expired_waivers").is_none());
    assert_eq!(
        report["stale_waivers"][0]["fingerprint"],
        "0123456789abcdef"
    );
    let expired = gate("2027-02-01", "json");
    assert_eq!(expired.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&expired.stdout).unwrap();
    assert_eq!(report["expired_waivers"][0]["until"], "2027-01-31");
    assert_eq!(report["findings"][0]["fingerprint"], fingerprint.as_str());
    let text = stdout(&gate("2027-02-01", "text"));
    assert!(
        text.contains("1 waiver(s) expired; their findings count again:"),
        "{text}"
    );
    assert!(
        text.contains("1 stale waiver(s)") && text.contains("0123456789abcdef: an old waiver"),
        "{text}"
    );
    let bad = gate("tomorrow", "text");
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("DRIFTLAB_TODAY: expected a date"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn client_profiles_are_opt_in_and_name_the_client() {
    let fixture =
        common::read_json(&common::repo().join("tests/fixtures/rules/profile-copilot.json"));
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    std::fs::write(&a, fixture["approved"].to_string()).unwrap();
    std::fs::write(&b, fixture["candidate"].to_string()).unwrap();
    let check = |extra: &[&str]| {
        let mut args = vec![
            "check",
            "--format",
            "json",
            "--approved",
            a.to_str().unwrap(),
        ];
        args.extend(extra);
        args.push(b.to_str().unwrap());
        common::run(&args)
    };
    let rules = |output: &std::process::Output| -> Vec<String> {
        common::finding_rules(&serde_json::from_slice(&output.stdout).unwrap())
    };
    // `web.fetch_page` keeps the MCP name rule: without a profile, only the rename is reported.
    let plain = check(&[]);
    assert!(
        rules(&plain).iter().all(|r| !r.starts_with("profile-")),
        "{:?}",
        rules(&plain)
    );
    let copilot = check(&["--profile", "copilot", "--profile", "gemini"]);
    assert_eq!(copilot.status.code(), Some(1));
    let found = rules(&copilot);
    assert!(
        found.contains(&"profile-copilot-newly-broken".to_string()),
        "{found:?}"
    );
    assert!(
        !found.iter().any(|r| r.starts_with("profile-gemini")),
        "{found:?}"
    );
    let unknown = check(&["--profile", "claude"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        common::stderr(&unknown).contains("possible values: spec, strict-64, copilot, gemini"),
        "{}",
        common::stderr(&unknown)
    );
}
