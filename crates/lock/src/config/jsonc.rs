//! JSON with comments (VS Code's and Cursor's `mcp.json` allow `//` and `/* */` comments and
//! trailing commas): blanked to spaces, byte for byte, so the text parses as JSON and every
//! offset in it still points at the same place in the file (the installer edits by offset).

/// `text` with comments and trailing commas replaced by spaces (newlines kept). Strings are
/// left alone, `//` inside a URL included. Text that is not JSON comes back as unchanged as the
/// blanking allows; the JSON parser then names the place.
pub fn blank(text: &str) -> String {
    let mut out = text.as_bytes().to_vec();
    let bytes = text.as_bytes();
    let mut i = 0;
    // Where the last comma outside strings and comments is, if only blanks have followed it.
    let mut pending_comma: Option<usize> = None;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                pending_comma = None;
                i = driftlab_contract::json_scan::string_end(bytes, i).unwrap_or(bytes.len());
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |n| i + n);
                spaces(&mut out, i, end);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = bytes[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(bytes.len(), |n| i + 2 + n + 2);
                spaces(&mut out, i, end);
                i = end;
            }
            b',' => {
                pending_comma = Some(i);
                i += 1;
            }
            b'}' | b']' => {
                if let Some(comma) = pending_comma.take() {
                    out[comma] = b' ';
                }
                i += 1;
            }
            b if b.is_ascii_whitespace() => i += 1,
            _ => {
                pending_comma = None;
                i += 1;
            }
        }
    }
    // Only ASCII bytes outside strings were replaced by ASCII spaces: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// Blanks `out[start..end]`, keeping newlines so line numbers stay right.
fn spaces(out: &mut [u8], start: usize, end: usize) {
    for b in &mut out[start..end] {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
}

#[cfg(test)]
mod tests {
    use super::blank;

    #[test]
    fn comments_and_trailing_commas_become_spaces_of_the_same_length() {
        let text = "{\n  // servers\n  \"a\": \"http://x/*y*/\", /* b */\n  \"c\": [1, 2,],\n}";
        let blanked = blank(text);
        assert_eq!(blanked.len(), text.len());
        let value: serde_json::Value = serde_json::from_str(&blanked).unwrap();
        assert_eq!(value["a"], "http://x/*y*/");
        assert_eq!(value["c"], serde_json::json!([1, 2]));
        assert_eq!(blanked.lines().count(), text.lines().count());
    }

    #[test]
    fn a_comma_before_a_comment_before_a_brace_is_trailing() {
        let blanked = blank("[1, // one\n]");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&blanked).unwrap(),
            serde_json::json!([1])
        );
    }

    #[test]
    fn strings_with_escaped_quotes_are_kept() {
        let text = r#"{"a": "x\"//y", "b": 1}"#;
        assert_eq!(blank(text), text);
    }
}
