//! Compact JSON text of a value: exactly the bytes `serde_json::to_vec` writes, faster for the
//! study's surfaces, whose strings almost never need escaping.
//!
//! serde_json looks up every byte of every string in its escape table; here a string is first
//! checked sixteen bytes at a time and, when nothing in it needs escaping (the common case),
//! copied whole. Strings that do need escaping, and numbers, are written by serde_json itself,
//! so the bytes are its bytes.

use serde_json::Value;

use crate::json_scan::{plain_len, SPECIAL};
use crate::lookup::Lookup;

/// Appends `value`'s compact JSON text to `out`.
pub fn write(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(number) => serde_write(out, number),
        Value::String(text) => write_str(out, text),
        Value::Array(items) => write_array(out, items, write),
        Value::Object(members) => write_object(out, members, write),
    }
}

/// Appends `value`'s compact JSON text with every object's keys sorted (by their UTF-8 bytes):
/// the same text for values that differ only in key order. Numbers keep their own text (`1`
/// and `1.0` stay apart).
pub fn write_sorted(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.cmp(b.0));
            write_object(out, members, write_sorted);
        }
        Value::Array(items) => write_array(out, items, write_sorted),
        other => write(out, other),
    }
}

/// Whether [`write_sorted`] writes the same bytes for `a` and `b`, without writing them: the
/// same members by key in any order, the same items in order, and the same numbers as written
/// (`1` and `1.0` differ, and so do `0.0` and `-0.0`, which `==` calls equal).
pub fn same_sorted(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            // Keys are unique in a map: the same count and each key's value alike is the same set.
            // Most pairs list their keys in the same order: the member at the same place first.
            a.len() == b.len()
                && a.iter().zip(b).all(|((key, value), (at_place, other))| {
                    let other = match crate::lookup::same_key(key.as_bytes(), at_place.as_bytes()) {
                        true => Some(other),
                        false => b.field(key),
                    };
                    other.is_some_and(|other| same_sorted(value, other))
                })
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_sorted(a, b))
        }
        (Value::Number(a), Value::Number(b)) => match (a.as_f64(), a.is_f64(), b.is_f64()) {
            (Some(x), true, true) => b.as_f64().is_some_and(|y| x.to_bits() == y.to_bits()),
            _ => a == b,
        },
        _ => a == b,
    }
}

/// Appends `value`'s pretty JSON text: exactly the bytes `serde_json::to_vec_pretty` writes
/// (two spaces per level, `": "` after a key, `[]` and `{}` when empty).
pub fn write_pretty(out: &mut Vec<u8>, value: &Value) {
    pretty(out, value, 0);
}

fn pretty(out: &mut Vec<u8>, value: &Value, level: usize) {
    fn open(out: &mut Vec<u8>, first: bool, level: usize) {
        out.extend_from_slice(if first { b"\n" } else { b",\n" });
        out.resize(out.len() + 2 * level, b' ');
    }
    fn close(out: &mut Vec<u8>, level: usize, bracket: u8) {
        out.push(b'\n');
        out.resize(out.len() + 2 * level, b' ');
        out.push(bracket);
    }
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                open(out, i == 0, level + 1);
                pretty(out, item, level + 1);
            }
            close(out, level, b']');
        }
        Value::Object(members) if !members.is_empty() => {
            out.push(b'{');
            for (i, (key, member)) in members.iter().enumerate() {
                open(out, i == 0, level + 1);
                write_str(out, key);
                out.extend_from_slice(b": ");
                pretty(out, member, level + 1);
            }
            close(out, level, b'}');
        }
        other => write(out, other),
    }
}

/// Appends `[item,…]`, each item written by `item`.
pub(crate) fn write_array(out: &mut Vec<u8>, items: &[Value], item: impl Fn(&mut Vec<u8>, &Value)) {
    out.push(b'[');
    for (i, value) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        item(out, value);
    }
    out.push(b']');
}

/// Appends `{"key":member,…}` in the order given, each member written by `member`.
pub(crate) fn write_object<'a>(
    out: &mut Vec<u8>,
    members: impl IntoIterator<Item = (&'a String, &'a Value)>,
    member: impl Fn(&mut Vec<u8>, &Value),
) {
    out.push(b'{');
    for (i, (key, value)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, key);
        out.push(b':');
        member(out, value);
    }
    out.push(b'}');
}

/// Appends `text` as a JSON string (inlined: most strings are short keys).
#[inline(always)]
pub fn write_str(out: &mut Vec<u8>, text: &str) {
    if needs_escape(text.as_bytes()) {
        return serde_write(out, text);
    }
    out.reserve(text.len() + 2);
    out.push(b'"');
    out.extend_from_slice(text.as_bytes());
    out.push(b'"');
}

