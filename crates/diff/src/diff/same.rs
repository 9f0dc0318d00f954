//! Value equality (`==`: objects compare as maps, whatever their key order) that hashes no key
//! where both objects list their keys in the same order, as two versions of a schema mostly
//! do: serde_json's map equality looks every key up by its SipHash.

use serde_json::Value;

use driftlab_contract::lookup::Lookup;

/// `a == b`.
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() {
                return false;
            }
            for ((kx, vx), (ky, vy)) in x.iter().zip(y) {
                if kx != ky {
                    // Another order from here: each key's value looked up (the same count of
                    // unique keys, each alike, is the same map).
                    return x
                        .iter()
                        .all(|(k, v)| y.field(k).is_some_and(|w| nested(v, w)));
                }
                // Keys are unique: one key with two values makes the maps differ.
                if !nested(vx, vy) {
                    return false;
                }
            }
            true
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| nested(a, b))
        }
        _ => a == b,
    }
}

/// `a == b` for two optional values.
pub(crate) fn same_option(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => same(a, b),
        (a, b) => a.is_none() && b.is_none(),
    }
}

fn nested(a: &Value, b: &Value) -> bool {
    // Deep values recurse deeply: grow the stack on the heap rather than overflow it.
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || same(a, b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_as_eq_does() {
        let values = [
            json!({"a": 1, "b": {"c": [1, 2, {"d": null}]}}),
            json!({"b": {"c": [1, 2, {"d": null}]}, "a": 1}),
            json!({"a": 1, "b": {"c": [1, 2, {"d": 0}]}}),
            json!({"a": 1, "b": {"c": [1, 2]}}),
            json!({"a": 1, "c": {"c": [1, 2, {"d": null}]}}),
            json!({"a": 1}),
            json!({"a": 1.0}),
            json!({}),
            json!([]),
            json!([{"a": 1, "b": 2}]),
            json!([{"b": 2, "a": 1}]),
            json!([{"b": 2, "a": 2}]),
            json!(null),
            json!("a"),
            json!(1),
        ];
        for a in &values {
            for b in &values {
                assert_eq!(same(a, b), a == b, "{a} {b}");
                assert_eq!(same_option(Some(a), Some(b)), a == b);
            }
            assert!(!same_option(Some(a), None) && !same_option(None, Some(a)));
        }
        assert!(same_option(None, None));
    }

    #[test]
    fn deep_values_do_not_overflow_the_stack() {
        let deep = || {
            let mut value = json!(1);
            for _ in 0..100_000 {
                value = Value::Array(vec![value]);
            }
            value
        };
        let (a, b) = (deep(), deep());
        assert!(same(&a, &b));
        // Dropping them recurses as deeply as they nest: the leak ends with the test.
        std::mem::forget((a, b));
    }
}
