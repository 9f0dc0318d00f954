//! Escaping for the report formats: [`visible`] (the shared rule, `driftlab_contract::text`) and Markdown
//! code spans that nothing can leave.

pub use driftlab_contract::text::visible;

/// A Markdown code span that holds `text` whatever it contains: the fence is longer than any run
/// of backticks inside, so nothing can leave the span (and no link, image or @mention renders).
pub(crate) fn code_span(text: &str) -> String {
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
    fn code_spans_hold_backticks() {
        assert_eq!(code_span("get_user"), "`get_user`");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x``"), "``` `x`` ```");
    }
}
