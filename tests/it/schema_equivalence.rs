//! Schemas judged by what they accept, not how they are spelled (issue 30's table, rows 1, 2, 3,
//! 4, 5, 7 and 8, and the `oneOf` overlap case): each compatible pair below failed the gate
//! before, and the overlap passed it.

use crate::common;

use common::diff_json;
use serde_json::{json, Value};

fn tool(schema: Value) -> Value {
    json!({"tools": [{"name": "t", "inputSchema": schema}]})
}

fn rules(old: Value, new: Value) -> (Option<i32>, Vec<String>) {
    let (code, report) = diff_json(&tool(old), &tool(new));
    let rules = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect();
    (code, rules)
}

#[test]
fn additional_properties_true_absent_and_empty_are_one() {
    let open = [
        json!({"type": "object"}),
        json!({"type": "object", "additionalProperties": true}),
        json!({"type": "object", "additionalProperties": {}}),
    ];
    for old in &open {
        for new in &open {
            let wrapped = |s: &Value| json!({"type": "object", "properties": {"o": s}});
            assert_eq!(
                rules(old.clone(), new.clone()),
                (Some(0), vec![]),
                "{old} -> {new}"
            );
            assert_eq!(
                rules(wrapped(old), wrapped(new)),
                (Some(0), vec![]),
                "{old} -> {new}"
            );
        }
    }
    // Still a tightening when the new one constrains.
    let (code, found) = rules(
        json!({"type": "object", "additionalProperties": {}}),
        json!({"type": "object", "additionalProperties": {"type": "string"}}),
    );
    assert_eq!(
        (code, found),
        (Some(1), vec!["constraint-tightened".to_string()])
    );
}

#[test]
fn a_definition_nothing_references_is_not_compared() {
    let with = |x: &str| json!({"type": "object", "properties": {"a": {"type": "string"}}, "$defs": {"X": {"type": x}}});
    assert_eq!(rules(with("string"), with("integer")), (Some(0), vec![]));
    // Referenced (here through a path inside it, and through another definition), it is.
    let used = |x: &str| {
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Y"}},
        "$defs": {"Y": {"type": "object", "properties": {"b": {"$ref": "#/$defs/X/properties/c"}}},
                  "X": {"type": "object", "properties": {"c": {"type": x}}}}})
    };
    let (code, found) = rules(used("string"), used("integer"));
    assert_eq!((code, found), (Some(1), vec!["type-changed".to_string()]));
}

#[test]
fn an_all_of_of_one_reference_is_that_reference() {
    let defs = json!({"O": {"type": "object", "properties": {"x": {"type": "string"}}}});
    let old = json!({"type": "object", "properties": {"o": {"$ref": "#/$defs/O"}}, "$defs": defs});
    let new = json!({"type": "object", "properties": {"o": {"allOf": [{"$ref": "#/$defs/O"}], "description": "d"}}, "$defs": defs});
    assert_eq!(
        rules(old.clone(), new.clone()),
        (Some(0), vec!["parameter-description-changed".to_string()])
    );
    // And the mirror image.
    assert_eq!(
        rules(new, old),
        (Some(0), vec!["parameter-description-changed".to_string()])
    );
}

/// Row 4: a parameter wrapped in a union whose one branch is a `$ref` to the old schema still
/// accepts everything it did: one widening, no removals.
#[test]
fn a_union_wrap_keeping_the_old_schema_as_a_ref_branch_is_a_widening() {
    let old_p = json!({"type": "object", "properties": {"page_id": {"type": "string"}}, "required": ["page_id"]});
    let old = json!({"type": "object", "properties": {"p": old_p}});
    let new = json!({"type": "object",
        "properties": {"p": {"anyOf": [{"$ref": "#/$defs/A"},
            {"type": "object", "properties": {"w": {"type": "string"}}, "required": ["w"]}]}},
        "$defs": {"A": old_p}});
    assert_eq!(rules(old, new), (Some(0), vec!["type-widened".to_string()]));
}

/// Row 5: listed properties replaced by an open object accept every value they did; the loss is
/// documentation (a warning), not removed parameters.
#[test]
fn listed_properties_replaced_by_an_open_object_are_undocumented_not_removed() {
    let old = json!({"type": "object", "properties": {"o": {"type": "object",
        "properties": {"a": {"type": "string"}}, "additionalProperties": false}}});
    let new = json!({"type": "object", "properties": {"o": {"type": "object", "additionalProperties": true}}});
    let (code, found) = rules(old, new);
    assert_eq!(code, Some(0));
    assert_eq!(found, ["parameters-undocumented", "constraint-loosened"]);
}

