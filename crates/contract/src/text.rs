//! Text helpers every layer shares: the one rule for printing what a server (or any input)
//! controls safely on one line, line and column of an offset, and the place and message of a
//! TOML error as the file readers report it.
//!
//! What a server controls (tool names, descriptions, values, pointers, error text) is escaped
//! before any human-facing output shows it: control characters (an ESC sequence could erase a
//! DRIFT line and print PASS on a terminal or an ANSI-rendering CI log) and bidirectional
//! overrides (which reorder what a reader sees) become visible `\u{…}` escapes.

use std::borrow::Cow;

/// Characters shown as escapes: every control character, and the bidi controls.
fn hidden(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// The bidi embedding, override, isolate and mark characters: they reorder what a reader sees
/// (trojan source).
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
}

/// Characters a reader does not see but a model reads: bidirectional controls (trojan source),
/// zero-width characters, invisible operators, tag characters, other format and control
/// characters (line breaks and tabs aside).
pub fn is_invisible(c: char) -> bool {
    is_bidi_control(c)
        || matches!(c,
            '\u{200B}'..='\u{200D}'
            | '\u{2060}'..='\u{2064}'
            | '\u{061C}' | '\u{00AD}' | '\u{180E}' | '\u{FEFF}'
            | '\u{E0000}'..='\u{E007F}'
        )
        || (c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
}

/// An argv as a shell would need it written to mean the same (each word quoted when it has
/// to be), to show a person what will run.
pub fn shell_line(argv: &[String]) -> String {
    let words: Vec<String> = argv.iter().map(|w| shell_word(w)).collect();
    words.join(" ")
}

fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@+%,{}".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
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

/// `text` safe to print on a terminal: control characters as `\r`, `\n`, `\t`, `\\` and
/// `\xNN` (an escape sequence or a carriage return can no longer redraw what came before),
/// direction marks and overrides as `\u{XXXX}`.
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| hidden(c) || c == '\\') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x100 && c.is_control() => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if hidden(c) => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// [`visible`] on one line of at most `max` characters of the input (`…` marks a cut).
pub fn shorten(text: &str, max: usize) -> String {
    let cut = text.char_indices().nth(max).map(|(at, _)| at);
    match cut {
        Some(at) => format!("{}…", visible(&text[..at])),
        None => visible(text).into_owned(),
    }
}

/// The bytes as lossy UTF-8, one safe line of at most `max` characters.
pub fn excerpt(bytes: &[u8], max: usize) -> String {
    shorten(&String::from_utf8_lossy(bytes), max)
}

/// 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// `offset` moved back to a character boundary of `text` (and within it).
fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut at = offset.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A TOML parse error of `text` as the readers report it: the line and column it blames
/// (1:1 when it names no place) and its message on one line.
pub fn toml_error(text: &str, error: &toml::de::Error) -> (usize, usize, String) {
    let (line, column) = error
        .span()
        .map_or((1, 1), |span| line_column(text, span.start));
    (line, column, error.message().trim().replace('\n', "; "))
}

/// Lowercase hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex(&Sha256::digest(bytes))
}

/// The index of the first line where `a` and `b` differ (a missing line differs from any), or
/// `None` when their lines are the same.
pub fn first_differing_line(a: &str, b: &str) -> Option<usize> {
    let (mut a, mut b) = (a.lines(), b.lines());
    (0..).find_map(|at| match (a.next(), b.next()) {
        (None, None) => Some(None),
        (x, y) if x != y => Some(Some(at)),
        _ => None,
    })?
}

/// Lowercase hex of a digest.
pub fn hex(digest: &[u8]) -> String {
    // By table, not `format!` per byte: digests are hexed per tool in studies' hot paths.
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(2 * digest.len());
    for byte in digest {
        out.push(DIGITS[usize::from(byte >> 4)] as char);
        out.push(DIGITS[usize::from(byte & 0xf)] as char);
    }
    out
}

/// Seconds since the Unix epoch now (0 on a clock set before 1970).
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Now as an RFC 3339 UTC timestamp.
pub fn now_rfc3339() -> String {
    rfc3339(unix_now())
}

