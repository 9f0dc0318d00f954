//! `description-reworded`: a quarter of one tool's description words are replaced (a partial rewrite)

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `description-reworded` class: a quarter of one tool's description words are replaced (a partial rewrite).
pub(crate) struct DescriptionReworded;

/// Words a rewrite puts in: plain, and none of them an instruction to the model.
pub(super) const REWRITE_WORDS: &[&str] = &[
    "returns", "entries", "matching", "current", "stored", "records", "selected", "value",
    "details", "remote", "listed", "given", "item", "catalog", "summary", "account",
];

impl MutationClass for DescriptionReworded {
    fn id(&self) -> &'static str {
        "description-reworded"
    }
    fn summary(&self) -> &'static str {
        "one tool's description has a quarter of its words (at least one, of four or more) replaced by other plain words"
    }
    fn label(&self) -> Label {
        Label::Dangerous
    }
    fn rationale(&self) -> &'static str {
        "a quarter of the words replaced can change what the tool says it does, and the model reads the new text; a \"changed by more than half\" rule misses it by design"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let sites = tool_sites(surface, |t| description_words(t).len() >= 4);
        let tool = draw(sites, rng, "tool with a description of four or more words")?;
        let t = tool_at(surface, tool)?;
        let (text, change) = reworded(description_words(t), rng);
        let label = label(t);
        t.insert("description".into(), Value::String(text));
        Ok(Applied::on_tool(tool, &label, &change))
    }
    fn edit(&self, base: &Surface, rng: &mut Stream) -> Option<(Applied, Edit)> {
        // `apply`'s draws on the read surface (whose parsed descriptions every candidate shares).
        let sites = read_tool_sites(base, |t| read_description_words(t).len() >= 4);
        let tool = draw(sites, rng, "").ok()?;
        let t = base.tool(tool)?;
        let (text, change) = reworded(read_description_words(&t), rng);
        let edit = edit::set_string(base, tool, "description", &text)?;
        Some((Applied::on_tool(tool, t.name_str()?, &change), edit))
    }
}

/// A tool's description split on whitespace (none when it has no string description).
pub(super) fn description_words(tool: &Map<String, Value>) -> Vec<String> {
    words_of(tool.get("description"))
}

/// [`description_words`] of a tool read from bytes.
pub(super) fn read_description_words(tool: &Tool<'_>) -> Vec<String> {
    words_of(tool.get("description"))
}

fn words_of(description: Option<&Value>) -> Vec<String> {
    description
        .and_then(Value::as_str)
        .map(|d| d.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// The description with a quarter of its words replaced (at drawn places), and the change.
fn reworded(mut words: Vec<String>, rng: &mut Stream) -> (String, String) {
    let mut positions: Vec<usize> = (0..words.len()).collect();
    rng.shuffle(&mut positions);
    let replaced = words.len() / 4;
    for &at in &positions[..replaced] {
        words[at] = other_word(&words[at], rng.index(REWRITE_WORDS.len()));
    }
    let change = format!("{replaced} of {} description words replaced", positions.len());
    (words.join(" "), change)
}

/// The rewrite word at `start`, or the next one that is not `old` (case and punctuation aside).
fn other_word(old: &str, start: usize) -> String {
    let bare = old
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    (0..REWRITE_WORDS.len())
        .map(|k| REWRITE_WORDS[(start + k) % REWRITE_WORDS.len()])
        .find(|w| *w != bare)
        .unwrap_or("entries")
        .to_string()
}
