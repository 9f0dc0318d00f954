//! Schemas judged by what they accept, not how they are spelled (issue 30's table, rows 1, 2, 3
//! and 8): each pair below accepts exactly the same values, and each failed the gate before.

mod common;

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
