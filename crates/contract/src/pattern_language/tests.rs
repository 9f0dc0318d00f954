use super::{order, orders, Order};

fn within(a: &str, b: &str) -> bool {
    order(a, b) == Ok(Order::Within)
}

fn outside(a: &str, b: &str) -> String {
    match order(a, b) {
        Ok(Order::Outside(s)) => s,
        other => panic!("{a:?} in {b:?}: {other:?}"),
    }
}

#[test]
fn a_loosened_email_pattern_is_within_and_the_reverse_has_the_shortest_witness() {
    // @cocal/google-calendar-mcp 2.6.1 -> 2.6.2, attendees[].email.
    let old = r"^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$";
    let new = r"^[^\s@]+@[^\s@]+\.[^\s@]+$";
    assert!(within(old, new));
    assert_eq!(outside(new, old), "a@a.a");
    assert_eq!(
        orders(old, new),
        Ok((Order::Within, Order::Outside("a@a.a".into())))
    );
}

#[test]
fn bounds_and_alternatives_order_both_ways() {
    assert_eq!(outside("^[a-z]+$", "^[a-z]{1,3}$"), "aaaa");
    assert!(within("^[a-z]{1,3}$", "^[a-z]+$"));
    assert!(within("^(?:red|green)$", "^(?:red|green|blue)$"));
    assert_eq!(outside("^(?:red|green|blue)$", "^(?:red|green)$"), "blue");
    assert!(within("^a+?$", "^a+$") && within("^a+$", "^a+?$"));
    assert!(within("^(?<x>ab)$", "^ab$"));
}

#[test]
fn patterns_are_unanchored() {
    assert!(within("abc", "b"));
    assert_eq!(outside("b", "abc"), "b");
    assert!(within("^ab", "a"));
    assert_eq!(outside("a", "^a"), "ba");
}

#[test]
fn classes_mean_what_ecma_262_says() {
    // `\d` and `\w` are ASCII, unlike Rust's.
    assert!(within(r"^\d+$", "^[0-9]+$"));
    assert!(within(r"^\w$", "^[A-Za-z0-9_]$"));
    // `\s` is ECMA-262's set, `.` refuses the four line terminators and nothing else.
    let space = "^[ \\t\\n\\r\\f\\v\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]$";
    assert!(within(r"^\s$", space) && within(space, r"^\s$"));
    assert!(within("^.$", r"^[^\n\r\u2028\u2029]$"));
    assert!(within(r"^[^\n\r\u2028\u2029]$", "^.$"));
    // `[]` matches nothing, `[^]` anything; `&&` and `[` are plain characters in a class.
    assert!(within("a[]", "zzz"));
    assert_eq!(outside("^[^]$", "^.$"), "\n");
    assert!(within("^[a&&b]$", "^[ab&]$") && within("^[ab&]$", "^[a&&b]$"));
    assert!(within("^[[a]$", r"^[a\[]$"));
    // A brace that starts no quantifier is itself.
    assert!(within("^x{,3}$", r"^x\{,3\}$") && within(r"^x\{,3\}$", "^x{,3}$"));
    assert!(within("^[a-]$", r"^[\-a]$"));
}

#[test]
fn what_does_not_translate_exactly_orders_nothing() {
    for pattern in [
        r"(a)\1", "(?=a)b", r"\bword", r"\p{L}", r"\q", "(?i)a", "[z-a]", "[a",
    ] {
        assert!(order(pattern, "a").is_err(), "{pattern}");
        assert!(order("a", pattern).is_err(), "{pattern}");
    }
    assert!(order(&"a".repeat(5000), "a").is_err());
}
