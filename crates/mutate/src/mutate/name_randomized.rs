//! `name-randomized`: one tool's name becomes a random string of the same length (letters and digits)

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `name-randomized` class: one tool's name becomes a random string of the same length (letters and digits).
pub(crate) struct NameRandomized;

const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
const LETTERS_AND_DIGITS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";

impl MutationClass for NameRandomized {
    fn id(&self) -> &'static str {
        "name-randomized"
    }
    fn summary(&self) -> &'static str {
        "one tool's name becomes a random string of as many characters (3 to 64): a letter, then letters and digits (RoTBench's medium noise)"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "calls by the old name fail, and nothing in the new name says which tool it was"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let (tool, old) = draw_named_tool(surface, rng)?;
        let random = random_name(&old, rng);
        let new = fresh_tool_name(surface, &random);
        tool_at(surface, tool)?.insert("name".into(), Value::String(new.clone()));
        Ok(Applied::renamed(tool, &old, &new))
    }
    fn edit(&self, base: &Surface, rng: &mut Stream) -> Option<(Applied, Edit)> {
        let (index, old) = draw_read_named_tool(base, rng)?;
        let new = fresh_read_tool_name(base, &random_name(old, rng));
        let edit = edit::set_string(base, index, "name", &new)?;
        Some((Applied::renamed(index, old, &new), edit))
    }
}

/// A random name as long as `old` (3 to 64 characters): a letter, then letters and digits;
/// never `old` itself.
fn random_name(old: &str, rng: &mut Stream) -> String {
    let length = old.chars().count().clamp(3, 64);
    let mut random: String = (0..length)
        .map(|i| {
            let set = if i == 0 { LETTERS } else { LETTERS_AND_DIGITS };
            char::from(set[rng.index(set.len())])
        })
        .collect();
    if random == old {
        random.push('x');
    }
    random
}
