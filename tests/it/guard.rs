//! `driftlab guard`: the pinned list, each admission rule, the circuit, output assertions,
//! list_changed, and byte-identical pass-through, against the fixture server and a real one.

use crate::common;

use std::path::{Path, PathBuf};

use common::live::{fixture, guard_args, installed, servers_dir, stepwise};
use common::{repo, run, stderr};
use serde_json::Value;

pub(crate) const TIME: &str = "corpus/mcp-server-time@2026.10.19.json";
pub(crate) const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
pub(crate) const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
pub(crate) const LIST: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
pub(crate) const PING: &str = r#"{"jsonrpc":"2.0","id":99,"method":"ping"}"#;

pub(crate) fn call(id: u32, tool: &str, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
    )
}

pub(crate) fn pin() -> PathBuf {
    repo().join("tests/data").join(TIME)
}

/// The time server's tools drifted by `class` (a capture through `driftlab wrap`).
pub(crate) fn drifted(dir: &Path, class: &str) -> PathBuf {
    let out = dir.join(format!("{class}.json"));
    let mut args = vec![
        "capture".to_string(),
        "-o".into(),
        out.display().to_string(),
        "--".into(),
    ];
    args.extend([
        env!("CARGO_BIN_EXE_driftlab").to_string(),
        "wrap".into(),
        "--drift".into(),
        class.into(),
        "--".into(),
    ]);
    args.extend(fixture(TIME, &[]));
    let output = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(output.status.success(), "{}", stderr(&output));
    out
}

/// `guard --approved <pin> --audit AUDIT FLAGS -- fixture SERVED --calls accept FIXTURE_FLAGS`.
pub(crate) fn guard_fixture_args(
    flags: &[&str],
    served: &Path,
    fixture_flags: &[&str],
    audit: &Path,
) -> Vec<String> {
    let mut args = guard_args(&pin(), audit);
    args.extend(flags.iter().map(|s| s.to_string()));
    args.push("--".into());
    args.push(common::live::fixture_server().display().to_string());
    args.push(served.display().to_string());
    args.extend(["--calls", "accept"].iter().map(|s| s.to_string()));
    args.extend(fixture_flags.iter().map(|s| s.to_string()));
    args
}

/// A guarded session: `driftlab guard FLAGS --approved <pin> -- fixture SERVED FIXTURE_FLAGS`.
pub(crate) fn guarded(
    flags: &[&str],
    served: &Path,
    fixture_flags: &[&str],
    lines: &[&str],
    audit: &Path,
) -> Vec<Value> {
    let args = guard_fixture_args(flags, served, fixture_flags, audit);
    let mut all: Vec<&str> = lines.to_vec();
    all.push(PING);
    let (out, code, err) = stepwise(env!("CARGO_BIN_EXE_driftlab"), &args, &all);
    assert_eq!(code, Some(0), "{err}");
    out.iter()
        .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
        .collect()
}

