//! The strict JSON reading of one message: text that every common JSON parser (serde_json,
//! JavaScript's `JSON.parse`, Python's `json`) reads as the same value, or a refusal naming why
//! not. What the parsers disagree on is refused, not guessed:
//!
//! - a UTF-8 byte-order mark, invalid UTF-8, a raw carriage return anywhere but at the very end
//!   (Python's text streams split lines there), bytes after the value;
//! - a key twice in one object, compared after unescaping (serde_json and `JSON.parse` keep the
//!   last, other readers the first);
//! - a `\u` escape of a lone surrogate (serde_json refuses it, Python and JavaScript keep it);
//! - a number outside the double range (`1e400`: an error in serde_json, infinity in Python),
//!   `NaN`/`Infinity` (Python's extension), and with [`Profile::safe_integers`] an integer
//!   literal beyond ±(2^53−1) (JavaScript rounds it, Python keeps it exact);
//! - nesting deeper than [`Profile::max_depth`].
//!
//! Written by hand because no JSON crate reports duplicate keys and number spellings while it
//! parses; numbers are converted with Rust's correctly rounded `str::parse`, as Python and
//! JavaScript convert them.

use serde_json::{Map, Number, Value};

/// The largest integer every double-based parser reads exactly: 2^53 − 1.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Which reading is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    /// Objects and arrays nested deeper than this are refused.
    pub max_depth: usize,
    /// Refuse integer literals beyond ±(2^53−1) (otherwise any that fits 64 bits is kept).
    pub safe_integers: bool,
}

/// Why a text was refused, and where (a byte offset into the line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrictError {
    /// A stable kebab-case id, e.g. `duplicate-key`.
    pub rule: &'static str,
    /// A one-line explanation.
    pub reason: String,
    /// The byte offset in the line.
    pub offset: usize,
}

impl std::fmt::Display for StrictError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.reason, self.offset)
    }
}

/// Reads `bytes` as exactly one JSON value under `profile`.
pub fn parse(bytes: &[u8], profile: Profile) -> Result<Value, StrictError> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(error("byte-order-mark", "a UTF-8 byte-order mark", 0));
    }
    // One carriage return at the end is a CRLF line ending; any other splits the line for some
    // readers and not for others.
    let body = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    if let Some(at) = body.iter().position(|&b| b == b'\r') {
        return Err(error(
            "carriage-return",
            "a carriage return inside the line",
            at,
        ));
    }
    let text = std::str::from_utf8(body)
        .map_err(|e| error("invalid-utf8", "bytes that are not UTF-8", e.valid_up_to()))?;
    let mut parser = Parser {
        text: text.as_bytes(),
        at: 0,
        profile,
    };
    parser.whitespace();
    let value = parser.value(0)?;
    parser.whitespace();
    if parser.at != parser.text.len() {
        return Err(error(
            "trailing-bytes",
            "bytes after the JSON value",
            parser.at,
        ));
    }
    Ok(value)
}

