//! A mutation as an edit of its base's bytes, for the classes a study runs most: changing a
//! surface through `serde_json::Value` (a working copy, the change, putting it back) costs more
//! than the change itself. See [`super::MutationClass::edit`].

use std::ops::Range;

use driftlab_contract::surface::Surface;

/// A candidate's bytes as a change to its base's compact `{"tools":[…]}` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// The base's bytes with `range` replaced by `with`.
    Splice {
        /// The bytes of the base that are replaced.
        range: Range<usize>,
        /// What replaces them.
        with: Vec<u8>,
    },
    /// Only the order: position `i` holds the tool that was at `order[i]`.
    Order(Vec<usize>),
}

/// Tool `tool`'s field `key` given the value `value` (compact JSON) in place, as inserting into
/// the tool's map does when the field exists. `None` when it does not, or when the tool's text
/// is not compact around it.
pub(crate) fn set_field(base: &Surface, tool: usize, key: &str, value: Vec<u8>) -> Option<Edit> {
    let (start, place) = compact_place(base, tool, key)?;
    Some(Edit::Splice {
        range: start + place.value.start..start + place.value.end,
        with: value,
    })
}

/// [`set_field`] with the string `text` as the value, written as JSON.
pub(crate) fn set_string(base: &Surface, tool: usize, key: &str, text: &str) -> Option<Edit> {
    let mut value = Vec::with_capacity(text.len() + 2);
    driftlab_contract::payload::compact::write_str(&mut value, text);
    set_field(base, tool, key, value)
}

/// Tool `tool`'s field `key` removed with its comma, keeping the order of the rest, as
/// `shift_remove` does. `None` when the field is absent, or the text is not compact around it.
pub(crate) fn remove_field(base: &Surface, tool: usize, key: &str) -> Option<Edit> {
    let (start, place) = compact_place(base, tool, key)?;
    let text = base.text().as_bytes();
    // The member starts at its key's opening quote.
    let member = start + place.key.start - 1..start + place.value.end;
    let range = with_its_comma(text, member, place.position, place.fields)?;
    Some(Edit::Splice {
        range,
        with: Vec::new(),
    })
}

/// Tool `tool` removed from the list with its comma, as removing it from the array and
/// serializing does. `None` when the text is not compact around it.
pub(crate) fn remove_tool(base: &Surface, tool: usize) -> Option<Edit> {
    let span = base.tool_span(tool)?;
    let range = with_its_comma(base.text().as_bytes(), span, tool, base.len())?;
    Some(Edit::Splice {
        range,
        with: Vec::new(),
    })
}

/// `member` of `text`, the `position`th of `count` in its list, with the comma that goes when
/// it does: the one after it, or for the last of several the one before it. `None` when that
/// comma is not right beside it (the text is not compact there).
fn with_its_comma(
    text: &[u8],
    member: Range<usize>,
    position: usize,
    count: usize,
) -> Option<Range<usize>> {
    if position + 1 < count {
        (text.get(member.end) == Some(&b',')).then(|| member.start..member.end + 1)
    } else if position > 0 {
        let before = member.start.checked_sub(1)?;
        (text.get(before) == Some(&b',')).then_some(before..member.end)
    } else {
        Some(member)
    }
}

/// `tool` appended to the list, as pushing it and serializing does. `None` unless the list is
/// the text's last member, closed compactly (`…]}` at the end).
pub(crate) fn append_tool(base: &Surface, tool: &serde_json::Value) -> Option<Edit> {
    let text = base.text().as_bytes();
    let end = match base.len() {
        0 => text.ends_with(b"\"tools\":[]}").then(|| text.len() - 2)?,
        n => {
            let end = base.tool_span(n - 1)?.end;
            (text.get(end..) == Some(b"]}")).then_some(end)?
        }
    };
    let mut with = Vec::with_capacity(256);
    if !base.is_empty() {
        with.push(b',');
    }
    driftlab_contract::payload::compact::write(&mut with, tool);
    Some(Edit::Splice {
        range: end..end,
        with,
    })
}

