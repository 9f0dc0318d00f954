//! Strings a `pattern` matches, built from its syntax tree (`regex-syntax`'s HIR): the simplest
//! one first, then one place varied at a time (each class's edge characters, each alternative,
//! each repetition's counts). A witness for a tightened pattern is one of these that the other
//! pattern refuses; the validator judges each, so a pattern the Rust parser reads differently
//! from ECMA-262 costs a rejected candidate, never a wrong verdict.

use regex_syntax::hir::{Class, Hir, HirKind};

/// At most this many strings per pattern (and per node of its tree).
const MAX_STRINGS: usize = 48;
/// Counted repetitions are built up to this many times (`a{5000}` is built 64 times).
const MAX_REPEAT: u32 = 64;
/// Patterns longer than this are not parsed.
const MAX_PATTERN: usize = 4096;

fn parse(pattern: &str) -> Option<Hir> {
    if pattern.len() > MAX_PATTERN {
        return None;
    }
    regex_syntax::ParserBuilder::new()
        .nest_limit(64)
        .build()
        .parse(pattern)
        .ok()
}

/// Strings `pattern` matches, the simplest first; none when it does not parse.
pub fn strings(pattern: &str) -> Vec<String> {
    parse(pattern).map(|hir| variants(&hir)).unwrap_or_default()
}

/// The fewest characters a string must have to contain a match of `pattern` (`None`: it does
/// not parse). JSON Schema patterns are unanchored, so a match inside a longer string counts,
/// and the bound still holds.
pub(crate) fn min_chars(pattern: &str) -> Option<u64> {
    parse(pattern).map(|hir| least(&hir))
}

fn least(hir: &Hir) -> u64 {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 0,
        HirKind::Literal(literal) => String::from_utf8_lossy(&literal.0).chars().count() as u64,
        HirKind::Class(_) => 1,
        HirKind::Repetition(r) => u64::from(r.min).saturating_mul(least(&r.sub)),
        HirKind::Capture(c) => least(&c.sub),
        HirKind::Concat(parts) => parts.iter().map(least).fold(0, u64::saturating_add),
        HirKind::Alternation(parts) => parts.iter().map(least).min().unwrap_or(0),
    }
}

/// Strings the node matches: its simplest first, then others varying one place each.
fn variants(hir: &Hir) -> Vec<String> {
    let mut out = match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => vec![String::new()],
        HirKind::Literal(literal) => vec![String::from_utf8_lossy(&literal.0).into_owned()],
        HirKind::Class(class) => class_edges(class),
        HirKind::Capture(c) => variants(&c.sub),
        HirKind::Alternation(parts) => {
            let each: Vec<Vec<String>> = parts.iter().map(variants).collect();
            // Each alternative's simplest first, then their other strings.
            let firsts = each.iter().filter_map(|v| v.first().cloned());
            let rest = each.iter().flat_map(|v| v.iter().skip(1).cloned());
            firsts.chain(rest).collect()
        }
        HirKind::Concat(parts) => {
            let each: Vec<Vec<String>> = parts.iter().map(variants).collect();
            let simplest: Vec<&str> = each
                .iter()
                .map(|v| v.first().map_or("", String::as_str))
                .collect();
            let mut out = vec![simplest.concat()];
            for (i, options) in each.iter().enumerate() {
                for option in options.iter().skip(1) {
                    let mut parts = simplest.clone();
                    parts[i] = option;
                    out.push(parts.concat());
                }
            }
            out
        }
        HirKind::Repetition(r) => {
            let inner = variants(&r.sub);
            let first = inner.first().cloned().unwrap_or_default();
            let least = r.min.min(MAX_REPEAT);
            let once = r.min.clamp(1, MAX_REPEAT);
            let most = r.max.unwrap_or(r.min.saturating_add(2)).min(MAX_REPEAT);
            let mut out = Vec::new();
            for count in [least, once, least.saturating_add(1).min(most), most] {
                if count >= r.min && r.max.is_none_or(|m| count <= m) {
                    out.push(first.repeat(count as usize));
                }
            }
            // Each other string of the body once, beside the simplest for the rest.
            let rest = first.repeat(once.saturating_sub(1) as usize);
            out.extend(inner.iter().skip(1).map(|v| format!("{v}{rest}")));
            out
        }
    };
    dedup(&mut out);
    out.truncate(MAX_STRINGS);
    out
}

/// The first and last character of each range of a class (its first range's start first).
fn class_edges(class: &Class) -> Vec<String> {
    let mut out = Vec::new();
    match class {
        Class::Unicode(c) => {
            for range in c.ranges().iter().take(MAX_STRINGS / 2) {
                out.push(range.start().to_string());
                out.push(range.end().to_string());
            }
        }
        Class::Bytes(c) => {
            for range in c.ranges().iter().take(MAX_STRINGS / 2) {
                for byte in [range.start(), range.end()] {
                    if byte.is_ascii() {
                        out.push(char::from(byte).to_string());
                    }
                }
            }
        }
    }
    out
}

fn dedup(strings: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    strings.retain(|s| seen.insert(s.clone()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simplest_string_comes_first_and_each_class_edge_is_tried() {
        let made = strings("^[a-zA-Z0-9._-]+$");
        assert_eq!(made[0], "-");
        for edge in ["-", ".", "0", "9", "A", "Z", "_", "a", "z"] {
            assert!(made.iter().any(|s| s == edge), "{edge}: {made:?}");
        }
    }

    #[test]
    fn alternatives_repetitions_and_literals() {
        let made = strings("^(get|list)-[0-9]{2,3}$");
        assert!(made.contains(&"get-00".to_string()), "{made:?}");
        assert!(made.contains(&"list-00".to_string()), "{made:?}");
        assert!(made.contains(&"get-000".to_string()), "{made:?}");
        assert!(strings("(?<=x)a").is_empty(), "look-behind does not parse");
    }

    #[test]
    fn minimum_length_counts_characters() {
        assert_eq!(min_chars("^[a-z]+@[a-z]+$"), Some(3));
        assert_eq!(min_chars("é{2}|abc"), Some(2));
        assert_eq!(min_chars("x*"), Some(0));
        assert_eq!(min_chars("("), None);
    }
}