/// The pinned tool a `tool-removed` capture no longer lists, and a valid call to it.
pub(crate) fn removed_tool(removed: &Path) -> (String, String) {
    let names = |v: Value, key: &str| -> Vec<String> {
        v[key]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let live = names(common::read_json(removed), "toolsList");
    let gone = names(common::read_json(&pin()), "toolsList")
        .into_iter()
        .find(|n| !live.contains(n))
        .unwrap();
    let arguments = if gone == "convert_time" {
        r#"{"source_timezone":"UTC","time":"12:00","target_timezone":"UTC"}"#
    } else {
        r#"{"timezone":"UTC"}"#
    };
    (gone, arguments.to_string())
}

pub(crate) fn answer(out: &[Value], id: u32) -> Value {
    out.iter()
        .find(|v| v["id"] == id)
        .cloned()
        .unwrap_or(Value::Null)
}

pub(crate) fn refusal(out: &[Value], id: u32) -> (String, Vec<String>) {
    let a = answer(out, id);
    assert_eq!(a["result"]["isError"], true, "{a}");
    let g = &a["result"]["structuredContent"]["driftlabGuard"];
    let problems = g["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    (g["rule"].as_str().unwrap().to_string(), problems)
}

pub(crate) fn audit_events(audit: &Path) -> Vec<Value> {
    std::fs::read_to_string(audit)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_client_sees_the_pinned_list_and_drift_refuses_the_tool_with_a_correction() {
    let dir = tempfile::tempdir().unwrap();
    let renamed = drifted(dir.path(), "parameter-renamed");
    let audit = dir.path().join("audit.jsonl");
    let lines = [
        INIT,
        INITIALIZED,
        LIST,
        &call(3, "get_current_time", r#"{"timezone":"UTC"}"#),
        &call(
            4,
            "convert_time",
            r#"{"source_timezone":"UTC","time":"12:00","target_timezone":"UTC"}"#,
        ),
    ];
    let out = guarded(&[], &renamed, &[], &lines, &audit);
    let pinned: Value = common::read_json(&pin());
    assert_eq!(
        answer(&out, 2)["result"]["tools"],
        pinned["toolsList"]["tools"],
        "the pinned list, not the server's"
    );
    // Refuse mode refuses the call the drift touches, and says what changed by kind: the new
    // name is the server's word, which no refusal carries by default.
    let (rule, problems) = refusal(&out, 3);
    assert_eq!(rule, "unknown-argument");
    assert_eq!(problems, RENAMED_BY_KIND);
    let text = answer(&out, 3)["result"]["content"][0]["text"].clone();
    assert!(!text.to_string().contains("renamed_timezone"), "{text}");
    assert_eq!(
        answer(&out, 4)["result"]["content"][0]["text"],
        "ok",
        "an undrifted tool is admitted"
    );
    let events = audit_events(&audit);
    assert!(events
        .iter()
        .any(|e| e["event"] == "pin-diff" && e["rule"] == "parameter-renamed"));
    assert!(events
        .iter()
        .any(|e| e["event"] == "refuse" && e["id"] == 3 && e["rule"] == "unknown-argument"));
    assert!(events.iter().any(|e| e["event"] == "admit" && e["id"] == 4));
    // The changed tool was then used: the change and the call (its argument names) recorded.
    let used: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "changed-then-used")
        .collect();
    assert_eq!(used.len(), 1, "only the changed tool's call: {used:?}");
    assert_eq!(used[0]["id"], 3);
    assert_eq!(used[0]["tool"], "get_current_time");
    assert_eq!(used[0]["decision"], "refuse");
    assert_eq!(used[0]["arguments"], serde_json::json!(["timezone"]));
    assert_eq!(used[0]["changes"][0]["rule"], "parameter-renamed");

    // Asked for, a refusal quotes the server's new name.
    let out = guarded(&["--quote-server-words"], &renamed, &[], &lines, &audit);
    assert_eq!(refusal(&out, 3).1, RENAMED_QUOTED);
}

/// The refusal of a call that sends a renamed parameter, by kind (the default).
pub(crate) const RENAMED_BY_KIND: [&str; 3] = [
    "`timezone` is no longer a parameter on the server",
    "\"timezone\": parameter-renamed (a removed and an added parameter have the same shape: a likely rename)",
    "the server renamed \"timezone\" to a name the pin does not have",
];

/// The same refusal with --quote-server-words.
pub(crate) const RENAMED_QUOTED: [&str; 3] = [
    "`timezone` is no longer a parameter on the server",
    "parameter \"timezone\" was likely renamed to \"renamed_timezone\"",
    "send \"renamed_timezone\" instead of \"timezone\"",
];

#[test]
fn admission_rules_in_warn_mode() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let renamed = drifted(dir.path(), "parameter-renamed");
    let out = guarded(
        &["--on-drift", "warn"],
        &renamed,
        &[],
        &[
            INIT,
            INITIALIZED,
            &call(3, "get_current_time", r#"{"timezone":"UTC"}"#),
            &call(4, "nope", "{}"),
            &call(
                5,
                "convert_time",
                r#"{"source_timezone":"UTC","time":"12:00","target_timezone":"UTC","extra":1}"#,
            ),
            &call(6, "convert_time", r#"{"source_timezone":"UTC","time":12}"#),
        ],
        &audit,
    );
    let (rule, problems) = refusal(&out, 3);
    assert_eq!(
        rule, "unknown-argument",
        "the silent-drop case: valid for the pin, unknown to the server"
    );
    assert_eq!(problems, RENAMED_BY_KIND);
    assert_eq!(refusal(&out, 4).0, "tool-not-pinned");
    assert_eq!(
        refusal(&out, 5),
        (
            "unknown-argument".into(),
            vec!["`extra` is not a parameter of the pinned contract".to_string()]
        )
    );
    let (rule, problems) = refusal(&out, 6);
    assert_eq!(rule, "invalid-arguments");
    assert!(
        problems.iter().any(|p| p.contains("target_timezone")),
        "{problems:?}"
    );
    let events = audit_events(&audit);
    assert!(
        events.iter().any(|e| e["event"] == "pin-diff"),
        "drift is logged in warn mode"
    );
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "changed-then-used" && e["id"] == 3),
        "and so is the use of the changed tool: {events:?}"
    );

    let removed = drifted(dir.path(), "tool-removed");
    let (gone, arguments) = removed_tool(&removed);
    let out = guarded(
        &["--on-drift", "warn"],
        &removed,
        &[],
        &[INIT, INITIALIZED, &call(3, &gone, &arguments)],
        &audit,
    );
    let (rule, problems) = refusal(&out, 3);
    assert_eq!(rule, "tool-not-live");
    assert_eq!(
        problems[0],
        format!("`{gone}` is no longer offered by the server")
    );

    // A call valid for the pin that the live schema rejects: refused before the server sees it,
    // while the untouched tool's call passes.
    let required = drifted(dir.path(), "required-parameter-added");
    let out = guarded(
        &["--on-drift", "warn"],
        &required,
        &[],
        &[
            INIT,
            INITIALIZED,
            &call(3, "get_current_time", r#"{"timezone":"UTC"}"#),
            &call(
                4,
                "convert_time",
                r#"{"source_timezone":"UTC","time":"12:00","target_timezone":"UTC"}"#,
            ),
        ],
        &audit,
    );
    let refused: Vec<u32> = [3, 4]
        .into_iter()
        .filter(|&id| answer(&out, id)["result"]["isError"] == true)
        .collect();
    assert_eq!(refused.len(), 1, "{out:?}");
    let (rule, problems) = refusal(&out, refused[0]);
    assert_eq!(rule, "invalid-for-live-schema");
    assert!(
        problems.iter().any(|p| p.contains("required")),
        "{problems:?}"
    );
}

#[test]
fn repeated_refusals_open_the_circuit() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let bad = |id| call(id, "get_current_time", r#"{"timezone":1}"#);
    let (c3, c4, c5) = (
        bad(3),
        bad(4),
        call(5, "get_current_time", r#"{"timezone":"UTC"}"#),
    );
    let out = guarded(
        &["--max-retries", "1"],
        &pin(),
        &[],
        &[INIT, INITIALIZED, &c3, &c4, &c5],
        &audit,
    );
    assert_eq!(refusal(&out, 3).0, "invalid-arguments");
    assert_eq!(refusal(&out, 4).0, "invalid-arguments");
    let (rule, problems) = refusal(&out, 5);
    assert_eq!(
        rule, "circuit-open",
        "even a valid call, once the circuit is open"
    );
    assert!(
        problems[0].contains("a human must review the drift"),
        "{problems:?}"
    );
    assert!(audit_events(&audit)
        .iter()
        .any(|e| e["event"] == "circuit-open" && e["refusals"] == 2));
}

#[test]
fn answers_are_checked_against_the_pinned_output_schema() {
    // The fixture answers every call with text only; the pinned time tools declare an
    // outputSchema, so structuredContent is missing.
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let c = call(3, "get_current_time", r#"{"timezone":"UTC"}"#);
    let out = guarded(&[], &pin(), &[], &[INIT, INITIALIZED, &c], &audit);
    let warned = answer(&out, 3);
    assert_eq!(warned["result"]["content"][0]["text"], "ok");
    assert!(
        warned["result"]["_meta"]["driftlab/guard"]["outputViolation"][0]
            .as_str()
            .unwrap()
            .contains("no structuredContent")
    );
    let out = guarded(
        &["--on-output", "error"],
        &pin(),
        &[],
        &[INIT, INITIALIZED, &c],
        &audit,
    );
    let refused = answer(&out, 3);
    assert_eq!(refused["result"]["isError"], true);
    assert!(refused["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("breaks its pinned outputSchema"));
    assert!(audit_events(&audit)
        .iter()
        .any(|e| e["event"] == "output-violation"));
}

#[test]
fn list_changed_makes_the_guard_look_again() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let removed = drifted(dir.path(), "tool-removed");
    let (gone, arguments) = removed_tool(&removed);
    let (c3, c4) = (call(3, &gone, &arguments), call(4, &gone, &arguments));
    let out = guarded(
        &[],
        &pin(),
        &[
            "--switch-to",
            removed.to_str().unwrap(),
            "--switch-after-calls",
            "1",
        ],
        &[INIT, INITIALIZED, &c3, &c4],
        &audit,
    );
    assert_eq!(
        answer(&out, 3)["result"]["content"][0]["text"],
        "ok",
        "before the change"
    );
    let (rule, problems) = refusal(&out, 4);
    assert_eq!(
        rule, "tool-not-live",
        "after the server said its list changed"
    );
    assert_eq!(
        problems,
        [
            format!("`{gone}` is no longer offered by the server"),
            "tool-removed (a tool is gone (and no added tool looks like it renamed))".to_string()
        ]
    );
    let events = audit_events(&audit);
    assert!(events.iter().any(|e| e["event"] == "list-changed"));
    // At start, after the output violation of call 3, and after list_changed.
    assert_eq!(
        events
            .iter()
            .filter(|e| e["event"] == "live-listed")
            .count(),
        3
    );
}

#[test]
fn everything_else_passes_byte_for_byte_through_a_real_server() {
    let entry = servers_dir().join(".venv/bin/mcp-server-time");
    if !installed(&entry) {
        return;
    }
    let c = call(
        3,
        "convert_time",
        r#"{"source_timezone":"UTC","time":"12:00","target_timezone":"Asia/Tokyo"}"#,
    );
    let lines = [INIT, INITIALIZED, &c, PING];
    let server = [entry.display().to_string()];
    let mut args: Vec<String> = vec![
        "guard".into(),
        "--approved".into(),
        pin().display().to_string(),
        "--".into(),
    ];
    args.extend(server.iter().cloned());
    let (direct, _, _) = stepwise(&server[0], &[], &lines);
    let (guarded, code, err) = stepwise(env!("CARGO_BIN_EXE_driftlab"), &args, &lines);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(direct.len(), 3, "{direct:?}");
    assert_eq!(
        direct, guarded,
        "an admitted call's answer and everything else pass untouched"
    );
}

/// A guard study over the fixture (which answers every call with what it received).
fn fixture_study(dir: &Path, classes: &str) -> PathBuf {
    let command: Vec<String> = fixture(
        "corpus/@modelcontextprotocol__server-filesystem@2026.8.31.json",
        &["--calls", "echo"],
    );
    let spec = dir.join("study.toml");
    std::fs::write(
        &spec,
        format!(
            "id = \"fixture\"\ntitle = \"Fixture\"\nseed = 3\ncalls_per_tool = 4\n\
             guard_modes = [\"warn\", \"refuse\"]\nclasses = [{classes}]\n\
             [[server]]\nname = \"fixture\"\ncommand = {command:?}\n"
        ),
    )
    .unwrap();
    spec
}

#[test]
fn the_guard_study_classifies_every_call_and_replays_at_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture_study(
        dir.path(),
        r#""parameter-renamed", "tool-renamed", "tool-removed", "optional-parameter-added""#,
    );
    let out = |name: &str, threads: &str| {
        let out = dir.path().join(name);
        let output = run(&[
            "guard-study",
            "--yes",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-j",
            threads,
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        out
    };
    let (one, two) = (out("one", "1"), out("two", "2"));
    for name in [
        "calls.csv",
        "summary.csv",
        "summary.json",
        "report.md",
        "silent-failures.svg",
    ] {
        assert_eq!(
            std::fs::read(one.join(name)).unwrap(),
            std::fs::read(two.join(name)).unwrap(),
            "{name}"
        );
    }
    let text = std::fs::read_to_string(one.join("calls.csv")).unwrap();
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    let header = rows.headers().unwrap().clone();
    let col = |row: &csv::StringRecord, name: &str| {
        row[header.iter().position(|h| h == name).unwrap()].to_string()
    };
    let mut seen = std::collections::BTreeSet::new();
    for row in rows.records().map(Result::unwrap) {
        let (class, straight) = (col(&row, "class"), col(&row, "without_guard"));
        let (warn, refuse) = (col(&row, "guard_warn"), col(&row, "guard_refuse"));
        assert_eq!(col(&row, "control"), "success");
        seen.insert((class.clone(), straight.clone()));
        match class.as_str() {
            "tool-removed" => {
                assert_eq!(straight, "rejected-with-error");
                assert_eq!(
                    (warn.as_str(), col(&row, "guard_warn_detail").as_str()),
                    ("refused-by-guard", "tool-not-live")
                );
                assert_eq!(refuse, "refused-by-guard");
                // Nothing to send instead: no retry.
                assert_eq!(col(&row, "guard_refuse_retry"), "");
            }
            "tool-renamed" => {
                assert_eq!(refuse, "refused-by-guard");
                // The refusal names the new tool; the retry there runs.
                assert_eq!(col(&row, "guard_refuse_retry"), "accepted-correct");
                assert_eq!(col(&row, "guard_warn_retry"), "accepted-correct");
            }
            "optional-parameter-added" => {
                assert_eq!(
                    (straight.as_str(), warn.as_str(), refuse.as_str()),
                    ("accepted-correct", "accepted-correct", "accepted-correct")
                );
            }
            _ => {
                // A silently dropped argument is always caught; a call the drift does not touch
                // passes in both modes (refuse mode decides per call).
                if straight == "accepted-wrong" {
                    assert_eq!(col(&row, "guard_warn_detail"), "unknown-argument");
                    assert_eq!(col(&row, "guard_refuse_detail"), "unknown-argument");
                }
                // A refused renamed parameter is sent under its new name on the retry.
                if refuse == "refused-by-guard" {
                    assert_eq!(col(&row, "guard_refuse_retry"), "accepted-correct");
                }
                if straight == "accepted-correct" {
                    assert_eq!(
                        (warn.as_str(), refuse.as_str()),
                        ("accepted-correct", "accepted-correct")
                    );
                } else {
                    assert_eq!(refuse, "refused-by-guard");
                }
            }
        }
    }
    assert!(seen.len() >= 3, "{seen:?}");
}

#[test]
fn a_bad_guard_study_spec_is_a_usage_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture_study(dir.path(), r#""no-such-class""#);
    let output = run(&[
        "guard-study",
        spec.to_str().unwrap(),
        "--out",
        dir.path().join("o").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("study.toml") && err.contains("no-such-class"),
        "{err}"
    );
    assert!(!dir.path().join("o").exists());
}

#[test]
fn a_guard_study_id_that_is_not_a_plain_folder_name_is_refused() {
    // Issue 50: the id becomes `results/<id>`; `../../escape` wrote outside the repository.
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture_study(dir.path(), r#""tool-removed""#);
    let text = std::fs::read_to_string(&spec).unwrap();
    for id in ["../../escape", "/tmp/abs", ".hidden"] {
        std::fs::write(
            &spec,
            text.replace("id = \"fixture\"", &format!("id = {id:?}")),
        )
        .unwrap();
        let output = common::run_in(dir.path(), &["guard-study", spec.to_str().unwrap()], None);
        assert_eq!(output.status.code(), Some(2), "{id}");
        let err = stderr(&output);
        assert!(
            err.contains("study.toml: id") && err.contains("must be 1-100"),
            "{err}"
        );
        assert!(!dir.path().join("results").exists(), "{id}");
    }
}

#[test]
fn a_guard_study_server_that_fails_is_named_with_its_fault_once() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fixture_study(dir.path(), r#""tool-removed""#);
    let text = std::fs::read_to_string(&spec).unwrap();
    let cases = [
        (
            format!("{text}tools = [\"no_such_tool\"]\n"),
            "server fixture: no tool \"no_such_tool\" in its tools/list",
        ),
        (
            format!(
                "{}[[server]]\nname = \"gone\"\ncommand = [\"/no/such/server\"]\n",
                &text[..text.find("[[server]]").unwrap()]
            ),
            "server gone: ",
        ),
    ];
    for (i, (spec_text, expected)) in cases.iter().enumerate() {
        let spec = dir.path().join(format!("bad{i}.toml"));
        std::fs::write(&spec, spec_text).unwrap();
        let out = dir.path().join(format!("o{i}"));
        let output = run(&[
            "guard-study",
            "--yes",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        let err = stderr(&output);
        assert!(!output.status.success(), "{err}");
        assert_eq!(err.matches(expected).count(), 1, "{err}");
        assert!(!out.exists(), "a failed study leaves no folder");
    }
}

/// A valid call through a guard (FLAGS) whose fixture lists its tools badly (FIXTURE_FLAGS):
/// it must be refused as `live-list-failed`; returns the refusal's problems and the audit log.
fn refused_for_the_listing(flags: &[&str], fixture_flags: &[&str]) -> (Vec<String>, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let valid = call(3, "get_current_time", r#"{"timezone":"UTC"}"#);
    let out = guarded(
        flags,
        &pin(),
        fixture_flags,
        &[INIT, INITIALIZED, &valid],
        &audit,
    );
    let (rule, problems) = refusal(&out, 3);
    assert_eq!(rule, "live-list-failed", "{fixture_flags:?}: {problems:?}");
    (problems, audit_events(&audit))
}

#[test]
fn a_failed_or_unreadable_listing_refuses_calls_instead_of_admitting_on_the_pin() {
    for (fixture_flag, event) in [
        ("--error-on", "live-list-failed"),
        ("--malformed-on", "server-message-unreadable"),
    ] {
        let (_, events) = refused_for_the_listing(&[], &[fixture_flag, "tools/list"]);
        assert!(
            events.iter().any(|e| e["event"] == event),
            "{fixture_flag}: no {event} in the audit log"
        );
    }
}

#[test]
fn a_call_before_initialized_is_decided_on_a_listing_not_on_the_pin_alone() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let removed = drifted(dir.path(), "tool-removed");
    let (gone, arguments) = removed_tool(&removed);
    // No notifications/initialized: the guard lists the server itself before deciding.
    let out = guarded(
        &[],
        &removed,
        &[],
        &[INIT, &call(3, &gone, &arguments)],
        &audit,
    );
    let (rule, _) = refusal(&out, 3);
    assert_eq!(rule, "tool-not-live");
    let events = audit_events(&audit);
    assert!(events.iter().any(|e| e["event"] == "live-listed"));
    assert!(!events.iter().any(|e| e["event"] == "admit"));
}

/// `driftlab guard --audit AUDIT --approved PIN -- fixture TIME FIXTURE_FLAGS`, all lines written
/// at once (no waiting between them); returns the client's lines, exit code and stderr.
fn unpaced(
    pin: &Path,
    audit: &Path,
    fixture_flags: &[&str],
    lines: &[&str],
    until: &str,
) -> (Vec<Value>, Option<i32>, String) {
    let mut args = guard_args(pin, audit);
    args.push("--".into());
    args.extend(fixture(TIME, &["--calls", "accept"]));
    args.extend(fixture_flags.iter().map(|s| s.to_string()));
    let mut all = lines.to_vec();
    all.push(PING);
    let (out, code, err) =
        common::live::session(env!("CARGO_BIN_EXE_driftlab"), &args, &all, until);
    let out = out
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
        .collect();
    (out, code, err)
}

#[test]
fn a_pin_whose_schema_does_not_compile_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let pin = dir.path().join("pin.json");
    std::fs::write(
        &pin,
        r#"{"tools":[{"name":"search","inputSchema":{"type":"object","properties":{"query":{"type":"string","pattern":"(unclosed"}}}}]}"#,
    )
    .unwrap();
    let mut args = vec!["guard", "--approved", pin.to_str().unwrap(), "--"];
    let argv = fixture(TIME, &[]);
    args.extend(argv.iter().map(String::as_str));
    let output = run(&args);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("\"search\"") && err.contains("does not compile"),
        "{err}"
    );
}

/// A one-tool payload whose parameter is a chain of 5,000 local `$ref`s (issue 49: the guard
/// aborted with exit 134 on it).
fn ref_chain(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, common::ref_chain_payload(name, "q").to_string()).unwrap();
    path
}

#[test]
fn a_ref_chain_too_deep_to_follow_is_refused_never_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    // As the pin: refused at start, with the reason.
    let chain = ref_chain(dir.path(), "get_current_time");
    let mut args = vec!["guard", "--approved", chain.to_str().unwrap(), "--"];
    let argv = fixture(TIME, &[]);
    args.extend(argv.iter().map(String::as_str));
    let output = run(&args);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("nest more than 128 deep"),
        "{}",
        stderr(&output)
    );
    // As what a running server lists instead of the pinned tool: its calls are refused and the
    // guard goes on answering.
    let audit = dir.path().join("audit.jsonl");
    let valid = call(3, "get_current_time", r#"{"timezone":"UTC"}"#);
    let out = guarded(&[], &chain, &[], &[INIT, INITIALIZED, LIST, &valid], &audit);
    let (kind, problems) = refusal(&out, 3);
    assert_eq!(kind, "live-schema-invalid", "{out:?}");
    assert_eq!(
        problems,
        ["the server's schema for this tool does not compile"]
    );
    let quoting = ["--quote-server-words"];
    let out = guarded(
        &quoting,
        &chain,
        &[],
        &[INIT, INITIALIZED, LIST, &valid],
        &audit,
    );
    let (_, problems) = refusal(&out, 3);
    assert!(
        problems
            .iter()
            .any(|p| p.contains("nest more than 128 deep")),
        "{problems:?}"
    );
    assert_eq!(answer(&out, 99)["result"], serde_json::json!({}), "{out:?}");
}

#[test]
fn an_audit_log_that_cannot_be_written_stops_admission_and_fails_the_run() {
    if !Path::new("/dev/full").exists() {
        common::skip("/dev/full is missing");
        return;
    }
    let valid = call(3, "get_current_time", r#"{"timezone":"UTC"}"#);
    let (out, code, err) = unpaced(
        &pin(),
        Path::new("/dev/full"),
        &[],
        &[INIT, INITIALIZED, &valid],
        "99",
    );
    assert_eq!(refusal(&out, 3).0, "audit-log-failed");
    assert!(err.contains("cannot write the audit log"), "{err}");
    assert_eq!(code, Some(2), "{err}");
}

#[test]
fn an_endless_or_looping_listing_is_a_failed_one_not_a_hold() {
    let (problems, _) = refused_for_the_listing(&[], &["--repeat-cursor", "--page-size", "1"]);
    assert!(problems[0].contains("loop"), "{problems:?}");
}

#[test]
fn a_second_call_with_an_id_in_flight_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let first = call(3, "get_current_time", r#"{"timezone":"UTC"}"#);
    let second = call(
        3,
        "convert_time",
        r#"{"source_timezone":"UTC","time":"12:00","target_timezone":"UTC"}"#,
    );
    // Call 5 is answered after call 3 whether calls wait for the listing or not.
    let last = call(5, "get_current_time", r#"{"timezone":"UTC"}"#);
    let (out, _, err) = unpaced(
        &pin(),
        &audit,
        &["--delay-ms", "300"],
        &[INIT, INITIALIZED, &first, &second, &last],
        "5",
    );
    let answers: Vec<&Value> = out.iter().filter(|v| v["id"] == 3).collect();
    assert_eq!(answers.len(), 2, "{out:?} {err}");
    assert!(
        answers
            .iter()
            .any(|a| a["error"]["data"]["rule"] == "id-in-flight"),
        "{answers:?}"
    );
    assert!(
        answers
            .iter()
            .any(|a| a["result"]["content"][0]["text"] == "ok"),
        "{answers:?}"
    );
}

#[test]
fn an_answer_with_its_id_twice_never_shows_the_client_the_live_list() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let removed = drifted(dir.path(), "tool-removed");
    let out = guarded(
        &[],
        &removed,
        &["--duplicate-id-on", "tools/list"],
        &[INIT, INITIALIZED, LIST],
        &audit,
    );
    let listed = answer(&out, 2);
    assert!(
        listed.get("result").is_none(),
        "the client saw a list: {listed}"
    );
    assert_eq!(listed["error"]["data"]["rule"], "duplicate-key", "{listed}");
    assert!(!out.iter().any(|v| v["id"] == "decoy"), "{out:?}");
    assert!(audit_events(&audit)
        .iter()
        .any(|e| e["event"] == "server-message-unreadable"));
}

#[test]
fn a_listing_without_end_stops_at_the_captures_page_limit() {
    let (problems, _) = refused_for_the_listing(&[], &["--endless-pages", "--page-size", "1"]);
    assert!(problems[0].contains("more than 100 pages"), "{problems:?}");
}

#[test]
fn a_server_that_never_answers_the_listing_gets_calls_refused_not_held() {
    let (problems, _) =
        refused_for_the_listing(&["--list-timeout", "1"], &["--hang-on", "tools/list"]);
    assert!(problems[0].contains("within 1 s"), "{problems:?}");
}

#[test]
fn an_answer_the_guard_cannot_read_is_an_error_for_its_call_never_passed_on_unchecked() {
    let dir = tempfile::tempdir().unwrap();
    let audit = dir.path().join("audit.jsonl");
    let valid = call(3, "get_current_time", r#"{"timezone":"UTC"}"#);
    let out = guarded(
        &[],
        &pin(),
        &["--malformed-on", "tools/call"],
        &[INIT, INITIALIZED, &valid],
        &audit,
    );
    let answered = answer(&out, 3);
    assert_eq!(answered["error"]["code"], -32603, "{answered}");
    assert!(answered["error"]["message"]
        .as_str()
        .unwrap()
        .contains("could not be read strictly"));
}

/// A spec is as untrusted as a client config: without `--yes` and with no terminal to ask (a
/// test's stdin is not one), guard-study and stack-study print every command and run none.
#[test]
fn a_study_spec_runs_nothing_until_its_commands_are_agreed_to() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let touch = format!("touch {}", marker.display());
    let guard_spec = dir.path().join("guard.toml");
    std::fs::write(
        &guard_spec,
        format!(
            "id = \"consent\"\ntitle = \"t\"\nseed = 1\ncalls_per_tool = 1\n\
             guard_modes = [\"warn\"]\nclasses = [\"tool-removed\"]\n\
             [[server]]\nname = \"toucher\"\ncommand = [\"sh\", \"-c\", {touch:?}]\n\
             env = {{ API_TOKEN = \"secret-value\" }}\n"
        ),
    )
    .unwrap();
    let stack_text =
        std::fs::read_to_string(repo().join("research/2026-12-03-six-stacks/study.toml")).unwrap();
    let stack_spec = dir.path().join("stacks.toml");
    let schemas = "schemas = [\".venv/bin/python\", \"stacks/harness.py\"]";
    assert!(stack_text.contains(schemas));
    std::fs::write(
        &stack_spec,
        stack_text.replace(schemas, &format!("schemas = [\"sh\", \"-c\", {touch:?}]")),
    )
    .unwrap();
    for (command, spec, shown) in [
        ("guard-study", &guard_spec, "toucher: sh -c 'touch "),
        ("stack-study", &stack_spec, "schemas: sh -c 'touch "),
    ] {
        let out = dir.path().join(format!("{command}-out"));
        let output = common::run_in(
            dir.path(),
            &[
                command,
                spec.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            None,
        );
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{err}");
        assert!(err.contains("about to run the commands of"), "{err}");
        assert!(err.contains(shown), "{err}");
        assert!(
            err.contains("give --yes") && err.contains("nothing was run"),
            "{err}"
        );
        assert!(!marker.exists(), "{command} ran a command without consent");
        assert!(!out.exists(), "{command} wrote its folder");
    }
    assert!(!stderr_of_guard_consent(&guard_spec, dir.path()).contains("secret-value"));
}

/// What guard-study prints before asking: variables by name, never their values.
fn stderr_of_guard_consent(spec: &Path, dir: &Path) -> String {
    let output = common::run_in(dir, &["guard-study", spec.to_str().unwrap()], None);
    let err = stderr(&output);
    assert!(err.contains("(env: API_TOKEN)"), "{err}");
    err
}
