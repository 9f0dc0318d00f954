//! `output-property-type-changed`: one typed output property may now also be null (T -> [T, \"null\"])

use serde_json::{json, Value};

use super::*;
use driftlab_contract::rng::Stream;

/// The `output-property-type-changed` class: one typed output property may now also be null (T -> [T, \"null\"]).
pub(crate) struct OutputPropertyTypeChanged;

impl MutationClass for OutputPropertyTypeChanged {
    fn id(&self) -> &'static str {
        "output-property-type-changed"
    }
    fn summary(&self) -> &'static str {
        "one typed output property may now also be null (T -> [T, \"null\"])"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "consumers that expect a T now receive null"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let eligible = |p: &Value, _| single_type(p).is_some_and(|t| t != "null");
        let site = draw(
            property_sites(surface, "outputSchema", eligible),
            rng,
            "typed output property",
        )?;
        let property = property_at(surface, &site, "outputSchema")?;
        let old = property.get("type").cloned().unwrap_or(Value::Null);
        property.insert("type".into(), json!([old.clone(), "null"]));
        Ok(Applied {
            tool_index: Some(site.tool),
            detail: format!("output {}: type {old} -> [{old},\"null\"]", site.property),
        })
    }
}
