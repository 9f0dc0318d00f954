//! The shapes of issue 49, each a one-tool payload `{"tools":[{"name":"t","inputSchema":OLD}]}`
//! diffed against the same with NEW: true breaks that only came out `unknown` now come out
//! breaking with a constructed witness that an independent validator confirms at the finding's
//! own schema place (G1–G6); false alarms are gone (F1–F7); and schemas built to exhaust a
//! validator (a 5,000-link `$ref` chain, a recursive outputSchema) get an answer, not a crash.

use crate::common;

use common::{diff_json, run, stderr, stdout};
use serde_json::{json, Value};

fn payload(schema: &Value) -> Value {
    json!({"tools": [{"name": "t", "inputSchema": schema}]})
}

fn object(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

/// A validator as the witness search builds one (formats asserted on both sides alike).
fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap()
}

/// Diffs `old` → `new` and returns the one breaking finding, checked: its witness is valid
/// under `old`, and `new` rejects it with an error whose schema place lies under the node the
/// finding points at (its keyword, or the object whose property it names).
fn proven(old: &Value, new: &Value) -> Value {
    let (_, report) = diff_json(&payload(old), &payload(new));
    let findings = report["findings"].as_array().unwrap();
    let breaking: Vec<&Value> = findings
        .iter()
        .filter(|f| f["severity"] != "compatible" && f["severity"] != "info")
        .collect();
    assert_eq!(breaking.len(), 1, "{report:#}");
    let finding = breaking[0].clone();
    assert_eq!(finding["severity"], "breaking", "{finding:#}");
    let witness = &finding["witness"];
    assert!(validator(old).is_valid(witness), "{finding:#}");
    let pointer = finding["pointer"].as_str().unwrap();
    let relative = pointer.strip_prefix("/tools/0/inputSchema").unwrap();
    let node = match relative.rsplit_once('/') {
        Some((parent, _)) if parent.ends_with("/properties") => {
            parent.strip_suffix("/properties").unwrap()
        }
        Some((parent, _)) => parent,
        None => "",
    };
    let places: Vec<String> = validator(new)
        .iter_errors(witness)
        .map(|e| e.schema_path().as_str().to_string())
        .collect();
    assert!(
        places.iter().any(|p| p.starts_with(node)),
        "rejected at {places:?}, not under {node}: {finding:#}"
    );
    finding
}

#[test]
fn g1_a_closed_root_is_proven_by_an_unlisted_key() {
    let old = object(json!({"a": {"type": "string"}}));
    let mut new = old.clone();
    new["additionalProperties"] = json!(false);
    let f = proven(&old, &new);
    assert_eq!(f["rule"], "constraint-tightened");
}

#[test]
fn g2_closed_array_items_are_proven_by_an_unlisted_key_inside_an_item() {
    let item = object(json!({"a": {"type": "string"}}));
    let old = object(json!({"l": {"type": "array", "items": item}}));
    let mut new = old.clone();
    new["properties"]["l"]["items"]["additionalProperties"] = json!(false);
    let f = proven(&old, &new);
    assert!(f["witness"]["l"][0].as_object().unwrap().len() == 1, "{f}");
}

#[test]
fn g3_a_new_max_length_is_proven_by_a_string_one_longer() {
    let old = object(json!({"u": {"type": "string", "minLength": 1}}));
    let mut new = old.clone();
    new["properties"]["u"]["maxLength"] = json!(2048);
    let f = proven(&old, &new);
    assert_eq!(f["witness"]["u"].as_str().unwrap().chars().count(), 2049);
}

#[test]
fn g4_a_tightened_pattern_is_proven_by_a_string_of_the_old_pattern() {
    let old = object(json!({"r": {"type": "string", "pattern": "^[a-zA-Z0-9._-]+$"}}));
    let new = object(json!({"r": {"type": "string",
        "pattern": "^[a-zA-Z0-9._]+(?:[-._a-zA-Z0-9]*)$"}}));
    let f = proven(&old, &new);
    assert_eq!(f["rule"], "constraint-tightened");
    assert!(f["witness"]["r"].as_str().unwrap().starts_with('-'), "{f}");
    // The same change read as an output: every string the candidate's pattern matches, the
    // approved one matches (it matches less), so no consumer is surprised.
    let output = |s: &Value| {
        json!({"tools": [{"name": "t", "inputSchema": {"type": "object"},
        "outputSchema": s}]})
    };
    let (_, report) = diff_json(&output(&old), &output(&new));
    let finding = &report["findings"][0];
    assert_eq!(finding["rule"], "output-compatible-change", "{report:#}");
    assert!(finding["message"]
        .as_str()
        .unwrap()
        .contains("pattern narrowed"));
}

