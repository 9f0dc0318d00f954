//! Unit tests of `payload`.

use super::*;

fn names(bytes: &str) -> Vec<String> {
    read(bytes.as_bytes(), "t.json", Limits::default())
        .unwrap()
        .tools()
        .map(|t| t.label())
        .collect()
}

fn error(bytes: &[u8]) -> String {
    read(bytes, "t.json", Limits::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn reads_every_accepted_shape_in_order() {
    assert_eq!(
        names(r#"{"tools":[{"name":"b"},{"name":"a"}]}"#),
        ["b", "a"]
    );
    assert_eq!(
        names(r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"x"}]}}"#),
        ["x"]
    );
    assert_eq!(names(r#"[{"name":"x"},{"name":"y"}]"#), ["x", "y"]);
    assert_eq!(
        names(r#"[{"tools":[{"name":"p1"}],"nextCursor":"c"},{"tools":[{"name":"p2"}]}]"#),
        ["p1", "p2"]
    );
    assert_eq!(
        names(r#"{"package":"x","toolsList":{"tools":[{"name":"c"}]}}"#),
        ["c"]
    );
    assert!(names("[]").is_empty());
}

#[test]
fn locations_point_into_the_source_document() {
    let s = read(
        br#"[{"result":{"tools":[{"name":"a"}]}},{"result":{"tools":[{"name":"b"}]}}]"#,
        "t",
        Limits::default(),
    )
    .unwrap();
    assert_eq!(s.tool(1).unwrap().location(), "/1/result/tools/0");
}

#[test]
fn bad_input_gets_one_line_errors_naming_the_place() {
    assert_eq!(error(b""), "t.json: empty payload");
    assert_eq!(
        error(b"{\"tools\": [1,"),
        "t.json:1:13: invalid JSON: EOF while parsing a value"
    );
    assert_eq!(
        error(b"\xff\xfe"),
        "t.json: not UTF-8 (invalid byte at offset 0)"
    );
    assert_eq!(
        error(br#"{"tools":{"a":1}}"#),
        "t.json: at /tools: `tools` must be an array, found an object"
    );
    assert_eq!(
        error(br#"{"tools":[{"name":"a"},"b"]}"#),
        "t.json: at /tools/1: a tool must be an object, found a string"
    );
    assert!(
        error(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}"#)
            .contains("at /error: the server answered with a JSON-RPC error")
    );
    assert!(error(b"42").contains("found the number 42"));
    for e in [error(b"{\"a\":1}"), error(b"[[1]]")] {
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = "[".repeat(100_000);
    let e = error(deep.as_bytes());
    assert!(e.contains(":1:2001: nested deeper than 2000 levels"), "{e}");
    // Brackets inside strings do not count; the place is counted per line.
    let text = format!("{{\"a\": \"[[[[\",\n \"b\": {}", "[".repeat(MAX_DEPTH));
    let e = error(text.as_bytes());
    assert!(e.contains(&format!(":2:{}:", 7 + MAX_DEPTH - 1)), "{e}");
}

#[test]
fn size_limit_is_enforced_before_parsing() {
    let e = read(b"[]   ", "big", Limits { max_bytes: 4 }).unwrap_err();
    assert_eq!(
        e.to_string(),
        "big: payload is 5 bytes, over the 4-byte limit"
    );
}
