//! An ECMA-262 `pattern` rewritten into the syntax `regex-syntax` reads, exactly or not at all.
//! The two dialects share most of their syntax but not its meaning: `\d`, `\w` and `\b` are
//! ASCII in ECMA-262 and Unicode in Rust, `\s` and `.` differ by a few characters, `[]` is an
//! empty class in one and the start of a class holding `]` in the other, and `&&`, `--`, `[`
//! inside a class are set operations in Rust only. So every class, escape and literal is written
//! out explicitly, and anything not known to mean the same in both (backreferences, lookaround,
//! `\b`, `\p{…}`, an identity escape of a letter) makes the pattern untranslated: the caller
//! then orders nothing, rather than something wrong.
//!
//! Strings are read as code points, as Python and Rust validators do (ECMA-262 without the `u`
//! flag reads UTF-16 code units; the two differ only on characters outside the BMP).

use std::fmt::Write;

/// ECMA-262's `\s`: WhiteSpace and LineTerminator.
const SPACE: &str = r"\t\n\x0B\x0C\r\x20\xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";
/// ECMA-262's `\d` and `\w`.
const DIGIT: &str = "0-9";
const WORD: &str = "0-9A-Za-z_";
/// What `.` refuses: the line terminators.
const LINE_END: &str = r"\n\r\x{2028}\x{2029}";

/// The pattern in `regex-syntax`'s dialect, meaning the same strings; `None` when some part of
/// it is not known to.
pub(super) fn translate(pattern: &str) -> Option<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                let (text, used) = atom_escape(&chars[i + 1..])?;
                out.push_str(&text);
                i += 1 + used;
            }
            '[' => {
                let (text, used) = class(&chars[i + 1..])?;
                out.push_str(&text);
                i += 1 + used;
            }
            '(' => {
                let rest = &chars[i + 1..];
                if rest.first() != Some(&'?') {
                    out.push('(');
                    i += 1;
                } else if rest.get(1) == Some(&':') {
                    out.push_str("(?:");
                    i += 3;
                } else if rest.get(1) == Some(&'<') && !matches!(rest.get(2), Some('=' | '!')) {
                    // A named group matches as a plain one; its name is not needed.
                    let close = rest.iter().position(|&c| c == '>')?;
                    out.push_str("(?:");
                    i += 1 + close + 1;
                } else {
                    return None; // lookahead, lookbehind, or not ECMA-262
                }
            }
            ')' | '|' | '*' | '+' | '?' => {
                out.push(chars[i]);
                i += 1;
                // A lazy quantifier matches the same strings as a greedy one.
                if matches!(chars[i - 1], '*' | '+' | '?') && chars.get(i) == Some(&'?') {
                    i += 1;
                }
            }
            '{' => match quantifier(&chars[i..]) {
                Some(used) => {
                    out.extend(&chars[i..i + used]);
                    i += used;
                    if chars.get(i) == Some(&'?') {
                        i += 1;
                    }
                }
                // Not a quantifier: ECMA-262 (Annex B) reads the brace as itself.
                None => {
                    literal(&mut out, '{');
                    i += 1;
                }
            },
            '^' => {
                out.push_str(r"\A");
                i += 1;
            }
            '$' => {
                out.push_str(r"\z");
                i += 1;
            }
            '.' => {
                let _ = write!(out, "[^{LINE_END}]");
                i += 1;
            }
            c => {
                literal(&mut out, c);
                i += 1;
            }
        }
    }
    Some(out)
}

