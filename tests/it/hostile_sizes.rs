//! Sizes that once made the diff quadratic finish in linear work (no timing is asserted: each
//! must simply finish within a normal test run). Two identical 300,000-tool payloads took over
//! a minute (a linear search for each approved tool's pair); 100,000 required names against
//! 100,000 others took over a minute (each finding serialized the whole list to shorten it).

use crate::common;

use std::fs;

use common::{run_in, stdout};
use serde_json::json;

#[test]
fn two_identical_payloads_of_300_000_tools_pass() {
    let dir = tempfile::tempdir().unwrap();
    let tools: Vec<_> = (0..300_000)
        .map(|i| json!({"name": format!("tool_{i}"), "description": format!("does thing {i}"), "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}}))
        .collect();
    let text = serde_json::to_vec(&json!({ "tools": tools })).unwrap();
    fs::write(dir.path().join("a.json"), &text).unwrap();
    fs::write(dir.path().join("b.json"), &text).unwrap();
    let output = run_in(dir.path(), &["diff", "a.json", "b.json"], None);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(stdout(&output).contains("no findings"));
}

#[test]
fn a_required_list_of_100_000_names_against_100_000_others_is_reported_in_full() {
    let dir = tempfile::tempdir().unwrap();
    for (file, prefix) in [("a.json", "a"), ("b.json", "b")] {
        let names: Vec<String> = (0..100_000).map(|i| format!("{prefix}{i}")).collect();
        let payload =
            json!({"tools": [{"name": "t", "inputSchema": {"type": "object", "required": names}}]});
        fs::write(dir.path().join(file), payload.to_string()).unwrap();
    }
    let output = run_in(dir.path(), &["diff", "a.json", "b.json"], None);
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    assert!(
        text.starts_with("DRIFT  a.json -> b.json: 100000 breaking, 100000 compatible"),
        "{}",
        &text[..200]
    );
}
