//! `annotation-became-dangerous`: a read-only tool drops readOnlyHint (true -> false), or a non-destructive one sets destructiveHint false -> true

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `annotation-became-dangerous` class: a read-only tool drops readOnlyHint (true -> false), or a non-destructive one sets destructiveHint false -> true.
pub(crate) struct AnnotationBecameDangerous;

impl MutationClass for AnnotationBecameDangerous {
    fn id(&self) -> &'static str {
        "annotation-became-dangerous"
    }
    fn summary(&self) -> &'static str {
        "a read-only tool drops readOnlyHint (true -> false), or a non-destructive one sets destructiveHint false -> true"
    }
    fn label(&self) -> Label {
        Label::Dangerous
    }
    fn rationale(&self) -> &'static str {
        "clients that auto-approve read-only or non-destructive tools would now run a riskier one without asking"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let hint = |t: &Map<String, Value>, k: &str| {
            t.get("annotations")
                .and_then(|a| a.get(k))
                .and_then(Value::as_bool)
        };
        let sites = tool_sites(surface, |t| {
            hint(t, "readOnlyHint") == Some(true) || hint(t, "destructiveHint") == Some(false)
        });
        let tool = draw(sites, rng, "read-only or non-destructive tool")?;
        let t = tool_at(surface, tool)?;
        let key = if hint(t, "readOnlyHint") == Some(true) {
            "readOnlyHint"
        } else {
            "destructiveHint"
        };
        let flipped = key == "destructiveHint";
        if let Some(Value::Object(a)) = t.get_mut("annotations") {
            a.insert(key.into(), Value::Bool(flipped));
        }
        Ok(Applied {
            tool_index: Some(tool),
            detail: format!("{key} -> {flipped}"),
        })
    }
}
