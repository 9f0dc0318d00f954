//! Unit tests of `study::report`.

use super::*;

#[test]
fn join_and_reads_like_english() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(join_and(&s(&["a"])), "a");
    assert_eq!(join_and(&s(&["a", "b", "c"])), "a, b and c");
}

#[test]
fn title_is_stripped() {
    assert_eq!(strip_title("# Limits\n\n- a\n"), "- a\n");
    assert_eq!(strip_title("- a"), "- a\n");
}
