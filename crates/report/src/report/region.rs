//! Where a JSON pointer lands in a JSON text: the bytes of the deepest member it names that the
//! text contains, and their lines and columns, so SARIF results and annotations land on a line.
//!
//! The text has already been read as JSON by the payload reader; this only walks it. Every array
//! element and object member met on the way is remembered, so locating many pointers in one file
//! reads each part of it once.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use driftlab_contract::json_scan::{string_end, value_end};

/// A pointer's place in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The longest prefix of the asked pointer that the text contains.
    pub pointer: String,
    /// Whether that is the whole asked pointer.
    pub exact: bool,
    /// 1-based line and column (UTF-16 code units, SARIF's default) of the first byte: the
    /// member's key for an object member, the value for an array element or the root.
    pub start: (usize, usize),
    /// Line and column just after the last byte (for a stand-in, `exact` false: the end of its
    /// first line).
    pub end: (usize, usize),
}

/// Locates pointers in one JSON text.
pub struct Locator<'a> {
    text: &'a str,
    /// Start offset of each line.
    lines: Vec<usize>,
    /// Every member and element seen: its pointer, and the bytes of it (key to value end for a
    /// member) and of its value.
    seen: HashMap<String, (Range<usize>, Range<usize>)>,
    /// Pointers whose members or elements are all in `seen`.
    read: HashSet<String>,
}

impl<'a> Locator<'a> {
    /// A locator over `text`, indexed by line.
    pub fn new(text: &'a str) -> Locator<'a> {
        let lines = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Locator {
            text,
            lines,
            seen: HashMap::new(),
            read: HashSet::new(),
        }
    }

    /// The place of `pointer` (RFC 6901), or of its deepest prefix the text contains; `None` only
    /// when the text holds no JSON value.
    pub fn locate(&mut self, pointer: &str) -> Option<Place> {
        let root_start = skip_ws(self.text.as_bytes(), 0);
        let root_end = value_end(self.text.as_bytes(), root_start)?;
        let mut found = (String::new(), root_start..root_end, root_start..root_end);
        let tokens: Vec<String> = match pointer {
            "" => Vec::new(),
            p => p.strip_prefix('/')?.split('/').map(unescape).collect(),
        };
        let mut exact = true;
        for token in &tokens {
            let next = driftlab_contract::pointer::push(&found.0, token);
            if !self.seen.contains_key(&next) && self.read.insert(found.0.clone()) {
                self.read_children(&found.0, found.2.clone());
            }
            match self.seen.get(&next) {
                Some((whole, value)) => found = (next, whole.clone(), value.clone()),
                None => {
                    exact = false;
                    break;
                }
            }
        }
        // A stand-in for something the text lacks is marked on its first line only: the
        // enclosing member can span the whole file.
        let end = match exact {
            true => found.1.end,
            false => self.text[found.1.clone()]
                .find('\n')
                .map_or(found.1.end, |n| found.1.start + n),
        };
        Some(Place {
            pointer: found.0,
            exact,
            start: self.position(found.1.start),
            end: self.position(end),
        })
    }

    /// The bytes of the value `pointer` names, when the text contains exactly that value.
    pub fn value_span(&mut self, pointer: &str) -> Option<Range<usize>> {
        let place = self.locate(pointer)?;
        if !place.exact {
            return None;
        }
        match pointer {
            "" => {
                let start = skip_ws(self.text.as_bytes(), 0);
                Some(start..value_end(self.text.as_bytes(), start)?)
            }
            _ => self.seen.get(pointer).map(|(_, value)| value.clone()),
        }
    }

    /// Records every member or element of the value at `value` (whose pointer is `pointer`).
    fn read_children(&mut self, pointer: &str, value: Range<usize>) {
        let bytes = self.text.as_bytes();
        let (close, object) = match bytes.get(value.start) {
            Some(b'{') => (b'}', true),
            Some(b'[') => (b']', false),
            _ => return,
        };
        let mut at = value.start + 1;
        let mut index = 0usize;
        loop {
            at = skip_ws(bytes, at);
            if bytes.get(at).is_none_or(|&b| b == close) {
                return;
            }
            let member_start = at;
            let name = if object {
                let Some(key_end) = string_end(bytes, at) else {
                    return;
                };
                let key = &self.text[at..key_end];
                let key = match key.contains('\\') {
                    true => serde_json::from_str::<String>(key).unwrap_or_default(),
                    false => key[1..key.len() - 1].to_string(),
                };
                at = skip_ws(bytes, key_end);
                if bytes.get(at) != Some(&b':') {
                    return;
                }
                at = skip_ws(bytes, at + 1);
                key
            } else {
                index += 1;
                (index - 1).to_string()
            };
            let Some(end) = value_end(bytes, at) else {
                return;
            };
            // A repeated key: the last one is the value every reader keeps.
            self.seen.insert(
                driftlab_contract::pointer::push(pointer, &name),
                (member_start..end, at..end),
            );
            at = skip_ws(bytes, end);
            match bytes.get(at) {
                Some(b',') => at += 1,
                _ => return,
            }
        }
    }

    /// 1-based line and UTF-16 column of a byte offset.
    fn position(&self, offset: usize) -> (usize, usize) {
        let line = self.lines.partition_point(|&s| s <= offset).max(1);
        let start = self.lines[line - 1];
        let column: usize = self.text[start..offset.min(self.text.len())]
            .chars()
            .map(char::len_utf16)
            .sum();
        (line, column + 1)
    }
}

/// RFC 6901: `~1` is `/`, `~0` is `~` (in that order).
fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while bytes
        .get(at)
        .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "{\n  \"tools\": [\n    {\"name\": \"a\", \"inputSchema\": {\"type\": \"object\"}},\n    {\"name\": \"é\\\"x\", \"a/b\": [1, {\"k\": true}]}\n  ]\n}\n";

