use serde_json::{json, Value};

use super::*;

fn search(from: Value, to: Value) -> Search {
    Search::run((&from, &to), ("approved", "candidate"), &[], &[], "test").unwrap()
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

#[test]
fn a_narrowed_type_is_witnessed_by_a_value_of_the_old_type() {
    let s = search(
        object(json!({"n": {"type": "number"}}), &["n"]),
        object(json!({"n": {"type": "integer"}}), &["n"]),
    );
    let w = s.witness(&["/n".to_string()], None).expect("a witness");
    assert!(w.value["n"].is_f64(), "{:?}", w.value);
}

#[test]
fn a_removed_enum_value_is_the_witness() {
    let s = search(
        object(json!({"m": {"enum": ["a", "b", "c"]}}), &["m"]),
        object(json!({"m": {"enum": ["a", "c"]}}), &["m"]),
    );
    assert_eq!(
        s.witness(&["/m".to_string()], None).unwrap().value,
        json!({"m": "b"})
    );
}

#[test]
fn a_new_required_parameter_is_witnessed_by_a_call_without_it() {
    let s = search(
        object(json!({"a": {"type": "string"}}), &[]),
        object(
            json!({"a": {"type": "string"}, "b": {"type": "string"}}),
            &["b"],
        ),
    );
    let w = s.witness(&["/b".to_string()], None).unwrap();
    assert!(w.value.get("b").is_none(), "{:?}", w.value);
}

#[test]
fn each_finding_gets_the_witness_of_its_own_place() {
    // Two breaks: `a` narrowed and `c` bounded. Each witness is rejected only at its place.
    let old = object(
        json!({"a": {"type": "number"}, "c": {"type": "string"}}),
        &[],
    );
    let new = object(
        json!({"a": {"type": "integer"}, "c": {"type": "string", "maxLength": 2}}),
        &[],
    );
    let s = search(old, new);
    let a = s.witness(&["/a".to_string()], None).unwrap();
    let c = s.witness(&["/c".to_string()], None).unwrap();
    assert!(
        a.value.get("c").is_none() && a.value["a"].is_f64(),
        "{:?}",
        a.value
    );
    assert!(c.value["c"].as_str().unwrap().len() > 2, "{:?}", c.value);
}

#[test]
fn a_widening_has_no_witness() {
    let old = object(
        json!({"a": {"type": "integer", "minimum": 1}, "e": {"enum": [1, 2]}}),
        &["a"],
    );
    let new = object(
        json!({"a": {"type": "number"}, "e": {"enum": [1, 2, 3]}}),
        &[],
    );
    let s = search(old, new);
    assert!(s.any().is_none());
    assert!(s.tried > 10, "{} values tried", s.tried);
}

#[test]
fn a_removed_parameter_is_witnessed_only_where_unlisted_ones_are_refused() {
    let old = json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false});
    let closed = json!({"type": "object", "properties": {}, "additionalProperties": false});
    let open = json!({"type": "object", "properties": {}});
    assert_eq!(
        search(old.clone(), closed)
            .witness(&["/a".to_string()], None)
            .unwrap()
            .value,
        json!({"a": "x"})
    );
    assert!(search(old, open).any().is_none());
}

#[test]
fn outputs_are_tried_with_the_approved_names() {
    // The candidate output no longer lists `p`; consumers validating with the approved schema
    // reject a `p` of another type, which the candidate now allows.
    let approved = object(json!({"p": {"type": "string"}}), &[]);
    let candidate = object(json!({}), &[]);
    let sides = ("candidate", "approved");
    let s = Search::run(
        (&candidate, &approved),
        sides,
        &["p".to_string()],
        &[],
        "test",
    )
    .unwrap();
    let w = s.witness(&["/p".to_string()], None).unwrap();
    assert!(!w.value["p"].is_string(), "{:?}", w.value);
}

#[test]
fn refs_and_all_of_are_followed() {
    let old = json!({"type": "object", "properties": {"o": {"$ref": "#/$defs/O"}}, "required": ["o"],
        "$defs": {"O": {"allOf": [{"type": "object", "properties": {"k": {"enum": ["x", "y"]}}, "required": ["k"]}]}}});
    let mut new = old.clone();
    new["$defs"]["O"]["allOf"][0]["properties"]["k"]["enum"] = json!(["x"]);
    let w = search(old, new).any().unwrap();
    assert_eq!(w.value, json!({"o": {"k": "y"}}));
}

