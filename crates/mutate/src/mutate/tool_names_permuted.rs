//! `tool-names-permuted`: the tools' names are permuted among them (a cycle, so no tool keeps its own), the set of names unchanged

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `tool-names-permuted` class: the tools' names are permuted among them (a cycle, so no tool keeps its own), the set of names unchanged.
pub(crate) struct ToolNamesPermuted;

impl MutationClass for ToolNamesPermuted {
    fn id(&self) -> &'static str {
        "tool-names-permuted"
    }
    fn summary(&self) -> &'static str {
        "the tools' names are permuted among them (a uniformly drawn cycle, so every tool gets another's name); the set of names is unchanged (RoTBench's heavy noise)"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "a call by name reaches another tool with another schema; a name-set diff sees nothing and a name-keyed hash sees schema changes"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let sites = tool_sites(surface, |t| t.get("name").is_some_and(Value::is_string));
        let names: Vec<String> = sites
            .iter()
            .map(|&i| surface["tools"][i]["name"].as_str().unwrap_or_default().to_string())
            .collect();
        let distinct: std::collections::BTreeSet<&String> = names.iter().collect();
        if distinct.len() < 2 {
            return Err(NotApplicable(
                "fewer than two tools with distinct names".into(),
            ));
        }
        // Sattolo's algorithm: a uniformly drawn cyclic permutation, which moves every element.
        let mut order: Vec<usize> = (0..sites.len()).collect();
        for i in (1..order.len()).rev() {
            let j = rng.index(i);
            order.swap(i, j);
        }
        for (k, &tool) in sites.iter().enumerate() {
            let name = names[order[k]].clone();
            tool_at(surface, tool)?.insert("name".into(), Value::String(name));
        }
        Ok(Applied {
            tool_index: None,
            detail: format!(
                "{} -> {}",
                names.join(", "),
                order
                    .iter()
                    .map(|&o| names[o].as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
    }
}
