//! Unit tests of `surface`.

use super::*;
use serde_json::json;

fn surface(value: Value) -> Surface {
    let tools = value
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_object().unwrap().clone())
        .collect();
    Surface::new(tools)
}

#[test]
fn missing_null_and_empty_schema_stay_distinct() {
    let s = surface(json!([
        {"name": "a"},
        {"name": "b", "inputSchema": null},
        {"name": "c", "inputSchema": {}}
    ]));
    let tools: Vec<_> = s.tools().collect();
    assert_eq!(tools[0].input_schema(), None);
    assert_eq!(tools[1].input_schema(), Some(&Value::Null));
    assert_eq!(tools[2].input_schema(), Some(&json!({})));
}

#[test]
fn canonical_bytes_keep_tool_and_key_order() {
    let s = surface(json!([{"name": "b", "description": "x"}, {"description": "y", "name": "a"}]));
    assert_eq!(
        String::from_utf8(s.canonical_bytes()).unwrap(),
        r#"{"tools":[{"name":"b","description":"x"},{"description":"y","name":"a"}]}"#
    );
    assert_eq!(s.fingerprint().len(), 64);
}

/// Every field's `type` member as the reader recorded it, checked against scanning the
/// field's value again (the definition `raw_type_of` used before the reader recorded it).
fn assert_type_members_as_scanned_again(text: &str) {
    let surface = crate::payload::read(text.as_bytes(), "t", Default::default()).unwrap();
    for (raw_tool, tool) in surface.tools.iter().zip(surface.tools()) {
        for (field, key) in raw_tool.parsed.fields.iter().zip(tool.keys()) {
            assert!(
                matches!(field.type_member, TypeMember::Recorded(_)),
                "not recorded: {key} in {text}"
            );
            let value = tool.raw_field(key).unwrap();
            let again = crate::json_scan::object_member(value, "type").map(|r| &value[r]);
            assert_eq!(tool.raw_type_of(key), again, "{key} in {text}");
        }
    }
}

#[test]
fn the_reader_records_what_scanning_a_field_again_finds() {
    for text in [
        r#"{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{}}}]}"#,
        r#"{"tools":[{"name":"a","inputSchema":{"properties":{"type":{"type":"x"}}}}]}"#,
        r#"{"tools":[{"name":"a","inputSchema":{"type":"a","x":1,"type":"object"}}]}"#,
        r#"{"tools":[{"name":"a","inputSchema":{"t\u0079pe":"array","type":"object"}}]}"#,
        r#"{"tools":[{"name":"a","inputSchema":{"type":"object","\n":1}}]}"#,
        r#"{"tools":[{"name":"a","inputSchema":{"type":["object","null"]}}]}"#,
        r#"{"tools":[{"name":"a","inputSchema":{"type":{"deep":[1,{"type":2}]}}}]}"#,
        r#"{"tools":[{"name":"a","inputSchema":{}},{"name":"b","inputSchema":null}]}"#,
        r#"{"tools":[{"name":"a","inputSchema":[{"type":"object"}],"outputSchema":"x"}]}"#,
        "{\"tools\":[{\"name\":\"a\",\"inputSchema\" : { \"type\" :\n \"object\" } }]}",
    ] {
        assert_type_members_as_scanned_again(text);
    }
    // Every real payload, as the `{"tools":[…]}` object the scanner reads, compact and pretty.
    let corpus = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/data/corpus");
    let mut read = 0;
    for entry in std::fs::read_dir(corpus).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        let Ok(surface) = crate::payload::read(&bytes, "c", Default::default()) else {
            continue;
        };
        let value = surface.to_value();
        for text in [
            serde_json::to_string(&value).unwrap(),
            serde_json::to_string_pretty(&value).unwrap(),
        ] {
            assert_type_members_as_scanned_again(&text);
        }
        read += 1;
    }
    assert!(read >= 10, "{read} payloads");
}

#[test]
fn labels_and_pointers() {
    let s = surface(json!([{"name": 5}, {"name": "x/y"}]));
    assert_eq!(s.tool(0).unwrap().label(), "#0");
    assert_eq!(
        s.tool(1).unwrap().pointer("inputSchema"),
        "/tools/1/inputSchema"
    );
    assert!(s.tool(2).is_none());
}

#[test]
fn a_name_found_once_answers_as_looking_it_up_again() {
    let text = r#"{"tools":[{"name":"plain","x":1},{"x":2,"name":"esc\"aped"},{"name":5},{"x":3},
        {"description":"d","name":"plain"}]}"#;
    let first =
        crate::payload::read(text.as_bytes(), "p", crate::payload::Limits::default()).unwrap();
    let again =
        crate::payload::read(text.as_bytes(), "p", crate::payload::Limits::default()).unwrap();
    let expected = [Some("plain"), Some("esc\"aped"), None, None, Some("plain")];
    for round in 0..3 {
        let names: Vec<Option<&str>> = first.tools().map(|t| t.name_str()).collect();
        assert_eq!(names, expected, "round {round}");
        // The same bytes read apart: the same answers, from their own record.
        let names: Vec<Option<&str>> = again.tools().map(|t| t.name_str()).collect();
        assert_eq!(names, expected, "round {round}");
    }
    // A surface that shares the parsed tools answers from the record the first one made.
    let mut shared =
        crate::payload::read(text.as_bytes(), "p", crate::payload::Limits::default()).unwrap();
    shared.share_parsed(&first);
    let names: Vec<Option<&str>> = shared.tools().map(|t| t.name_str()).collect();
    assert_eq!(names, expected);
    assert_eq!(
        shared.tools().map(|t| t.label()).collect::<Vec<_>>(),
        ["plain", "esc\"aped", "#2", "#3", "plain"]
    );
    // Shared by a tool at another place in another text: the record is within the tool.
    let moved = r#"{"tools":[ {"x":3}, {"x":2,"name":"esc\"aped"},{"name":"plain","x":1}]}"#;
    let mut moved =
        crate::payload::read(moved.as_bytes(), "p", crate::payload::Limits::default()).unwrap();
    moved.share_parsed(&first);
    let names: Vec<Option<&str>> = moved.tools().map(|t| t.name_str()).collect();
    assert_eq!(names, [None, Some("esc\"aped"), Some("plain")]);
}
