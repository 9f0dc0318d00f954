//! `resource-removed`: one listed resource disappears

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `resource-removed` class: one listed resource disappears.
pub(crate) struct ResourceRemoved;

impl MutationClass for ResourceRemoved {
    fn id(&self) -> &'static str {
        "resource-removed"
    }
    fn summary(&self) -> &'static str {
        "one listed resource disappears from resources/list"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "a client that kept the resource's uri fails to read it"
    }
    fn part(&self) -> &'static str {
        "resources"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let resources = contract_list_mut(surface, "resources")?;
        let r = draw((0..resources.len()).collect(), rng, "resource")?;
        let removed = resources.remove(r);
        Ok(Applied {
            tool_index: None,
            detail: format!("{} removed", item_label(&removed, "uri")),
        })
    }
}
