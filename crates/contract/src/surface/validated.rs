//! A `Value` built straight from JSON text the reader has already validated. serde_json's
//! deserializer checks every byte again and passes each value through its visitors; parsing a
//! changed tool's schemas was about a sixth of a study's time. The value is the one serde_json
//! builds: members in order, a repeated key keeping its first place and its last value
//! (`Map::insert`), strings with escapes and every number but a plain non-negative integer
//! decoded by serde_json itself. On anything unexpected, and past [`MAX_DEPTH`] levels, the
//! answer is `None` and the caller parses with serde_json.

use serde_json::{Map, Number, Value};

use crate::json_scan::{plain_len, string_end};

/// Deeper values are left to serde_json (which the caller runs on a stack that can grow).
const MAX_DEPTH: usize = 64;

/// The key serde_json reads as the start of a `RawValue` when an object begins with it.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// `text`'s value as `serde_json::from_str` gives it, or `None` (see the module's note).
pub(super) fn parse(text: &str) -> Option<Value> {
    let mut parser = Parser { text, at: 0 };
    let value = parser.value(0)?;
    parser.skip_space();
    (parser.at == text.len()).then_some(value)
}

struct Parser<'t> {
    text: &'t str,
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.at += 1;
        }
    }

    /// Skips space, then expects `byte`.
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_space();
        (self.peek()? == byte).then(|| self.at += 1)
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        self.skip_space();
        match self.peek()? {
            b'{' => self.object(depth + 1),
            b'[' => self.array(depth + 1),
            b'"' => self.string().map(Value::String),
            b't' => self.word("true", Value::Bool(true)),
            b'f' => self.word("false", Value::Bool(false)),
            b'n' => self.word("null", Value::Null),
            _ => self.number(),
        }
    }

    fn object(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.at += 1;
        let mut map = Map::new();
        self.skip_space();
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(Value::Object(map));
        }
        loop {
            self.skip_space();
            if self.peek()? != b'"' {
                return None;
            }
            let key = self.string()?;
            if map.is_empty() && key == RAW_VALUE_TOKEN {
                return None;
            }
            self.expect(b':')?;
            let value = self.value(depth)?;
            map.insert(key, value);
            self.skip_space();
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(Value::Object(map));
                }
                _ => return None,
            }
        }
    }

    fn array(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.at += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.peek()? == b']' {
            self.at += 1;
            return Some(Value::Array(items));
        }
        loop {
            items.push(self.value(depth)?);
            self.skip_space();
            match self.peek()? {
                b',' => self.at += 1,
                b']' => {
                    self.at += 1;
                    return Some(Value::Array(items));
                }
                _ => return None,
            }
        }
    }

    /// The string whose opening quote is at `self.at`.
    fn string(&mut self) -> Option<String> {
        let start = self.at + 1;
        let rest = self.text.as_bytes().get(start..)?;
        let plain = plain_len(rest);
        if rest.get(plain) == Some(&b'"') {
            self.at = start + plain + 1;
            return Some(self.text.get(start..start + plain)?.to_string());
        }
        // Escapes: serde_json decodes the whole string.
        let end = string_end(self.text.as_bytes(), self.at)?;
        let decoded = serde_json::from_str(self.text.get(self.at..end)?).ok()?;
        self.at = end;
        Some(decoded)
    }

    fn word(&mut self, word: &str, value: Value) -> Option<Value> {
        let end = self.at + word.len();
        (self.text.get(self.at..end)? == word).then(|| {
            self.at = end;
            value
        })
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.at;
        while let Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') = self.peek() {
            self.at += 1;
        }
        let digits = self.text.get(start..self.at)?;
        let bytes = digits.as_bytes();
        // Up to 19 digits without a leading zero fit a u64: serde_json's non-negative integer.
        let plain = (1..=19).contains(&bytes.len())
            && bytes.iter().all(u8::is_ascii_digit)
            && (bytes.len() == 1 || bytes[0] != b'0');
        if plain {
            let n = bytes
                .iter()
                .fold(0u64, |n, digit| n * 10 + u64::from(digit - b'0'));
            return Some(Value::Number(n.into()));
        }
        serde_json::from_str::<Number>(digits)
            .ok()
            .map(Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same value, members in the same order, numbers written the same (`-0.0` apart).
    /// Whether this parser answered (rather than leaving the text to serde_json).
    fn assert_as_serde(text: &str) -> bool {
        let expected: Result<Value, _> = serde_json::from_str(text);
        match (parse(text), expected) {
            (Some(got), Ok(expected)) => {
                assert_eq!(got, expected, "{text}");
                assert_eq!(got.to_string(), expected.to_string(), "{text}");
                true
            }
            (None, _) => false,
            (Some(got), Err(e)) => panic!("{text}: parsed as {got} where serde_json fails: {e}"),
        }
    }

    #[test]
    fn builds_what_serde_json_builds() {
        let answered = [
            r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}"#,
            " { \"a\" : [ 1 , 2.5 , -3 , true , false , null ] ,\n\t\"b\" : { } , \"c\" : [ ] }\r\n",
            r#"{"a":1,"b":2,"a":3}"#,
            r#"{"é":"ü\u00e9\n\"\\\/","\u0000":"\ud83d\ude00"}"#,
            r#"[0, -0, 1.0, 1.00, 1e2, 1E2, -1.5e-3, 9999999999999999999, 18446744073709551615, 18446744073709551616, -9223372036854775808, -9223372036854775809, 0.1, 5e-324]"#,
            r#"{"a":1,"$serde_json::private::RawValue":"x"}"#,
            r#""just a string""#,
            "12",
            "true",
        ];
        for text in answered {
            assert!(assert_as_serde(text), "left to serde_json: {text}");
        }
        // serde_json's own business (a raw value's marker), and text that is not JSON.
        let left = [
            r#"{"$serde_json::private::RawValue":"x"}"#,
            "[1e400]",
            "[",
            "{\"a\":}",
            "{\"a\" 1}",
            "nul",
            "[1,]",
            "01",
        ];
        for text in left {
            assert!(!assert_as_serde(text), "answered: {text}");
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(parse(&deep), None, "past the depth limit");
        let at_limit = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(assert_as_serde(&at_limit));
    }

    #[test]
    fn builds_what_serde_json_builds_for_every_real_payload() {
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let mut parsed = 0;
        for folder in [
            "tests/data/corpus",
            "research/2026-11-30-mcp-drift-taxonomy/bases",
        ] {
            for entry in std::fs::read_dir(root.join(folder)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "json") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    assert!(assert_as_serde(&text), "{}", path.display());
                    let value: Value = serde_json::from_str(&text).unwrap();
                    // Pretty-printed too, and each inner value on its own.
                    assert!(assert_as_serde(
                        &serde_json::to_string_pretty(&value).unwrap()
                    ));
                    let mut stack = vec![&value];
                    while let Some(inner) = stack.pop() {
                        assert!(assert_as_serde(&inner.to_string()), "{inner}");
                        parsed += 1;
                        match inner {
                            Value::Object(map) => stack.extend(map.values()),
                            Value::Array(items) => stack.extend(items),
                            _ => {}
                        }
                    }
                }
            }
        }
        assert!(parsed > 10_000, "{parsed} values");
    }
}