fn error(rule: &'static str, reason: impl Into<String>, offset: usize) -> StrictError {
    StrictError {
        rule,
        reason: reason.into(),
        offset,
    }
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
    profile: Profile,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n')) {
            self.at += 1;
        }
    }

    fn syntax(&self, what: &str) -> StrictError {
        match self.peek() {
            None => error(
                "syntax",
                format!("the text ends where {what} was expected"),
                self.at,
            ),
            Some(b) => error(
                "syntax",
                format!("{} where {what} was expected", describe(b)),
                self.at,
            ),
        }
    }

    fn expect(&mut self, byte: u8, what: &str) -> Result<(), StrictError> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.syntax(what))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, StrictError> {
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b'-' | b'0'..=b'9') => self.number().map(Value::Number),
            Some(b't') => self.word("true", Value::Bool(true)),
            Some(b'f') => self.word("false", Value::Bool(false)),
            Some(b'n') => self.word("null", Value::Null),
            Some(b'N' | b'I') => Err(error(
                "number-out-of-range",
                "NaN or Infinity, which JSON does not have",
                self.at,
            )),
            _ => Err(self.syntax("a value")),
        }
    }

    fn word(&mut self, word: &str, value: Value) -> Result<Value, StrictError> {
        if self.text[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.syntax("a value"))
        }
    }

    fn deeper(&self, depth: usize) -> Result<(), StrictError> {
        if depth > self.profile.max_depth {
            return Err(error(
                "too-deep",
                format!("nested deeper than {} levels", self.profile.max_depth),
                self.at,
            ));
        }
        Ok(())
    }

    fn object(&mut self, depth: usize) -> Result<Value, StrictError> {
        self.deeper(depth)?;
        self.at += 1;
        let mut map = Map::new();
        self.whitespace();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Value::Object(map));
        }
        loop {
            self.whitespace();
            if self.peek() != Some(b'"') {
                return Err(self.syntax("a key"));
            }
            let key_at = self.at;
            let key = self.string()?;
            if map.contains_key(&key) {
                return Err(error(
                    "duplicate-key",
                    format!(
                        "the key {} twice in one object",
                        serde_json::to_string(&key).unwrap_or_default()
                    ),
                    key_at,
                ));
            }
            self.whitespace();
            self.expect(b':', "`:`")?;
            self.whitespace();
            let value = self.value(depth)?;
            map.insert(key, value);
            self.whitespace();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Value::Object(map));
                }
                _ => return Err(self.syntax("`,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, StrictError> {
        self.deeper(depth)?;
        self.at += 1;
        let mut items = Vec::new();
        self.whitespace();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.whitespace();
            items.push(self.value(depth)?);
            self.whitespace();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.syntax("`,` or `]`")),
            }
        }
    }

    /// A string starting at the opening quote, unescaped.
    fn string(&mut self) -> Result<String, StrictError> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let start = self.at;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.at += 1;
            }
            // The text is valid UTF-8 and the run stops only at ASCII bytes, so it is whole.
            out.push_str(std::str::from_utf8(&self.text[start..self.at]).unwrap_or_default());
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => out.push(self.escape()?),
                Some(_) => {
                    return Err(error(
                        "syntax",
                        "a control character inside a string",
                        self.at,
                    ))
                }
                None => return Err(self.syntax("the end of a string")),
            }
        }
    }

    fn escape(&mut self) -> Result<char, StrictError> {
        let at = self.at;
        self.at += 1;
        let Some(b) = self.peek() else {
            return Err(self.syntax("an escape"));
        };
        self.at += 1;
        Ok(match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4()?;
                match unit {
                    0xD800..=0xDBFF => {
                        let low = if self.text[self.at..].starts_with(b"\\u") {
                            self.at += 2;
                            self.hex4()?
                        } else {
                            0
                        };
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(lone_surrogate(at));
                        }
                        let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        char::from_u32(code).ok_or_else(|| lone_surrogate(at))?
                    }
                    0xDC00..=0xDFFF => return Err(lone_surrogate(at)),
                    _ => char::from_u32(unit).ok_or_else(|| lone_surrogate(at))?,
                }
            }
            _ => {
                self.at -= 1;
                return Err(self.syntax("an escape"));
            }
        })
    }

    fn hex4(&mut self) -> Result<u32, StrictError> {
        let digits = self
            .text
            .get(self.at..self.at + 4)
            .and_then(|d| std::str::from_utf8(d).ok())
            .filter(|d| d.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| self.syntax("four hex digits"))?;
        self.at += 4;
        u32::from_str_radix(digits, 16).map_err(|_| self.syntax("four hex digits"))
    }

    fn number(&mut self) -> Result<Number, StrictError> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.syntax("a digit")),
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            integer = false;
            self.at += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.syntax("a digit"));
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integer = false;
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.syntax("a digit"));
            }
            self.digits();
        }
        // Only ASCII digits, signs, `.` and `e` were taken.
        let literal = std::str::from_utf8(&self.text[start..self.at]).unwrap_or_default();
        if integer {
            let parsed = match literal.strip_prefix('-') {
                Some(_) => literal.parse::<i64>().ok().map(Number::from),
                None => literal.parse::<u64>().ok().map(Number::from),
            };
            let safe = |n: &Number| {
                n.as_i64().map(i64::unsigned_abs).or(n.as_u64()) <= Some(MAX_SAFE_INTEGER)
            };
            return match parsed {
                Some(n) if !self.profile.safe_integers || safe(&n) => Ok(n),
                _ => Err(error(
                    "unsafe-integer",
                    format!(
                        "the integer {} is beyond ±(2^53−1), which JavaScript rounds",
                        cut(literal)
                    ),
                    start,
                )),
            };
        }
        literal
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .ok_or_else(|| {
                error(
                    "number-out-of-range",
                    format!("the number {} is beyond the double range", cut(literal)),
                    start,
                )
            })
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
    }
}

fn lone_surrogate(at: usize) -> StrictError {
    error(
        "lone-surrogate",
        "a \\u escape of a lone surrogate, which parsers read differently",
        at,
    )
}

/// A byte as an error message names it.
fn describe(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("`{}`", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

/// A number literal short enough for a message.
fn cut(literal: &str) -> String {
    if literal.len() <= 40 {
        literal.to_string()
    } else {
        format!("{}… ({} characters)", &literal[..40], literal.len())
    }
}

#[cfg(test)]
mod tests;
