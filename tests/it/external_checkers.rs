//! External checkers as study gates: a Python and a Node checker (JSON Lines) and the Python one
//! in exit-code mode give exactly the matrix of the in-process rule they reimplement; broken
//! checkers give one-line errors naming the gate and the request.

use crate::common;

use std::fs;
use std::path::Path;

use common::*;
use serde_json::Value;

const CLASSES: &str = r#"["name-space", "tools-reordered", "tool-removed", "tool-renamed", "tool-added", "parameter-renamed", "payload-reformatted"]"#;

fn example(name: &str) -> String {
    repo()
        .join("examples/checkers")
        .join(name)
        .display()
        .to_string()
}

/// The Python interpreter itself: `python3` may be a version manager's shim that costs 100+ ms a
/// start, which exit-code mode pays per comparison.
fn python() -> String {
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let output = std::process::Command::new("python3")
                .args(["-c", "import sys; print(sys.executable)"])
                .output()
                .expect("python3 runs");
            String::from_utf8(output.stdout).unwrap().trim().to_string()
        })
        .clone()
}

fn write_spec(dir: &Path, surfaces: u64, gates: &str) {
    let gates = gates.replace("\"python3\"", &format!("{:?}", python()));
    let spec = format!(
        "id = \"checkers\"\nseed = 7\nsurfaces = {surfaces}\nmutations = {CLASSES}\n\n\
         [[gates]]\nid = \"rule\"\nrules = [\"ordered-snapshot\"]\n\n{gates}"
    );
    fs::write(dir.join("spec.toml"), spec).unwrap();
}

fn study(dir: &Path, out: &str, threads: usize) -> std::process::Output {
    run_in(
        dir,
        &[
            "study",
            "spec.toml",
            "--quiet",
            "--no-figures",
            "--out",
            out,
        ],
        Some(threads),
    )
}

