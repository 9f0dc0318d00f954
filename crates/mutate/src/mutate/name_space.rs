//! `name-space`: one tool's name gains a space (e.g. a display name shipped as the name).

use serde_json::Value;

use super::{draw_read_tool, draw_tool, edit, label, Applied, Edit, Label, MutationClass, Outcome};
use driftlab_contract::rng::Stream;
use driftlab_contract::surface::Surface;

/// The `name-space` class: one tool's name gains a space (e.g. a display name shipped as the name).
pub(crate) struct NameSpace;

impl MutationClass for NameSpace {
    fn id(&self) -> &'static str {
        "name-space"
    }
    fn summary(&self) -> &'static str {
        "one tool's name gains a space: its first '_', '-' or '.' becomes ' ', or a camelCase name splits before its first capital"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "a name with a space breaks the MCP name rule and most function-calling APIs reject it"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let (index, tool) = draw_tool(surface, rng)?;
        let old = label(tool);
        let new = with_space(&old, rng);
        let applied = applied(index, &old, &new);
        tool.insert("name".into(), Value::String(new));
        Ok(applied)
    }
    fn edit(&self, base: &Surface, rng: &mut Stream) -> Option<(Applied, Edit)> {
        let (index, tool) = draw_read_tool(base, rng)?;
        let old = tool.name_str()?;
        let new = with_space(old, rng);
        let edit = edit::set_string(base, index, "name", &new)?;
        Some((applied(index, old, &new), edit))
    }
}

fn applied(index: usize, old: &str, new: &str) -> Applied {
    // `{new:?}` quotes the name and escapes what needs it; most names need nothing escaped.
    let plain = new
        .bytes()
        .all(|b| b == b' ' || (b.is_ascii_graphic() && !matches!(b, b'"' | b'\\')));
    Applied {
        tool_index: Some(index),
        detail: if plain {
            super::concat(&[old, " -> \"", new, "\""])
        } else {
            format!("{old} -> {new:?}")
        },
    }
}

/// Replaces the first separator with a space; a camelCase name is split before its first
/// capital; other names get a space between two characters at a drawn position (or appended to a
/// one-character name).
fn with_space(name: &str, rng: &mut Stream) -> String {
    if let Some(at) = name.find(['_', '-', '.']) {
        let mut out = name.to_string();
        out.replace_range(at..at + 1, " ");
        return out;
    }
    let chars: Vec<char> = name.chars().collect();
    if chars.len() < 2 {
        return format!("{name} ");
    }
    // camelCase splits at its first word boundary; other names at a drawn position.
    let at = match chars.iter().skip(1).position(char::is_ascii_uppercase) {
        Some(upper) => upper + 1,
        None => 1 + rng.index(chars.len() - 1),
    };
    chars[..at]
        .iter()
        .chain(std::iter::once(&' '))
        .chain(&chars[at..])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spaces_replace_separators_or_split_words() {
        let mut rng = Stream::derive(1, "t", 0);
        assert_eq!(with_space("get_user_id", &mut rng), "get user_id");
        assert_eq!(with_space("user.get", &mut rng), "user get");
        assert_eq!(with_space("x", &mut rng), "x ");
        assert_eq!(with_space("getUserId", &mut rng), "get UserId");
        let split = with_space("fetch", &mut rng);
        assert_eq!(split.replace(' ', ""), "fetch");
        assert!(split.contains(' ') && !split.starts_with(' ') && !split.ends_with(' '));
    }

    #[test]
    fn the_detail_shows_the_new_name_as_debug_quotes_it() {
        for new in [
            "get user",
            "a\"b",
            "back\\slash",
            "tab\there",
            "é ü",
            "x ",
            "{}[]:,",
            "it's",
        ] {
            assert_eq!(applied(0, "old", new).detail, format!("old -> {new:?}"));
        }
    }
}
