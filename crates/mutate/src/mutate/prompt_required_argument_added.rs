//! `prompt-required-argument-added`: one prompt gains a required argument

use serde_json::{json, Value};

use super::*;
use driftlab_contract::rng::Stream;

/// The `prompt-required-argument-added` class: one prompt gains a required argument.
pub(crate) struct PromptRequiredArgumentAdded;

impl MutationClass for PromptRequiredArgumentAdded {
    fn id(&self) -> &'static str {
        "prompt-required-argument-added"
    }
    fn summary(&self) -> &'static str {
        "one prompt gains a required argument (`language`)"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "existing prompts/get requests lack the new argument and are refused"
    }
    fn part(&self) -> &'static str {
        "prompts"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let prompts = contract_list_mut(surface, "prompts")?;
        let p = draw((0..prompts.len()).collect(), rng, "prompt")?;
        let prompt = prompts[p]
            .as_object_mut()
            .ok_or_else(|| NotApplicable(format!("prompt {p} is not an object")))?;
        let arguments = prompt
            .entry("arguments")
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(arguments) = arguments else {
            return Err(NotApplicable(format!("prompt {p} has no arguments array")));
        };
        let name = fresh("language", |n| {
            arguments
                .iter()
                .any(|a| a.get("name").and_then(Value::as_str) == Some(n))
        });
        arguments.push(
            json!({"name": name, "description": "The language to answer in", "required": true}),
        );
        Ok(Applied {
            tool_index: None,
            detail: format!("{}: required argument {name} added", label(prompt)),
        })
    }
}
