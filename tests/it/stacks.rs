//! `driftlab stack-study`: the six-stack study regenerates byte for byte from its spec on the
//! pinned stacks (scripts/install-stacks.sh, `npm ci --prefix servers`), what it found stays
//! found, and a spec that names what does not exist is refused before anything runs.

use crate::common;

use common::live::servers_dir;
use std::path::Path;

use common::{read_json, repo, run_in, skip, stderr};
use serde_json::Value;

const SPEC: &str = "research/2026-12-03-six-stacks/study.toml";
const STUDY: &str = "2026-12-03-six-stacks";

fn stacks_installed() -> bool {
    let venv = repo().join("research/2026-12-03-six-stacks/.venv/bin/python");
    let adapters = repo().join("research/2026-12-03-six-stacks/.venv-adapters/bin/python");
    let sdk = servers_dir().join("node_modules/@modelcontextprotocol/sdk/package.json");
    // The real-server rows run mcp-server-git and build a git repository for it.
    let git_server = servers_dir().join(".venv/bin/mcp-server-git");
    let git = std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok();
    if venv.exists() && adapters.exists() && sdk.exists() && git_server.exists() && git {
        return true;
    }
    assert!(
        std::env::var_os("DRIFTLAB_REQUIRE_LIVE_SERVERS").is_none(),
        "{} is missing but DRIFTLAB_REQUIRE_LIVE_SERVERS is set: run scripts/install-stacks.sh",
        venv.display()
    );
    skip("the agent stacks, their MCP adapters or the pinned servers are not installed (scripts/install-stacks.sh, servers/)");
    false
}

/// The five MCP adapters' row prefixes.
const ADAPTERS: [&str; 5] = [
    "langchain",
    "crewai",
    "agents-sdk",
    "autogen",
    "pydantic-ai",
];

