//! `driftlab scan`: every classification on a fixture payload, thresholds, formats, and each
//! probe verdict against the scripted fixture server.

use crate::common;

use common::live::fixture;
use common::{repo, run, stderr, stdout};
use serde_json::Value;

const CLASSES: &str = "tests/data/scan/contract-classes.json";

fn scan_json(args: &[&str]) -> (Option<i32>, Value, String) {
    let mut all = vec!["scan", "--format", "json"];
    all.extend(args);
    let output = run(&all);
    let value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output.status.code(), value, stderr(&output))
}

#[test]
fn every_output_and_input_classification() {
    let path = repo().join(CLASSES);
    let (code, report, err) = scan_json(&[path.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    for (key, want) in [
        ("tools", 6),
        ("with_output_schema", 5),
        ("enforceable", 1),
        ("partially_enforceable", 1),
        ("vacuous", 2),
        ("invalid_output_schema", 1),
        ("fastmcp_wrapped", 1),
    ] {
        assert_eq!(report[key], want, "{key}: {report:#}");
    }
    let class = |i: usize| report["tool_results"][i]["output"]["class"].clone();
    assert_eq!(class(0), "enforceable");
    assert_eq!(class(1), "vacuous");
    assert_eq!(class(2), "partial");
    assert_eq!(class(3), "vacuous");
    assert_eq!(class(4), Value::Null);
    assert_eq!(class(5), "invalid");
    assert_eq!(
        report["tool_results"][2]["output"]["unguarded"],
        serde_json::json!(["/note"])
    );
    let wrapped = report["tool_results"][3]["output"]["reasons"].to_string();
    assert!(wrapped.contains("SDK auto-wrapped"), "{wrapped}");
    let input = &report["input"];
    assert_eq!(input["usable"], 6);
    assert_eq!(input["rejects_unknown_parameter"], 2);
    assert_eq!(
        (
            input["with_required"].clone(),
            input["rejects_missing_required"].clone()
        ),
        (3.into(), 3.into())
    );
    assert_eq!(
        (
            input["with_enum"].clone(),
            input["rejects_outside_enum"].clone()
        ),
        (1.into(), 1.into())
    );
    assert_eq!(input["meets_minimum_bar"], 2);
    assert_eq!(report["seed"], 20261130);
    assert!(report.get("probes").is_none(), "a file has no probes");
}

#[test]
fn thresholds_decide_the_exit_code() {
    let path = repo().join(CLASSES);
    let path = path.to_str().unwrap();
    let (code, _, err) = scan_json(&[path, "--min-enforceable", "0.5"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("enforceable output contracts 0.167 < --min-enforceable 0.5"),
        "{err}"
    );
    let (code, _, _) = scan_json(&[path, "--min-enforceable", "0.1"]);
    assert_eq!(code, Some(0));
    let (code, _, err) = scan_json(&[path, "--min-error-handling", "0.5"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("needs a live server"), "{err}");
    let (code, _, err) = scan_json(&[path, "--min-enforceable", "2"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("expected a share between 0 and 1"), "{err}");
}

#[test]
fn badge_markdown_and_text() {
    let path = repo().join(CLASSES);
    let badge = run(&["scan", "--format", "badge", path.to_str().unwrap()]);
    let badge: Value = serde_json::from_slice(&badge.stdout).unwrap();
    assert_eq!(badge["schemaVersion"], 1);
    assert_eq!(badge["message"], "1/6 enforceable");
    assert_eq!(badge["color"], "red");
    let md = stdout(&run(&[
        "scan",
        "--format",
        "markdown",
        path.to_str().unwrap(),
    ]));
    assert!(
        md.contains("| enforceable outputSchema | 1/6 | 17% |"),
        "{md}"
    );
    let text = stdout(&run(&["scan", path.to_str().unwrap()]));
    assert!(
        text.contains("unguarded: /note (sentinel string)"),
        "{text}"
    );
}

/// Scans the fixture server with `flags` and returns the probes' (verdict, code).
fn probes(flags: &[&str]) -> Vec<(String, Value)> {
    let mut args = vec!["scan", "--format", "json", "--timeout", "2", "--"];
    let server = fixture("scan/contract-classes.json", flags);
    args.extend(server.iter().map(String::as_str));
    let output = run(&args);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["tools"], 6, "the live scan scans the listed tools");
    report["probes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["verdict"].as_str().unwrap().to_string(),
                p["code"].clone(),
            )
        })
        .collect()
}

fn verdicts(flags: &[&str]) -> Vec<String> {
    probes(flags).into_iter().map(|(v, _)| v).collect()
}

#[test]
fn each_probe_verdict_against_the_fixture_server() {
    assert_eq!(
        probes(&[]),
        [
            ("jsonrpc_error".to_string(), Value::from(-32601)),
            ("jsonrpc_error".to_string(), Value::from(-32602)),
            ("jsonrpc_error".to_string(), Value::from(-32602)),
        ]
    );
    assert_eq!(
        verdicts(&["--calls", "tool-error"])[1..],
        ["tool_error", "tool_error"]
    );
    assert_eq!(
        verdicts(&["--calls", "accept"])[1..],
        ["accepted", "accepted"]
    );
    assert_eq!(
        verdicts(&["--unknown-method-code", "-32600"])[0],
        "wrong_error_code"
    );
    assert_eq!(verdicts(&["--accept-unknown-methods"])[0], "accepted");
    assert_eq!(
        verdicts(&["--hang-on", "tools/call"])[1..],
        ["timeout", "timeout"]
    );
    assert_eq!(
        verdicts(&["--crash-on", "tools/call"])[1..],
        ["crash", "skipped"]
    );
    assert_eq!(
        verdicts(&["--crash-on", "driftlab/probe-unknown-method"]),
        ["crash", "skipped", "skipped"]
    );
}

#[test]
fn the_missing_arguments_probe_is_skipped_when_nothing_is_required() {
    let mut args = vec!["scan", "--format", "json", "--"];
    let server = fixture("corpus/mcp-server-time@2026.10.19.json", &[]);
    args.extend(server.iter().map(String::as_str));
    let report: Value = serde_json::from_slice(&run(&args).stdout).unwrap();
    // mcp-server-time's tools do have required parameters: the probe runs.
    assert_eq!(report["probes"][2]["verdict"], "jsonrpc_error");
    let mut args = vec![
        "scan",
        "--format",
        "json",
        "--min-error-handling",
        "1",
        "--",
    ];
    let server = fixture("live/malformed-tools.json", &[]);
    args.extend(server.iter().map(String::as_str));
    let output = run(&args);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["probes"][2]["verdict"], "skipped");
    assert_eq!(
        report["probes"][2]["detail"],
        "no tool has a required parameter"
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "skipped probes do not count against the share"
    );
}

#[test]
fn the_output_contracts_study_regenerates_byte_for_byte() {
    let out = tempfile::tempdir().unwrap();
    let output = run(&[
        "scan",
        "--corpus",
        repo()
            .join("research/2026-11-30-output-contracts/captures")
            .to_str()
            .unwrap(),
        "--live",
        repo()
            .join("results/2026-11-30-output-contracts/live")
            .to_str()
            .unwrap(),
        "--out",
        out.path()
            .join("2026-11-30-output-contracts")
            .to_str()
            .unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let committed = repo().join("results/2026-11-30-output-contracts");
    for name in [
        "servers.csv",
        "tools.csv",
        "summary.json",
        "output-contracts.svg",
        "output-contracts.png",
        "output-contracts-3.5in.svg",
        "output-contracts-7in.png",
    ] {
        let fresh =
            std::fs::read(out.path().join("2026-11-30-output-contracts").join(name)).unwrap();
        assert!(
            fresh == std::fs::read(committed.join(name)).unwrap(),
            "{name} differs from the committed results"
        );
    }
    // The report names the command that wrote it: the committed one was run from the repository root.
    let fresh =
        std::fs::read_to_string(out.path().join("2026-11-30-output-contracts/report.md")).unwrap();
    let committed_report = std::fs::read_to_string(committed.join("report.md")).unwrap();
    let strip = |text: &str| {
        text.lines()
            .filter(|l| !l.starts_with("Reproduce:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&fresh), strip(&committed_report));
    assert!(committed_report.contains(
        "Reproduce: `driftlab scan --corpus research/2026-11-30-output-contracts/captures --live results/2026-11-30-output-contracts/live --out results/2026-11-30-output-contracts`"
    ));
}

#[test]
fn the_readme_quotes_the_committed_study() {
    let summary =
        common::read_json(&repo().join("results/2026-11-30-output-contracts/summary.json"));
    let t = &summary["totals"];
    let n = |k: &str| t[k].as_u64().unwrap() as f64;
    let pct = |k: &str| format!("{:.1}%", 100.0 * n(k) / n("tools"));
    let readme = std::fs::read_to_string(repo().join("docs/scan.md")).unwrap();
    let row = |label: &str, value: String| {
        let line = format!("| {label} |");
        let found = readme
            .lines()
            .find(|l| l.starts_with(&line))
            .unwrap_or_else(|| panic!("docs/scan.md row {label}"));
        assert!(
            found.trim_end_matches(" |").ends_with(&value) || found.contains(&format!("| {value} ")),
            "docs/scan.md row `{found}` should end with {value}: rerun the study command and update docs/scan.md"
        );
    };
    row(
        "outputSchema rejects a corrupted answer",
        format!("{} ({} tool)", pct("enforceable"), t["enforceable"]),
    );
    row("partially enforceable", pct("partially_enforceable"));
    row("outputSchema accepts a corrupted answer", pct("vacuous"));
    row("no outputSchema", pct("no_output_schema"));
    row(
        "inputSchema refuses an unknown parameter",
        pct("input_rejects_unknown_parameter"),
    );
    assert!(readme.contains(&format!(
        "({} servers, {} tools)",
        summary["servers"], t["tools"]
    )));
}

#[test]
fn a_corpus_study_never_writes_over_files_it_does_not_own() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("study");
    std::fs::create_dir_all(out.join("live")).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let captures = repo().join("research/2026-11-30-output-contracts/captures");
    let scan = |extra: &[&str]| {
        let mut args = vec![
            "scan",
            "--corpus",
            captures.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    let refused = scan(&[]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("holds files a scan study does not write (notes.txt)"),
        "{}",
        stderr(&refused)
    );
    assert!(!out.join("summary.json").exists());
    // With --force it writes; its own files and folders (the live reports) never count as foreign.
    assert!(scan(&["--force"]).status.success());
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    std::fs::remove_file(out.join("notes.txt")).unwrap();
    let rerun = scan(&[]);
    assert!(rerun.status.success(), "{}", stderr(&rerun));
    assert!(out.join("live").is_dir() && out.join("summary.json").is_file());
}

/// A tool name with a bidi override or an escape sequence is printed escaped, by the rule every
/// human-facing output shares (`crate::text`).
#[test]
fn server_text_is_escaped_in_every_scan_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bidi.json");
    let name = "get\u{202E}resu\u{1b}[2K";
    let payload = serde_json::json!({"tools": [{"name": name, "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"n": {"type": "string"}}}}]});
    std::fs::write(&path, payload.to_string()).unwrap();
    for format in ["text", "markdown"] {
        let out = stdout(&run(&["scan", "--format", format, path.to_str().unwrap()]));
        assert!(
            !out.contains('\u{202E}') && !out.contains('\u{1b}'),
            "{format}: {out:?}"
        );
    }
    let text = stdout(&run(&["scan", path.to_str().unwrap()]));
    assert!(text.contains("get\\u{202e}resu\\u{1b}[2K"), "{text}");
}

/// A server's tool and file names reach `tools.csv` and `servers.csv`; a spreadsheet must open
/// them as text, never run them as formulas.
#[test]
fn csv_cells_a_spreadsheet_would_run_as_formulas_are_written_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let captures = dir.path().join("captures");
    std::fs::create_dir_all(&captures).unwrap();
    let names = [
        r#"=HYPERLINK("http://evil","x")"#,
        "+cmd",
        "-h",
        "@SUM(A1)",
        "plain",
    ];
    let tools: Vec<Value> = names
        .iter()
        .map(|n| serde_json::json!({"name": n, "inputSchema": {"type": "object"}}))
        .collect();
    let payload = serde_json::json!({ "tools": tools }).to_string();
    std::fs::write(captures.join("=cmd@1.json"), payload).unwrap();
    let out = dir.path().join("out");
    let scanned = run(&[
        "scan",
        "--corpus",
        captures.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(scanned.status.success(), "{}", stderr(&scanned));
    let cells = |file: &str| -> Vec<Vec<String>> {
        csv::Reader::from_path(out.join(file))
            .unwrap()
            .records()
            .map(|r| r.unwrap().iter().map(String::from).collect())
            .collect()
    };
    let tools = cells("tools.csv");
    let written: Vec<&str> = tools.iter().map(|row| row[1].as_str()).collect();
    assert_eq!(
        written,
        [
            r#"'=HYPERLINK("http://evil","x")"#,
            "'+cmd",
            "'-h",
            "'@SUM(A1)",
            "plain"
        ]
    );
    for row in tools.iter().chain(&cells("servers.csv")) {
        assert_eq!(row[0], "'=cmd@1");
        for cell in row {
            assert!(
                !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "a formula cell: {cell:?} in {row:?}"
            );
        }
    }
}
