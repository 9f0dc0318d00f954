//! Unit tests of `strict`.

use super::*;

const CLIENT: Profile = Profile {
    max_depth: 64,
    safe_integers: true,
};

fn rule(text: &[u8]) -> &'static str {
    let rule = parse(text, CLIENT).map_or_else(|e| e.rule, |_| "ok");
    assert!(
        rule == "ok" || crate::jsonrpc::RULES.contains(&rule),
        "{rule} is not in RULES"
    );
    rule
}

#[test]
fn reads_what_serde_json_reads_on_ordinary_text() {
    let text = br#" {"a":[1,-2,3.5,1e2,true,false,null,"x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"],"b":{},"c":[],"d":-0.0} "#;
    let strict = parse(text, CLIENT).unwrap();
    let lenient: Value = serde_json::from_slice(text).unwrap();
    assert_eq!(strict, lenient);
    assert_eq!(strict["a"][7], "x\"\\/\u{8}\u{c}\n\r\t\u{e9}\u{1f600}");
}

#[test]
fn refuses_what_parsers_read_differently() {
    assert_eq!(
        rule(br#"{"method":"ping","method":"tools/call"}"#),
        "duplicate-key"
    );
    // The same key spelled with an escape is still the same key.
    assert_eq!(rule(br#"{"id":1,"i\u0064":2}"#), "duplicate-key");
    assert_eq!(rule(br#"{"a":{"k":1,"k":1}}"#), "duplicate-key");
    assert_eq!(rule(br#"{"a":"\ud800"}"#), "lone-surrogate");
    assert_eq!(rule(br#"{"a":"\udc00x"}"#), "lone-surrogate");
    assert_eq!(rule(br#"{"a":"\ud800\u0041"}"#), "lone-surrogate");
    assert_eq!(rule(br#"{"a":1e400}"#), "number-out-of-range");
    assert_eq!(rule(br#"{"a":-1e400}"#), "number-out-of-range");
    assert_eq!(rule(br#"{"a":NaN}"#), "number-out-of-range");
    assert_eq!(rule(br#"{"a":Infinity}"#), "number-out-of-range");
    assert_eq!(rule(br#"{"a":9007199254740992}"#), "unsafe-integer");
    assert_eq!(rule(br#"{"a":-9007199254740992}"#), "unsafe-integer");
    assert_eq!(
        rule(br#"{"a":123456789012345678901234567890}"#),
        "unsafe-integer"
    );
    assert_eq!(rule(b"\xEF\xBB\xBF{}"), "byte-order-mark");
    assert_eq!(rule(b"{\"a\":1}\r{\"b\":2}"), "carriage-return");
    assert_eq!(rule(b"{\"a\":\r1}"), "carriage-return");
    assert_eq!(rule(b"{\"a\":\"\xff\"}"), "invalid-utf8");
    assert_eq!(rule(br#"{"a":1} x"#), "trailing-bytes");
    assert_eq!(rule(br#"{"a":1}{"a":2}"#), "trailing-bytes");
    assert_eq!(rule(b"{\"a\":\"\x01\"}"), "syntax");
    assert_eq!(rule(br#"{"a":01}"#), "syntax");
    assert_eq!(rule(br#"{'a':1}"#), "syntax");
    assert_eq!(rule(br#"{"a":1,}"#), "syntax");
    assert_eq!(rule(b""), "syntax");
}

#[test]
fn accepts_the_edges_that_every_parser_reads_alike() {
    assert_eq!(rule(b"{\"a\":1}\r"), "ok");
    assert_eq!(
        rule(br#"{"a":9007199254740991,"b":-9007199254740991}"#),
        "ok"
    );
    assert_eq!(rule(br#"{"a":1e308,"b":1e-400,"c":"\u0000"}"#), "ok");
    let lenient = Profile {
        safe_integers: false,
        ..CLIENT
    };
    assert_eq!(
        parse(br#"[18446744073709551615,-9223372036854775808]"#, lenient).unwrap(),
        serde_json::json!([u64::MAX, i64::MIN])
    );
    assert_eq!(
        parse(br#"[18446744073709551616]"#, lenient)
            .unwrap_err()
            .rule,
        "unsafe-integer"
    );
}

#[test]
fn depth_is_bounded_and_named() {
    let ok = format!("{}{}", "[".repeat(64), "]".repeat(64));
    assert_eq!(rule(ok.as_bytes()), "ok");
    let deep = format!("{{\"a\":{}1{}}}", "[".repeat(200), "]".repeat(200));
    let e = parse(deep.as_bytes(), CLIENT).unwrap_err();
    assert_eq!((e.rule, e.offset), ("too-deep", 5 + 63));
}

#[test]
fn errors_name_the_place() {
    let e = parse(br#"{"a":1,"a":2}"#, CLIENT).unwrap_err();
    assert_eq!(
        e.to_string(),
        r#"the key "a" twice in one object at byte 7"#
    );
    let e = parse(br#"{"a":tru}"#, CLIENT).unwrap_err();
    assert_eq!(e.to_string(), "`t` where a value was expected at byte 5");
}