/// Row 7: `anyOf` <-> `oneOf` over branches told apart by a required key's `const` accept the
/// same values; the branches are still compared, so a narrowing inside one is found and proven.
#[test]
fn any_of_to_one_of_over_disjoint_branches_is_no_change_but_branches_are_compared() {
    let branch = |k: &str, n: &str| {
        json!({"type": "object",
        "properties": {"k": {"const": k}, "n": {"type": n}}, "required": ["k"]})
    };
    let union = |kw: &str, n: &str| {
        json!({"type": "object",
        "properties": {"m": {kw: [branch("a", n), branch("b", "number")]}}})
    };
    assert_eq!(
        rules(union("anyOf", "number"), union("oneOf", "number")),
        (Some(0), vec![])
    );
    assert_eq!(
        rules(union("oneOf", "number"), union("anyOf", "number")),
        (Some(0), vec![])
    );
    let (code, report) = diff_json(
        &tool(union("anyOf", "number")),
        &tool(union("oneOf", "integer")),
    );
    assert_eq!(code, Some(1));
    let f = &report["findings"][0];
    assert_eq!(
        (f["rule"].as_str(), f["severity"].as_str()),
        (Some("type-narrowed"), Some("breaking"))
    );
    assert_eq!(f["witness"]["m"]["k"], "a");
    assert!(f["witness"]["m"]["n"].is_f64(), "{f}");
}

/// The `oneOf` overlap case: a plain string becomes a `oneOf` whose branches overlap, so a short
/// string (valid before) now matches two branches and is refused. Judged a widening before; now
/// a narrowing, with the refused value as its witness.
#[test]
fn a_one_of_with_overlapping_branches_is_breaking_with_a_witness() {
    let old = json!({"type": "object", "properties": {"s": {"type": "string"}}});
    let new = json!({"type": "object", "properties": {"s": {"oneOf": [{"type": "string"},
        {"type": "string", "maxLength": 5}]}}});
    let (code, report) = diff_json(&tool(old.clone()), &tool(new.clone()));
    assert_eq!(code, Some(1));
    let proven: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "breaking")
        .collect();
    assert_eq!(proven.len(), 1, "{report}");
    assert_eq!(proven[0]["rule"], "type-narrowed", "{report}");
    let witness = &proven[0]["witness"];
    let valid = |s: &Value| jsonschema::validator_for(s).unwrap().is_valid(witness);
    assert!(valid(&old) && !valid(&new), "{witness}");
    // anyOf -> oneOf over the same overlapping branches narrows too.
    let any = json!({"type": "object", "properties": {"s": {"anyOf": [{"type": "string"},
        {"type": "string", "maxLength": 5}]}}});
    let (code, report) = diff_json(&tool(any), &tool(new));
    assert_eq!(code, Some(1));
    assert_eq!(report["findings"][0]["rule"], "type-narrowed", "{report}");
    assert_eq!(report["findings"][0]["severity"], "breaking", "{report}");
}

/// Without a witness a schema verdict is not breaking: a parameter dropped from an object that
/// still admits unlisted properties is `unknown`, and says why.
#[test]
fn an_unprovable_removal_is_unknown_and_says_why() {
    let old =
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}});
    let new = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let (code, report) = diff_json(&tool(old), &tool(new));
    assert_eq!(code, Some(1), "unknown still fails the gate");
    let f = &report["findings"][0];
    assert_eq!(
        (f["rule"].as_str(), f["severity"].as_str()),
        (Some("parameter-removed"), Some("unknown"))
    );
    assert!(
        f["message"].as_str().unwrap().contains(" values tried, "),
        "{f}"
    );
    assert!(f.get("witness").is_none());
}

/// Row 6: a narrowing inside one `anyOf` branch that an open sibling branch still accepts
/// refuses nothing: `info`, not breaking.
#[test]
fn a_narrowing_an_open_sibling_branch_still_accepts_is_information() {
    let union = |n: &str| {
        json!({"type": "object", "properties": {"s": {"anyOf": [
        {"type": "object", "properties": {"n": {"type": n}}},
        {"type": "object", "additionalProperties": {}}]}}})
    };
    assert_eq!(
        rules(union("number"), union("integer")),
        (Some(0), vec!["branch-change-masked".to_string()])
    );
    // Without the open sibling it is a proven narrowing.
    let alone = |n: &str| {
        json!({"type": "object", "properties": {"s": {"anyOf": [
        {"type": "object", "properties": {"n": {"type": n}}}, {"type": "string"}]}}})
    };
    let (code, report) = diff_json(&tool(alone("number")), &tool(alone("integer")));
    assert_eq!(code, Some(1));
    assert_eq!(report["findings"][0]["severity"], "breaking", "{report}");
}

