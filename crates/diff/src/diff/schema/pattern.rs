//! A changed `pattern`, ordered by the strings each matches (`pattern_language`), and where
//! that cannot be read, by the bounds of counted repetitions (`{m}`, `{m,}`, `{m,n}`): when two
//! patterns differ only there and every bound of one lies within the other's, the other matches
//! every string the first matches (a sub-expression replaced by one matching more never
//! matches less).

use driftlab_contract::pattern_language::{orders, Order};
use serde_json::Value;

use super::{At, Walker};
use crate::diff::ChangeKind as K;

impl Walker<'_, '_, '_> {
    /// A changed pattern, ordered by the strings each matches (`pattern_language`): the side
    /// whose strings the other does not all match is where a witness lies.
    pub(super) fn pattern_changed(
        &mut self,
        (old, new): (&str, &str),
        at: &At,
        raw: (Option<&Value>, Option<&Value>),
    ) {
        let subject = self.subject(at);
        let (forward, backward) = match orders(old, new) {
            Ok(both) => both,
            Err(why) => {
                let why = format!("{subject}: pattern changed; the two were not compared: {why}");
                return self.unjudged(at.keyword("pattern"), raw.0, raw.1, why);
            }
        };
        match (forward, backward) {
            (Order::Within, Order::Within) => {
                let kind = self.judged(K::ConstraintLoosened, K::OutputCompatibleChange);
                let message = format!("{subject}: pattern rewritten; it matches the same strings");
                self.push(kind, at.keyword("pattern"), raw.0, raw.1, message);
            }
            (Order::Within, Order::Outside(_)) => {
                let message = format!(
                    "{subject}: pattern widened: every string the approved one matches, the \
                     candidate's matches too"
                );
                self.loosened(at, "pattern", raw, message);
            }
            (Order::Outside(_), Order::Within) => {
                let message = format!(
                    "{subject}: pattern narrowed: the candidate's matches only strings the \
                     approved one matches, and not all of them"
                );
                self.tightened(at, "pattern", raw, message);
            }
            (Order::Outside(_), Order::Outside(_)) => {
                // Each side matches a string the other refuses: a caller's old string may be
                // refused, and an answer may carry a string consumers did not expect.
                let kind = self.judged(K::ConstraintTightened, K::OutputConstraintLoosened);
                let message =
                    format!("{subject}: pattern changed; each matches a string the other refuses");
                self.push(kind, at.keyword("pattern"), raw.0, raw.1, message);
            }
        }
    }
}

/// One piece of a pattern: text kept as written, or a counted repetition's bounds.
#[derive(Debug, PartialEq)]
enum Piece<'p> {
    Text(&'p str),
    Repeat(u64, Option<u64>),
}

/// Whether `narrow` and `wide` are the same pattern but for repetition bounds, each of
/// `narrow`'s within the matching one of `wide`'s, and at least one different.
pub(super) fn repeats_within(narrow: &str, wide: &str) -> bool {
    let (a, b) = (pieces(narrow), pieces(wide));
    a.len() == b.len()
        && a != b
        && a.iter().zip(&b).all(|pair| match pair {
            (Piece::Text(x), Piece::Text(y)) => x == y,
            (Piece::Repeat(lo, hi), Piece::Repeat(wide_lo, wide_hi)) => {
                wide_lo <= lo
                    && match (hi, wide_hi) {
                        (_, None) => true,
                        (None, Some(_)) => false,
                        (Some(h), Some(w)) => h <= w,
                    }
            }
            _ => false,
        })
}

fn pieces(pattern: &str) -> Vec<Piece<'_>> {
    let bytes = pattern.as_bytes();
    let (mut out, mut start, mut i, mut in_class) = (Vec::new(), 0, 0, false);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'[' if !in_class => {
                in_class = true;
                i += 1;
            }
            b']' if in_class => {
                in_class = false;
                i += 1;
            }
            b'{' if !in_class => match repeat(&pattern[i..]) {
                Some((piece, len)) => {
                    out.push(Piece::Text(&pattern[start..i]));
                    out.push(piece);
                    i += len;
                    start = i;
                }
                None => i += 1,
            },
            _ => i += 1,
        }
    }
    out.push(Piece::Text(&pattern[start.min(pattern.len())..]));
    out
}

/// `{m}`, `{m,}` or `{m,n}` at the start of `text`, and its length.
fn repeat(text: &str) -> Option<(Piece<'_>, usize)> {
    let end = text.find('}')?;
    let inner = &text[1..end];
    let number = |s: &str| -> Option<u64> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok())?
    };
    let piece = match inner.split_once(',') {
        None => {
            let n = number(inner)?;
            Piece::Repeat(n, Some(n))
        }
        Some((lo, "")) => Piece::Repeat(number(lo)?, None),
        Some((lo, hi)) => Piece::Repeat(number(lo)?, Some(number(hi)?)),
    };
    Some((piece, end + 1))
}

/// A new `minLength` the approved node's `pattern` already implied (every string it matches is
/// at least that long), so no value it accepted is refused by it.
pub(super) fn implied_by_pattern(
    old: &serde_json::Map<String, serde_json::Value>,
    min_length: Option<&serde_json::Value>,
) -> bool {
    let (Some(pattern), Some(least)) = (
        old.get("pattern").and_then(serde_json::Value::as_str),
        min_length.and_then(serde_json::Value::as_u64),
    ) else {
        return false;
    };
    crate::witness::regex::min_chars(pattern).is_some_and(|implied| implied >= least)
}

#[cfg(test)]
mod tests {
    use super::repeats_within;

    #[test]
    fn wider_repetition_bounds_contain_narrower_ones() {
        assert!(repeats_within("^[a-z]{1,8}$", "^[a-z]{1,16}$"));
        assert!(repeats_within("^[a-z]{2,8}$", "^[a-z]{1,}$"));
        assert!(repeats_within("^x{3}-y{2}$", "^x{1,3}-y{2,4}$"));
        assert!(!repeats_within("^[a-z]{1,16}$", "^[a-z]{1,8}$"));
        assert!(!repeats_within("^[a-z]{1,8}$", "^[a-z]{2,16}$"));
        assert!(!repeats_within("^[a-z]{1,8}$", "^[a-z]{1,8}$"));
        // Other text differs, or the braces are literal (escaped, in a class): not ordered.
        assert!(!repeats_within("^[a-z]{1,8}$", "^[a-y]{1,16}$"));
        assert!(!repeats_within(r"^a\{1,2\}$", r"^a\{1,3\}$"));
        assert!(!repeats_within("^[{1,2}]$", "^[{1,3}]$"));
    }
}
