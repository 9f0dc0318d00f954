//! Output-contract enforceability: does a tool's outputSchema reject a corrupted but well-typed
//! answer? Every corrupted variant (see [`super::corrupt`]) is validated with the `jsonschema`
//! crate, format assertions on.

use serde::Serialize;
use serde_json::Value;

use super::corrupt::{corruptions, Leaf};
use driftlab_contract::contract::validator;
use driftlab_contract::rng::Stream;

/// Keywords that constrain values (not only shapes): without any of them a schema cannot tell a
/// right answer from a wrong one of the same shape.
const VALUE_KEYWORDS: [&str; 17] = [
    "enum",
    "const",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minProperties",
    "maxProperties",
];

/// How far an outputSchema holds a server to its answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Every corrupted leaf, in every variant, is rejected.
    Enforceable,
    /// Every variant is rejected, but some leaves are not guarded.
    Partial,
    /// Some corrupted instance is accepted.
    Vacuous,
    /// The validator cannot compile the schema.
    Invalid,
}

/// What the corrupted answers showed about one outputSchema.
#[derive(Debug, Clone, Serialize)]
pub struct OutputVerdict {
    /// How far it holds.
    pub class: Class,
    /// Why, in words.
    pub reasons: Vec<String>,
    /// Corrupted leaves no validation error points at (instance pointers, deduplicated).
    pub unguarded: Vec<String>,
    /// Corrupted leaves tried.
    pub leaves: usize,
    /// Variants (union branches taken) tried.
    pub variants: usize,
    /// The value-level keywords the schema uses anywhere.
    pub value_keywords: Vec<&'static str>,
}

/// Judges one outputSchema.
pub fn judge(schema: &Value, rng: &mut Stream) -> OutputVerdict {
    let value_keywords = value_keywords(schema);
    let validator = match validator(schema) {
        Ok(v) => v,
        Err(message) => {
            return OutputVerdict {
                class: Class::Invalid,
                reasons: vec![format!("the validator cannot compile it: {message}")],
                unguarded: Vec::new(),
                leaves: 0,
                variants: 0,
                value_keywords,
            }
        }
    };
    let variants = corruptions(schema, rng);
    let mut accepted = None;
    let mut unguarded: Vec<&Leaf> = Vec::new();
    let mut leaves = 0;
    for variant in &variants {
        leaves += variant.leaves.len();
        let rejected = |instance: &Value| validator.iter_errors(instance).next().is_some();
        if !rejected(&variant.instance) && accepted.is_none() {
            accepted = Some(variant);
        }
        // Exact attribution: each leaf corrupted alone in an instance that is otherwise valid.
        let uncorrupted = variant.uncorrupted().filter(|i| !rejected(i));
        let errors: Vec<String> = if uncorrupted.is_none() {
            validator
                .iter_errors(&variant.instance)
                .map(|e| e.instance_path().as_str().to_string())
                .collect()
        } else {
            Vec::new()
        };
        for (i, leaf) in variant.leaves.iter().enumerate() {
            let guarded = match &uncorrupted {
                Some(valid) => variant
                    .with_one_corrupted(valid, i)
                    .is_some_and(|instance| rejected(&instance)),
                // No valid instance is known (a `pattern` without examples): fall back to where
                // the all-corrupted instance's errors point, the leaf or an enclosing node.
                None => errors.iter().any(|at| {
                    at.is_empty() || leaf.path == *at || leaf.path.starts_with(&format!("{at}/"))
                }),
            };
            if !guarded && !unguarded.iter().any(|l| l.path == leaf.path) {
                unguarded.push(leaf);
            }
        }
    }
    let unguarded_paths: Vec<String> = unguarded.iter().map(|l| l.path.clone()).collect();
    let (class, mut reasons) = match accepted {
        Some(variant) => {
            let mut reasons = vec![format!(
                "accepts a corrupted answer{}",
                if variant.choices.is_empty() {
                    String::new()
                } else {
                    format!(" (union branches {:?})", variant.choices)
                }
            )];
            reasons.push(if value_keywords.is_empty() {
                "no value-level keyword on any leaf (no enum, const, pattern, format, bounds, \
                 lengths): it fixes the shape, not the values"
                    .into()
            } else {
                format!(
                    "its value-level keywords ({}) do not reject the corrupted values",
                    value_keywords.join(", ")
                )
            });
            (Class::Vacuous, reasons)
        }
        None if unguarded.is_empty() => (
            Class::Enforceable,
            vec![format!(
                "rejects every corrupted leaf ({leaves} in {} variant(s))",
                variants.len()
            )],
        ),
        None => (
            Class::Partial,
            vec![format!(
                "rejects every corrupted answer, but not because of {} of {leaves} leaves",
                unguarded.len()
            )],
        ),
    };
    for leaf in unguarded.iter().take(5) {
        reasons.push(format!(
            "unguarded: {} ({})",
            display_path(&leaf.path),
            leaf.how
        ));
    }
    if unguarded.len() > 5 {
        reasons.push(format!(
            "… and {} more unguarded leaves",
            unguarded.len() - 5
        ));
    }
    OutputVerdict {
        class,
        reasons,
        unguarded: unguarded_paths,
        leaves,
        variants: variants.len(),
        value_keywords,
    }
}

