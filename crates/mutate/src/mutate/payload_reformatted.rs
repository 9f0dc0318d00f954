//! `payload-reformatted`: the payload is pretty-printed (indentation and newlines) instead of compact

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `payload-reformatted` class: the payload is pretty-printed (indentation and newlines) instead of compact.
pub(crate) struct PayloadReformatted;

impl MutationClass for PayloadReformatted {
    fn id(&self) -> &'static str {
        "payload-reformatted"
    }
    fn summary(&self) -> &'static str {
        "the payload is pretty-printed (indentation and newlines) instead of compact"
    }
    fn label(&self) -> Label {
        Label::Benign
    }
    fn rationale(&self) -> &'static str {
        "whitespace between JSON tokens carries no meaning"
    }
    fn apply(&self, _surface: &mut Value, _rng: &mut Stream) -> Outcome {
        Ok(Applied {
            tool_index: None,
            detail: "pretty-printed".into(),
        })
    }
    fn serialize(&self, surface: &Value) -> Vec<u8> {
        // `serde_json::to_vec_pretty`'s bytes, written faster.
        let mut out = Vec::with_capacity(8192);
        driftlab_contract::payload::compact::write_pretty(&mut out, surface);
        out
    }
    fn reach(&self, _: &Applied) -> Reach {
        Reach::Surface
    }
}