/// `{n}`, `{n,}` or `{n,m}` at the start of `chars`: how many chars it spans.
fn quantifier(chars: &[char]) -> Option<usize> {
    let close = chars.iter().position(|&c| c == '}')?;
    let inside: String = chars[1..close].iter().collect();
    let (low, high) = match inside.split_once(',') {
        Some((low, high)) => (low, Some(high)),
        None => (inside.as_str(), None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let fine = digits(low) && high.is_none_or(|h| h.is_empty() || digits(h));
    fine.then_some(close + 1)
}

fn literal(out: &mut String, c: char) {
    let _ = write!(out, r"\x{{{:X}}}", u32::from(c));
}

/// One item of a pattern or a class, after a backslash.
enum Escape {
    Char(char),
    /// A class of characters (`\d`, `\S`): its members and whether they are negated.
    Set(&'static str, bool),
}

/// The escape at the start of `chars` (just after a `\`) and how many chars it spans.
fn escape(chars: &[char], in_class: bool) -> Option<(Escape, usize)> {
    let c = *chars.first()?;
    let set = |members, negated| Some((Escape::Set(members, negated), 1));
    match c {
        'd' => set(DIGIT, false),
        'D' => set(DIGIT, true),
        'w' => set(WORD, false),
        'W' => set(WORD, true),
        's' => set(SPACE, false),
        'S' => set(SPACE, true),
        // In a class `\b` is a backspace; outside, a word boundary (not translated).
        'b' if in_class => Some((Escape::Char('\u{8}'), 1)),
        't' => Some((Escape::Char('\t'), 1)),
        'n' => Some((Escape::Char('\n'), 1)),
        'r' => Some((Escape::Char('\r'), 1)),
        'f' => Some((Escape::Char('\u{C}'), 1)),
        'v' => Some((Escape::Char('\u{B}'), 1)),
        '0' if !chars.get(1).is_some_and(char::is_ascii_digit) => Some((Escape::Char('\0'), 1)),
        'c' => {
            let letter = chars.get(1).filter(|l| l.is_ascii_alphabetic())?;
            Some((Escape::Char(char::from(*letter as u8 % 32)), 2))
        }
        'x' => hex(&chars[1..], 2).map(|ch| (Escape::Char(ch), 3)),
        'u' => hex(&chars[1..], 4).map(|ch| (Escape::Char(ch), 5)),
        // Backreferences, `\k<name>`, `\p{…}`, `\B`, and identity escapes of letters or digits
        // mean different things in the two dialects (or need a backtracker).
        c if c.is_alphanumeric() => None,
        c => Some((Escape::Char(c), 1)),
    }
}

/// `n` hex digits read as one character (a lone surrogate is not one).
fn hex(chars: &[char], n: usize) -> Option<char> {
    let digits: String = chars.get(..n)?.iter().collect();
    let value = u32::from_str_radix(&digits, 16).ok()?;
    char::from_u32(value).filter(|_| digits.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn atom_escape(chars: &[char]) -> Option<(String, usize)> {
    let (item, used) = escape(chars, false)?;
    let mut out = String::new();
    match item {
        Escape::Char(c) => literal(&mut out, c),
        Escape::Set(members, negated) => {
            let _ = write!(out, "[{}{members}]", if negated { "^" } else { "" });
        }
    }
    Some((out, used))
}

/// A class (`chars` starts just after its `[`): its translation and how many chars it spans,
/// closing `]` included.
fn class(chars: &[char]) -> Option<(String, usize)> {
    let negated = chars.first() == Some(&'^');
    let mut i = usize::from(negated);
    // `[]` matches nothing and `[^]` anything, in ECMA-262.
    if chars.get(i) == Some(&']') {
        let text = if negated {
            r"[\x{0}-\x{10FFFF}]"
        } else {
            r"[^\x{0}-\x{10FFFF}]"
        };
        return Some((text.to_string(), i + 1));
    }
    let mut out = String::from(if negated { "[^" } else { "[" });
    loop {
        let (first, used) = class_atom(&chars[i..])?;
        i += used;
        let is_range = chars.get(i) == Some(&'-') && chars.get(i + 1).is_some_and(|&c| c != ']');
        match first {
            Escape::Set(members, set_negated) => {
                if is_range {
                    return None; // `[\d-z]`: a literal `-` in Annex B; not worth the risk
                }
                let _ = write!(out, "[{}{members}]", if set_negated { "^" } else { "" });
            }
            Escape::Char(low) if is_range => {
                let (last, used) = class_atom(&chars[i + 1..])?;
                let Escape::Char(high) = last else {
                    return None;
                };
                if high < low {
                    return None;
                }
                i += 1 + used;
                literal(&mut out, low);
                out.push('-');
                literal(&mut out, high);
            }
            Escape::Char(c) => literal(&mut out, c),
        }
        if chars.get(i) == Some(&']') {
            out.push(']');
            return Some((out, i + 1));
        }
    }
}

/// One member of a class: a character or an escape.
fn class_atom(chars: &[char]) -> Option<(Escape, usize)> {
    match *chars.first()? {
        '\\' => {
            let (item, used) = escape(&chars[1..], true)?;
            Some((item, used + 1))
        }
        c => Some((Escape::Char(c), 1)),
    }
}
