//! `output-property-removed`: one property of an outputSchema is removed (and from its required list)

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `output-property-removed` class: one property of an outputSchema is removed (and from its required list).
pub(crate) struct OutputPropertyRemoved;

impl MutationClass for OutputPropertyRemoved {
    fn id(&self) -> &'static str {
        "output-property-removed"
    }
    fn summary(&self) -> &'static str {
        "one property of an outputSchema is removed (and from its required list)"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "consumers that read the property from structuredContent no longer get it"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let site = draw(
            property_sites(surface, "outputSchema", |_, _| true),
            rng,
            "output property",
        )?;
        let schema = schema_at(surface, site.tool, "outputSchema")?;
        if let Some(Value::Object(props)) = schema.get_mut("properties") {
            props.shift_remove(&site.property);
        }
        if let Some(Value::Array(required)) = schema.get_mut("required") {
            required.retain(|r| r.as_str() != Some(&site.property));
        }
        Ok(Applied {
            tool_index: Some(site.tool),
            detail: format!("output {} removed", site.property),
        })
    }
}
