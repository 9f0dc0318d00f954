//! The canonical contract digest (docs/digests.md): RFC 8785's own test vectors for the
//! canonical form, a tool's digests computed independently (Python's json with sorted keys,
//! which agrees with JCS on ASCII names and integers), and `driftlab digest` on a payload and
//! on the snapshot made from it.

use crate::common;

use common::*;
use driftlab_contract::digest::{canonical, digest, ContractDigests};
use serde_json::{json, Value};

/// RFC 8785 Appendix B: IEEE doubles (as bits) and the text JCS writes for each.
const NUMBERS: &[(u64, &str)] = &[
    (0x0000000000000000, "0"),
    (0x8000000000000000, "0"),
    (0x0000000000000001, "5e-324"),
    (0x8000000000000001, "-5e-324"),
    (0x7fefffffffffffff, "1.7976931348623157e+308"),
    (0xffefffffffffffff, "-1.7976931348623157e+308"),
    (0x4340000000000000, "9007199254740992"),
    (0xc340000000000000, "-9007199254740992"),
    (0x4430000000000000, "295147905179352830000"),
    (0x44b52d02c7e14af5, "9.999999999999997e+22"),
    (0x44b52d02c7e14af6, "1e+23"),
    (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
    (0x444b1ae4d6e2ef4e, "999999999999999700000"),
    (0x444b1ae4d6e2ef4f, "999999999999999900000"),
    (0x444b1ae4d6e2ef50, "1e+21"),
    (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
    (0x3eb0c6f7a0b5ed8d, "0.000001"),
    (0x41b3de4355555553, "333333333.3333332"),
    (0x41b3de4355555554, "333333333.33333325"),
    (0x41b3de4355555555, "333333333.3333333"),
    (0x41b3de4355555556, "333333333.3333334"),
    (0x41b3de4355555557, "333333333.33333343"),
    (0xbecbf647612f3696, "-0.0000033333333333333333"),
    (0x43143ff3c1cb0959, "1424953923781206.2"),
];

#[test]
fn numbers_are_written_as_ecmascript_writes_them() {
    for &(bits, expected) in NUMBERS {
        let value = Value::from(f64::from_bits(bits));
        assert_eq!(canonical(&value), expected, "{bits:#018x}");
    }
    // Integers are doubles too: beyond 2^53 they round as JSON.parse rounds them.
    assert_eq!(canonical(&json!(9007199254740993u64)), "9007199254740992");
    assert_eq!(canonical(&json!(-7)), "-7");
    assert_eq!(canonical(&serde_json::from_str("4.50").unwrap()), "4.5");
}

#[test]
fn the_rfc_example_canonicalizes_as_published() {
    // RFC 8785 §3.2.2, the input as the RFC writes it.
    let input = r#"{
        "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
        "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
        "literals": [null, true, false]
    }"#;
    let value: Value = serde_json::from_str(input).unwrap();
    assert_eq!(
        canonical(&value),
        "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\"string\":\"€$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}"
    );
}

#[test]
fn members_sort_by_utf16_code_units() {
    // RFC 8785 §3.2.3: U+1F600 (a surrogate pair, D83D…) sorts before U+FB33, unlike by code
    // point.
    let value: Value = serde_json::from_str(
        r#"{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}"#,
    )
    .unwrap();
    let order: Vec<&str> = [
        "Carriage Return",
        "One",
        "Control",
        "Latin Small Letter O With Diaeresis",
        "Euro Sign",
        "Emoji: Grinning Face",
        "Hebrew Letter Dalet With Dagesh",
    ]
    .to_vec();
    let text = canonical(&value);
    let positions: Vec<usize> = order.iter().map(|v| text.find(v).unwrap()).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
}

/// The docs' vector: a tool and its digests (computed with Python's `json.dumps(v,
/// sort_keys=True, separators=(",", ":"), ensure_ascii=False)` and SHA-256).
fn vector_tool() -> Value {
    json!({"name":"get_user","description":"Get a user.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},"annotations":{"readOnlyHint":true}})
}

#[test]
fn a_tools_digests_match_the_published_vector() {
    let digests = ContractDigests::of(&json!({"tools": [vector_tool()]}));
    let tool = &digests.tools[0];
    assert_eq!(tool.name, "get_user");
    assert_eq!(
        tool.tool,
        "sha256:5be981b03e3ef1592263d83269a4b4d69e96007c9ed270d46c09b2f768db740b"
    );
    assert_eq!(
        tool.description.as_deref(),
        Some("sha256:102b933ec8ef275742f5996c1a76879349ca92b41d1ca36e9267d35b920dbd3c")
    );
    assert_eq!(
        tool.input_schema.as_deref(),
        Some("sha256:3797626bd17e346de1adbbe242cd2c4e41a5956ccf7424c65cf45e2bbef10c81")
    );
    assert_eq!(tool.output_schema, None);
    assert_eq!(
        tool.annotations.as_deref(),
        Some("sha256:8803fb4b4971327e527bfc007f694c25d5553baffc4acd00784c86ae97dfd056")
    );
    assert_eq!(
        digests.tools_list,
        "sha256:70051b3b3a27fc9cd0e140bb84d4d20ea4e187b9344b61042ad13c6e165ccdd3"
    );
    assert_eq!(
        digests.contract,
        "sha256:779eabc2f63d179a04fb7e788ff11d0d9656b331b5d1c880938b3be2a3dbb749"
    );
    // Member order and whitespace do not matter; a missing schema is not a null one.
    let reordered: Value = serde_json::from_str(
        r#"{ "annotations": {"readOnlyHint": true}, "inputSchema": {"required": ["id"], "type": "object", "properties": {"id": {"type": "string"}}}, "description": "Get a user.", "name": "get_user" }"#,
    )
    .unwrap();
    assert_eq!(digest(&reordered), tool.tool);
    let mut null_output = vector_tool();
    null_output["outputSchema"] = Value::Null;
    assert_eq!(
        ContractDigests::of(&json!({"tools": [null_output]})).tools[0].output_schema,
        Some(digest(&Value::Null))
    );
}

#[test]
fn driftlab_digest_gives_a_capture_and_its_snapshot_the_same_digests() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("snapshot.json");
    let whole = repo().join("tests/data/contract/whole.json");
    let output = run(&[
        "snapshot",
        "-o",
        snapshot.to_str().unwrap(),
        whole.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let digests = |path: &std::path::Path| {
        let output = run(&["digest", "--format", "json", path.to_str().unwrap()]);
        assert!(output.status.success(), "{}", stderr(&output));
        serde_json::from_str::<Value>(&stdout(&output)).unwrap()
    };
    let (from_payload, from_snapshot) = (digests(&whole), digests(&snapshot));
    assert_eq!(from_payload, from_snapshot);
    assert!(from_payload["algorithm"]
        .as_str()
        .unwrap()
        .starts_with("driftlab-contract-digest/1"));
    // A tool's description edit changes its description and tool digests, not its schemas'.
    let mut edited: Value = read_json(&snapshot);
    edited["tools"][0]["description"] = json!("Search every note");
    let path = dir.path().join("edited.json");
    std::fs::write(&path, edited.to_string()).unwrap();
    let after = digests(&path);
    let (old, new) = (&from_payload["tools"][0], &after["tools"][0]);
    assert_ne!(old["description"], new["description"]);
    assert_ne!(old["tool"], new["tool"]);
    assert_eq!(old["inputSchema"], new["inputSchema"]);
    assert_ne!(from_payload["contract"], after["contract"]);
    // Unreadable input: one line, exit 2.
    std::fs::write(&path, "{").unwrap();
    let output = run(&["digest", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn the_documented_output_is_the_commands() {
    let doc = std::fs::read_to_string(repo().join("docs/digests.md")).unwrap();
    let command = "$ driftlab digest tests/data/contract/whole.json\n";
    let shown = doc
        .split(command)
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let path = repo().join("tests/data/contract/whole.json");
    let output = run(&["digest", path.to_str().unwrap()]);
    assert_eq!(stdout(&output), shown);
}
