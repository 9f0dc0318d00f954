//! A word-level diff of two texts, as one line: what a reviewer of changed instructions needs
//! to see without reading both versions.

use similar::{Algorithm, ChangeTag, TextDiff};

/// At most this many characters of hunks are shown; the count of the rest follows.
const SHOWN: usize = 400;

/// `-[removed words] +[added words]` per changed stretch, in order, with the counts of words
/// removed and added. Deterministic: Myers' algorithm without a deadline.
pub fn summary(old: &str, new: &str) -> String {
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .diff_words(old, new);
    let (mut removed, mut added) = (0usize, 0usize);
    let mut hunks: Vec<String> = Vec::new();
    let (mut minus, mut plus) = (String::new(), String::new());
    let flush = |minus: &mut String, plus: &mut String, hunks: &mut Vec<String>| {
        let mut hunk = String::new();
        if !minus.trim().is_empty() {
            hunk.push_str(&format!("-[{}]", one_line(minus)));
        }
        if !plus.trim().is_empty() {
            if !hunk.is_empty() {
                hunk.push(' ');
            }
            hunk.push_str(&format!("+[{}]", one_line(plus)));
        }
        if !hunk.is_empty() {
            hunks.push(hunk);
        }
        minus.clear();
        plus.clear();
    };
    for change in diff.iter_all_changes() {
        let words = change.value();
        let counted = !words.trim().is_empty();
        match change.tag() {
            ChangeTag::Equal => flush(&mut minus, &mut plus, &mut hunks),
            ChangeTag::Delete => {
                removed += usize::from(counted);
                minus.push_str(words);
            }
            ChangeTag::Insert => {
                added += usize::from(counted);
                plus.push_str(words);
            }
        }
    }
    flush(&mut minus, &mut plus, &mut hunks);
    let mut shown = String::new();
    let mut left = 0;
    for hunk in &hunks {
        if shown.chars().count() + hunk.chars().count() > SHOWN && !shown.is_empty() {
            left += 1;
            continue;
        }
        if !shown.is_empty() {
            shown.push_str(" … ");
        }
        shown.push_str(hunk);
    }
    let more = match left {
        0 => String::new(),
        n => format!(" (+{n} more changes)"),
    };
    let words = match (removed, added) {
        (0, 0) => "whitespace only".to_string(),
        (r, a) => format!("{} removed, {a} added", plural(r, "word")),
    };
    match shown.is_empty() {
        true => words,
        false => format!("{words}: {shown}{more}"),
    }
}

fn plural(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// Whitespace runs (newlines included) as one space, trimmed.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn names_each_changed_stretch_in_order() {
        assert_eq!(
            summary(
                "Use search before fetch.\nNever delete files.",
                "Use fetch directly.\nAlways delete files."
            ),
            "4 words removed, 3 added: -[search] +[fetch] … -[before fetch.] +[directly.] … -[Never] +[Always]"
        );
        assert_eq!(summary("a b", "a b c"), "0 words removed, 1 added: +[c]");
        assert_eq!(summary("a  b", "a b"), "whitespace only");
    }

    #[test]
    fn long_diffs_are_cut_with_a_count() {
        let old: Vec<String> = (0..200).map(|i| format!("w{i}")).collect();
        let new: Vec<String> = (0..200)
            .map(|i| {
                if i % 2 == 0 {
                    format!("x{i}")
                } else {
                    format!("w{i}")
                }
            })
            .collect();
        let text = summary(&old.join(" "), &new.join(" "));
        assert!(
            text.starts_with("100 words removed, 100 added: -[w0] +[x0]"),
            "{text}"
        );
        assert!(text.ends_with("more changes)"), "{text}");
        assert!(text.chars().count() < 500, "{text}");
    }
}
