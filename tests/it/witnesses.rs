//! Every breaking schema verdict is proven (issue 30). Over every pair of consecutive versions of
//! a server in the corpus, and over derived cases, each breaking finding about what a schema
//! accepts carries a witness that an independent validator confirms (valid under the approved
//! input schema and invalid under the candidate's; for outputs the mirror), and no pair gets a
//! counter-witness to the engine's other judgements (`value-now-rejected`).

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{diff_json, read_json, repo};
use serde_json::{json, Value};

/// The rules whose breaking verdict needs a witness (`ChangeKind::needs_witness`).
const PROVEN: &[&str] = &[
    "required-parameter-added",
    "parameter-removed",
    "parameter-renamed",
    "parameter-became-required",
    "type-narrowed",
    "type-changed",
    "enum-value-removed",
    "constraint-tightened",
    "output-property-removed",
    "output-property-type-changed",
    "output-property-became-optional",
    "output-enum-value-added",
    "output-constraint-loosened",
    "value-now-rejected",
];

/// A version's dotted parts, numbers compared as numbers.
type VersionKey = Vec<(u64, String)>;

/// Consecutive versions of each server in the corpus, oldest first.
fn consecutive_versions() -> Vec<(PathBuf, PathBuf)> {
    let dir = repo().join("tests/data/corpus");
    let mut by_server: BTreeMap<String, Vec<(VersionKey, PathBuf)>> = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".json") else {
            continue;
        };
        let (server, version) = stem.rsplit_once('@').unwrap();
        let key = version
            .split(['.', '+', '-'])
            .map(|part| (part.parse().unwrap_or(u64::MAX), part.to_string()))
            .collect();
        by_server
            .entry(server.into())
            .or_default()
            .push((key, path));
    }
    let mut pairs = Vec::new();
    for versions in by_server.values_mut() {
        versions.sort();
        for w in versions.windows(2) {
            pairs.push((w[0].1.clone(), w[1].1.clone()));
        }
    }
    pairs
}

/// The schema a finding is about, in `doc`: its tool found by `name` in the tools array that
/// `tool_pointer` (any tool's pointer in either document) belongs to.
fn schema_of<'d>(doc: &'d Value, tool_pointer: &str, name: &str, field: &str) -> &'d Value {
    let array = &tool_pointer[..tool_pointer.rfind('/').unwrap()];
    let tools = doc.pointer(array).and_then(Value::as_array).unwrap();
    let tool = tools.iter().rev().find(|t| t["name"] == name).unwrap();
    &tool[field]
}

fn tool_pointer(pointer: &str) -> &str {
    let cut = ["/inputSchema", "/outputSchema"]
        .iter()
        .filter_map(|f| pointer.find(f))
        .min()
        .unwrap_or(pointer.len());
    &pointer[..cut]
}

