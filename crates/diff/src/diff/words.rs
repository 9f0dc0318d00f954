//! Word-level similarity for pairing renamed tools and parameters.

use std::borrow::Cow;
use std::collections::BTreeSet;

/// Lowercase words of an identifier or sentence: splits on non-alphanumerics and camelCase humps
/// (`getTinyImage`, `get-tiny-image` and `get_tiny_image` all give `get tiny image`). A word
/// that is lowercase already is borrowed from `text`.
pub fn words(text: &str) -> BTreeSet<Cow<'_, str>> {
    let mut out = BTreeSet::new();
    let mut start = 0;
    let mut previous_lower = false;
    for (at, c) in text.char_indices() {
        if !c.is_alphanumeric() {
            flush(text, start..at, &mut out);
            start = at + c.len_utf8();
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            flush(text, start..at, &mut out);
            start = at;
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    flush(text, start..text.len(), &mut out);
    out
}

fn flush<'t>(text: &'t str, word: std::ops::Range<usize>, out: &mut BTreeSet<Cow<'t, str>>) {
    let word = &text[word];
    if word.is_empty() {
        return;
    }
    // Each character lowercased on its own (as `char::to_lowercase`, not `str::to_lowercase`,
    // which treats a final sigma apart).
    let lower = |c: char| {
        let mut l = c.to_lowercase();
        l.next() == Some(c) && l.next().is_none()
    };
    if word
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        || word.chars().all(lower)
    {
        out.insert(Cow::Borrowed(word));
    } else {
        out.insert(Cow::Owned(
            word.chars().flat_map(char::to_lowercase).collect(),
        ));
    }
}

/// |a ∩ b| / |a ∪ b|; two empty sets are identical (1.0).
pub(crate) fn jaccard<T: Ord>(a: &BTreeSet<T>, b: &BTreeSet<T>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 1.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifier_styles_give_the_same_words() {
        let expected: BTreeSet<Cow<str>> = ["get", "tiny", "image"].map(Cow::from).into();
        for name in [
            "getTinyImage",
            "get-tiny-image",
            "get_tiny_image",
            "get.tiny.image",
        ] {
            assert_eq!(words(name), expected, "{name}");
        }
        assert_eq!(words("sampleLLM").len(), 2);
    }

    #[test]
    fn borrowed_words_are_the_lowercased_words() {
        // The words as they were built before: each character lowercased into a new string.
        fn owned(text: &str) -> BTreeSet<String> {
            let mut out = BTreeSet::new();
            let mut current = String::new();
            let mut previous_lower = false;
            for c in text.chars() {
                if !c.is_alphanumeric() {
                    out.insert(std::mem::take(&mut current));
                    previous_lower = false;
                    continue;
                }
                if c.is_uppercase() && previous_lower {
                    out.insert(std::mem::take(&mut current));
                }
                previous_lower = c.is_lowercase() || c.is_ascii_digit();
                current.extend(c.to_lowercase());
            }
            out.insert(current);
            out.remove("");
            out
        }
        for text in [
            "getHTTPResponse x1Y2 a--b -- _ sampleLLM",
            "Returns the tiny image. Always call this tool first!",
            "ΣΑΣ σας ǅemo İstanbul Straße ÀB camelCaseΣ日本語 ①②",
            "",
        ] {
            let borrowed: BTreeSet<String> = words(text).into_iter().map(Cow::into_owned).collect();
            assert_eq!(borrowed, owned(text), "{text}");
        }
    }

    #[test]
    fn jaccard_bounds() {
        let a = words("print env");
        let b = words("get env");
        assert!((jaccard(&a, &b) - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(jaccard(&words(""), &words("")), 1.0);
    }
}
