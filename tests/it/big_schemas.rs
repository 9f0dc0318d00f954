//! Schemas with 100,000-entry enums, required lists, properties and unions are compared in
//! near-linear work (hash lookups, an indexed and capped rename search) and still exactly.
//! Before, each of these compared every entry with every other: hours, not a second.

use crate::common;

use common::diff_json;
use serde_json::{json, Map, Value};

const N: usize = 100_000;

fn diff(old: Value, new: Value) -> Value {
    let wrap = |schema: Value| json!({"tools": [{"name": "page", "inputSchema": schema}]});
    let (code, report) = diff_json(&wrap(old), &wrap(new));
    assert!(matches!(code, Some(0 | 1)), "{report}");
    report
}

fn object(properties: Map<String, Value>, required: Vec<String>) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

#[test]
fn a_huge_enum_reports_exactly_what_left_and_came_in_a_short_message() {
    let values: Vec<String> = (0..N).map(|i| format!("v{i}")).collect();
    let mut new = values[20..].to_vec();
    new.push("fresh".into());
    let schema =
        |values: &[String]| json!({"type": "object", "properties": {"kind": {"enum": values}}});
    let report = diff(schema(&values), schema(&new));
    assert_eq!(
        common::finding_rules(&report),
        ["enum-value-removed", "enum-value-added"]
    );
    let removed = report["findings"][0]["message"].as_str().unwrap();
    assert!(removed.contains("\"v0\", \"v1\""), "{removed}");
    assert!(
        removed.ends_with("and 10 more no longer allowed"),
        "{removed}"
    );
    assert!(removed.len() < 300, "{removed}");
    let added = report["findings"][1]["message"].as_str().unwrap();
    assert!(added.contains("\"fresh\" now allowed"), "{added}");
}

#[test]
fn huge_required_lists_and_properties_report_the_one_change() {
    let properties: Map<String, Value> = (0..N)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    let required: Vec<String> = (0..N / 2).map(|i| format!("p{i}")).collect();
    let mut more = required.clone();
    more.push(format!("p{}", N - 1));
    let report = diff(
        object(properties.clone(), required),
        object(properties, more),
    );
    assert_eq!(
        common::finding_rules(&report),
        ["parameter-became-required"]
    );
    assert!(report["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains(&format!("p{}", N - 1)));
}

#[test]
fn the_property_rename_search_is_capped_with_a_finding_that_says_so() {
    // 10,000 removed and 10,000 added properties that all share the word "field": every pair
    // could be a rename, 100 million pairs. The search stops at its cap and says so.
    let half = N / 10;
    let named = |prefix: &str| -> Map<String, Value> {
        (0..half)
            .map(|i| (format!("field_{prefix}{i}"), json!({"type": "string"})))
            .collect()
    };
    let report = diff(object(named("a"), vec![]), object(named("b"), vec![]));
    let rules = common::finding_rules(&report);
    let unjudged: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "schema-change-unjudged")
        .collect();
    assert_eq!(unjudged.len(), 1, "{:?}", &rules[..5]);
    assert!(unjudged[0]["message"]
        .as_str()
        .unwrap()
        .contains("the rename search stopped"));
    // Every property is accounted for: renamed, or removed and added.
    let count = |rule: &str| rules.iter().filter(|r| *r == rule).count();
    let renamed = count("parameter-renamed");
    assert!(renamed > 0);
    assert_eq!(renamed + count("parameter-removed"), half);
    assert_eq!(renamed + count("optional-parameter-added"), half);
}

#[test]
fn a_huge_reordered_union_pairs_every_branch_with_its_equal() {
    let branches: Vec<Value> = (0..N / 5)
        .map(|i| json!({"type": "object", "properties": {"b": {"const": i}}}))
        .collect();
    let mut reordered = branches.clone();
    reordered.reverse();
    let schema =
        |branches: Vec<Value>| json!({"type": "object", "properties": {"x": {"anyOf": branches}}});
    let report = diff(schema(branches), schema(reordered));
    assert_eq!(common::finding_rules(&report), Vec::<String>::new());
}
