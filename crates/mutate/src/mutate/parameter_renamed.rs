//! `parameter-renamed`: one input parameter is renamed (to renamed_<name>), keeping its schema and requiredness

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `parameter-renamed` class: one input parameter is renamed (to renamed_<name>), keeping its schema and requiredness.
pub(crate) struct ParameterRenamed;

impl MutationClass for ParameterRenamed {
    fn id(&self) -> &'static str {
        "parameter-renamed"
    }
    fn summary(&self) -> &'static str {
        "one input parameter is renamed (to renamed_<name>), keeping its schema and requiredness"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "calls that send the old name are rejected or the argument is silently dropped"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let site = draw(
            property_sites(surface, "inputSchema", |_, _| true),
            rng,
            "input parameter",
        )?;
        let schema = schema_at(surface, site.tool, "inputSchema")?;
        let new = fresh_property(schema, &format!("renamed_{}", site.property));
        rename_property(schema, &site.property, &new);
        Ok(Applied {
            tool_index: Some(site.tool),
            detail: format!("{} -> {new}", site.property),
        })
    }
}
