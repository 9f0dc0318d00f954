//! What a server controls (tool names, descriptions, values, pointers) is escaped before any
//! human-facing format shows it: control characters (an ESC sequence could erase the DRIFT line
//! and print PASS on a terminal or an ANSI-rendering CI log) and bidirectional overrides (which
//! reorder what a reader sees) become visible `\u{…}` escapes.

use std::borrow::Cow;

/// Characters shown as escapes: every control character, and the bidi embedding, override and
/// isolate controls.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
}

/// `text` with every hidden character written as `\u{XX}`.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A Markdown code span that holds `text` whatever it contains: the fence is longer than any run
/// of backticks inside, so nothing can leave the span (and no link, image or @mention renders).
pub fn code_span(text: &str) -> String {
    let text = visible(text);
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') || text.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_and_bidi_characters_become_visible() {
        assert_eq!(visible("plain"), "plain");
        assert_eq!(visible("a\u{1b}[2Kb\r\n"), "a\\u{1b}[2Kb\\u{d}\\u{a}");
        assert_eq!(visible("x\u{202E}y\u{9b}"), "x\\u{202e}y\\u{9b}");
    }

    #[test]
    fn code_spans_hold_backticks() {
        assert_eq!(code_span("get_user"), "`get_user`");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x``"), "``` `x`` ```");
    }
}
