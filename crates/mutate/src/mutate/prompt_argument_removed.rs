//! `prompt-argument-removed`: one prompt loses one of its arguments

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `prompt-argument-removed` class: one prompt loses one of its arguments.
pub(crate) struct PromptArgumentRemoved;

impl MutationClass for PromptArgumentRemoved {
    fn id(&self) -> &'static str {
        "prompt-argument-removed"
    }
    fn summary(&self) -> &'static str {
        "one prompt loses one of its arguments"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "a client that passes the argument to prompts/get may be refused, and the prompt no longer uses it"
    }
    fn part(&self) -> &'static str {
        "prompts"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let prompts = contract_list_mut(surface, "prompts")?;
        let sites: Vec<(usize, usize)> = prompts
            .iter()
            .enumerate()
            .flat_map(|(p, prompt)| {
                let count = prompt
                    .get("arguments")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
                (0..count).map(move |a| (p, a))
            })
            .collect();
        let (p, a) = draw(sites, rng, "prompt argument")?;
        let prompt = &mut prompts[p];
        let name = item_label(prompt, "name");
        let removed = prompt
            .get_mut("arguments")
            .and_then(Value::as_array_mut)
            .map(|arguments| arguments.remove(a))
            .unwrap_or_default();
        Ok(Applied {
            tool_index: None,
            detail: format!("{name}: argument {} removed", item_label(&removed, "name")),
        })
    }
}
