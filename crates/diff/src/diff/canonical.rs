//! Hash keys for JSON values, so that matching lists of values (enum values, union branches)
//! takes one pass instead of comparing every value with every other.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write;

use serde_json::Value;

/// A string that is equal for two values exactly when the values are equal as serde_json
/// compares them: object keys sorted (key order does not make objects differ), numbers as
/// serde_json prints them (`1` and `1.0` differ, as they do for `==`), `-0.0` as `0.0`.
pub fn key(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out);
    out
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (k, v) in entries {
                let _ = write!(out, "{:?}:", k);
                write(v, out);
                out.push(',');
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for v in items {
                write(v, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Number(n) if n.as_f64() == Some(0.0) && n.is_f64() => out.push_str("0.0"),
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

/// Positions of values grouped by a key, each group in order: the first position with a key
/// that is not yet taken, in O(1) amortised instead of a scan.
pub(crate) struct FirstUnclaimed {
    by_key: HashMap<String, VecDeque<usize>>,
}

impl FirstUnclaimed {
    pub fn new(keys: impl IntoIterator<Item = String>) -> FirstUnclaimed {
        let mut by_key: HashMap<String, VecDeque<usize>> = HashMap::new();
        for (i, key) in keys.into_iter().enumerate() {
            by_key.entry(key).or_default().push_back(i);
        }
        FirstUnclaimed { by_key }
    }

    /// The first position with `key` whose `taken` flag is not set; marks it taken.
    pub fn claim(&mut self, key: &str, taken: &mut [bool]) -> Option<usize> {
        let queue = self.by_key.get_mut(key)?;
        while let Some(i) = queue.pop_front() {
            if !taken[i] {
                taken[i] = true;
                return Some(i);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_equal_exactly_when_values_are() {
        let values = [
            json!({"a": 1, "b": [1, "x"]}),
            json!({"b": [1, "x"], "a": 1}),
            json!({"a": 1.0, "b": [1, "x"]}),
            json!(["x", 1]),
            json!([1, "x"]),
            json!("1"),
            json!(1),
            json!(0.0),
            json!(-0.0),
            json!(null),
            json!({"a\",": 1}),
            json!({"a": ",1"}),
        ];
        for a in &values {
            for b in &values {
                assert_eq!(key(a) == key(b), a == b, "{a} vs {b}");
            }
        }
    }

    #[test]
    fn first_unclaimed_skips_taken_positions() {
        let mut index = FirstUnclaimed::new(["a", "b", "a", "a"].map(String::from));
        let mut taken = vec![false, false, true, false];
        assert_eq!(index.claim("a", &mut taken), Some(0));
        assert_eq!(index.claim("a", &mut taken), Some(3));
        assert_eq!(index.claim("a", &mut taken), None);
        assert_eq!(index.claim("c", &mut taken), None);
        assert_eq!(taken, [true, false, true, true]);
    }
}
