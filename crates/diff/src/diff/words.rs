//! Word-level similarity for pairing renamed tools and parameters.

use std::collections::BTreeSet;

/// Lowercase words of an identifier or sentence: splits on non-alphanumerics and camelCase humps
/// (`getTinyImage`, `get-tiny-image` and `get_tiny_image` all give `get tiny image`).
pub fn words(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            flush(&mut current, &mut out);
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            flush(&mut current, &mut out);
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    flush(&mut current, &mut out);
    out
}

fn flush(current: &mut String, out: &mut BTreeSet<String>) {
    if !current.is_empty() {
        out.insert(std::mem::take(current));
    }
}

/// |a ∩ b| / |a ∪ b|; two empty sets are identical (1.0).
pub(crate) fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
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
        let expected: BTreeSet<String> = ["get", "tiny", "image"].map(String::from).into();
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
    fn jaccard_bounds() {
        let a = words("print env");
        let b = words("get env");
        assert!((jaccard(&a, &b) - 1.0 / 3.0).abs() < 1e-9);
        assert_eq!(jaccard(&words(""), &words("")), 1.0);
    }
}
