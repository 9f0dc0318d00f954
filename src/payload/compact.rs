//! Compact JSON text of a value: exactly the bytes `serde_json::to_vec` writes, faster for the
//! study's surfaces, whose strings almost never need escaping.
//!
//! serde_json looks up every byte of every string in its escape table; here a string is first
//! checked sixteen bytes at a time and, when nothing in it needs escaping (the common case),
//! copied whole. Strings that do need escaping, and numbers, are written by serde_json itself,
//! so the bytes are its bytes.

use serde_json::Value;

use super::scan::plain_len;

/// Appends `value`'s compact JSON text to `out`.
pub fn write(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(number) => serde_write(out, number),
        Value::String(text) => write_str(out, text),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(out, item);
            }
            out.push(b']');
        }
        Value::Object(members) => {
            out.push(b'{');
            for (i, (key, member)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, key);
                out.push(b':');
                write(out, member);
            }
            out.push(b'}');
        }
    }
}

/// Appends `text` as a JSON string.
pub fn write_str(out: &mut Vec<u8>, text: &str) {
    if plain_len(text.as_bytes()) < text.len() {
        return serde_write(out, text);
    }
    out.reserve(text.len() + 2);
    out.push(b'"');
    out.extend_from_slice(text.as_bytes());
    out.push(b'"');
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
        }
        // Every generated surface of a few seeds and sizes.
        for index in 0..200 {
            let value = crate::generate::surface(7, index, 1 + (index % 8) as usize);
            assert_eq!(compact(&value), serde_json::to_vec(&value).unwrap());
        }
    }
}