#[test]
fn schema_pointers_map_to_instance_places() {
    assert_eq!(
        places::instance_place("/properties/a/type").as_deref(),
        Some("/a")
    );
    assert_eq!(
        places::instance_place("/properties/a/items/properties/b~1c/enum").as_deref(),
        Some("/a/0/b~1c")
    );
    assert_eq!(
        places::instance_place("/properties/t/prefixItems/1").as_deref(),
        Some("/t/1")
    );
    assert_eq!(
        places::instance_place("/properties/u/anyOf/2/properties/k").as_deref(),
        Some("/u/k")
    );
    assert_eq!(places::instance_place("/required").as_deref(), Some(""));
    assert_eq!(places::instance_place("/$defs/X/type"), None);
}

#[test]
fn unusable_schemas_say_why() {
    let mut deep = json!({"type": "object"});
    for _ in 0..200 {
        deep = json!({"type": "object", "properties": {"x": deep}});
    }
    let unsearchable = |from: &Value| {
        Search::run((from, &json!({})), ("approved", "candidate"), &[], &[], "t")
            .err()
            .unwrap()
    };
    let err = unsearchable(&deep);
    assert!(matches!(&err, Unsearchable::TooDeep { side } if side == "approved"));
    assert_eq!(
        err.to_string(),
        "the approved schema nests deeper than 128 levels"
    );
    let err = unsearchable(&json!({"type": 12}));
    assert!(
        matches!(&err, Unsearchable::DoesNotCompile { side, .. } if side == "approved"),
        "{err}"
    );
    assert!(err.to_string().contains("does not compile"), "{err}");
}

#[test]
fn keywords_are_document_pointers_through_refs_and_union_branches() {
    let schema = json!({
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/P"}},
        "$defs": {"P": {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "b"}, "n": {"type": "integer"}}}
        ]}}
    });
    let validator = driftlab_contract::contract::validator(&schema).unwrap();
    let (_, keywords) = error_places(&validator, &schema, &json!({"p": {"kind": "b", "n": "x"}}));
    assert_eq!(
        keywords,
        [
            "/$defs/P/oneOf/0/properties/kind/const",
            "/$defs/P/oneOf/1/properties/n/type"
        ]
    );
    assert_eq!(
        document_pointer(&schema, "/properties/p/$ref/oneOf/1"),
        Some("/$defs/P/oneOf/1".into())
    );
    assert_eq!(document_pointer(&schema, "/properties/q"), None);
}

#[test]
fn a_union_branch_is_found_past_names_that_spell_keywords() {
    assert_eq!(
        union_branch("/properties/p/oneOf/1/properties/y"),
        Some("/properties/p/oneOf/1")
    );
    assert_eq!(
        union_branch("/anyOf/0/items/oneOf/12/type"),
        Some("/anyOf/0/items/oneOf/12")
    );
    assert_eq!(union_branch("/properties/oneOf/properties/anyOf"), None);
    assert_eq!(union_branch("/properties/p/allOf/0"), None);
    assert_eq!(union_branch(""), None);
}

#[test]
fn a_finding_in_a_union_branch_takes_no_witness_refused_in_another_branch() {
    // Branch 0's `x` narrowed (a witness exists); branch 1's `y` gained a maxLength its pattern
    // already implied (no value breaks it). Both values are refused by the union as a whole.
    let branches = |x: &str, y: Value| {
        json!({"type": "object", "properties": {"p": {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": x}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "b"}, "y": y}, "required": ["kind"]}
        ]}}})
    };
    let y_old = json!({"type": "string", "pattern": "^[a-z]{1,5}$"});
    let y_new = json!({"type": "string", "pattern": "^[a-z]{1,5}$", "maxLength": 10});
    let s = search(branches("string", y_old), branches("integer", y_new));
    let places = ["/p".to_string()];
    let x = s.witness(&places, Some("/properties/p/oneOf/0/properties/x"));
    assert_eq!(x.expect("branch 0 is proven").value["p"]["kind"], "a");
    assert_eq!(
        s.witness(&places, Some("/properties/p/oneOf/1/properties/y")),
        None
    );
}

#[test]
fn a_place_inside_a_definition_is_found_where_it_is_referenced() {
    let schema = json!({"type": "object", "properties": {
        "u": {"$ref": "#/$defs/U"},
        "l": {"type": "array", "items": {"$ref": "#/$defs/U"}}
    }, "$defs": {"U": {"type": "string"}, "V": {"$ref": "#/$defs/U"}}});
    let at = |pointer| places::instance_places(&schema, pointer);
    assert_eq!(at("/$defs/U/maxLength"), ["/u", "/l/0"]);
    assert_eq!(at("/properties/u"), ["/u"]);
    assert!(at("/$defs/W/type").is_empty());
}