/// Whether `bytes` hold a quote, backslash or control byte. Most strings here are keys and
/// names shorter than sixteen bytes: those are tested as two overlapping words, not byte by byte.
#[inline]
fn needs_escape(bytes: &[u8]) -> bool {
    match bytes.len() {
        16.. => plain_len(bytes) < bytes.len(),
        8..=15 => {
            let (first, last) = (bytes.first_chunk::<8>(), bytes.last_chunk::<8>());
            first
                .into_iter()
                .chain(last)
                .any(|word| special_in(u64::from_le_bytes(*word)))
        }
        _ => bytes.iter().any(|&b| SPECIAL[usize::from(b)]),
    }
}

/// Whether any byte of `word` is a quote, backslash or control byte. Each test sets the high bit
/// of a matching byte (and maybe of bytes after it, through a borrow, but only after a match).
fn special_in(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |word: u64| word.wrapping_sub(ONES) & !word & HIGH;
    let special = zero_byte(word ^ (ONES * u64::from(b'"')))
        | zero_byte(word ^ (ONES * u64::from(b'\\')))
        | (word.wrapping_sub(ONES * 0x20) & !word & HIGH);
    special != 0
}

fn serde_write(out: &mut Vec<u8>, value: &(impl serde::Serialize + ?Sized)) {
    // Writing into a `Vec` cannot fail, and neither can serializing a string or a number.
    let _ = serde_json::to_writer(&mut *out, value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn compact(value: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        write(&mut out, value);
        out
    }

    #[test]
    fn same_sorted_answers_as_comparing_the_sorted_texts() {
        let sorted = |value: &Value| {
            let mut out = Vec::new();
            write_sorted(&mut out, value);
            out
        };
        let values = [
            json!({"a": 1, "b": [1, 2]}),
            json!({"b": [1, 2], "a": 1}),
            json!({"b": [2, 1], "a": 1}),
            json!({"a": 1.0, "b": [1, 2]}),
            json!({"a": 1, "b": [1, 2], "c": null}),
            json!({"a": 1}),
            json!({"a": 0.0}),
            json!({"a": -0.0}),
            json!({"a": -1}),
            json!({"a": 18446744073709551615u64}),
            json!({"a": 1e300}),
            json!({"a": "1"}),
            json!({"a": {"x": {"y": [true, false, "\u{0}"]}}}),
            json!({"a": {"y": {"x": [true, false, "\u{0}"]}}}),
            json!([]),
            json!({}),
            json!(null),
            json!(false),
            json!("{}"),
        ];
        let parsed: Vec<Value> = ["1.0", "1.00", "1e0", "100", "1e2", "-0", "-0.0", "0"]
            .iter()
            .map(|text| serde_json::from_str(text).unwrap())
            .collect();
        let all: Vec<&Value> = values.iter().chain(&parsed).collect();
        for a in &all {
            for b in &all {
                assert_eq!(same_sorted(a, b), sorted(a) == sorted(b), "{a} against {b}");
            }
        }
    }

    #[test]
    fn needs_escape_is_true_exactly_for_a_quote_backslash_or_control_byte() {
        let special = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
        // Fillers at the edges of each word test (0x20, '"' ± 1, '\\' ± 1, 0x7f, 0x80, 0xff).
        let fillers = [0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xff, b'a'];
        for len in 0..40 {
            for filler in fillers {
                for byte in [b'"', b'\\', 0x00, 0x1f, b'\n', filler] {
                    for at in 0..len {
                        let mut bytes = vec![filler; len];
                        bytes[at] = byte;
                        let expected = bytes.iter().any(|&b| special(b));
                        assert_eq!(needs_escape(&bytes), expected, "{bytes:?}");
                    }
                }
                assert!(!needs_escape(&vec![filler; len]));
            }
        }
    }

    #[test]
    fn writes_what_serde_json_writes() {
        let every_byte_below_0x80: String = (0u8..0x80).map(char::from).collect();
        let values = [
            json!(null),
            json!([true, false, [], {}, [[]], {"": {}}]),
            json!([
                0,
                -1,
                1.5,
                -0.0,
                1e300,
                12345678901234567890u64,
                -9223372036854775808i64
            ]),
            json!([
                "",
                "plain",
                "quote \" backslash \\ slash /",
                "\u{7f}\u{80}é😀\u{2028}"
            ]),
            json!({ every_byte_below_0x80.clone(): every_byte_below_0x80 }),
            json!({"b": 1, "a": {"z": [null, "x\ny"], "y": "a long plain string past sixteen bytes"}}),
        ];
        for value in &values {
            assert_eq!(
                String::from_utf8(compact(value)).unwrap(),
                serde_json::to_string(value).unwrap()
            );
            let mut pretty = Vec::new();
            write_pretty(&mut pretty, value);
            assert_eq!(
                String::from_utf8(pretty).unwrap(),
                serde_json::to_string_pretty(value).unwrap()
            );
        }
    }
}
