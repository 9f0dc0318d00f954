//! The gate's CI surfaces as GitHub ingests them: SARIF valid against the official 2.1.0 schema
//! with every result in a repository file on the finding's line, annotations within GitHub's
//! per-step limits, the job summary, bounded Markdown, and approved snapshots read from git.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use common::live::{installed, servers_dir};
use common::{repo, stderr, stdout};
use serde_json::{json, Value};

fn corpus(name: &str) -> String {
    fs::read_to_string(repo().join("tests/data/corpus").join(name)).unwrap()
}

/// A repository-like folder holding `mcp/approved.json` and `mcp/current.json`.
fn workspace(approved: &str, current: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("mcp")).unwrap();
    fs::write(dir.path().join("mcp/approved.json"), approved).unwrap();
    fs::write(dir.path().join("mcp/current.json"), current).unwrap();
    dir
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    common::driftlab()
        .current_dir(dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_WORKSPACE")
        .args(args)
        .output()
        .unwrap()
}

/// The official SARIF 2.1.0 schema, vendored.
fn sarif_schema() -> jsonschema::Validator {
    let path = repo().join("tests/data/sarif/sarif-schema-2.1.0.json");
    let schema: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .build(&schema)
        .unwrap()
}

#[test]
fn the_schema_check_can_fail() {
    let validator = sarif_schema();
    let good =
        json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": []}]});
    assert!(validator.is_valid(&good));
    let mut bad = good.clone();
    bad["runs"][0]["results"] = json!([{"message": {"text": "m"}, "level": "fatal"}]);
    assert!(!validator.is_valid(&bad));
    bad["runs"][0]["results"] = json!([{"message": {"text": "m"}, "locations": [{"physicalLocation": {"region": {"startLine": 0}}}]}]);
    assert!(!validator.is_valid(&bad), "startLine starts at 1");
}

/// `check --approved mcp/approved.json mcp/current.json --format FORMAT` in `dir`.
fn gate(dir: &Path, format: &str) -> Output {
    let args = [
        "check",
        "--approved",
        "mcp/approved.json",
        "mcp/current.json",
        "--format",
        format,
    ];
    run_in(dir, &args)
}

