//! `--translate renames`: a call in the approved form to a tool the server renamed, or with
//! parameters it renamed, is sent in the server's new form, where the rename is proven: the
//! live input schema is the pinned one with those names changed and nothing else. The agent,
//! which sees only the pinned tools, then gets its answer as if nothing moved.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::drift::ToolDrift;
use super::{Guard, LiveView};
use driftlab_contract::contract::Contract;

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

/// A pinned tool's proven renames on the live server, found once per listing.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ProvenRename {
    /// The tool's name on the server now.
    to: String,
    /// Its renamed top-level parameters: pinned name → new name.
    parameters: Vec<(String, String)>,
}

/// Each drifted pinned tool whose rename (of the tool, of parameters, or both) is proven: the
/// live input schema is the pinned one with those names changed and nothing else.
pub(super) fn proven_renames(
    pinned: &HashMap<String, Contract>,
    live: &HashMap<String, Contract>,
    drift: &HashMap<String, ToolDrift>,
) -> HashMap<String, ProvenRename> {
    drift
        .iter()
        .filter_map(|(tool, drift)| {
            let to = drift.renamed_to.clone().unwrap_or_else(|| tool.clone());
            let pinned_schema = pinned.get(tool)?.schema.as_ref()?;
            let live_schema = live.get(&to)?.schema.as_ref()?;
            // The diff's likely renames, and those the schemas pair one to one.
            let mut parameters = drift.renamed.clone();
            for (old, new) in paired(pinned_schema, live_schema) {
                if !parameters.iter().any(|(o, n)| *o == old || *n == new) {
                    parameters.push((old, new));
                }
            }
            let moved = to != *tool || !parameters.is_empty();
            (moved && proven(pinned_schema, live_schema, &parameters))
                .then(|| (tool.clone(), ProvenRename { to, parameters }))
        })
        .collect()
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
        let rename = live.renames.get(tool)?;
        let sent = arguments.as_object()?;
        let parameters: Vec<(String, String)> = rename
            .parameters
            .iter()
            .filter(|(old, _)| sent.contains_key(old))
            .cloned()
            .collect();
        if rename.to == tool && parameters.is_empty() {
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
            tool: rename.to.clone(),
            arguments: Value::Object(arguments),
            parameters,
        })
    }
}

/// Whether `live` is `pinned` with the drift's renamed top-level parameters renamed, and
/// nothing else changed (JSON equality, member order aside) but `title`s: a title labels a
/// schema and changes nothing a call may carry, and the SDKs derive it from the name (pydantic
/// titles `city` "City" and a tool's arguments "get_alertsArguments").
fn proven(pinned: &Value, live: &Value, renames: &[(String, String)]) -> bool {
    let renamed = |name: &str| -> String {
        renames
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
    without_titles(&expected) == without_titles(live)
}

/// The top-level parameters the pinned schema has and the live one lacks, each paired with the
/// one added parameter whose schema (titles aside) is its own, where the pairing is one to one:
/// a name the diff sees no likely rename in (`city` → `location`: no word shared) is still a
/// rename when nothing else tells the two apart. [`proven`] then checks the rest.
fn paired(pinned: &Value, live: &Value) -> Vec<(String, String)> {
    let properties = |schema: &Value| schema.get("properties").and_then(Value::as_object).cloned();
    let (Some(old), Some(new)) = (properties(pinned), properties(live)) else {
        return Vec::new();
    };
    let removed: Vec<(&String, Value)> = old
        .iter()
        .filter(|(name, _)| !new.contains_key(*name))
        .map(|(name, schema)| (name, without_titles(schema)))
        .collect();
    let added: Vec<(&String, Value)> = new
        .iter()
        .filter(|(name, _)| !old.contains_key(*name))
        .map(|(name, schema)| (name, without_titles(schema)))
        .collect();
    removed
        .iter()
        .filter_map(|(name, schema)| {
            let mut same = added.iter().filter(|(_, s)| s == schema);
            let (new_name, _) = same.next()?;
            let alone =
                same.next().is_none() && removed.iter().filter(|(_, s)| s == schema).count() == 1;
            alone.then(|| (name.to_string(), new_name.to_string()))
        })
        .collect()
}

/// Keywords whose value is a schema, or an array of schemas, or a map of names to schemas.
const SUBSCHEMA: [&str; 11] = [
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
];
const SUBSCHEMA_ARRAYS: [&str; 4] = ["anyOf", "oneOf", "allOf", "prefixItems"];
const SUBSCHEMA_MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// `schema` with the `title` keyword taken out wherever a schema stands (a property named
/// "title" is kept: it is a name, not the keyword).
fn without_titles(schema: &Value) -> Value {
    let Value::Object(members) = schema else {
        return schema.clone();
    };
    let each = |value: &Value, each: &dyn Fn(&Value) -> Value| match value {
        Value::Array(items) => Value::Array(items.iter().map(each).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(name, schema)| (name.clone(), each(schema)))
                .collect(),
        ),
        other => other.clone(),
    };
    members
        .iter()
        .filter(|(key, _)| key.as_str() != "title")
        .map(|(key, value)| {
            let value = if SUBSCHEMA.contains(&key.as_str()) {
                match value {
                    Value::Array(_) => each(value, &without_titles),
                    _ => without_titles(value),
                }
            } else if SUBSCHEMA_ARRAYS.contains(&key.as_str())
                || SUBSCHEMA_MAPS.contains(&key.as_str())
            {
                each(value, &without_titles)
            } else {
                value.clone()
            };
            (key.clone(), value)
        })
        .collect::<Map<String, Value>>()
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn drift(renamed: &[(&str, &str)]) -> Vec<(String, String)> {
        renamed
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
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

    #[test]
    fn titles_the_sdk_derives_from_a_name_do_not_unprove_a_rename() {
        // What pydantic lists for `get_forecast(city: str)`, then `(location: str)`.
        let pinned = json!({"type": "object", "title": "get_forecastArguments",
            "properties": {"city": {"title": "City", "type": "string"}}, "required": ["city"]});
        let live = json!({"type": "object", "title": "fetch_forecastArguments",
            "properties": {"location": {"title": "Location", "type": "string"}},
            "required": ["location"]});
        assert!(proven(&pinned, &live, &drift(&[("city", "location")])));
        // A parameter named "title" is a name, not the keyword: dropping it is not a title.
        let titled = json!({"type": "object", "properties": {"title": {"type": "string"},
            "n": {"anyOf": [{"type": "integer", "title": "N"}]}}});
        let untitled = json!({"type": "object", "properties": {
            "n": {"anyOf": [{"type": "integer"}]}}});
        assert!(!proven(&titled, &untitled, &drift(&[])));
        let retitled = json!({"type": "object", "properties": {"title": {"type": "string"},
            "n": {"anyOf": [{"type": "integer", "title": "Count"}]}}});
        assert!(proven(&titled, &retitled, &drift(&[])));
        // `city` and `location` share no word, but nothing else tells them apart.
        assert_eq!(paired(&pinned, &live), drift(&[("city", "location")]));
        // Two removed strings and two added: no pairing is proven.
        let two = json!({"properties": {"a": {"type": "string"}, "b": {"type": "string"}}});
        let other_two = json!({"properties": {"c": {"type": "string"}, "d": {"type": "string"}}});
        assert!(paired(&two, &other_two).is_empty());
        // A description is not a title: it may change what a value means.
        let described = json!({"type": "object", "properties": {"title": {"type": "string",
            "description": "in Celsius"}, "n": {"anyOf": [{"type": "integer"}]}}});
        assert!(!proven(&titled, &described, &drift(&[])));
    }
}
