//! `description-replaced`: one tool's description is rewritten whole, no word of it kept

use serde_json::Value;

use super::description_reworded::{description_words, read_description_words, REWRITE_WORDS};
use super::*;
use driftlab_contract::rng::Stream;

/// The `description-replaced` class: one tool's description is rewritten whole, no word of it kept.
pub(crate) struct DescriptionReplaced;

impl MutationClass for DescriptionReplaced {
    fn id(&self) -> &'static str {
        "description-replaced"
    }
    fn summary(&self) -> &'static str {
        "one tool's description is replaced whole by as many plain words (at least four), none of the old ones"
    }
    fn label(&self) -> Label {
        Label::Dangerous
    }
    fn rationale(&self) -> &'static str {
        "the model reads an entirely different text for the same tool: a wholesale rewrite is how a tool's meaning is swapped after approval"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let sites = tool_sites(surface, |t| !description_words(t).is_empty());
        let tool = draw(sites, rng, "tool with a description")?;
        let t = tool_at(surface, tool)?;
        let (text, change) = replaced(&description_words(t), rng)?;
        let label = label(t);
        t.insert("description".into(), Value::String(text));
        Ok(Applied::on_tool(tool, &label, &change))
    }
    fn edit(&self, base: &Surface, rng: &mut Stream) -> Option<(Applied, Edit)> {
        // `apply`'s draws on the read surface (whose parsed descriptions every candidate shares).
        let sites = read_tool_sites(base, |t| !read_description_words(t).is_empty());
        let tool = draw(sites, rng, "").ok()?;
        let t = base.tool(tool)?;
        let (text, change) = replaced(&read_description_words(&t), rng).ok()?;
        let edit = edit::set_string(base, tool, "description", &text)?;
        Some((Applied::on_tool(tool, t.name_str()?, &change), edit))
    }
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or(String::new(), |c| {
        c.to_uppercase().chain(chars).collect()
    })
}

/// The new description (as many fresh words as the old one's, at least four) and the change.
fn replaced(old: &[String], rng: &mut Stream) -> Result<(String, String), NotApplicable> {
    let kept: Vec<String> = old
        .iter()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    let fresh: Vec<&str> = REWRITE_WORDS
        .iter()
        .copied()
        .filter(|w| !kept.iter().any(|k| k == w))
        .collect();
    if fresh.is_empty() {
        return Err(NotApplicable(
            "the description uses every rewrite word".into(),
        ));
    }
    let count = old.len().max(4);
    let mut words: Vec<String> = (0..count)
        .map(|_| fresh[rng.index(fresh.len())].to_string())
        .collect();
    if let Some(first) = words.first_mut() {
        *first = capitalised(first);
    }
    let text = format!("{}.", words.join(" "));
    let change = format!("description of {} words replaced by {count} new ones", old.len());
    Ok((text, change))
}
