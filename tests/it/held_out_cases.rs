//! Issue 71's held-out releases, each reduced to the shape that went wrong, with every breaking
//! witness re-judged by Python's `jsonschema` (the pinned servers' venv has it) as an outside
//! auditor would: accepted by the approved schema with `format` asserted and as an annotation,
//! refused by the candidate's.
//!
//! - `@azure-devops/mcp` 2.7.0 → 2.9.0, `pipelines_get_run` → `pipelines_run`: a required
//!   `action` added beside numbers with `minimum: 1`. The smallest instance used to start from 0,
//!   so no value the approved schema accepted was ever built and the finding stayed unknown.
//!   In `repo_search_commits`, a string parameter that became an array of strings was a type
//!   change and an `unknown` "items changed shape" beside it.
//! - `@cocal/google-calendar-mcp` 2.6.1 → 2.6.2, `attendees[].email`: a loosened pattern (and
//!   `format: email` dropped) is compatible, not unknown.
//! - `@cyanheads/git-mcp-server` 2.10.5 → 2.15.1, `git_clone`: a root closed beside a renamed
//!   parameter is proven by an old call with an unlisted key.
//! - `@brave/brave-search-mcp-server` 2.0.82 → 2.1.3 (in the census): a draft-07 tuple
//!   `items: [A, B]` rewritten as 2020-12's `prefixItems: [A, B]` was 18 `unknown` findings.
//!   (notion 2.0.0 → 2.2.1's overlapping `oneOf` is in witnesses.rs.)

use std::path::Path;
use std::process::Command;

use crate::common;

use common::diff_json;
use serde_json::{json, Value};

fn payload(name: &str, schema: &Value) -> Value {
    json!({"tools": [{"name": name, "inputSchema": schema}]})
}

/// Every witness holds under Python's `jsonschema`; `None` (a skip) where the venv is missing.
fn python_confirms(old: &Value, new: &Value, witnesses: &[&Value]) -> Option<()> {
    let python = common::repo().join("servers/.venv/bin/python");
    if !common::live::installed(&python) {
        return None;
    }
    let script = r#"
import json, sys
from jsonschema import FormatChecker, validators
old, new, witnesses = json.load(sys.stdin)
def valid(schema, value, formats):
    cls = validators.validator_for(schema)
    return cls(schema, format_checker=FormatChecker() if formats else None).is_valid(value)
for w in witnesses:
    assert valid(old, w, True) and valid(old, w, False), ("old refuses", w)
    assert not valid(new, w, True) and not valid(new, w, False), ("new accepts", w)
print(len(witnesses))
"#;
    let input = serde_json::to_vec(&json!([old, new, witnesses])).unwrap();
    let out = run_python(&python, script, &input);
    assert_eq!(out.trim(), witnesses.len().to_string());
    Some(())
}

fn run_python(python: &Path, script: &str, input: &[u8]) -> String {
    use std::io::Write;
    let mut child = Command::new(python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The report of `old` → `new` as one tool `name`.
fn diff(name: &str, old: &Value, new: &Value) -> Value {
    diff_json(&payload(name, old), &payload(name, new)).1
}

/// The report's one finding, checked to be of `rule` and breaking.
fn sole_breaking<'r>(report: &'r Value, rule: &str) -> &'r Value {
    assert_eq!(common::finding_rules(report), [rule], "{report:#}");
    let finding = &report["findings"][0];
    assert_eq!(finding["severity"], "breaking", "{report:#}");
    finding
}

fn findings(report: &Value) -> Vec<&Value> {
    report["findings"].as_array().unwrap().iter().collect()
}

#[test]
fn a_required_action_beside_bounded_numbers_is_proven_by_an_old_call() {
    let old = json!({"type": "object", "properties": {
            "project": {"type": "string"},
            "pipelineId": {"type": "number", "minimum": 1},
            "runId": {"type": "number", "minimum": 1}},
        "required": ["project", "pipelineId", "runId"], "additionalProperties": false,
        "$schema": "http://json-schema.org/draft-07/schema#"});
    let mut new = old.clone();
    new["properties"]["action"] = json!({"type": "string", "enum": ["get", "list"]});
    new["required"] = json!(["action", "project", "pipelineId"]);
    let (_, report) = diff_json(
        &payload("pipelines_get_run", &old),
        &payload("pipelines_run", &new),
    );
    let added: Vec<&Value> = findings(&report)
        .into_iter()
        .filter(|f| f["rule"] == "required-parameter-added")
        .collect();
    assert_eq!(added.len(), 1, "{report:#}");
    assert_eq!(added[0]["severity"], "breaking", "{report:#}");
    let witness = &added[0]["witness"];
    assert!(witness.get("action").is_none(), "{witness}");
    python_confirms(&old, &new, &[witness]);
}

