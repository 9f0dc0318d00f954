//! Unit tests of `contract`.

use super::*;

fn contract(text: &str) -> Option<ServerContract> {
    read(text.as_bytes(), "t.json", Limits::default()).unwrap()
}

fn error(text: &str) -> String {
    read(text.as_bytes(), "t.json", Limits::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn tools_only_documents_carry_no_contract() {
    for text in [
        r#"{"tools":[{"name":"a"}]}"#,
        r#"[{"name":"a"}]"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
        r#"{"tools":[],"nextCursor":"x","ttlMs":5,"cacheScope":"public","resultType":"complete"}"#,
        r#"{"toolsList":{"tools":[]}}"#,
    ] {
        assert_eq!(contract(text), None, "{text}");
    }
}

#[test]
fn a_capture_gives_every_part_with_its_pointer() {
    let c = contract(
        r#"{"initializeResult":{"capabilities":{"prompts":{},"tools":{}},"instructions":"Use a.","serverInfo":{"name":"s"}},
           "toolsList":{"tools":[]},
           "promptsList":[{"prompts":[{"name":"p1"}],"nextCursor":"c"},{"prompts":[{"name":"p2","arguments":[]}]}]}"#,
    )
    .unwrap();
    let a = c.announced.as_ref().unwrap();
    assert_eq!(a.instructions.as_deref(), Some("Use a."));
    assert_eq!(a.pointer, "/initializeResult");
    let prompts = c.prompts.as_ref().unwrap();
    assert_eq!(prompts[1].pointer, "/promptsList/1/prompts/0");
    assert_eq!(prompts[1].key(ListKind::Prompts, 1), "p2");
    // No `resources` capability: the server offers none, whatever was kept.
    assert_eq!(c.resources, Some(vec![]));
    assert_eq!(c.resource_templates, Some(vec![]));
}

#[test]
fn a_declared_list_that_was_not_captured_is_not_recorded() {
    let c = contract(
        r#"{"initializeResult":{"capabilities":{"resources":{}}},"toolsList":{"tools":[]}}"#,
    )
    .unwrap();
    assert_eq!(c.resources, None);
    assert_eq!(c.prompts, Some(vec![]));
}

#[test]
fn a_snapshot_round_trips_through_its_members() {
    let text = r#"{"tools":[],"serverInfo":{"name":"s"},"capabilities":{"prompts":{}},"instructions":"Hi","prompts":[{"name":"p"}]}"#;
    let c = contract(text).unwrap();
    assert_eq!(c.prompts.as_ref().unwrap()[0].pointer, "/prompts/0");
    let mut again = serde_json::json!({"tools": []});
    again.as_object_mut().unwrap().extend(c.snapshot_members());
    assert_eq!(again, serde_json::from_str::<Value>(text).unwrap());
}

#[test]
fn caching_hints_come_from_the_first_page_on_both_readers() {
    let text = r#"{"discoverResult":{"capabilities":{},"ttlMs":0,"cacheScope":"private"},
        "toolsList":[{"tools":[{"name":"a"}],"nextCursor":"c","ttlMs":5,"cacheScope":"public"},{"tools":[],"ttlMs":9}]}"#;
    let fast = contract(text).unwrap();
    let general = read_general(text.as_bytes(), "t.json", Limits::default())
        .unwrap()
        .unwrap();
    assert_eq!(fast, general);
    let hints = fast.cache_hints.unwrap();
    assert_eq!(
        hints["tools/list"],
        serde_json::json!({"ttlMs": 5, "cacheScope": "public"})
    );
    assert_eq!(hints["server/discover"]["cacheScope"], "private");
}

#[test]
fn wrong_shapes_are_one_line_errors_naming_the_place() {
    assert_eq!(
        error(r#"{"tools":[],"prompts":{"a":1}}"#),
        "t.json: at /prompts: `prompts` must be an array, found an object"
    );
    assert_eq!(
        error(r#"{"toolsList":{"tools":[]},"resourcesList":{"resources":[3]}}"#),
        "t.json: at /resourcesList/resources/0: a resource must be an object, found the number 3"
    );
    assert_eq!(
        error(r#"{"tools":[],"capabilities":[]}"#),
        "t.json: at /capabilities: `capabilities` must be an object, found an array"
    );
}