/// Checks every finding of `report` (a diff of `old` to `new`); returns (proven, unknown).
/// `counter`: whether the search may find a break the engine's judgements missed
/// (`value-now-rejected`, itself proven here).
fn check_report(
    old: &Value,
    new: &Value,
    report: &Value,
    what: &str,
    counter: bool,
) -> (usize, usize) {
    let (mut proven, mut unknown) = (0, 0);
    for f in report["findings"].as_array().unwrap() {
        let rule = f["rule"].as_str().unwrap();
        assert!(
            counter || rule != "value-now-rejected",
            "{what}: a counter-witness: {f}"
        );
        if !PROVEN.contains(&rule) {
            continue;
        }
        if f["severity"] == "unknown" {
            assert!(
                f["message"].as_str().unwrap().contains("(unproven: "),
                "{what}: {f}"
            );
            eprintln!("{what}: unproven: {} {}", f["rule"], f["message"]);
            unknown += 1;
            continue;
        }
        assert_eq!(f["severity"], "breaking", "{what}: {f}");
        let witness = f
            .get("witness")
            .unwrap_or_else(|| panic!("{what}: no witness: {f}"));
        let pointers = [f["old_pointer"].as_str(), f["pointer"].as_str()];
        let any = pointers.iter().flatten().next().unwrap();
        let output = pointers
            .iter()
            .flatten()
            .any(|p| p.contains("/outputSchema"));
        let field = if output {
            "outputSchema"
        } else {
            "inputSchema"
        };
        let tool = f["tool"].as_str().unwrap();
        let (old_name, new_name) = tool.split_once(" -> ").unwrap_or((tool, tool));
        let old_schema = schema_of(old, tool_pointer(any), old_name, field);
        let new_schema = schema_of(new, tool_pointer(any), new_name, field);
        // As the search builds validators: `format` asserted on both sides, whatever the dialect.
        let valid = |schema: &Value| {
            jsonschema::options()
                .should_validate_formats(true)
                .build(schema)
                .unwrap()
                .is_valid(witness)
        };
        let (accepting, rejecting) = if output {
            (new_schema, old_schema)
        } else {
            (old_schema, new_schema)
        };
        assert!(
            valid(accepting),
            "{what}: witness not valid where it must be: {f}"
        );
        assert!(!valid(rejecting), "{what}: witness not rejected: {f}");
        proven += 1;
    }
    (proven, unknown)
}

