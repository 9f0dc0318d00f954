//! The whole server contract: prompts, resources, resource templates, instructions and
//! capabilities are captured (from the pinned server-everything and the fixture server),
//! recorded in snapshots and gated by rules of their own; tools-only files still gate tools
//! only. Each contract rule's own case is its fixture in tests/fixtures/rules/.

use crate::common;

use std::path::{Path, PathBuf};

use common::live::{fixture, installed, servers_dir};
use common::{diff_json, read_json, repo, run, stderr, stdout};
use serde_json::{json, Value};

fn whole() -> Value {
    read_json(&repo().join("tests/data/contract/whole.json"))
}

fn everything() -> Option<PathBuf> {
    let entry =
        servers_dir().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    installed(&entry).then_some(entry)
}

fn capture(argv: &[String], out: &Path, extra: &[&str]) -> std::process::Output {
    common::driftlab()
        .args(["capture", "-o", out.to_str().unwrap()])
        .args(extra)
        .arg("--")
        .args(argv)
        .output()
        .unwrap()
}

#[test]
fn a_capture_of_server_everything_holds_its_prompts_resources_and_instructions() {
    let Some(entry) = everything() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (captured, snapshot) = (
        dir.path().join("capture.json"),
        dir.path().join("approved.json"),
    );
    let argv = vec!["node".to_string(), entry.display().to_string()];
    let output = capture(&argv, &captured, &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("prompts/list: 4 prompts"),
        "{}",
        stderr(&output)
    );
    let file = read_json(&captured);
    let names: Vec<&str> = file["promptsList"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "simple-prompt",
            "args-prompt",
            "completable-prompt",
            "resource-prompt"
        ]
    );
    assert!(file["resourcesList"]["resources"].as_array().unwrap().len() >= 7);
    assert_eq!(
        file["resourceTemplatesList"]["resourceTemplates"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    for method in ["prompts/list", "resources/list", "resources/templates/list"] {
        assert_eq!(
            file["capture"]["lists"][method]["outcome"], "listed",
            "{method}"
        );
    }
    assert!(file["initializeResult"]["instructions"]
        .as_str()
        .unwrap()
        .contains("Everything Server"));

    // The snapshot keeps every part beside the tools.
    let output = run(&[
        "snapshot",
        "-o",
        snapshot.to_str().unwrap(),
        captured.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("13 tools, 4 prompts, 7 resources, 2 resource templates"),
        "{}",
        stderr(&output)
    );
    let approved = read_json(&snapshot);
    for member in [
        "tools",
        "serverInfo",
        "capabilities",
        "instructions",
        "prompts",
        "resources",
        "resourceTemplates",
    ] {
        assert!(approved.get(member).is_some(), "{member} missing");
    }

    // The live server, captured whole, passes against its own snapshot.
    let output = common::driftlab()
        .args(["check", "--approved", snapshot.to_str().unwrap(), "--"])
        .args(&argv)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );

    // One prompt loses an argument: the gate names it with its rule.
    let mut changed = file.clone();
    changed["promptsList"]["prompts"][1]["arguments"]
        .as_array_mut()
        .unwrap()
        .retain(|a| a["name"] != "state");
    let (code, report) = diff_json(&file, &changed);
    assert_eq!(code, Some(1));
    assert_eq!(common::finding_rules(&report), ["prompt-argument-removed"]);
    let finding = &report["findings"][0];
    assert_eq!(
        finding["subject"],
        "prompt \"args-prompt\" argument \"state\""
    );
    assert_eq!(finding["severity"], "breaking");
    assert_eq!(finding["old_pointer"], "/promptsList/prompts/1/arguments/1");
}

#[test]
fn a_list_the_server_refuses_is_recorded_and_the_others_still_captured() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("capture.json");
    let argv = fixture("contract/whole.json", &["--error-on", "prompts/list"]);
    let output = capture(&argv, &out, &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("warning: prompts/list: not captured"),
        "{}",
        stderr(&output)
    );
    let file = read_json(&out);
    let failed = &file["capture"]["lists"]["prompts/list"];
    assert_eq!(failed["outcome"], "failed");
    assert!(
        failed["error"].as_str().unwrap().contains("-32603"),
        "{failed}"
    );
    assert!(file.get("promptsList").is_none());
    assert_eq!(
        file["resourcesList"]["resources"][0]["uri"],
        "notes://index"
    );
    assert_eq!(
        file["resourceTemplatesList"]["resourceTemplates"][0]["name"],
        "note"
    );

    // Gated against the whole snapshot: the prompts were not seen, so the gate cannot pass…
    let whole = repo().join("tests/data/contract/whole.json");
    let check = |scope: &str| {
        run(&[
            "check",
            "--format",
            "json",
            "--scope",
            scope,
            "--approved",
            whole.to_str().unwrap(),
            out.to_str().unwrap(),
        ])
    };
    let output = check("all");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(common::finding_rules(&report), ["contract-part-unrecorded"]);
    assert_eq!(report["findings"][0]["severity"], "unknown");
    // …and with --scope tools it gates the tools alone.
    let output = check("tools");
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));

    // Everything else equals the snapshot, and --scope tools captures tools only.
    let tools_only = dir.path().join("tools.json");
    let output = capture(
        &fixture("contract/whole.json", &[]),
        &tools_only,
        &["--scope", "tools"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let file = read_json(&tools_only);
    assert!(file["capture"].get("lists").is_none() && file.get("resourcesList").is_none());
}

#[test]
fn a_tools_only_snapshot_gates_tools_only() {
    let mut tools_only = json!({"tools": whole()["tools"].clone()});
    let (code, report) = diff_json(&tools_only, &whole());
    assert_eq!(
        (code, common::finding_rules(&report).len()),
        (Some(0), 0),
        "{report}"
    );
    // A tool change is still found.
    tools_only["tools"][0]["inputSchema"]["properties"]["query"]["type"] = json!("integer");
    let (code, report) = diff_json(&tools_only, &whole());
    assert_eq!(code, Some(1));
    assert_eq!(common::finding_rules(&report), ["type-changed"]);
}

/// Applies `edit` to a copy of the whole snapshot.
fn edited(edit: impl FnOnce(&mut Value)) -> Value {
    let mut value = whole();
    edit(&mut value);
    value
}

#[test]
fn instructions_changes_carry_a_word_diff() {
    let (_, report) = diff_json(
        &whole(),
        &edited(|v| {
            v["instructions"] =
                json!("Search before you read a note. Always summarize private notes.")
        }),
    );
    let message = report["findings"][0]["message"].as_str().unwrap();
    assert!(
        message.ends_with("1 word removed, 1 added: -[Never] +[Always]"),
        "{message}"
    );
}

#[test]
fn fingerprints_name_the_subject_not_the_place() {
    // The same change, once in a reordered snapshot and once in a capture: one fingerprint.
    let changed = edited(|v| v["prompts"][0]["arguments"][1]["required"] = json!(true));
    let reordered = edited(|v| {
        v["prompts"].as_array_mut().unwrap().reverse();
        v["prompts"][1]["arguments"][1]["required"] = json!(true);
    });
    let as_capture = json!({
        "initializeResult": {"capabilities": changed["capabilities"], "instructions": changed["instructions"], "serverInfo": changed["serverInfo"]},
        "toolsList": {"tools": changed["tools"]},
        "promptsList": {"prompts": changed["prompts"]},
        "resourcesList": {"resources": changed["resources"]},
        "resourceTemplatesList": {"resourceTemplates": changed["resourceTemplates"]},
    });
    let fingerprint = |new: &Value| {
        let (_, report) = diff_json(&whole(), new);
        assert_eq!(
            common::finding_rules(&report),
            ["prompt-argument-became-required"],
            "{report}"
        );
        report["findings"][0]["fingerprint"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let first = fingerprint(&changed);
    assert_eq!(fingerprint(&as_capture), first);
    let (_, report) = diff_json(&whole(), &reordered);
    let same: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "prompt-argument-became-required")
        .collect();
    assert_eq!(same[0]["fingerprint"], first.as_str());
}

#[test]
fn repeated_runs_compare_every_part_of_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("capture.json");
    let output = capture(&fixture("contract/whole.json", &[]), &out, &["--runs", "2"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        !stderr(&output).contains("differs between runs"),
        "{}",
        stderr(&output)
    );
    assert!(read_json(&out)["capture"]["runs"]
        .get("differingParts")
        .is_none());

    // A server whose prompts change from run to run, with the same tools: the gate would flap
    // on the prompts alone.
    let output = capture(
        &fixture("contract/whole.json", &["--vary-prompts"]),
        &out,
        &["--runs", "3"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(
            "warning: the prompts/list result differs between runs (run(s) 2, 3 differ from run 1)"
        ),
        "{}",
        stderr(&output)
    );
    let runs = &read_json(&out)["capture"]["runs"];
    assert_eq!(runs["bytesIdentical"], true, "{runs}");
    assert_eq!(runs["differingParts"], json!({"prompts/list": [2, 3]}));
}