/// Where tool `tool` starts in the base's text and where its field `key` is, when the member is
/// written compactly (`"key":value`, nothing between): what serializing a value gives.
fn compact_place(
    base: &Surface,
    tool: usize,
    key: &str,
) -> Option<(usize, driftlab_contract::surface::FieldPlace)> {
    let start = base.tool_span(tool)?.start;
    let place = base.tool(tool)?.field_place(key)?;
    let text = base.text().as_bytes();
    let (key_start, key_end) = (start + place.key.start, start + place.key.end);
    let compact = key_start > 0
        && text.get(key_start - 1) == Some(&b'"')
        && text.get(key_end..key_end + 2) == Some(b"\":")
        && start + place.value.start == key_end + 2;
    compact.then_some((start, place))
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlab_contract::payload::{self, Limits};

    fn written(base: &Surface, edit: &Edit) -> String {
        let Edit::Splice { range, with } = edit else {
            panic!("not a splice");
        };
        let text = base.text();
        format!(
            "{}{}{}",
            &text[..range.start],
            String::from_utf8_lossy(with),
            &text[range.end..]
        )
    }

    #[test]
    fn fields_are_set_and_removed_with_the_right_comma() {
        let base = r#"{"tools":[{"a":1,"b":[2],"c":{"d":3}},{"name":"x"}]}"#;
        let base = payload::read(base.as_bytes(), "b", Limits::default()).unwrap();
        let set =
            |key: &str| set_field(&base, 0, key, b"null".to_vec()).map(|e| written(&base, &e));
        let remove = |tool, key: &str| remove_field(&base, tool, key).map(|e| written(&base, &e));
        assert_eq!(
            set("b").unwrap(),
            r#"{"tools":[{"a":1,"b":null,"c":{"d":3}},{"name":"x"}]}"#
        );
        assert_eq!(set("z"), None);
        assert_eq!(
            remove(0, "a").unwrap(),
            r#"{"tools":[{"b":[2],"c":{"d":3}},{"name":"x"}]}"#
        );
        assert_eq!(
            remove(0, "b").unwrap(),
            r#"{"tools":[{"a":1,"c":{"d":3}},{"name":"x"}]}"#
        );
        assert_eq!(
            remove(0, "c").unwrap(),
            r#"{"tools":[{"a":1,"b":[2]},{"name":"x"}]}"#
        );
        assert_eq!(
            remove(1, "name").unwrap(),
            r#"{"tools":[{"a":1,"b":[2],"c":{"d":3}},{}]}"#
        );
        assert_eq!(remove(2, "name"), None);
    }

    #[test]
    fn tools_are_removed_with_the_right_comma() {
        let removed = |list: &str, tool| {
            let base = format!(r#"{{"tools":[{list}]}}"#);
            let base = payload::read(base.as_bytes(), "b", Limits::default()).unwrap();
            remove_tool(&base, tool).map(|e| written(&base, &e))
        };
        let three = r#"{"name":"a"},{"name":"b"},{"name":"c"}"#;
        assert_eq!(
            removed(three, 0).unwrap(),
            r#"{"tools":[{"name":"b"},{"name":"c"}]}"#
        );
        assert_eq!(
            removed(three, 1).unwrap(),
            r#"{"tools":[{"name":"a"},{"name":"c"}]}"#
        );
        assert_eq!(
            removed(three, 2).unwrap(),
            r#"{"tools":[{"name":"a"},{"name":"b"}]}"#
        );
        assert_eq!(removed(r#"{"name":"a"}"#, 0).unwrap(), r#"{"tools":[]}"#);
        assert_eq!(removed(three, 3), None);
        // Not compact between the tools: declined.
        assert_eq!(removed(r#"{"name":"a"} ,{"name":"b"}"#, 0), None);
    }

    #[test]
    fn a_tool_is_appended_to_a_list_that_closes_the_text() {
        let appended = |text: &str| {
            let base = payload::read(text.as_bytes(), "b", Limits::default()).unwrap();
            append_tool(&base, &serde_json::json!({"name": "n"})).map(|e| written(&base, &e))
        };
        assert_eq!(
            appended(r#"{"tools":[{"name":"a"}]}"#).unwrap(),
            r#"{"tools":[{"name":"a"},{"name":"n"}]}"#
        );
        assert_eq!(
            appended(r#"{"tools":[]}"#).unwrap(),
            r#"{"tools":[{"name":"n"}]}"#
        );
        // Another list after the tools, or space before the end: declined.
        assert_eq!(appended(r#"{"tools":[{"name":"a"}],"prompts":[]}"#), None);
        assert_eq!(appended(r#"{"tools":[{"name":"a"}] }"#), None);
    }

    #[test]
    fn text_that_is_not_compact_is_declined() {
        let base = r#"{"tools":[{"a" : 1, "b":2}]}"#;
        let base = payload::read(base.as_bytes(), "b", Limits::default()).unwrap();
        assert_eq!(set_field(&base, 0, "a", b"0".to_vec()), None);
        assert_eq!(remove_field(&base, 0, "b"), None);
        // A key that needs escapes has no place of its own.
        let base = r#"{"tools":[{"a\"b":1}]}"#;
        let base = payload::read(base.as_bytes(), "b", Limits::default()).unwrap();
        assert_eq!(set_field(&base, 0, "a\"b", b"0".to_vec()), None);
    }
}