#[test]
fn g5_a_required_property_under_a_closed_root_is_proven_by_an_old_call() {
    let old = json!({"type": "object", "properties": {"p": {"type": "string"}},
        "required": ["p"], "additionalProperties": false});
    let mut new = old.clone();
    new["properties"]["action"] = json!({"type": "string", "enum": ["get", "list"]});
    new["required"] = json!(["p", "action"]);
    let f = proven(&old, &new);
    assert_eq!(f["rule"], "required-parameter-added");
}

#[test]
fn g6_overlapping_one_of_branches_are_proven_by_a_value_matching_two() {
    let page = json!({"type": "object", "properties": {"page_id": {"type": "string"}},
        "required": ["page_id"]});
    let database = json!({"type": "object", "properties": {"database_id": {"type": "string"}},
        "required": ["database_id"]});
    let old = object(json!({"parent": page}));
    let new = object(json!({"parent": {"oneOf": [page, database]}}));
    let f = proven(&old, &new);
    let parent = f["witness"]["parent"].as_object().unwrap();
    assert!(parent.contains_key("page_id") && parent.contains_key("database_id"));
}

#[test]
fn a_change_inside_a_definition_is_proven_where_the_definition_is_referenced() {
    let schema = |extra: Value| {
        let mut u = json!({"type": "string", "minLength": 1});
        u.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({"type": "object", "properties": {
            "u": {"$ref": "#/$defs/U"},
            "l": {"type": "array", "items": {"$ref": "#/$defs/U"}}
        }, "$defs": {"U": u}})
    };
    let (old, new) = (schema(json!({})), schema(json!({"maxLength": 2048})));
    let (_, report) = diff_json(&payload(&old), &payload(&new));
    let f = &report["findings"][0];
    assert_eq!(
        f["pointer"], "/tools/0/inputSchema/$defs/U/maxLength",
        "{report:#}"
    );
    assert_eq!(f["severity"], "breaking", "{f:#}");
    let witness = &f["witness"];
    assert!(validator(&old).is_valid(witness) && !validator(&new).is_valid(witness));
    assert_eq!(witness["u"].as_str().map(str::len), Some(2049), "{f:#}");
}

#[test]
fn a_finding_in_one_union_branch_never_carries_the_witness_of_another() {
    // Branch 0's `x` narrowed, branch 1's `y` gained a maxLength its pattern already implied:
    // a value built for branch 0 is refused by the whole `oneOf`, never at `y`.
    let branches = |x: &str, y: Value| {
        object(json!({"p": {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": x}},
                "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "b"}, "y": y},
                "required": ["kind"]}
        ]}}))
    };
    let pattern = json!({"type": "string", "pattern": "^[a-z]{1,5}$"});
    let capped = json!({"type": "string", "pattern": "^[a-z]{1,5}$", "maxLength": 10});
    let (_, report) = diff_json(
        &payload(&branches("string", pattern)),
        &payload(&branches("integer", capped)),
    );
    let at = |leaf: &str| {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["pointer"].as_str().unwrap().ends_with(leaf))
            .unwrap_or_else(|| panic!("no finding at {leaf}: {report:#}"))
    };
    let x = at("/oneOf/0/properties/x/type");
    assert_eq!(x["severity"], "breaking", "{x:#}");
    assert_eq!(x["witness"]["p"]["kind"], "a", "{x:#}");
    let y = at("/oneOf/1/properties/y/maxLength");
    assert_eq!(y["severity"], "unknown", "{y:#}");
    assert!(y.get("witness").is_none_or(Value::is_null), "{y:#}");
    assert!(
        y["message"].as_str().unwrap().contains("none here"),
        "{y:#}"
    );
}

/// Diffs both ways and expects no finding that fails the default gate.
fn harmless(old: &Value, new: &Value, what: &str) {
    for (a, b) in [(old, new), (new, old)] {
        let (_, report) = diff_json(&payload(a), &payload(b));
        let failing: Vec<&Value> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| matches!(f["severity"].as_str(), Some("breaking" | "unknown")))
            .collect();
        assert!(failing.is_empty(), "{what}: {failing:#?}");
    }
}

#[test]
fn f1_a_union_of_types_is_a_type_list() {
    harmless(
        &object(json!({"s": {"anyOf": [{"type": "string"}, {"type": "null"}]}})),
        &object(json!({"s": {"type": ["string", "null"]}})),
        "F1",
    );
    // Still a narrowing when a type goes.
    let (_, report) = diff_json(
        &payload(&object(
            json!({"s": {"anyOf": [{"type": "string"}, {"type": "null"}]}}),
        )),
        &payload(&object(json!({"s": {"type": "string"}}))),
    );
    assert_eq!(report["findings"][0]["severity"], "breaking", "{report:#}");
}

#[test]
fn f2_property_names_of_type_string_refuses_nothing() {
    let old = object(json!({"o": {"type": "object", "additionalProperties": {}}}));
    let mut new = old.clone();
    new["properties"]["o"]["propertyNames"] = json!({"type": "string"});
    harmless(&old, &new, "F2");
}

