//! `identity`: the control. Changes nothing.

use serde_json::Value;

use super::{Applied, MutationClass, Outcome};
use crate::rng::Stream;

pub struct Identity;

impl MutationClass for Identity {
    fn id(&self) -> &'static str {
        "identity"
    }
    fn summary(&self) -> &'static str {
        "control: the candidate is the approved surface, unchanged"
    }
    fn apply(&self, _surface: &mut Value, _rng: &mut Stream) -> Outcome {
        Ok(Applied {
            tool_index: None,
            detail: "unchanged".into(),
        })
    }
}
