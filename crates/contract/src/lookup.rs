//! Member lookup without hashing for small JSON objects. serde_json's map (an `IndexMap` with
//! `preserve_order`) hashes every key looked up with SipHash, which costs more than comparing
//! the few keys a schema node has; the diff and the rules look keywords up by the million in a
//! study.

use serde_json::{Map, Value};

/// Objects of at most this many members are searched by comparing keys.
const SCAN_UP_TO: usize = 16;

/// Member lookup by key with `get`'s answer: keys are unique, so the scan finds what the hash
/// table would.
pub trait Lookup {
    /// The member named `key`, as `get(key)` finds it (`None` for a value that is no object).
    fn field(&self, key: &str) -> Option<&Value>;
}

impl Lookup for Map<String, Value> {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        if self.len() <= SCAN_UP_TO {
            let key = key.as_bytes();
            self.iter()
                .find_map(|(k, v)| same_key(k.as_bytes(), key).then_some(v))
        } else {
            self.get(key)
        }
    }
}

/// `a == b` for the short strings keys are, without a call to `memcmp` (7% of a study's cycles,
/// much of it on keys of a few bytes): keys of 4 to 16 bytes are compared as two overlapping
/// words.
#[inline(always)]
pub(crate) fn same_key(a: &[u8], b: &[u8]) -> bool {
    fn words<const N: usize>(a: &[u8], b: &[u8]) -> bool {
        a.first_chunk::<N>() == b.first_chunk::<N>() && a.last_chunk::<N>() == b.last_chunk::<N>()
    }
    if a.len() != b.len() {
        return false;
    }
    match a.len() {
        0..=3 => a.iter().zip(b).all(|(x, y)| x == y),
        4..=7 => words::<4>(a, b),
        8..=16 => words::<8>(a, b),
        _ => a == b,
    }
}

impl Lookup for Value {
    #[inline]
    fn field(&self, key: &str) -> Option<&Value> {
        self.as_object()?.field(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn same_key_is_byte_equality() {
        let texts: Vec<Vec<u8>> = (0..40)
            .flat_map(|len| {
                let base: Vec<u8> = (0..len as u8).map(|i| b'a' + i % 26).collect();
                let mut out = vec![base.clone()];
                for at in 0..len {
                    let mut changed = base.clone();
                    changed[at] ^= 1;
                    out.push(changed);
                }
                out
            })
            .collect();
        for a in &texts {
            for b in &texts {
                assert_eq!(same_key(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn finds_what_get_finds_below_at_and_above_the_scan_limit() {
        let mut keys: Vec<String> = ["a", "b", "", "ab", "type", "é", "\u{0}", "properties"]
            .map(String::from)
            .to_vec();
        keys.extend((0..2 * SCAN_UP_TO).map(|i| format!("k{i}")));
        let probes: Vec<&str> = keys
            .iter()
            .map(String::as_str)
            .chain(["missing", "typ", "types", "k"])
            .collect();
        for size in 0..=keys.len() {
            let map: Map<String, Value> = keys[..size]
                .iter()
                .enumerate()
                .map(|(i, k)| (k.clone(), json!(i)))
                .collect();
            let value = Value::Object(map.clone());
            for key in &probes {
                assert_eq!(map.field(key), map.get(*key), "{size} {key:?}");
                assert_eq!(value.field(key), value.get(*key), "{size} {key:?}");
            }
        }
        for other in [json!(null), json!([1]), json!("a"), json!(1)] {
            assert_eq!(other.field("a"), None);
        }
    }
}