/// Issue 49: the pipeline-stage shape. The stages are array items, the catch-all stage is
/// written `{"type":"object","properties":{},"additionalProperties":{}}`, and a stage may sit
/// behind a `$ref` whose definition changed while the branch text did not: each is masked.
#[test]
fn a_narrowing_in_a_stage_beside_a_catch_all_stage_is_masked_wherever_it_sits() {
    let catch_all = json!({"type": "object", "properties": {}, "additionalProperties": {}});
    let stage = |x: &str| {
        json!({"type": "object", "properties": {"$match": {"type": "object",
            "properties": {"x": {"type": x}}}}, "required": ["$match"]})
    };
    let pipeline = |branches: Value, defs: Option<Value>| {
        let mut schema = json!({"type": "object", "properties": {"pipeline": {"type": "array",
            "items": {"anyOf": branches}}}, "required": ["pipeline"]});
        if let Some(defs) = defs {
            schema["$defs"] = defs;
        }
        schema
    };
    let inline = |x: &str| pipeline(json!([stage(x), catch_all]), None);
    assert_eq!(
        rules(inline("string"), inline("integer")),
        (Some(0), vec!["branch-change-masked".to_string()])
    );
    let by_ref = |x: &str, sibling: &Value| {
        pipeline(
            json!([{"$ref": "#/$defs/A"}, sibling]),
            Some(json!({"A": stage(x)})),
        )
    };
    assert_eq!(
        rules(by_ref("string", &catch_all), by_ref("integer", &catch_all)),
        (Some(0), vec![])
    );
    // A sibling that constrains its properties masks nothing: the change still fails the gate.
    let typed = json!({"type": "object", "properties": {"z": {"type": "string"}}});
    let (code, rules) = rules(by_ref("string", &typed), by_ref("integer", &typed));
    assert_eq!((code, rules), (Some(1), vec!["type-changed".to_string()]));
}

/// Row 9: patterns that differ only in counted repetitions are ordered by those bounds.
#[test]
fn a_relaxed_pattern_quantifier_is_a_loosening() {
    let pattern =
        |p: &str| json!({"type": "object", "properties": {"s": {"type": "string", "pattern": p}}});
    assert_eq!(
        rules(pattern("^[a-z]{1,8}$"), pattern("^[a-z]{1,16}$")),
        (Some(0), vec!["constraint-loosened".to_string()])
    );
    // The reverse narrows, and a string of 9 to 16 letters proves it.
    let (code, report) = diff_json(
        &tool(pattern("^[a-z]{1,16}$")),
        &tool(pattern("^[a-z]{1,8}$")),
    );
    assert_eq!(code, Some(1));
    assert_eq!(report["findings"][0]["rule"], "constraint-tightened");
    // Any other pattern change is ordered by the strings each matches: a string the old
    // pattern matches and the new one refuses ("z") proves a narrowing; with none, the pattern
    // widened; a pattern not read exactly (`\b`) leaves the change unjudged.
    let (_, report) = diff_json(&tool(pattern("^[a-z]+$")), &tool(pattern("^[a-y]+$")));
    assert_eq!(report["findings"][0]["rule"], "constraint-tightened");
    assert_eq!(report["findings"][0]["witness"]["s"], "z", "{report}");
    assert_eq!(
        rules(pattern("^[a-y]+$"), pattern("^[a-z]+$")),
        (Some(0), vec!["constraint-loosened".to_string()])
    );
    assert_eq!(
        rules(pattern(r"^\b[a-y]+$"), pattern(r"^\b[a-z]+$")),
        (Some(1), vec!["schema-change-unjudged".to_string()])
    );
}

/// A change inside a shared definition is reported at the first parameter that reaches it.
#[test]
fn a_definition_change_is_reported_at_the_parameter_that_references_it() {
    let schema = |t: &str| {
        json!({"type": "object", "properties": {"owner": {"$ref": "#/$defs/User"}},
        "$defs": {"User": {"type": "object", "properties": {"id": {"type": t}}}}})
    };
    let (_, report) = diff_json(&tool(schema("number")), &tool(schema("integer")));
    let f = &report["findings"][0];
    assert_eq!(f["rule"], "type-narrowed");
    assert_eq!(
        f["pointer"],
        "/tools/0/inputSchema/$defs/User/properties/id/type"
    );
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .starts_with("parameter \"owner.id\""),
        "{f}"
    );
}

/// A `$ref` to a definition identical to the inline schema it replaces is no change, with the
/// description beside the `$ref` read as the parameter's (issue 30: `$ref` to an identical inline
/// schema); a description that really changed is still reported once.
#[test]
fn a_ref_to_an_identical_inline_schema_is_no_change() {
    let inline = |d: &str| json!({"type": "object", "properties": {"s": {"type": "string", "description": d}}});
    let by_ref = |d: &str| {
        json!({"type": "object",
        "properties": {"s": {"$ref": "#/$defs/S", "description": d}},
        "$defs": {"S": {"type": "string"}}})
    };
    assert_eq!(rules(inline("d"), by_ref("d")), (Some(0), vec![]));
    assert_eq!(rules(by_ref("d"), inline("d")), (Some(0), vec![]));
    assert_eq!(
        rules(inline("d"), by_ref("e")),
        (Some(0), vec!["parameter-description-changed".to_string()])
    );
}
