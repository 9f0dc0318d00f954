//! Gate correctness on real release shapes (issue: gate correctness on real releases): unions
//! that wrap the old schema, pre-existing defects, stable fingerprints, duplicate names and a
//! collapsed input schema, each judged the way a client experiences it.

use crate::common;

use common::{run, stderr, stdout};
use serde_json::{json, Value};

/// `driftlab <command> --format json [flags] A B` on two payloads; exit code and report.
fn gate(command: &str, flags: &[&str], old: &Value, new: &Value) -> (Option<i32>, Value) {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    std::fs::write(&a, old.to_string()).unwrap();
    std::fs::write(&b, new.to_string()).unwrap();
    let mut args = vec![command, "--format", "json"];
    args.extend_from_slice(flags);
    if command == "check" {
        args.extend(["--approved", a.to_str().unwrap(), b.to_str().unwrap()]);
    } else {
        args.extend([a.to_str().unwrap(), b.to_str().unwrap()]);
    }
    let output = run(&args);
    (
        output.status.code(),
        serde_json::from_str(&stdout(&output)).unwrap(),
    )
}

fn rules(report: &Value) -> Vec<(String, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The first finding of `rule` in a JSON report.
fn finding<'a>(report: &'a Value, rule: &str) -> &'a Value {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == rule)
        .unwrap_or_else(|| panic!("no {rule} in {report}"))
}

fn one_param(schema: Value) -> Value {
    json!({"tools": [{"name": "find", "inputSchema": {"type": "object", "properties": {"filter": schema}}}]})
}

fn one_output(schema: Value) -> Value {
    json!({"tools": [{"name": "find", "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {"hit": schema}}}]})
}

#[test]
fn a_union_that_wraps_the_old_schema_is_a_widening() {
    let object = json!({"type": "object", "properties": {"owner": {"type": "string"}, "labels": {"type": "array", "items": {"type": "string"}}}, "required": ["owner"]});
    let wrapped = json!({"anyOf": [object.clone(), {"type": "string"}]});
    let (code, report) = gate(
        "diff",
        &[],
        &one_param(object.clone()),
        &one_param(wrapped.clone()),
    );
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(
        rules(&report),
        [("type-widened".to_string(), "compatible".to_string())]
    );
    // Annotations may sit on the union rather than the branch: still the same values.
    let mut annotated = object.clone();
    annotated["description"] = json!("who and what");
    let wrapped_annotated =
        json!({"description": "who and what", "oneOf": [{"type": "null"}, object.clone()]});
    let (_, report) = gate(
        "diff",
        &[],
        &one_param(annotated.clone()),
        &one_param(wrapped_annotated),
    );
    assert_eq!(
        rules(&report),
        [("type-widened".to_string(), "compatible".to_string())]
    );
    // Unwrapping narrows; in an outputSchema the mirror image holds.
    let (code, report) = gate(
        "diff",
        &[],
        &one_param(wrapped.clone()),
        &one_param(object.clone()),
    );
    assert_eq!(
        (code, rules(&report)),
        (
            Some(1),
            vec![("type-narrowed".to_string(), "breaking".to_string())]
        )
    );
    let (code, report) = gate(
        "diff",
        &[],
        &one_output(object.clone()),
        &one_output(wrapped),
    );
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(rules(&report)[0].0, "output-property-type-changed");
    // A branch that changed as well is compared with the old schema: the change is found.
    let mut changed = object.clone();
    changed["required"] = json!(["owner", "labels"]);
    let (code, report) = gate(
        "diff",
        &[],
        &one_param(object),
        &one_param(json!({"anyOf": [changed, {"type": "string"}]})),
    );
    assert_eq!(code, Some(1));
    let found = rules(&report);
    assert!(
        found.contains(&(
            "parameter-became-required".to_string(),
            "breaking".to_string()
        )),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .all(|(r, _)| r != "parameter-removed" && r != "schema-change-unjudged"),
        "{found:?}"
    );
}

#[test]
fn defects_the_approved_snapshot_already_had_do_not_fail_the_gate() {
    let bad = |description: &str| {
        json!({"tools": [
            {"name": "bad name", "description": description, "inputSchema": {"type": "object"}},
            {"name": "ok", "inputSchema": {"type": "object"}}
        ]})
    };
    let (code, report) = gate("check", &[], &bad("a"), &bad("b"));
    assert_eq!(code, Some(0), "{report}");
    let invalid = finding(&report, "tool-name-invalid");
    assert_eq!(invalid["baseline_state"], "unchanged");
    let changed = finding(&report, "tool-description-changed");
    assert_eq!(changed["baseline_state"], "new");
    let (code, _) = gate("check", &["--fail-on-existing"], &bad("a"), &bad("b"));
    assert_eq!(code, Some(1));
    // `diff` has no pre-existing findings: the flag is refused, not ignored.
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    std::fs::write(&a, bad("a").to_string()).unwrap();
    let output = run(&[
        "diff",
        "--fail-on-existing",
        a.to_str().unwrap(),
        a.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--fail-on-existing: only `check --approved`"),
        "{}",
        stderr(&output)
    );
    // A defect the candidate brings is new and fails.
    let clean = json!({"tools": [{"name": "ok", "inputSchema": {"type": "object"}}]});
    let (code, report) = gate("check", &[], &clean, &bad("a"));
    assert_eq!(code, Some(1));
    let invalid = finding(&report, "tool-name-invalid");
    assert_eq!(invalid["baseline_state"], "new");
    // SARIF carries the state.
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    std::fs::write(&a, bad("a").to_string()).unwrap();
    std::fs::write(&b, bad("b").to_string()).unwrap();
    // Run in the folder of the files: SARIF locations are relative to the repository there.
    let sarif: Value = serde_json::from_str(&stdout(&common::run_in(
        dir.path(),
        &[
            "check",
            "--format",
            "sarif",
            "--approved",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ],
        None,
    )))
    .unwrap();
    let states: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["baselineState"].as_str().unwrap())
        .collect();
    assert!(
        states.contains(&"unchanged") && states.contains(&"new"),
        "{states:?}"
    );
}

#[test]
fn a_finding_keeps_its_fingerprint_across_file_shapes_and_tool_order() {
    let tool = |required: Value| json!({"name": "get_user", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}, "org": {"type": "string"}}, "required": required}});
    let other = json!({"name": "list_users", "inputSchema": {"type": "object"}});
    let approved = json!({"tools": [tool(json!(["id"])), other.clone()]});
    let result = json!({"tools": [tool(json!(["id", "org"])), other.clone()]});
    let shapes = [
        result.clone(),
        json!({"jsonrpc": "2.0", "id": 2, "result": result.clone()}),
        json!({"toolsList": result.clone()}),
        json!([tool(json!(["id", "org"])), other.clone()]),
        json!({"tools": [other, tool(json!(["id", "org"]))]}),
    ];
    let fingerprints: Vec<Value> = shapes
        .iter()
        .map(|candidate| {
            let (_, report) = gate("diff", &[], &approved, candidate);
            finding(&report, "parameter-became-required")["fingerprint"].clone()
        })
        .collect();
    assert!(
        fingerprints.iter().all(|f| *f == fingerprints[0]),
        "{fingerprints:?}"
    );
}

#[test]
fn a_second_definition_of_a_name_is_reported_and_the_last_is_compared() {
    let get = |required: Value| json!({"name": "get", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}, "org": {"type": "string"}}, "required": required}});
    let approved = json!({"tools": [get(json!(["id"]))]});
    let candidate = json!({"tools": [get(json!(["id"])), get(json!(["id", "org"]))]});
    let (code, report) = gate("diff", &[], &approved, &candidate);
    assert_eq!(code, Some(1));
    let found = rules(&report);
    assert!(
        found.contains(&("tool-duplicated".to_string(), "breaking".to_string())),
        "{found:?}"
    );
    assert!(
        found.contains(&(
            "parameter-became-required".to_string(),
            "breaking".to_string()
        )),
        "{found:?}"
    );
    // The same duplicates on both sides are no change.
    let (code, report) = gate("diff", &[], &candidate, &candidate);
    assert_eq!((code, report["findings"].clone()), (Some(0), json!([])));
}