#[test]
fn f3_a_min_length_the_old_pattern_implied_refuses_no_old_value() {
    let (_, report) = diff_json(
        &payload(&object(
            json!({"e": {"type": "string", "pattern": "^[a-z]+@[a-z]+$"}}),
        )),
        &payload(&object(json!({"e": {"type": "string", "minLength": 1}}))),
    );
    assert_eq!(
        common::finding_rules(&report),
        ["constraint-loosened"],
        "{report:#}"
    );
    // A longer minimum than the pattern implied still narrows.
    let (_, report) = diff_json(
        &payload(&object(
            json!({"e": {"type": "string", "pattern": "^[a-z]+@[a-z]+$"}}),
        )),
        &payload(&object(
            json!({"e": {"type": "string", "pattern": "^[a-z]+@[a-z]+$", "minLength": 4}}),
        )),
    );
    assert_eq!(report["findings"][0]["severity"], "breaking", "{report:#}");
}

#[test]
fn f5_a_dialect_change_alone_does_not_make_format_assert_on_one_side() {
    let old = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
        "properties": {"u": {"type": "string", "format": "uri"}}, "required": ["u"]});
    let mut new = old.clone();
    new["$schema"] = json!("http://json-schema.org/draft-07/schema#");
    harmless(&old, &new, "F5");
}

#[test]
fn f7_a_ref_to_a_one_of_wrapped_in_any_of_beside_a_new_branch_only_widens() {
    let p = json!({"oneOf": [
        {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
        {"type": "object", "properties": {"y": {"type": "integer"}}, "required": ["y"]}]});
    let mut old = object(json!({"p": {"$ref": "#/$defs/P"}}));
    old["$defs"] = json!({"P": p});
    let mut new = object(json!({"p": {"anyOf": [{"$ref": "#/$defs/P"}, {"type": "string"}]}}));
    new["$defs"] = old["$defs"].clone();
    let (_, report) = diff_json(&payload(&old), &payload(&new));
    assert_eq!(
        common::finding_rules(&report),
        ["type-widened"],
        "{report:#}"
    );
    // Unwrapping narrows, and is proven.
    let (_, report) = diff_json(&payload(&new), &payload(&old));
    assert_eq!(report["findings"][0]["severity"], "breaking", "{report:#}");
    assert!(report["findings"][0].get("witness").is_some(), "{report:#}");
}

/// 5,000 local `$ref`s, each to the next (160 KB).

#[test]
fn a_five_thousand_link_ref_chain_gets_an_answer_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let chain_file = dir.path().join("chain.json");
    std::fs::write(&chain_file, common::ref_chain_payload("t", "q").to_string()).unwrap();
    let plain = dir.path().join("plain.json");
    std::fs::write(
        &plain,
        payload(&object(json!({"q": {"type": "string"}}))).to_string(),
    )
    .unwrap();
    let (c, p) = (chain_file.to_str().unwrap(), plain.to_str().unwrap());
    for args in [
        vec!["check", c],
        vec!["check", "--approved", p, c],
        vec!["check", "--approved", c, p],
        vec!["diff", p, c],
        vec!["diff", c, p],
        vec!["snapshot", c],
        vec!["scan", c],
    ] {
        let output = run(&args);
        let code = output.status.code();
        assert!(
            matches!(code, Some(0..=2)),
            "{args:?}: {code:?} {}",
            stderr(&output)
        );
        assert!(!stdout(&output).is_empty() || !stderr(&output).is_empty());
    }
    let output = run(&["check", c]);
    assert!(
        stdout(&output).contains("$ref links nest more than 128 deep"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_recursive_output_schema_is_scanned_within_a_node_budget() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rec.json");
    let tool = json!({"tools": [{"name": "t", "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {
            "a": {"$ref": "#"}, "b": {"$ref": "#"}, "c": {"$ref": "#"}}}}]});
    std::fs::write(&file, tool.to_string()).unwrap();
    // Before the budget this grew past 3 GB; a test cannot time it, but it must end.
    let output = run(&["scan", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("t "), "{}", stdout(&output));
}

#[test]
fn f9_a_capability_the_approved_server_did_not_declare_can_only_add() {
    let approved =
        common::read_json(&common::repo().join("tests/data/corpus/mcp-server-time@2025.7.1.json"));
    assert!(approved["initializeResult"]["capabilities"]
        .get("resources")
        .is_none());
    let mut candidate = approved.clone();
    let capabilities = &mut candidate["initializeResult"]["capabilities"];
    capabilities["resources"] = json!({});
    capabilities["prompts"] = json!({});
    let (code, report) = common::check_json(&approved, &candidate);
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(
        common::finding_rules(&report),
        ["capability-added", "capability-added"],
        "{report:#}"
    );
}