    fn at(pointer: &str) -> Place {
        Locator::new(TEXT).locate(pointer).unwrap()
    }

    #[test]
    fn members_start_at_their_key_and_elements_at_their_value() {
        let p = at("/tools/0/inputSchema/type");
        assert!(p.exact);
        assert_eq!(p.start, (3, 35));
        assert_eq!(p.end, (3, 51));
        assert_eq!(at("/tools/1").start, (4, 5));
        assert_eq!(at("/tools").start, (2, 3));
        assert_eq!(at("/tools").end, (5, 4));
        assert_eq!(at("").start, (1, 1));
    }

    #[test]
    fn escaped_keys_and_tokens_match() {
        let p = at("/tools/1/a~1b/1/k");
        assert!(p.exact, "{p:?}");
        assert_eq!(p.start, (4, 34));
        // A key written with an escape and a non-ASCII character (one UTF-16 unit) is found.
        let text = "{\"\\u00e9\": {\"x\": 1}}";
        assert!(Locator::new(text).locate("/é/x").unwrap().exact);
    }

    #[test]
    fn a_missing_member_lands_on_the_nearest_enclosing_one() {
        let p = at("/tools/7/inputSchema");
        assert!(!p.exact);
        assert_eq!(p.pointer, "/tools");
        assert_eq!(
            (p.start, p.end),
            ((2, 3), (2, 13)),
            "marked on its first line only"
        );
        let p = at("/tools/0/inputSchema/properties/q");
        assert_eq!(p.pointer, "/tools/0/inputSchema");
        // A pointer into a scalar stops at the scalar.
        assert_eq!(at("/tools/0/name/x").pointer, "/tools/0/name");
    }

    #[test]
    fn deep_nesting_is_walked_without_recursion() {
        let text = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let p = Locator::new(&text).locate("/0/0/0").unwrap();
        assert!(p.exact);
        assert_eq!(p.start, (1, 4));
    }
}