#[test]
fn a_loosened_email_pattern_is_compatible() {
    let email = |pattern: &str, format: bool| {
        let mut s = json!({"type": "string", "pattern": pattern});
        if format {
            s["format"] = json!("email");
        }
        json!({"type": "object", "properties": {"attendees": {"type": "array",
            "items": {"type": "object", "properties": {"email": s}, "required": ["email"]}}}})
    };
    let old = email(
        r"^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$",
        true,
    );
    let new = email(r"^[^\s@]+@[^\s@]+\.[^\s@]+$", false);
    let report = diff("create-event", &old, &new);
    assert_eq!(
        common::finding_rules(&report),
        ["constraint-loosened", "constraint-loosened"],
        "{report:#}"
    );
    assert!(report["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("pattern widened"));
    // The way back narrows, with the shortest string the old pattern refuses as its witness.
    let back = diff("create-event", &new, &old);
    let narrowed = findings(&back)
        .into_iter()
        .find(|f| f["pointer"].as_str().unwrap().ends_with("/pattern"))
        .unwrap();
    assert_eq!(narrowed["severity"], "breaking", "{back:#}");
    assert_eq!(
        narrowed["witness"],
        json!({"attendees": [{"email": "a@a.a"}]})
    );
    python_confirms(&new, &old, &[&narrowed["witness"]]);
}

#[test]
fn a_root_closed_beside_a_renamed_parameter_is_proven_by_an_unlisted_key() {
    let old = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": {"url": {"type": "string", "format": "uri"},
            "localPath": {"type": "string", "minLength": 1},
            "depth": {"type": "integer", "minimum": 1, "maximum": 9007199254740991_u64}},
        "required": ["url", "localPath"]});
    let new = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": {"url": {"type": "string", "format": "uri"},
            "path": {"type": "string", "minLength": 1},
            "depth": {"type": "integer", "minimum": 1, "maximum": 9007199254740991_u64}},
        "required": ["url", "path"], "additionalProperties": false});
    let report = diff("git_clone", &old, &new);
    let breaking: Vec<&Value> = findings(&report)
        .into_iter()
        .filter(|f| f["severity"] != "compatible" && f["severity"] != "info")
        .collect();
    let rules: Vec<&str> = breaking
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        ["parameter-renamed", "constraint-tightened"],
        "{report:#}"
    );
    assert!(
        breaking.iter().all(|f| f["severity"] == "breaking"),
        "{report:#}"
    );
    let closed = &breaking[1]["witness"];
    assert!(closed.as_object().unwrap().len() > 2, "{closed}");
    let witnesses: Vec<&Value> = breaking.iter().map(|f| &f["witness"]).collect();
    python_confirms(&old, &new, &witnesses);
}

#[test]
fn a_string_become_an_array_is_one_type_change_and_items_added_tighten() {
    let schema = |repository: Value| {
        json!({"type": "object", "properties": {"repository": repository},
            "required": ["repository"]})
    };
    let old = schema(json!({"type": "string"}));
    let new = schema(json!({"type": "array", "items": {"type": "string"}}));
    let report = diff("repo_search_commits", &old, &new);
    assert_eq!(
        common::finding_rules(&report),
        ["type-changed"],
        "{report:#}"
    );
    assert_eq!(report["findings"][0]["severity"], "breaking");
    // On a node that holds arrays, items constrained where they were not is a narrowing, proven
    // by an old array; the way back loosens.
    let old = schema(json!({"type": "array"}));
    let report = diff("repo_search_commits", &old, &new);
    let finding = sole_breaking(&report, "constraint-tightened");
    python_confirms(&old, &new, &[&finding["witness"]]);
    let back = diff("repo_search_commits", &new, &old);
    assert_eq!(
        common::finding_rules(&back),
        ["constraint-loosened"],
        "{back:#}"
    );
}

#[test]
fn a_draft_07_tuple_and_2020_12_prefix_items_are_the_same_contract() {
    let pair = json!([{"type": "number"}, {"type": "number"}]);
    let old = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": {"coordinates": {"type": "array", "items": pair}}});
    let new = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
        "properties": {"coordinates": {"type": "array", "prefixItems": pair}}});
    let report = diff("place", &old, &new);
    assert_eq!(
        common::finding_rules(&report),
        ["schema-dialect-changed"],
        "{report:#}"
    );
    // Items past the tuple closed (draft-07's additionalItems: false) still narrow, proven by an
    // old array with a third item.
    let mut closed = old.clone();
    closed["properties"]["coordinates"]["additionalItems"] = json!(false);
    let report = diff("place", &old, &closed);
    let finding = sole_breaking(&report, "constraint-tightened");
    assert_eq!(
        finding["pointer"],
        "/tools/0/inputSchema/properties/coordinates/additionalItems"
    );
    python_confirms(&old, &closed, &[&finding["witness"]]);
}