/// Validates against the vendored official schema and GitHub's ingestion rules; returns the run.
fn assert_uploadable(sarif: &str, anchor_text: &str, anchor_uri: &str) -> Value {
    let validator = sarif_schema();
    let value: Value = serde_json::from_str(sarif).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF breaks the 2.1.0 schema: {errors:#?}"
    );
    let run = &value["runs"][0];
    assert!(
        run["automationDetails"]["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("driftlab/") && id.ends_with('/')),
        "{}",
        run["automationDetails"]
    );
    let lines: Vec<&str> = anchor_text.lines().collect();
    let results = run["results"].as_array().unwrap();
    assert!(results.len() <= 25_000);
    for result in results {
        let physical = &result["locations"][0]["physicalLocation"];
        assert_eq!(physical["artifactLocation"]["uri"], anchor_uri, "{result}");
        assert_eq!(physical["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        let line = physical["region"]["startLine"].as_u64().unwrap() as usize;
        let column = physical["region"]["startColumn"].as_u64().unwrap() as usize;
        assert!(line >= 1 && line <= lines.len(), "{result}");
        assert!(
            column >= 1 && column <= lines[line - 1].len() + 1,
            "{result}"
        );
        // The region starts at the member the anchor pointer names: its key is there.
        let pointer = result["properties"]["anchorPointer"].as_str().unwrap();
        if let Some(key) = pointer
            .rsplit('/')
            .next()
            .filter(|k| k.parse::<usize>().is_err())
        {
            if !key.is_empty() {
                let at = &lines[line - 1][column - 1..];
                assert!(
                    at.starts_with(&format!("\"{key}\"")),
                    "{pointer} at {line}:{column}: {at}"
                );
            }
        }
        let rule = result["ruleId"].as_str().unwrap();
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        let entry = rules.iter().find(|r| r["id"] == rule).expect("rule listed");
        for key in [
            "shortDescription",
            "fullDescription",
            "helpUri",
            "defaultConfiguration",
        ] {
            assert!(!entry[key].is_null(), "{rule} lacks {key}");
        }
        assert!(entry["helpUri"]
            .as_str()
            .unwrap()
            .ends_with(&format!("docs/rules.md#{rule}")));
        assert!(!result["partialFingerprints"]["driftlab/v1"].is_null());
    }
    run.clone()
}

#[test]
fn file_mode_sarif_is_uploadable_and_lands_on_the_line() {
    let old = corpus("@modelcontextprotocol__server-everything@2025.9.25.json");
    let new = corpus("@modelcontextprotocol__server-everything@2026.8.31.json");
    let dir = workspace(&old, &new);
    let output = gate(dir.path(), "sarif");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let run = assert_uploadable(&stdout(&output), &new, "mcp/current.json");
    assert_eq!(run["automationDetails"]["id"], "driftlab/mcp/current.json/");
    let results = run["results"].as_array().unwrap();
    assert!(results.len() > 20, "{}", results.len());
    // A removed tool is not in the candidate: it lands on the candidate's tools list.
    let removed = results
        .iter()
        .find(|r| r["ruleId"] == "tool-removed")
        .unwrap();
    assert_eq!(removed["properties"]["anchorPointer"], "/toolsList/tools");

    // With no findings: still valid, no results.
    let output = run_in(
        dir.path(),
        &[
            "check",
            "--approved",
            "mcp/current.json",
            "mcp/current.json",
            "--format",
            "sarif",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let run = assert_uploadable(&stdout(&output), &new, "mcp/current.json");
    assert_eq!(run["results"], json!([]));
}

#[test]
fn live_mode_sarif_is_anchored_in_the_approved_snapshot() {
    let entry =
        servers_dir().join("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    if !installed(&entry) {
        return;
    }
    let old = corpus("@modelcontextprotocol__server-memory@0.6.2.json");
    let same = corpus("@modelcontextprotocol__server-memory@2026.8.31.json");
    let dir = workspace(&old, &same);
    let gate = |approved: &str, extra: &[&str]| {
        let mut args = vec!["check", "--approved", approved, "--format", "sarif"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--", "node", entry.to_str().unwrap()]);
        run_in(dir.path(), &args)
    };
    let output = gate("mcp/approved.json", &["--fail-on", "any"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let run = assert_uploadable(&stdout(&output), &old, "mcp/approved.json");
    assert!(!run["results"].as_array().unwrap().is_empty());
    for result in run["results"].as_array().unwrap() {
        assert!(result["properties"]["candidate"]
            .as_str()
            .unwrap()
            .starts_with("live:"));
    }
    // The same release: no findings, still a valid upload; --category names the alert set.
    let output = gate("mcp/current.json", &["--category", "memory"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let run = assert_uploadable(&stdout(&output), &same, "mcp/current.json");
    assert_eq!(run["automationDetails"]["id"], "driftlab/memory/");
    assert_eq!(run["results"], json!([]));
}

/// `n` clean tools named `t0`…, each described, with one described parameter of type `kind`:
/// only the changes a test makes are findings, whatever payload rules come to exist.
fn tools(n: usize, kind: &str) -> String {
    let tools: Vec<Value> = (0..n)
        .map(|i| {
            json!({"name": format!("t{i}"), "description": format!("Does task {i}."),
                "inputSchema": {"type": "object", "properties": {
                    "p": {"type": kind, "description": "What to work on."}}}})
        })
        .collect();
    serde_json::to_string_pretty(&json!({ "tools": tools })).unwrap()
}

#[test]
fn annotations_stay_within_githubs_limits_breaking_first() {
    // 15 narrowed parameters (breaking) and 12 added tools (compatible).
    let old = tools(15, "string");
    let mut new: Value = serde_json::from_str(&tools(27, "integer")).unwrap();
    new["tools"].as_array_mut().unwrap()[15..]
        .iter_mut()
        .for_each(|t| t["inputSchema"]["properties"]["p"]["type"] = "string".into());
    let new = serde_json::to_string_pretty(&new).unwrap();
    let dir = workspace(&old, &new);
    let output = gate(dir.path(), "github");
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("::error ")).collect();
    let notices = text.lines().filter(|l| l.starts_with("::notice ")).count();
    assert_eq!((errors.len(), notices), (10, 10), "{text}");
    // The first narrowing is t0's `"type"` on its line of the candidate file.
    let line = new.lines().position(|l| l.contains("\"integer\"")).unwrap() + 1;
    assert!(
        errors[0].starts_with(&format!("::error file=mcp/current.json,line={line},col=")),
        "{}",
        errors[0]
    );
    assert!(
        text.contains("driftlab: 7 more finding(s) not annotated"),
        "{text}"
    );
}

#[test]
fn the_job_summary_and_markdown_are_bounded() {
    // 20,000 removed tools: far over a comment's 64 KB and the summary's 1 MiB.
    let old = tools(20_000, "string");
    let dir = workspace(&old, "{\"tools\": []}");
    let summary = dir.path().join("summary.md");
    fs::write(&summary, "earlier step\n").unwrap();
    let output = common::driftlab()
        .current_dir(dir.path())
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args([
            "check",
            "--approved",
            "mcp/approved.json",
            "mcp/current.json",
            "--format",
            "markdown",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let comment = stdout(&output);
    assert!(comment.len() <= 64_000, "{}", comment.len());
    assert!(
        comment.starts_with("### driftlab check: ❌ DRIFT"),
        "{comment:.200}"
    );
    assert!(
        comment.contains("more finding(s) not shown"),
        "{}",
        &comment[comment.len() - 300..]
    );
    let written = fs::read_to_string(&summary).unwrap();
    assert!(
        written.starts_with("earlier step\n### driftlab check"),
        "appended, not replaced"
    );
    assert!(
        written.len() <= 1024 * 1024 && written.len() > 900_000,
        "{}",
        written.len()
    );
    assert!(
        written.trim_end().ends_with("lists all."),
        "{}",
        &written[written.len() - 300..]
    );
    // SARIF keeps the 5,000 GitHub shows and says what it left out.
    let output = gate(dir.path(), "sarif");
    let sarif: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 5_000);
    let note = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert!(
        note["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with("15000 of 20000 findings are left out"),
        "{note}"
    );
    // --no-step-summary leaves the file alone.
    let before = fs::read(&summary).unwrap();
    common::driftlab()
        .current_dir(dir.path())
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args([
            "check",
            "--no-step-summary",
            "--approved",
            "mcp/approved.json",
            "mcp/current.json",
        ])
        .output()
        .unwrap();
    assert_eq!(fs::read(&summary).unwrap(), before);
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

#[test]
fn an_approved_snapshot_is_read_from_a_git_revision() {
    let old = tools(3, "string");
    let dir = workspace(&old, &old);
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "mcp"]);
    git(dir.path(), &["commit", "-q", "-m", "approve"]);
    // The working tree's snapshot is re-recorded with a narrowing; HEAD still has the old one.
    fs::write(dir.path().join("mcp/approved.json"), tools(3, "integer")).unwrap();
    let output = run_in(
        dir.path(),
        &[
            "check",
            "--approved",
            "HEAD:mcp/approved.json",
            "mcp/approved.json",
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["findings"][0]["rule"], "type-changed", "{report}");
    // diff reads revisions too; from a subfolder, PATH is still relative to the root.
    let output = run_in(
        &dir.path().join("mcp"),
        &["diff", "HEAD:mcp/approved.json", "HEAD:mcp/current.json"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // A candidate that is no file (stdin here, a live server alike) is anchored in the
    // revision's path in the working tree, found by tool name.
    let output = with_stdin(
        dir.path(),
        &[
            "check",
            "--approved",
            "HEAD:mcp/approved.json",
            "-",
            "--format",
            "sarif",
        ],
        &tools(3, "integer"),
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let run = assert_uploadable(&stdout(&output), &tools(3, "integer"), "mcp/approved.json");
    let changed = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ruleId"] == "type-changed")
        .count();
    assert_eq!(changed, 3, "{run}");
    // Errors name the argument and git's reason.
    let output = run_in(
        dir.path(),
        &["diff", "nosuchrev:mcp/approved.json", "mcp/current.json"],
    );
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains(
            "nosuchrev:mcp/approved.json: no such file, and git cannot read it as REV:PATH"
        ),
        "{message}"
    );
    assert_eq!(message.lines().count(), 1, "{message}");
}

#[test]
fn an_anchor_outside_the_repository_is_refused() {
    let old = tools(2, "string");
    let dir = workspace(&old, &old);
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("x.json");
    fs::write(&outside, &old).unwrap();
    let output = run_in(
        dir.path(),
        &[
            "diff",
            "mcp/approved.json",
            outside.to_str().unwrap(),
            "--format",
            "sarif",
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("is outside the repository"),
        "{}",
        stderr(&output)
    );
    // Named with --anchor inside the repository, it is accepted.
    let output = run_in(
        dir.path(),
        &[
            "diff",
            "mcp/approved.json",
            outside.to_str().unwrap(),
            "--format",
            "sarif",
            "--anchor",
            "mcp/current.json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // stdin without a snapshot names no file: SARIF asks for one.
    let output = with_stdin(dir.path(), &["check", "--format", "sarif", "-"], &old);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("give --approved FILE or --anchor FILE"),
        "{}",
        stderr(&output)
    );
}

fn with_stdin(dir: &Path, args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = common::driftlab()
        .current_dir(dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_WORKSPACE")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// The Action's script, run as the composite step runs it, with a faked GitHub environment.
struct ActionRun {
    output: Output,
    outputs: String,
    summary: String,
}

fn action(dir: &Path, inputs: &[(&str, &str)], extra_env: &[(&str, &str)]) -> ActionRun {
    let (outputs, summary) = (dir.join("github_output"), dir.join("step_summary"));
    fs::write(&outputs, "").unwrap();
    fs::write(&summary, "").unwrap();
    let mut command = Command::new("bash");
    command
        .arg(repo().join("scripts/action.sh"))
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap())
        .env("HOME", dir)
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_WORKSPACE", dir)
        .env("DRIFTLAB_ACTION_REPOSITORY", "example/driftlab")
        .env("DRIFTLAB_BIN", env!("CARGO_BIN_EXE_driftlab"));
    for (name, value) in inputs {
        command.env(format!("INPUT_{name}"), value);
    }
    for (name, value) in extra_env {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    ActionRun {
        outputs: fs::read_to_string(&outputs).unwrap(),
        summary: fs::read_to_string(&summary).unwrap(),
        output,
    }
}

#[test]
fn the_action_gates_a_real_server_passing_and_failing() {
    let entry =
        servers_dir().join("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    if !installed(&entry) {
        return;
    }
    let same = corpus("@modelcontextprotocol__server-memory@2026.8.31.json");
    // The failing snapshot approved one more tool than the server lists.
    let mut more: Value = serde_json::from_str(&same).unwrap();
    more["toolsList"]["tools"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "forget_everything", "inputSchema": {"type": "object"}}));
    let more = serde_json::to_string_pretty(&more).unwrap();
    let dir = workspace(&same, &more);
    let server = format!("node\n{}\n", entry.display());

    let run = action(
        dir.path(),
        &[("APPROVED", "mcp/approved.json"), ("SERVER", &server)],
        &[],
    );
    assert_eq!(run.output.status.code(), Some(0), "{}", stderr(&run.output));
    assert_eq!(
        run.outputs,
        "verdict=pass\nbreaking=0\nfindings=0\nsarif=driftlab.sarif\n"
    );
    assert!(
        run.summary.starts_with("### driftlab check: ✅ PASS"),
        "{}",
        run.summary
    );
    let sarif = fs::read_to_string(dir.path().join("driftlab.sarif")).unwrap();
    assert_uploadable(&sarif, &same, "mcp/approved.json");

    let run = action(
        dir.path(),
        &[
            ("APPROVED", "mcp/current.json"),
            ("SERVER", &server),
            ("CATEGORY", "memory"),
        ],
        &[],
    );
    assert_eq!(run.output.status.code(), Some(1), "{}", stderr(&run.output));
    assert_eq!(
        run.outputs,
        "verdict=drift\nbreaking=1\nfindings=1\nsarif=driftlab.sarif\n"
    );
    assert!(run.summary.contains("tool-removed"), "{}", run.summary);
    let log = stdout(&run.output);
    let line = more
        .lines()
        .position(|l| l.contains("forget_everything"))
        .unwrap();
    assert!(
        log.starts_with("::error file=mcp/current.json,line="),
        "annotated in the approved snapshot: {log}"
    );
    assert!(
        log.contains("title=driftlab tool-removed (forget_everything)"),
        "{log}"
    );
    let sarif = fs::read_to_string(dir.path().join("driftlab.sarif")).unwrap();
    let sarif_run = assert_uploadable(&sarif, &more, "mcp/current.json");
    assert_eq!(sarif_run["automationDetails"]["id"], "driftlab/memory/");
    let region = &sarif_run["results"][0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        region["startLine"], line as u64,
        "the removed tool's object starts a line above its name"
    );

    // mode: snapshot re-records the snapshot from the server.
    let run = action(
        dir.path(),
        &[
            ("APPROVED", "mcp/recorded.json"),
            ("SERVER", &server),
            ("MODE", "snapshot"),
        ],
        &[],
    );
    assert_eq!(run.output.status.code(), Some(0), "{}", stderr(&run.output));
    assert_eq!(run.outputs, "verdict=recorded\n");
    let recorded = run_in(
        dir.path(),
        // The recording holds the server's whole contract; the corpus capture, its tools.
        &[
            "check",
            "--scope",
            "tools",
            "--approved",
            "mcp/recorded.json",
            "mcp/approved.json",
        ],
    );
    assert_eq!(recorded.status.code(), Some(0), "{}", stderr(&recorded));
}

#[test]
fn the_action_refuses_a_release_binary_it_cannot_verify() {
    let approved = tools(2, "string");
    let dir = workspace(&approved, &approved);
    // A release folder holding this build, as release.yml packages it.
    let release = dir.path().join("release");
    fs::create_dir(&release).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_driftlab"));
    let (os, arch) = (
        if cfg!(target_os = "macos") {
            "macOS"
        } else {
            "Linux"
        },
        if cfg!(target_arch = "aarch64") {
            "ARM64"
        } else {
            "X64"
        },
    );
    let target = format!(
        "{}-{}",
        std::env::consts::ARCH,
        if cfg!(target_os = "macos") {
            "apple-darwin"
        } else {
            "unknown-linux-gnu"
        }
    );
    let archive = release.join(format!("driftlab-{target}.tar.gz"));
    let status = Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(bin.parent().unwrap())
        .arg("driftlab")
        .status()
        .unwrap();
    assert!(status.success());
    let base = format!("file://{}", release.display());
    let env = [
        ("RUNNER_OS", os),
        ("RUNNER_ARCH", arch),
        ("DRIFTLAB_RELEASE_BASE", base.as_str()),
        ("DRIFTLAB_BIN", ""),
    ];
    let inputs = [
        ("APPROVED", "mcp/approved.json"),
        ("CANDIDATE", "mcp/current.json"),
    ];
    let checksum = archive.with_extension("gz.sha256");

    // No checksum: refused, nothing run.
    let run = action(dir.path(), &inputs, &env);
    assert_eq!(run.output.status.code(), Some(2), "{}", stderr(&run.output));
    assert!(stderr(&run.output).contains(".sha256 is missing: refusing an unverified binary"));
    assert_eq!(run.outputs, "");
    // A wrong checksum: refused.
    fs::write(&checksum, format!("{}  x\n", "0".repeat(64))).unwrap();
    let run = action(dir.path(), &inputs, &env);
    assert_eq!(run.output.status.code(), Some(2));
    assert!(
        stderr(&run.output).contains("checksum mismatch"),
        "{}",
        stderr(&run.output)
    );
    assert_eq!(run.outputs, "");
    // The right one: installed and run.
    let digest = Command::new("sha256sum").arg(&archive).output().unwrap();
    fs::write(&checksum, &digest.stdout).unwrap();
    let run = action(dir.path(), &inputs, &env);
    assert_eq!(run.output.status.code(), Some(0), "{}", stderr(&run.output));
    assert!(run.outputs.starts_with("verdict=pass\n"), "{}", run.outputs);
}

/// The targets and archive names the Action downloads are the ones the release workflow builds
/// and cargo-binstall looks for.
#[test]
fn the_action_downloads_what_the_release_builds() {
    let read = |p: &str| fs::read_to_string(repo().join(p)).unwrap();
    let (workflow, script, manifest) = (
        read(".github/workflows/release.yml"),
        read("scripts/action.sh"),
        read("Cargo.toml"),
    );
    let mut built: Vec<&str> = workflow
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- target: "))
        .collect();
    let mut fetched: Vec<&str> = script
        .lines()
        .filter_map(|l| l.trim().split_once(") echo "))
        .map(|(_, t)| t.trim_end_matches(" ;;"))
        .filter(|t| *t != "\"\"")
        .collect();
    built.sort_unstable();
    fetched.sort_unstable();
    assert_eq!(built.len(), 4);
    assert_eq!(built, fetched);
    assert!(workflow.contains("ARCHIVE: driftlab-${{ matrix.target }}.tar.gz"));
    assert!(workflow.contains("\"$ARCHIVE.sha256\""));
    assert!(workflow.contains("-C \"target/${{ matrix.target }}/release\" driftlab"));
    assert!(script.contains("archive=\"driftlab-${target}.tar.gz\""));
    assert!(script.contains("\"$base/$archive.sha256\""));
    assert!(manifest.contains("/releases/download/v{ version }/driftlab-{ target }.tar.gz\""));
    assert!(script.contains("/releases/download/v${version#v}\""));

    // Every input of action.yml reaches the script, and the script reads each.
    let action = read("action.yml");
    let inputs = &action[action.find("\ninputs:\n").unwrap()..action.find("\noutputs:\n").unwrap()];
    for name in inputs
        .lines()
        .filter_map(|l| l.strip_prefix("  ")?.strip_suffix(':'))
    {
        if name == "upload-sarif" {
            continue;
        }
        let env = format!("INPUT_{}", name.to_uppercase().replace('-', "_"));
        assert!(
            action.contains(&format!("{env}: ${{{{ inputs.{name} }}}}")),
            "{name}"
        );
        assert!(
            script.contains(&format!("${{{env}")),
            "scripts/action.sh ignores {env}"
        );
    }
}

/// The pre-commit hook's entry, run as pre-commit runs it on a real capture.
#[test]
fn the_pre_commit_hook_gates_a_committed_capture() {
    let hooks = fs::read_to_string(repo().join(".pre-commit-hooks.yaml")).unwrap();
    let entry = hooks
        .lines()
        .find_map(|l| l.trim().strip_prefix("entry: "))
        .unwrap();
    assert!(
        hooks.contains("pass_filenames: false"),
        "check takes one candidate"
    );
    let mut words = entry.split_whitespace();
    assert_eq!(words.next(), Some("driftlab"));
    let old = corpus("@modelcontextprotocol__server-filesystem@2025.8.21.json");
    let new = corpus("@modelcontextprotocol__server-filesystem@2026.8.31.json");
    for (approved, current, code) in [(&old, &old, 0), (&new, &old, 1)] {
        let dir = workspace(approved, current);
        let mut args: Vec<&str> = words.clone().collect();
        args.extend(["--approved", "mcp/approved.json", "mcp/current.json"]);
        let output = run_in(dir.path(), &args);
        assert_eq!(output.status.code(), Some(code), "{}", stderr(&output));
    }
}

/// The YAML block after `<!-- example: NAME -->` in docs/gate.md.
fn readme_example(name: &str) -> String {
    let readme = fs::read_to_string(repo().join("docs/gate.md")).unwrap();
    let marker = format!("<!-- example: {name} -->\n```yaml\n");
    let start = readme.find(&marker).expect("example marker") + marker.len();
    readme[start..start + readme[start..].find("```").unwrap()].to_string()
}

/// Each CI example of docs/gate.md, run with its server swapped for the pinned memory server.
#[test]
fn the_readme_ci_examples_run() {
    let entry =
        servers_dir().join("node_modules/@modelcontextprotocol/server-memory/dist/index.js");
    if !installed(&entry) {
        return;
    }
    let capture = corpus("@modelcontextprotocol__server-memory@2026.8.31.json");
    let dir = workspace(&capture, &capture);

    // The Action: every `with:` key is an input, and the step passes.
    let example = readme_example("action");
    let with = &example[example.find("with:\n").unwrap() + 5..];
    let action_yml = fs::read_to_string(repo().join("action.yml")).unwrap();
    let mut inputs = Vec::new();
    for line in with.lines().filter(|l| !l.trim().is_empty()) {
        let Some((key, value)) = line.trim().split_once(':') else {
            continue;
        };
        if line.starts_with("          ") && !line.starts_with("            ") {
            assert!(
                action_yml.contains(&format!("\n  {key}:\n")),
                "docs/gate.md uses unknown input {key}"
            );
            inputs.push((key.to_uppercase(), value.trim().to_string()));
        }
    }
    assert_eq!(inputs[0], ("APPROVED".into(), "mcp/approved.json".into()));
    assert!(
        with.contains("server: |\n            node\n            dist/index.js\n"),
        "{with}"
    );
    let server = format!("node\n{}\n", entry.display());
    let run = action(
        dir.path(),
        &[("APPROVED", &inputs[0].1), ("SERVER", &server)],
        &[],
    );
    assert_eq!(run.output.status.code(), Some(0), "{}", stderr(&run.output));

    // The plain workflow's gate step.
    let workflow = readme_example("workflow");
    let step = workflow
        .lines()
        .find_map(|l| l.trim().strip_prefix("run: driftlab check"))
        .unwrap();
    let step = format!("driftlab check{step}").replace(
        "-- node dist/index.js",
        &format!("-- node {}", entry.display()),
    );
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_driftlab")).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap());
    let output = Command::new("bash")
        .args(["-c", &step])
        .current_dir(dir.path())
        .env("PATH", path)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_OUTPUT")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{step}: {}", stderr(&output));
    let sarif = fs::read_to_string(dir.path().join("driftlab.sarif")).unwrap();
    assert_uploadable(&sarif, &capture, "mcp/approved.json");

    // The pre-commit hook with the args of docs/gate.md.
    let hook = readme_example("pre-commit");
    assert!(hook.contains("- id: driftlab-check"), "{hook}");
    let args = hook
        .lines()
        .find_map(|l| l.trim().strip_prefix("args: ["))
        .unwrap();
    let mut argv = vec!["check"];
    argv.extend(args.trim_end_matches(']').split(", "));
    let output = run_in(dir.path(), &argv);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{argv:?}: {}",
        stderr(&output)
    );
}