fn display_path(path: &str) -> &str {
    if path.is_empty() {
        "/"
    } else {
        path
    }
}

/// The value-level keywords used anywhere in `schema`, in [`VALUE_KEYWORDS`] order.
fn value_keywords(schema: &Value) -> Vec<&'static str> {
    let mut found = [false; VALUE_KEYWORDS.len()];
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    // Inside `properties` (and `$defs`) the keys are names, not keywords.
                    let names = matches!(
                        key.as_str(),
                        "properties" | "$defs" | "definitions" | "patternProperties"
                    );
                    if !names {
                        if let Some(i) = VALUE_KEYWORDS.iter().position(|k| k == key) {
                            found[i] = true;
                        }
                        stack.push(child);
                    } else if let Value::Object(named) = child {
                        stack.extend(named.values());
                    }
                }
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    VALUE_KEYWORDS
        .iter()
        .zip(found)
        .filter(|(_, f)| *f)
        .map(|(k, _)| *k)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn class(schema: Value) -> (Class, Vec<String>) {
        let v = judge(&schema, &mut Stream::derive(7, "test", 0));
        (v.class, v.unguarded)
    }

    #[test]
    fn the_four_classes() {
        let enforceable = json!({"type": "object", "properties": {
            "status": {"enum": ["ok", "failed"]},
            "count": {"type": "integer", "minimum": 0, "maximum": 10},
            "when": {"type": "string", "format": "date-time"}
        }});
        assert_eq!(class(enforceable), (Class::Enforceable, vec![]));
        let vacuous = json!({"type": "object", "properties": {"result": {"type": "string"}}});
        assert_eq!(class(vacuous).0, Class::Vacuous);
        let partial = json!({"type": "object", "properties": {
            "status": {"enum": ["ok"]}, "note": {"type": "string"}
        }});
        assert_eq!(class(partial), (Class::Partial, vec!["/note".to_string()]));
        assert_eq!(class(json!({"type": "nonsense"})).0, Class::Invalid);
    }

    #[test]
    fn every_union_branch_is_judged() {
        // The first branch is guarded, the second is not: a first-branch-only scan says
        // "enforceable"; judging every branch finds the hole.
        let schema = json!({"type": "object", "properties": {
            "v": {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "number"}]}
        }});
        assert_eq!(class(schema).0, Class::Vacuous);
    }

    #[test]
    fn a_guarded_sibling_inside_a_union_does_not_guard_its_neighbours() {
        // The union fails as a whole when `type` is corrupted; corrupting `data` alone passes.
        let schema = json!({"type": "object", "properties": {"content": {"type": "array", "items": {"anyOf": [
            {"type": "object", "properties": {"type": {"enum": ["image"]}, "data": {"type": "string"}},
             "required": ["type", "data"], "additionalProperties": false},
            {"type": "object", "properties": {"type": {"const": "text"}, "text": {"type": "string", "minLength": 1}},
             "required": ["type", "text"], "additionalProperties": false}
        ]}}}});
        let (class, unguarded) = class(schema);
        assert_eq!(class, Class::Partial);
        assert_eq!(unguarded, ["/content/0/data", "/content/0/text"]);
    }

    #[test]
    fn vacuous_schemas_say_why() {
        let v = judge(
            &json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            &mut Stream::derive(1, "t", 0),
        );
        assert!(
            v.reasons[1].starts_with("no value-level keyword on any leaf"),
            "{:?}",
            v.reasons
        );
        let v = judge(
            &json!({"type": "object", "properties": {"a": {"type": "string", "maxLength": 100}}}),
            &mut Stream::derive(1, "t", 0),
        );
        assert_eq!(
            v.reasons[1],
            "its value-level keywords (maxLength) do not reject the corrupted values"
        );
    }
}