#[test]
fn a_collapsed_input_schema_is_one_root_cause() {
    let approved = json!({"tools": [{"name": "read_file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}, "head": {"type": "number"}}, "required": ["path"]}}]});
    let collapsed = json!({"tools": [{"name": "read_file", "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#"}}]});
    let (code, report) = gate("diff", &[], &approved, &collapsed);
    assert_eq!(code, Some(1));
    assert_eq!(
        rules(&report),
        [("input-schema-replaced".to_string(), "breaking".to_string())]
    );
    let message = report["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("\"path\", \"head\""), "{message}");
}

#[test]
fn a_parameter_is_called_renamed_only_with_evidence_beyond_its_shape() {
    let tool = |props: Value| json!({"tools": [{"name": "search", "inputSchema": {"type": "object", "properties": props}}]});
    let verdict = |old: Value, new: Value| -> Vec<String> {
        let (_, report) = gate("diff", &[], &tool(old), &tool(new));
        rules(&report).into_iter().map(|(r, _)| r).collect()
    };
    // Same type, unrelated names and descriptions: one removed, one added.
    assert_eq!(
        verdict(
            json!({"path": {"type": "string", "description": "A file"}}),
            json!({"query": {"type": "string", "description": "Words to look for"}})
        ),
        ["parameter-removed", "optional-parameter-added"]
    );
    // A shared name word, or the same description: a rename.
    assert_eq!(
        verdict(
            json!({"query": {"type": "string"}}),
            json!({"search_query": {"type": "string"}})
        ),
        ["parameter-renamed"]
    );
    assert_eq!(
        verdict(
            json!({"q": {"type": "string", "description": "Words to look for"}}),
            json!({"text": {"type": "string", "description": "Words to look for"}})
        ),
        ["parameter-renamed"]
    );
}

#[test]
fn a_collapsed_output_schema_is_judged_as_an_output_not_as_the_input_schema() {
    let with = |output: Value| json!({"tools": [{"name": "read", "inputSchema": {"type": "object"}, "outputSchema": output}]});
    let (_, report) = gate(
        "diff",
        &[],
        &with(
            json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        ),
        &with(json!({"$schema": "http://json-schema.org/draft-07/schema#"})),
    );
    for f in report["findings"].as_array().unwrap() {
        assert_ne!(f["rule"], "input-schema-replaced", "{f}");
        assert!(
            f["pointer"].as_str().unwrap().contains("/outputSchema"),
            "{f}"
        );
    }
    assert!(!report["findings"].as_array().unwrap().is_empty());
}
