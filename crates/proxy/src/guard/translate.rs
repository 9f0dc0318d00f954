//! `--translate renames`: a call in the approved form to a tool the server renamed, or with
//! parameters it renamed, is sent in the server's new form, where the rename is proven: the
//! live input schema is the pinned one with those names changed and nothing else. The agent,
//! which sees only the pinned tools, then gets its answer as if nothing moved.

use serde_json::{Map, Value};

use super::drift::ToolDrift;
use super::{Guard, LiveView};

/// A call rewritten into the server's new names.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Translation {
    /// The tool's name on the server now.
    pub tool: String,
    /// The arguments under the server's parameter names.
    pub arguments: Value,
    /// The parameters the call sent that were renamed: pinned name → new name.
    pub parameters: Vec<(String, String)>,
}

impl Guard {
    /// The call to pinned `tool` in the server's new names, where its tool or a parameter it
    /// sends was renamed and the rename is proven; `None` otherwise (the call is decided as
    /// sent).
    pub(super) fn translation(&self, tool: &str, arguments: &Value) -> Option<Translation> {
        if !self.options.translate_renames {
            return None;
        }
        let LiveView::Listed(live) = &self.live else {
            return None;
        };
        let pinned = self.contracts.get(tool)?;
        let drift = live.drift.get(tool)?;
        let sent = arguments.as_object()?;
        let to = drift.renamed_to.clone().unwrap_or_else(|| tool.to_string());
        let parameters: Vec<(String, String)> = drift
            .renamed
            .iter()
            .filter(|(old, _)| sent.contains_key(old))
            .cloned()
            .collect();
        if to == tool && parameters.is_empty() {
            return None;
        }
        let live_schema = live.contracts.get(&to)?.schema.as_ref()?;
        if !proven(pinned.schema.as_ref()?, live_schema, drift) {
            return None;
        }
        let arguments: Map<String, Value> = sent
            .iter()
            .map(|(name, value)| {
                let new = parameters.iter().find(|(old, _)| old == name);
                (new.map_or(name, |(_, new)| new).clone(), value.clone())
            })
            .collect();
        Some(Translation {
            tool: to,
            arguments: Value::Object(arguments),
            parameters,
        })
    }
}

/// Whether `live` is `pinned` with the drift's renamed top-level parameters renamed, and
/// nothing else changed (JSON equality, member order aside).
fn proven(pinned: &Value, live: &Value, drift: &ToolDrift) -> bool {
    let renamed = |name: &str| -> String {
        drift
            .renamed
            .iter()
            .find(|(old, _)| old == name)
            .map_or(name, |(_, new)| new.as_str())
            .to_string()
    };
    let mut expected = pinned.clone();
    if let Some(Value::Object(properties)) = expected.get_mut("properties") {
        let renamed_properties: Map<String, Value> = std::mem::take(properties)
            .into_iter()
            .map(|(name, schema)| (renamed(&name), schema))
            .collect();
        *properties = renamed_properties;
    }
    if let Some(Value::Array(required)) = expected.get_mut("required") {
        for name in required.iter_mut() {
            if let Value::String(name) = name {
                *name = renamed(name);
            }
        }
    }
    &expected == live
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn drift(renamed: &[(&str, &str)]) -> ToolDrift {
        ToolDrift {
            renamed: renamed
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            ..ToolDrift::default()
        }
    }

    #[test]
    fn a_rename_is_proven_only_when_nothing_else_changed() {
        let pinned = json!({"type": "object", "properties": {"q": {"type": "string"},
            "n": {"type": "integer"}}, "required": ["q"]});
        let live = json!({"type": "object", "properties": {"query": {"type": "string"},
            "n": {"type": "integer"}}, "required": ["query"]});
        assert!(proven(&pinned, &live, &drift(&[("q", "query")])));
        assert!(!proven(&pinned, &live, &drift(&[])));
        let narrowed = json!({"type": "object", "properties": {"query": {"type": "string",
            "maxLength": 3}, "n": {"type": "integer"}}, "required": ["query"]});
        assert!(!proven(&pinned, &narrowed, &drift(&[("q", "query")])));
        assert!(
            proven(&pinned, &pinned, &drift(&[])),
            "a tool renamed alone"
        );
    }
}
