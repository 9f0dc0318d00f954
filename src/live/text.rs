//! Making server-controlled text safe to print on one line.

/// `text` with control characters escaped and cut to `max` characters (`…` marks a cut).
pub fn shorten(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (count, c) in text.chars().enumerate() {
        if count == max {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The bytes as lossy UTF-8, one safe line of at most `max` characters.
pub fn excerpt(bytes: &[u8], max: usize) -> String {
    shorten(&String::from_utf8_lossy(bytes), max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_long_text_cut() {
        assert_eq!(shorten("a\u{1b}[2Kb\nc", 20), "a\\u{1b}[2Kb\\nc");
        assert_eq!(shorten("abcdef", 3), "abc…");
        assert_eq!(excerpt(b"ok\xff", 10), "ok\u{fffd}");
    }
}
