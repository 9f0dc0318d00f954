//! Generated surfaces validate against the official MCP 2025-11-25 `Tool` schema.

use serde_json::{json, Value};

fn tool_validator() -> jsonschema::Validator {
    let full: Value =
        serde_json::from_str(include_str!("../data/mcp-2025-11-25-schema.json")).unwrap();
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$ref": "#/$defs/Tool",
        "$defs": full["$defs"],
    });
    jsonschema::validator_for(&schema).unwrap()
}

#[test]
fn generated_tools_validate_against_the_official_tool_schema() {
    let validator = tool_validator();
    for (seed, tools) in [(20260822, 3), (1, 8)] {
        for index in 0..300 {
            let surface = driftlab_mutate::generate::surface(seed, index, tools);
            for tool in surface["tools"].as_array().unwrap() {
                let errors: Vec<String> =
                    validator.iter_errors(tool).map(|e| e.to_string()).collect();
                assert!(errors.is_empty(), "surface {index}: {errors:?}\n{tool}");
            }
        }
    }
}

#[test]
fn the_official_schema_rejects_what_the_structural_rule_rejects() {
    // Guards the validator itself: a test that cannot fail proves nothing.
    let validator = tool_validator();
    assert!(!validator.is_valid(&json!({"name": "a"})));
    assert!(!validator.is_valid(&json!({"name": "a", "inputSchema": null})));
    assert!(!validator.is_valid(&json!({"name": "a", "inputSchema": {"type": "array"}})));
    assert!(validator.is_valid(&json!({"name": "a", "inputSchema": {"type": "object"}})));
}