/// The cell of `row` and `case` in summary.json.
fn cell<'a>(summary: &'a Value, row: &str, case: &str) -> &'a Value {
    let row = summary["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["row"] == row)
        .unwrap_or_else(|| panic!("no row {row}"));
    &row["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c[0] == case)
        .unwrap_or_else(|| panic!("no case {case} in {row}"))[1]
}

#[test]
fn the_six_stack_study_regenerates_byte_for_byte() {
    if !stacks_installed() {
        return;
    }
    let fresh = common::assert_regenerates(STUDY, &["stack-study", "--yes", SPEC]);
    assert_eq!(
        fresh.names,
        [
            "calls.csv",
            "report.md",
            "six-stacks-3.5in.png",
            "six-stacks-3.5in.svg",
            "six-stacks-7in.png",
            "six-stacks-7in.svg",
            "six-stacks-adapters-3.5in.png",
            "six-stacks-adapters-3.5in.svg",
            "six-stacks-adapters-7in.png",
            "six-stacks-adapters-7in.svg",
            "six-stacks-adapters.png",
            "six-stacks-adapters.svg",
            "six-stacks.png",
            "six-stacks.svg",
            "summary.csv",
            "summary.json"
        ]
    );
    let summary = read_json(&fresh.fresh.join("summary.json"));
    let rows = summary["rows"].as_array().unwrap();
    let cases: Vec<&str> = summary["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    // At least five of the six stacks were measured: calls of theirs ran at version 1.
    let mut measured: Vec<&str> = rows
        .iter()
        .filter(|r| {
            r["cells"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c[1]["calls"].as_u64() > c[1]["control_failed"].as_u64())
        })
        .map(|r| r["stack"].as_str().unwrap())
        .collect();
    measured.dedup();
    assert!(measured.len() >= 5, "{measured:?}");
    // What it found: a renamed optional parameter is dropped silently under every stack's
    // defaults that validates by pydantic's default model, and nothing stops the output change
    // but the guard.
    for row in [
        "langchain",
        "crewai-args-schema",
        "agents-sdk",
        "autogen",
        "mcp-python",
        "mcp-typescript",
    ] {
        assert!(
            cell(&summary, row, "renamed-optional")["silent"].as_u64() > Some(0),
            "{row}"
        );
    }
    // In refuse mode no call is silent and none is refused needlessly: the calls the drift does
    // not touch run correctly (refuse mode decides per call), and the changed answer is loud.
    for row in [
        "mcp-python+guard-refuse",
        "mcp-typescript+guard-refuse",
        "mcp-python-lowlevel+guard-refuse",
        "mcp-typescript-lowlevel+guard-refuse",
    ] {
        for case in &cases {
            let c = cell(&summary, row, case);
            assert_eq!(c["silent"], 0, "{row} {case}");
            assert_eq!(c["needless_refusals"], 0, "{row} {case}");
        }
        assert_eq!(
            cell(&summary, row, "renamed-optional")["correct"],
            8,
            "{row}"
        );
        assert_eq!(cell(&summary, row, "output-shape")["loud"], 12, "{row}");
    }
    // Neither low-level server checks a type: the 5 floats sent where version 2 declares an
    // integer run in a body declared for integers, and behind the guard they are refused.
    for row in ["mcp-python-lowlevel", "mcp-typescript-lowlevel"] {
        assert_eq!(
            cell(&summary, row, "narrowed-float-int")["silent"],
            5,
            "{row}"
        );
    }
    // The low-level TypeScript server validates nothing: a renamed or a new required parameter
    // reaches a body that runs on `undefined`.
    for case in ["renamed-required", "required-added"] {
        assert_eq!(
            cell(&summary, "mcp-typescript-lowlevel", case)["silent"],
            12,
            "{case}"
        );
    }
    for row in rows.iter().filter(|r| r["path"] == "straight") {
        let c = cell(&summary, row["row"].as_str().unwrap(), "output-shape");
        assert_eq!(
            c["silent"].as_u64(),
            c["calls"]
                .as_u64()
                .map(|n| n - c["control_failed"].as_u64().unwrap()),
            "{row}"
        );
    }
    // The spec's note on the Agents SDK rows says strict mode decides nothing on the bench.
    for case in &cases {
        assert_eq!(
            cell(&summary, "agents-sdk", case),
            cell(&summary, "agents-sdk-non-strict", case),
            "{case}: the Agents SDK rows differ, so the rows' note is wrong"
        );
    }
    // In warn mode the guard refuses only calls that would not have run correctly.
    for row in ["mcp-python+guard-warn", "mcp-typescript+guard-warn"] {
        for case in &cases {
            assert_eq!(
                cell(&summary, row, case)["needless_refusals"],
                0,
                "{row} {case}"
            );
        }
    }
    verdicts_follow_the_written_rules(&summary);
    adapter_rows_measure_the_path_agents_use(&summary);
    translation_serves_every_adapter(&summary);
    the_patterns_cover_every_row_once(&summary);
    every_guard_refusal_that_names_a_fix_is_retried_and_judged_by_meaning(
        &summary,
        &fresh.fresh.join("calls.csv"),
    );
    // Every claim was held against a cell: confirmed, contradicted, partly, or untested for a
    // reason the report gives (every call failed at version 1), each with its evidence row.
    for claim in summary["claims"].as_array().unwrap() {
        let verdict = claim["verdict"].as_str().unwrap();
        assert!(["confirmed", "contradicted", "partly", "untested"].contains(&verdict));
        assert!(!claim["reason"].as_str().unwrap().is_empty(), "{claim}");
        let record = claim["evidence_record"].as_u64().unwrap() as usize;
        let calls = csv::Reader::from_path(fresh.fresh.join("calls.csv"))
            .unwrap()
            .into_records()
            .nth(record - 1)
            .unwrap()
            .unwrap();
        assert_eq!(
            (&calls[0], &calls[1], &calls[3]),
            (
                claim["row"].as_str().unwrap(),
                claim["case"].as_str().unwrap(),
                claim["evidence_call"].to_string().as_str()
            ),
            "{claim}"
        );
    }
}

#[test]
fn a_spec_that_names_what_does_not_exist_is_refused() {
    let text = std::fs::read_to_string(repo().join(SPEC)).unwrap();
    let cases = [
        (
            text.replace("class = \"tool-renamed\"", "class = \"tool-repainted\""),
            "unknown mutation class \"tool-repainted\"",
        ),
        (
            text.replace("row = \"crewai-forbid\"", "row = \"crewai-strict\""),
            "claim on unknown row \"crewai-strict\"",
        ),
        (
            text.replace("claimed = \"silent\"", "claimed = \"quiet\""),
            "claim \"quiet\": expected one of",
        ),
        (
            text.replace(
                "\"stacks/autogen_stack.py\", \"default\"]",
                "\"stacks/autogen_stack.py\", \"default\"]\nserver = [\"y\"]",
            ),
            "stack autogen: give either `command`",
        ),
        (
            text.replace(
                "against = \"agents-sdk-non-strict\"",
                "against = \"agents-sdk-lenient\"",
            ),
            "claim compared against unknown row \"agents-sdk-lenient\"",
        ),
        (
            text.replace("calls_per_case = 12", "calls_per_case = 0"),
            "calls_per_case ≥ 1",
        ),
        (
            text.replace("celsius = \"integer\"", "celsius = \"int\""),
            "gives celsius the type \"int\", not a JSON Schema type",
        ),
        (text.replace("seed = ", "seed = \"x\"\n#"), "study.toml:"),
        (
            text.replace("id = \"2026-12-03-six-stacks\"", "id = \"../../escape\""),
            "id \"../../escape\" must be 1-100 characters",
        ),
    ];
    for (spec, expected) in cases {
        assert_ne!(spec, text, "{expected}: the replacement did not apply");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("study.toml");
        std::fs::write(&path, spec).unwrap();
        let out = dir.path().join("out");
        let output = run_in(
            dir.path(),
            &[
                "stack-study",
                path.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            None,
        );
        assert_eq!(output.status.code(), Some(2), "{expected}");
        assert!(
            stderr(&output).contains(expected),
            "{expected}: {}",
            stderr(&output)
        );
        assert!(!out.exists(), "{expected}: a refused spec wrote its folder");
    }
}

#[test]
fn the_results_page_quotes_the_committed_table_at_a_glance() {
    let report =
        std::fs::read_to_string(repo().join("results").join(STUDY).join("report.md")).unwrap();
    let start = report.find("| pattern |").expect("a table at a glance");
    let end = start + report[start..].find("\n\n").unwrap();
    let page = std::fs::read_to_string(repo().join("docs/six-stacks.md")).unwrap();
    assert!(
        page.contains(&report[start..end]),
        "docs/six-stacks.md does not quote the table at a glance of results/{STUDY}/report.md: run scripts/regenerate --docs-only"
    );
}

/// Behind `guard --translate renames`, between each of the five adapters and its server, every
/// call of a rename case that ran at version 1 runs as the caller meant at version 2: a renamed
/// required or optional parameter, a renamed tool, and the real servers' renamed parameters.
/// Without the guard, none of these cells is all correct.
fn translation_serves_every_adapter(summary: &Value) {
    let ran = |c: &Value| c["calls"].as_u64().unwrap() - c["control_failed"].as_u64().unwrap();
    for adapter in ADAPTERS {
        for (row, cases) in [
            (
                "py",
                &["renamed-required", "renamed-optional", "tool-renamed"][..],
            ),
            ("real", &["real-read-text-file", "real-git-log"][..]),
        ] {
            for case in cases {
                let row = format!("{adapter}-mcp-{row}");
                let guarded = cell(summary, &format!("{row}+guard-translate"), case);
                assert!(ran(guarded) > 0, "{row} {case}: nothing ran at version 1");
                assert_eq!(
                    guarded["correct"].as_u64(),
                    Some(ran(guarded)),
                    "{row} {case}"
                );
                let straight = cell(summary, &row, case);
                assert!(
                    straight["correct"].as_u64() < Some(ran(straight)),
                    "{row} {case}"
                );
            }
        }
    }
}

/// The verdicts METHOD.md's rules give the cells an audit disputed, and the tally that keeps
/// driftlab's own claims apart from the survey's.
fn verdicts_follow_the_written_rules(summary: &Value) {
    let claims = summary["claims"].as_array().unwrap();
    let find = |row: &str, case: &str, says: &str| {
        claims
            .iter()
            .find(|c| {
                c["row"] == row && c["case"] == case && c["says"].as_str().unwrap().contains(says)
            })
            .unwrap_or_else(|| panic!("no claim {says} on {row} {case}"))
    };
    // Validation is skipped where the body ran on the drifted value, silent or crashing in it.
    for row in ["mcp-python-lowlevel", "mcp-typescript-lowlevel"] {
        for case in ["narrowed-list-str", "enum-value-removed"] {
            let claim = find(row, case, "skip validation");
            assert!(
                cell(summary, row, case)["crash"].as_u64() > Some(0),
                "{row} {case}"
            );
            assert_eq!(claim["verdict"], "confirmed", "{claim}");
        }
    }
    // A high-level SDK server stopped the wrong type before the body.
    let claim = find("mcp-python", "narrowed-float-int", "skip validation");
    assert_eq!(claim["verdict"], "contradicted", "{claim}");
    // Strict mode decides nothing on the bench: the row without it ended alike.
    for case in [
        "narrowed-float-int",
        "narrowed-list-str",
        "enum-value-removed",
    ] {
        let claim = find("agents-sdk", case, "strict mode");
        assert_eq!(claim["verdict"], "untested", "{claim}");
        assert!(
            claim["reason"]
                .as_str()
                .unwrap()
                .contains("agents-sdk-non-strict"),
            "{claim}"
        );
    }
    // No call of CrewAI's forbid row gets past version 1; the reason quotes why.
    let claim = find("crewai-forbid", "renamed-optional", "forbid");
    assert_eq!(claim["verdict"], "untested");
    let reason = claim["reason"].as_str().unwrap();
    assert!(
        reason.contains("version 1") && reason.contains("security_context"),
        "{claim}"
    );
    // Each survey claim about a stack is held on its MCP adapter's rows too.
    for row in [
        "langchain-mcp-ts-lowlevel",
        "autogen-tools-mcp-py",
        "crewai-mcp-py",
    ] {
        assert!(claims.iter().any(|c| c["row"] == row), "{row}");
    }
    let tally = &summary["claims_tally"];
    let guard = claims
        .iter()
        .filter(|c| c["row"].as_str().unwrap().contains('+'))
        .count();
    let counted = |t: &Value| {
        ["confirmed", "contradicted", "partly", "untested"]
            .iter()
            .map(|k| t[k].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(counted(&tally["guard"]), guard as u64);
    assert_eq!(counted(&tally["survey"]), (claims.len() - guard) as u64);
}

/// The table at a glance groups the rows: every row is in exactly one pattern, and the rows of
/// a pattern ended alike in every case about a tool's inputs (by their counts per outcome).
fn the_patterns_cover_every_row_once(summary: &Value) {
    let rows = summary["rows"].as_array().unwrap();
    let patterns = summary["patterns"].as_array().unwrap();
    let mut covered: Vec<&str> = patterns
        .iter()
        .flat_map(|p| p["rows"].as_array().unwrap())
        .map(|r| r.as_str().unwrap())
        .collect();
    let mut all: Vec<&str> = rows.iter().map(|r| r["row"].as_str().unwrap()).collect();
    covered.sort_unstable();
    all.sort_unstable();
    assert_eq!(covered, all);
    assert!(
        patterns.len() < rows.len() / 2,
        "{} patterns",
        patterns.len()
    );
    let outcomes = ["silent", "loud", "crash", "refused"];
    for pattern in patterns {
        let members = pattern["rows"].as_array().unwrap();
        let first = members[0].as_str().unwrap();
        for member in members {
            for case in summary["cases"].as_array().unwrap() {
                let case = case.as_str().unwrap();
                if case == "output-shape" {
                    continue;
                }
                let (a, b) = (
                    cell(summary, first, case),
                    cell(summary, member.as_str().unwrap(), case),
                );
                // A cell with no calls is `–`, one whose calls all failed at version 1 `n/a`.
                let status = |c: &Value| (c["calls"] == 0, c["calls"] == c["control_failed"]);
                assert_eq!(
                    status(a),
                    status(b),
                    "{first} and {member} differ on {case}"
                );
                for outcome in outcomes {
                    assert_eq!(
                        a[outcome], b[outcome],
                        "{first} and {member} differ on {case}"
                    );
                }
            }
        }
    }
}

/// The MCP adapters against the four server builds and the real servers: what they found.
fn adapter_rows_measure_the_path_agents_use(summary: &Value) {
    let rows = summary["rows"].as_array().unwrap();
    let adapter_rows: Vec<&str> = rows
        .iter()
        .map(|r| r["row"].as_str().unwrap())
        .filter(|r| r.contains("-mcp-"))
        .collect();
    // 29 straight (AutoGen's two MCP paths), and 10 behind the guard with --translate renames.
    assert_eq!(adapter_rows.len(), 39, "{adapter_rows:?}");
    assert_eq!(
        adapter_rows
            .iter()
            .filter(|r| r.ends_with("+guard-translate"))
            .count(),
        10
    );
    // The body is the server's: behind the low-level TypeScript server a renamed required
    // parameter reaches a body that runs on `undefined` unless the adapter checks the schema
    // itself (the Agents SDK checks required parameters; CrewAI builds a pydantic model).
    for adapter in ["langchain", "autogen", "pydantic-ai"] {
        let c = cell(
            summary,
            &format!("{adapter}-mcp-ts-lowlevel"),
            "renamed-required",
        );
        assert_eq!(c["silent"], 12, "{adapter}");
        let high = cell(summary, &format!("{adapter}-mcp-ts"), "renamed-required");
        assert_eq!(
            high["loud"], 12,
            "{adapter} in front of the validating server"
        );
    }
    for adapter in ["agents-sdk", "crewai"] {
        let c = cell(
            summary,
            &format!("{adapter}-mcp-ts-lowlevel"),
            "renamed-required",
        );
        assert_eq!(c["loud"], 12, "{adapter}");
    }
    // AutoGen's tools from mcp_server_tools validate with a pydantic model of the schema, which
    // its McpWorkbench does not: loud where the workbench lets a stale call through, silent
    // where the low-level Python body would have refused an unknown argument; and a schema
    // whose `type` is a list cannot be loaded at all (every call fails before any drift).
    for case in ["renamed-required", "required-added", "narrowed-float-int"] {
        let workbench = cell(summary, "autogen-mcp-ts-lowlevel", case);
        let tools = cell(summary, "autogen-tools-mcp-ts-lowlevel", case);
        assert!(workbench["silent"].as_u64() > Some(0), "{case}");
        assert_eq!(tools["silent"], 0, "{case}");
        assert_eq!(tools["loud"], workbench["silent"], "{case}");
    }
    assert_eq!(
        cell(summary, "autogen-mcp-py-lowlevel", "renamed-optional")["silent"],
        0
    );
    assert_eq!(
        cell(summary, "autogen-tools-mcp-py-lowlevel", "renamed-optional")["silent"],
        4
    );
    let git_log = cell(summary, "autogen-tools-mcp-ts", "real-git-log");
    assert_eq!(git_log["control_failed"], git_log["calls"]);
    // On the real servers a renamed filter is dropped and the call still runs: every adapter
    // passes the stale call, and the server answers without the filter.
    for adapter in ADAPTERS {
        let row = format!("{adapter}-mcp-real");
        for case in ["real-read-text-file", "real-git-log"] {
            assert!(
                cell(summary, &row, case)["silent"].as_u64() > Some(0),
                "{row} {case}"
            );
        }
        // The row runs the real-tool cases only.
        assert_eq!(cell(summary, &row, "renamed-required")["calls"], 0, "{row}");
    }
}

/// Behind the guard quoting the server's words, every refusal of a renamed parameter, a removed
/// enum value, a new required parameter and a renamed tool is retried from its text and the
/// retry runs; judged by what the caller meant, a rename's retry is exact, and a new required
/// parameter's is invented (the caller never sent one), so it is not repaired. The Agents SDK's
/// own error names nothing to repair.
fn every_guard_refusal_that_names_a_fix_is_retried_and_judged_by_meaning(
    summary: &Value,
    calls_csv: &Path,
) {
    let repairable = [
        "renamed-required",
        "renamed-optional",
        "enum-value-removed",
        "required-added",
        "tool-renamed",
        "real-read-text-file",
        "real-git-log",
    ];
    let mut reader = csv::Reader::from_path(calls_csv).unwrap();
    let header = reader.headers().unwrap().clone();
    let mut checked = 0;
    for record in reader.records().map(Result::unwrap) {
        let col = |name: &str| &record[header.iter().position(|h| h == name).unwrap()];
        // The paths that quote the server's words, whose new names the repairer reads;
        // guard-translate's refusals say a change by kind only.
        let guarded = ["+guard-warn", "+guard-refuse"]
            .iter()
            .any(|path| col("row").ends_with(path));
        if !guarded || !repairable.contains(&col("case")) || col("control") != "correct" {
            continue;
        }
        if col("outcome") == "refused" {
            assert_eq!(col("retry_outcome"), "correct", "{record:?}");
            assert!(!col("retry_received").is_empty(), "{record:?}");
            let meant = match col("case") {
                "renamed-required" | "renamed-optional" | "tool-renamed" => "exact",
                "required-added" => "invented",
                _ => col("retry_meaning"),
            };
            assert_eq!(col("retry_meaning"), meant, "{record:?}");
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} refusals checked");
    let cases = summary["cases"].as_array().unwrap();
    for case in cases.iter().map(|c| c.as_str().unwrap()) {
        assert_eq!(cell(summary, "agents-sdk", case)["repaired"], 0, "{case}");
        let c = cell(summary, "mcp-python+guard-refuse", case);
        assert_eq!(
            c["repaired"].as_u64(),
            Some(c["exact"].as_u64().unwrap() + c["coerced"].as_u64().unwrap()),
            "{case}"
        );
    }
    assert_eq!(
        cell(summary, "mcp-python+guard-refuse", "required-added")["repaired"],
        0
    );
}

/// A probe `bench/forkserver.py` runs in a server script's place: what `python SCRIPT` sees.
const PROBE: &str = r#"
import os, sys
import helper  # beside the script: the script's folder is first on sys.path
print(sys.argv[1:], os.getcwd(), os.environ.get("PROBE"), repr(sys.stdin.read()), __name__, helper.NAME)
print("to stderr", file=sys.stderr)
if sys.argv[1] == "wait":
    with open(sys.argv[2], "w") as out:
        out.write(str(os.getpid()))
    import time
    time.sleep(60)
sys.exit(3)
"#;

/// `bench/forkserver.py` (how the study starts its Python bench servers) runs a script as
/// `python SCRIPT` does: the same arguments, working folder, environment, streams and exit
/// code; and a launcher killed as a caller kills a server takes its script with it.
#[test]
fn the_fork_server_runs_a_script_as_python_does_and_dies_with_its_launcher() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    if !stacks_installed() {
        return;
    }
    let study = repo().join("research/2026-12-03-six-stacks");
    let python = study.join(".venv/bin/python");
    let forkserver = study.join("bench/forkserver.py");
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("probe.py");
    std::fs::write(&script, PROBE).unwrap();
    std::fs::write(dir.path().join("helper.py"), "NAME = 'helper'\n").unwrap();
    let run = |through_fork_server: bool| {
        let mut command = Command::new(&python);
        if through_fork_server {
            command.arg(&forkserver);
        }
        let mut child = command
            .arg(&script)
            .args(["a b", "c"])
            .current_dir(dir.path())
            .env("PROBE", "set")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"in").unwrap();
        child.wait_with_output().unwrap()
    };
    let direct = run(false);
    let forked = run(true);
    assert_eq!(direct.status.code(), Some(3), "{}", stderr(&direct));
    assert_eq!(forked.status.code(), Some(3), "{}", stderr(&forked));
    assert_eq!(
        String::from_utf8_lossy(&forked.stdout),
        String::from_utf8_lossy(&direct.stdout)
    );
    assert!(String::from_utf8_lossy(&direct.stdout).contains("['a b', 'c']"));
    assert_eq!(stderr(&forked), stderr(&direct));

    let pid_file = dir.path().join("pid");
    let mut launcher = Command::new(&python)
        .arg(&forkserver)
        .arg(&script)
        .arg("wait")
        .arg(&pid_file)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let pid = loop {
        let text = std::fs::read_to_string(&pid_file).unwrap_or_default();
        if let Ok(pid) = text.trim().parse::<u32>() {
            break pid;
        }
        assert!(
            std::time::Instant::now() < until,
            "the script never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    launcher.kill().unwrap();
    launcher.wait().unwrap();
    let gone = |pid: u32| {
        // Gone, or a zombie its parent has yet to reap.
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|stat| {
                stat.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(true)
    };
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !gone(pid) {
        assert!(
            std::time::Instant::now() < until,
            "the script {pid} outlived its launcher"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