/// (detected, total, not applicable) of every cell of `gate`, then its control.
fn matrix(summary: &Value, gate: &str) -> Vec<(String, u64, u64, u64)> {
    let mut cells: Vec<(String, u64, u64, u64)> = summary["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["gate"] == gate)
        .map(|c| {
            let n = |k: &str| c[k].as_u64().unwrap();
            (
                c["mutation"].as_str().unwrap().to_string(),
                n("detected"),
                n("total"),
                n("not_applicable"),
            )
        })
        .collect();
    let control = summary["controls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["gate"] == gate)
        .unwrap();
    cells.push((
        "control".into(),
        control["false_positives"].as_u64().unwrap(),
        control["total"].as_u64().unwrap(),
        0,
    ));
    cells
}

/// Per (surface, mutation): whether `gate` detected, from rows.csv.
fn verdicts(rows: &str, gate: &str) -> Vec<(String, String, String)> {
    let mut reader = csv::Reader::from_reader(rows.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let at = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (surface, mutation, g, detected) =
        (at("surface"), at("mutation"), at("gate"), at("detected"));
    reader
        .records()
        .map(Result::unwrap)
        .filter(|r| &r[g] == gate)
        .map(|r| {
            (
                r[surface].to_string(),
                r[mutation].to_string(),
                r[detected].to_string(),
            )
        })
        .collect()
}

#[test]
fn python_and_node_checkers_give_the_matrix_of_the_in_process_rule() {
    let dir = tempfile::tempdir().unwrap();
    let gates = format!(
        "[[gates]]\nid = \"python\"\ncommand = [\"python3\", \"{py}\"]\n\n\
         [[gates]]\nid = \"node\"\ncommand = [\"node\", \"{node}\"]\nprocesses = 2\n\n\
         [[gates]]\nid = \"python-exit-code\"\nmode = \"exit-code\"\ncommand = [\"python3\", \"{py}\", \"{{approved}}\", \"{{candidate}}\"]\nprocesses = 2\n",
        py = example("ordered_names.py"),
        node = example("ordered-names.mjs"),
    );
    write_spec(dir.path(), 15, &gates);
    let output = study(dir.path(), "one", 1);
    assert!(output.status.success(), "{}", stderr(&output));
    let summary = read_json(&dir.path().join("one/summary.json"));
    let rule = matrix(&summary, "rule");
    assert!(
        rule.iter().any(|c| c.1 > 0),
        "the rule detects something: {rule:?}"
    );
    assert!(
        rule.iter().any(|c| c.1 < c.2),
        "and misses something: {rule:?}"
    );
    let rows = fs::read_to_string(dir.path().join("one/rows.csv")).unwrap();
    for gate in ["python", "node", "python-exit-code"] {
        assert_eq!(matrix(&summary, gate), rule, "{gate}");
        assert_eq!(verdicts(&rows, gate), verdicts(&rows, "rule"), "{gate}");
    }
    assert!(summary.get("crashes").is_none());
    let gates = summary["gates"].as_array().unwrap();
    assert!(gates[1]["command"][1]
        .as_str()
        .unwrap()
        .ends_with("ordered_names.py"));
    assert_eq!(gates[1]["rules"], serde_json::json!([]));

    // The same bytes at another thread count.
    let output = study(dir.path(), "two", 2);
    assert!(output.status.success(), "{}", stderr(&output));
    for file in ["rows.csv", "summary.json", "summary.csv", "metrics.csv"] {
        assert_eq!(
            fs::read(dir.path().join("one").join(file)).unwrap(),
            fs::read(dir.path().join("two").join(file)).unwrap(),
            "{file}"
        );
    }
}

#[test]
fn a_checker_sees_exactly_the_requests_generate_writes() {
    let dir = tempfile::tempdir().unwrap();
    // A checker that records every request line and answers "not detected".
    let recorder = "import json, sys\n\
        log = open('requests.jsonl', 'w')\n\
        for line in sys.stdin:\n    log.write(line); log.flush()\n    \
        print(json.dumps({'id': json.loads(line)['id'], 'detected': False}), flush=True)\n";
    fs::write(dir.path().join("recorder.py"), recorder).unwrap();
    write_spec(
        dir.path(),
        5,
        "[[gates]]\nid = \"recorder\"\ncommand = [\"python3\", \"recorder.py\"]\n",
    );
    let output = study(dir.path(), "r", 2);
    assert!(output.status.success(), "{}", stderr(&output));
    let generated = run_in(
        dir.path(),
        &["generate", "--spec", "spec.toml", "--checker-requests"],
        None,
    );
    assert!(generated.status.success(), "{}", stderr(&generated));
    let recorded = fs::read(dir.path().join("requests.jsonl")).unwrap();
    assert!(!recorded.is_empty());
    assert_eq!(recorded, generated.stdout);
}

/// Runs a one-gate study whose checker is `python3 -c SCRIPT`; returns its exit code and stderr.
fn broken(script: &str, extra: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let script = script.replace('"', "\\\"").replace('\n', "\\n");
    write_spec(
        dir.path(),
        3,
        &format!("[[gates]]\nid = \"bad\"\ncommand = [\"python3\", \"-c\", \"{script}\"]\n{extra}"),
    );
    let output = study(dir.path(), "out", 1);
    assert!(!dir.path().join("out/summary.json").exists());
    (output.status.code(), stderr(&output))
}

#[test]
fn broken_checkers_give_one_line_errors_naming_the_gate_and_the_request() {
    let answer = "import json, sys\nfor line in sys.stdin:\n    r = json.loads(line)\n    ";
    let cases = [
        (
            "import sys\nsys.stdin.readline()\nsys.exit(3)".to_string(),
            String::new(),
            "request id 0: exited (exit code 3)",
        ),
        (
            "import time\ntime.sleep(60)".to_string(),
            "timeout = 1\n".to_string(),
            "request id 0: no answer within 1s",
        ),
        (
            format!("{answer}print('Traceback: boom', flush=True)"),
            String::new(),
            "request id 0: not an answer",
        ),
        (
            format!(
                "{answer}print(json.dumps({{'id': r['id'] + 1, 'detected': True}}), flush=True)"
            ),
            String::new(),
            "answered id 1 where id 0 was due",
        ),
    ];
    for (script, extra, expected) in cases {
        let (code, stderr) = broken(&script, &extra);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("checker \"bad\""), "{stderr}");
        // Once: an error chained as its own cause would print twice on the line.
        assert_eq!(
            stderr.matches(expected).count(),
            1,
            "expected {expected:?} once in {stderr}"
        );
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
}

#[test]
fn an_exit_code_checker_that_crashes_is_counted_apart_never_as_detected() {
    let dir = tempfile::tempdir().unwrap();
    write_spec(
        dir.path(),
        4,
        "[[gates]]\nid = \"crashy\"\nmode = \"exit-code\"\n\
         command = [\"python3\", \"-c\", \"import sys; sys.exit(3)\", \"{approved}\", \"{candidate}\"]\n",
    );
    let output = study(dir.path(), "out", 1);
    assert!(output.status.success(), "{}", stderr(&output));
    let summary = read_json(&dir.path().join("out/summary.json"));
    assert!(matrix(&summary, "crashy").iter().all(|c| c.1 == 0));
    let crashes = summary["crashes"].as_array().unwrap();
    let crashed: u64 = crashes.iter().map(|c| c["crashed"].as_u64().unwrap()).sum();
    let applicable: u64 = matrix(&summary, "crashy").iter().map(|c| c.2).sum();
    assert_eq!(crashed, applicable);
    let rows = fs::read_to_string(dir.path().join("out/rows.csv")).unwrap();
    assert!(rows.contains("(crashed: exit code 3)"), "{rows}");
}

#[test]
fn checker_gates_are_checked_when_the_spec_is_read() {
    let dir = tempfile::tempdir().unwrap();
    for (gate, expected) in [
        ("command = []", "gates[1].command"),
        ("command = [\"x\"]\nrules = [\"structural\"]", "not both"),
        (
            "command = [\"x\"]\nmode = \"exit-code\"",
            "needs {approved}",
        ),
        (
            "command = [\"x\"]\nmode = \"grpc\"",
            "not one of jsonl, exit-code",
        ),
        ("command = [\"x\"]\nprocesses = 0", "expected 1 to 64"),
        ("command = [\"x\"]\ntimeout = 0", "from 1 to 86400"),
        (
            "rules = [\"structural\"]\nprocesses = 2",
            "external checker only",
        ),
    ] {
        write_spec(dir.path(), 3, &format!("[[gates]]\nid = \"g\"\n{gate}\n"));
        let output = study(dir.path(), "out", 1);
        assert_eq!(output.status.code(), Some(2), "{gate}");
        assert!(
            stderr(&output).contains(expected),
            "{gate}: {}",
            stderr(&output)
        );
    }
}

/// A study of `surfaces` surfaces in a folder of its own whose gate is the script `check.py`
/// (`python3 check.py`), its results in `out/`.
fn script_checker_study(surfaces: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(example("ordered_names.py"), dir.path().join("check.py")).unwrap();
    write_spec(
        dir.path(),
        surfaces,
        "[[gates]]\nid = \"script\"\ncommand = [\"python3\", \"check.py\"]\n",
    );
    let output = study(dir.path(), "out", 1);
    assert!(output.status.success(), "{}", stderr(&output));
    dir
}

/// The manifest pins the checker's own script among the spec folder's inputs (the interpreter
/// is in the environment, by its version): `verify` says OK, then STALE naming the script once
/// it changes.
#[test]
fn verify_notices_an_edited_checker_script() {
    let dir = script_checker_study(3);
    let manifest = read_json(&dir.path().join("out/manifest.json"));
    let pinned = &manifest["inputs"]["files"];
    assert_eq!(
        pinned
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect::<Vec<_>>()),
        Some(vec!["check.py", "spec.toml"]),
        "the script and the spec, not the results folder: {manifest}"
    );
    assert_eq!(manifest["inputs"]["folder"], ".");
    let interpreter = &manifest["environment"]["python"][python()]["python"];
    assert!(
        interpreter.as_str().is_some_and(|v| v.starts_with("3.")),
        "{manifest}"
    );
    let verified = run_in(dir.path(), &["verify", "out"], None);
    assert_eq!(verified.status.code(), Some(0), "{}", stdout(&verified));
    // The same answer from any other folder (the spec's folder is `.` where the study ran).
    let elsewhere = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for cwd in [elsewhere.path(), Path::new("/"), &out] {
        let verified = run_in(cwd, &["verify", out.to_str().unwrap()], None);
        assert_eq!(
            verified.status.code(),
            Some(0),
            "from {}: {}",
            cwd.display(),
            stdout(&verified)
        );
    }
    let mut script = fs::read_to_string(dir.path().join("check.py")).unwrap();
    script.push_str("\n# edited\n");
    fs::write(dir.path().join("check.py"), script).unwrap();
    let edited = run_in(dir.path(), &["verify", "out"], None);
    assert_eq!(edited.status.code(), Some(1), "{}", stdout(&edited));
    let from_elsewhere = run_in(elsewhere.path(), &["verify", out.to_str().unwrap()], None);
    assert_eq!(
        from_elsewhere.status.code(),
        Some(1),
        "{}",
        stdout(&from_elsewhere)
    );
    assert!(
        stdout(&edited).contains("STALE") && stdout(&edited).contains("./check.py: pinned sha256"),
        "{}",
        stdout(&edited)
    );
}

#[test]
fn the_real_checkers_study_regenerates_byte_for_byte() {
    let venv = repo().join("research/2026-11-30-real-checkers/.venv/bin/python");
    if !venv.exists() {
        assert!(
            std::env::var_os("DRIFTLAB_REQUIRE_LIVE_SERVERS").is_none(),
            "{} is missing but DRIFTLAB_REQUIRE_LIVE_SERVERS is set: run scripts/install-real-checkers.sh",
            venv.display()
        );
        skip("the published checkers are not installed (scripts/install-real-checkers.sh)");
        return;
    }
    let study = "mcp-real-checkers-2026-11-30";
    let fresh = assert_regenerates(
        study,
        &[
            "study",
            "research/2026-11-30-real-checkers/study.toml",
            "--quiet",
        ],
    );
    assert!(fresh.names.contains(&"rows.csv".to_string()));
    // What the study found, so a change in the tools or the adapters is noticed: both tools
    // crash on a null inputSchema (counted apart, never as detected).
    let summary = read_json(&fresh.fresh.join("summary.json"));
    let crashes: Vec<(String, String, u64)> = summary["crashes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["gate"].as_str().unwrap().to_string(),
                c["mutation"].as_str().unwrap().to_string(),
                c["crashed"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        crashes,
        [
            ("mcp-compat-0.1.0".into(), "input-schema-null".into(), 240),
            ("mcp-diff-0.1.0".into(), "input-schema-null".into(), 240)
        ]
    );
}

/// `verify` reads what a folder was made from: the inputs re-hashed where their folder is found
/// (a changed spec is STALE, exit 1; a folder moved away from them is not checked, exit 0), the
/// commit that wrote it, and the recorded environment against this machine's (a difference is
/// listed, and fails nothing).
#[test]
fn verify_checks_inputs_code_and_environment() {
    let dir = script_checker_study(2);
    let verified = run_in(dir.path(), &["verify", "out"], None);
    let text = stdout(&verified);
    assert_eq!(verified.status.code(), Some(0), "{text}");
    assert!(
        text.contains("    inputs: all 2 pinned match, in"),
        "{text}"
    );
    assert!(text.contains("    code: "), "{text}");
    assert!(!text.contains("environment here differs"), "{text}");

    // A recorded interpreter this machine does not have is listed, and fails nothing.
    let path = dir.path().join("out/manifest.json");
    let mut manifest = read_json(&path);
    manifest["environment"]["python"][python()]["python"] = "2.7.18".into();
    fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    let verified = run_in(dir.path(), &["verify", "out"], None);
    let text = stdout(&verified);
    assert_eq!(verified.status.code(), Some(0), "{text}");
    assert!(text.contains(": python 2.7.18 recorded, 3."), "{text}");

    // Moved away from its inputs, the folder's own files still verify.
    let elsewhere = tempfile::tempdir().unwrap();
    let moved = elsewhere.path().join("out");
    fs::create_dir(&moved).unwrap();
    for entry in fs::read_dir(dir.path().join("out")).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), moved.join(entry.file_name())).unwrap();
    }
    let verified = run_in(elsewhere.path(), &["verify", "out"], None);
    let text = stdout(&verified);
    assert_eq!(verified.status.code(), Some(0), "{text}");
    assert!(text.contains("inputs: not checked"), "{text}");

    // A spec changed since the run: the results no longer follow from it.
    let mut spec = fs::read_to_string(dir.path().join("spec.toml")).unwrap();
    spec.push_str("# edited\n");
    fs::write(dir.path().join("spec.toml"), spec).unwrap();
    let verified = run_in(dir.path(), &["verify", "out"], None);
    let text = stdout(&verified);
    assert_eq!(verified.status.code(), Some(1), "{text}");
    assert!(
        text.contains("STALE") && text.contains("./spec.toml: pinned sha256"),
        "{text}"
    );
}