#[test]
fn every_breaking_finding_on_consecutive_real_releases_has_a_checked_witness() {
    let pairs = consecutive_versions();
    assert!(pairs.len() >= 9, "{} pairs", pairs.len());
    let (mut proven, mut unknown) = (0, 0);
    for (a, b) in &pairs {
        let (old, new) = (read_json(a), read_json(b));
        let (_, report) = diff_json(&old, &new);
        let what = format!("{} -> {}", name(a), name(b));
        let (p, u) = check_report(&old, &new, &report, &what, false);
        eprintln!("{what}: {p} proven, {u} unproven (unknown)");
        proven += p;
        unknown += u;
    }
    eprintln!(
        "{} pairs: {proven} breaking findings proven, {unknown} unproven",
        pairs.len()
    );
    assert!(proven > 10, "{proven} proven");
    // Every true break a witness could prove is proven: none is left `unknown`. (Listed with
    // its reason by `check_report`'s counts above when this fails.)
    assert_eq!(
        unknown, 0,
        "{unknown} unproven findings remain; see the lines above"
    );
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn tool(schema: Value) -> Value {
    json!({"tools": [{"name": "t", "inputSchema": schema, "outputSchema": schema}]})
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

/// Derived edits of real-looking schemas: each breaking one is proven, in both directions.
#[test]
fn derived_breaking_edits_are_proven_in_both_directions() {
    let base = object(
        json!({
            "q": {"type": "string", "maxLength": 100},
            "n": {"type": "number", "minimum": 0},
            "mode": {"enum": ["fast", "full"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "o": {"type": "object", "properties": {"k": {"type": "string"}}}
        }),
        &["q"],
    );
    let edits: Vec<(&str, Value)> = vec![
        ("/properties/q/maxLength", json!(10)),
        ("/properties/n/type", json!("integer")),
        ("/properties/n/minimum", json!(5)),
        ("/properties/mode/enum", json!(["fast"])),
        ("/properties/tags/items/type", json!("integer")),
        ("/properties/o/properties/k/type", json!("boolean")),
        ("/required", json!(["q", "n"])),
        (
            "/properties/q",
            json!({"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]}),
        ),
    ];
    let (mut proven, mut total) = (0, 0);
    for (at, value) in edits {
        let mut edited = base.clone();
        *edited.pointer_mut(at).unwrap() = value;
        for (old, new) in [
            (tool(base.clone()), tool(edited.clone())),
            (tool(edited), tool(base.clone())),
        ] {
            let (_, report) = diff_json(&old, &new);
            let (p, u) = check_report(&old, &new, &report, at, true);
            proven += p;
            total += p + u;
        }
    }
    // Every edit narrows the input one way and widens the output the other way.
    assert!(
        proven >= 16 && proven == total,
        "{proven} of {total} proven"
    );
}

/// Issue 71's notion case, reduced: a `oneOf` whose branches overlap (one takes any `type`, one
/// also needs a uuid `page_id`) tightened to a `const` per branch. Every breaking finding is
/// proven by a witness the approved schema accepts whether `format` is asserted or only an
/// annotation (a value with `page_id: "x"` passes one branch only when formats are asserted,
/// and two otherwise, which a client's validator refuses), and the candidate's refuses.
#[test]
fn witnesses_under_an_overlapping_one_of_hold_whether_or_not_formats_are_asserted() {
    let parent = |consts: [Option<&str>; 3]| {
        let type_of = |c: Option<&str>| c.map_or(json!({}), |c| json!({"const": c}));
        json!({"oneOf": [
            {"type": "object", "properties": {"type": type_of(consts[0]), "page_id": {"type": "string", "format": "uuid"}}, "required": ["type", "page_id"]},
            {"type": "object", "properties": {"type": type_of(consts[1]), "database_id": {"type": "string", "format": "uuid"}}, "required": ["type", "database_id"]},
            {"type": "object", "properties": {"type": type_of(consts[2])}, "required": ["type"]}
        ]})
    };
    let schema = |parent: Value| {
        object(
            json!({"page_id": {"type": "string", "format": "uuid"}, "parent": parent}),
            &["page_id", "parent"],
        )
    };
    let old = schema(parent([None, None, None]));
    let new = schema(parent([
        Some("page_id"),
        Some("database_id"),
        Some("workspace"),
    ]));
    let payload = |s: &Value| json!({"tools": [{"name": "move", "inputSchema": s}]});
    let (_, report) = diff_json(&payload(&old), &payload(&new));
    let findings: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "constraint-tightened")
        .collect();
    assert_eq!(findings.len(), 3, "{report}");
    let asserted = driftlab_contract::contract::validator(&old).unwrap();
    let annotated = driftlab_contract::contract::annotating_validator(&old).unwrap();
    let candidate = driftlab_contract::contract::validator(&new).unwrap();
    for finding in findings {
        assert_eq!(finding["severity"], "breaking", "{finding}");
        let witness = &finding["witness"];
        assert!(asserted.is_valid(witness), "{witness}");
        assert!(
            annotated.is_valid(witness),
            "the old schema refuses {witness} without formats"
        );
        assert!(!candidate.is_valid(witness), "{witness}");
    }
}

/// An unproven finding says only what was checked: how many values were tried and how many of
/// those the approved schema accepted (issue 71: "of 33 values the approved schema accepts" was
/// the number tried).
#[test]
fn an_unproven_finding_counts_the_values_tried_and_those_accepted_apart() {
    // A property dropped from an object that admits unlisted ones: no value can prove it.
    let old = object(
        json!({"a": {"type": "string"}, "b": {"type": "string"}}),
        &[],
    );
    let new = object(json!({"a": {"type": "string"}}), &[]);
    let payload = |s: &Value| json!({"tools": [{"name": "t", "inputSchema": s}]});
    let (_, report) = diff_json(&payload(&old), &payload(&new));
    let unknown: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "unknown")
        .filter_map(|f| f["message"].as_str())
        .collect();
    assert!(!unknown.is_empty(), "{report}");
    for message in unknown {
        let said = message
            .split("(unproven: ")
            .nth(1)
            .unwrap_or_else(|| panic!("{message}"));
        let numbers: Vec<usize> = said
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect();
        assert!(said.contains(" values tried, "), "{message}");
        assert!(
            said.contains(" of them accepted by the approved schema"),
            "{message}"
        );
        assert!(numbers.len() >= 2 && numbers[1] <= numbers[0], "{message}");
    }
}
