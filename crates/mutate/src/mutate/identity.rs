//! `identity`: the control. Changes nothing.

use serde_json::Value;

use super::{Applied, Label, MutationClass, Outcome};
use driftlab_contract::rng::Stream;

/// The `identity` class: the control. Changes nothing.
pub(crate) struct Identity;

impl MutationClass for Identity {
    fn id(&self) -> &'static str {
        "identity"
    }
    fn summary(&self) -> &'static str {
        "control: the candidate is the approved surface, unchanged"
    }
    fn label(&self) -> Label {
        Label::Control
    }
    fn rationale(&self) -> &'static str {
        "the control: nothing changed, so any finding is a false positive"
    }
    fn apply(&self, _surface: &mut Value, _rng: &mut Stream) -> Outcome {
        Ok(Applied {
            tool_index: None,
            detail: "unchanged".into(),
        })
    }
}