/// Seconds since the Unix epoch as an RFC 3339 UTC timestamp.
pub fn rfc3339(unix_seconds: u64) -> String {
    let days = (unix_seconds / 86_400) as i64;
    let secs = unix_seconds % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// An error and its causes on one line, `error: cause: cause`, as anyhow's `{:#}` prints a
/// chain, except that a cause the line already says is not said again (a typed error that
/// shows its source in its own message, as `{path}: cannot read: {source}` does).
pub fn with_causes(error: &dyn std::error::Error) -> String {
    let mut line = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        let text = e.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        cause = e.source();
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_differing_line_counts_a_missing_line() {
        assert_eq!(first_differing_line("a\nb\nc", "a\nx\nc"), Some(1));
        assert_eq!(first_differing_line("a", "a\nmore"), Some(1));
        assert_eq!(first_differing_line("a\nb", "a\nb\n"), None);
    }

    #[test]
    fn hex_is_lowercase_two_digits_a_byte() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff, 0x10]), "000fa5ff10");
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn control_and_bidi_characters_become_visible() {
        assert_eq!(visible("plain"), "plain");
        assert_eq!(visible("a\u{1b}[2Kb\r\n"), "a\\u{1b}[2Kb\\u{d}\\u{a}");
        assert_eq!(visible("x\u{202E}y\u{9b}"), "x\\u{202e}y\\u{9b}");
    }

    #[test]
    fn shortened_text_is_visible_and_cut_by_characters() {
        assert_eq!(shorten("a\u{1b}[2Kb\nc", 20), "a\\u{1b}[2Kb\\u{a}c");
        assert_eq!(shorten("abcdef", 3), "abc…");
        assert_eq!(shorten("é\u{202E}x", 2), "é\\u{202e}…");
        assert_eq!(excerpt(b"ok\xff", 10), "ok\u{fffd}");
    }

    #[test]
    fn lines_and_columns_count_characters() {
        assert_eq!(line_column("ab\ncé\nd", 0), (1, 1));
        assert_eq!(line_column("ab\ncé\nd", 6), (2, 3));
        assert_eq!(
            line_column("ab\ncé\nd", 5),
            (2, 2),
            "inside é: where it starts"
        );
        assert_eq!(line_column("ab", 99), (1, 3));
    }

    #[test]
    fn toml_errors_name_their_line() {
        let text = "a = 1\nb = [\n";
        let error = toml::from_str::<toml::Table>(text).unwrap_err();
        let (line, _, message) = toml_error(text, &error);
        assert!(line >= 2, "{line}");
        assert!(!message.contains('\n'));
    }

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_796_003_199), "2026-11-30T01:46:39Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn a_cause_is_said_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("{path}: cannot read: {source}")]
        struct Shown {
            path: String,
            source: std::io::Error,
        }
        #[derive(Debug, thiserror::Error)]
        #[error("{path}: cannot read")]
        struct Chained {
            path: String,
            source: std::io::Error,
        }
        let gone = || std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let shown = Shown {
            path: "a.json".into(),
            source: gone(),
        };
        assert_eq!(with_causes(&shown), "a.json: cannot read: gone");
        let chained = Chained {
            path: "a.json".into(),
            source: gone(),
        };
        assert_eq!(with_causes(&chained), "a.json: cannot read: gone");
        let outer = anyhow::Error::new(shown).context("loading the lock");
        assert_eq!(
            with_causes(outer.as_ref()),
            "loading the lock: a.json: cannot read: gone"
        );
    }

    #[test]
    fn terminal_safe_text_cannot_redraw_the_line() {
        // A carriage return and an erase-line sequence would hide `sh -c 'touch …'`.
        let argv = "sh -c 'touch /tmp/x'\r\x1b[2Kharmless --flag";
        let shown = terminal_safe(argv);
        assert_eq!(shown, "sh -c 'touch /tmp/x'\\r\\x1b[2Kharmless --flag");
        assert!(!shown.chars().any(char::is_control));
        assert_eq!(terminal_safe("a\u{202E}b\\n"), "a\\u{202e}b\\\\n");
        assert_eq!(terminal_safe("plain é words"), "plain é words");
        assert_eq!(terminal_safe("\n\t\x00\x7f"), "\\n\\t\\x00\\x7f");
    }
}
