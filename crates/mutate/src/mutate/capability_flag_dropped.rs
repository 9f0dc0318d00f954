//! `capability-flag-dropped`: a `listChanged` or `subscribe` flag that was true disappears

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `capability-flag-dropped` class: a `listChanged` or `subscribe` flag that was true disappears.
pub(crate) struct CapabilityFlagDropped;

/// The flags a client relies on to hear about changes.
const FLAGS: &[(&str, &str)] = &[
    ("tools", "listChanged"),
    ("prompts", "listChanged"),
    ("resources", "listChanged"),
    ("resources", "subscribe"),
];

impl MutationClass for CapabilityFlagDropped {
    fn id(&self) -> &'static str {
        "capability-flag-dropped"
    }
    fn summary(&self) -> &'static str {
        "a capability's listChanged or subscribe flag that was true disappears"
    }
    fn label(&self) -> Label {
        Label::Dangerous
    }
    fn rationale(&self) -> &'static str {
        "calls keep working, but a client waiting for change notifications keeps a stale list"
    }
    fn part(&self) -> &'static str {
        "server"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let capabilities = surface
            .get_mut("capabilities")
            .and_then(Value::as_object_mut)
            .ok_or_else(|| NotApplicable("the surface records no capabilities".into()))?;
        let sites: Vec<&(&str, &str)> = FLAGS
            .iter()
            .filter(|(capability, flag)| {
                capabilities.get(*capability).and_then(|c| c.get(*flag)) == Some(&Value::Bool(true))
            })
            .collect();
        let &(capability, flag) = draw(sites, rng, "capability flag set to true")?;
        if let Some(Value::Object(settings)) = capabilities.get_mut(capability) {
            settings.shift_remove(flag);
        }
        Ok(Applied {
            tool_index: None,
            detail: format!("{capability}.{flag} dropped"),
        })
    }
}
