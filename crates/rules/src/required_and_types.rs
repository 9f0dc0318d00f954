//! `required-and-types`: emulates checkers that match tools by name and compare only each input
//! schema's `required` list (as a set) and the `type` of each top-level property. Modelled
//! behaviour: fires when either differs for a tool present in both. Blind by construction to
//! enums, constraints, descriptions, annotations, output schemas, added, removed or renamed
//! tools, and order.

use std::collections::BTreeSet;

use serde_json::Value;

use driftlab_check::check::{Comparison, Finding, Rule, RuleKind, Severity, ToolRef};
use driftlab_contract::lookup::Lookup;
use driftlab_contract::surface::required_names;

pub(crate) struct RequiredAndTypes;

/// What the emulated checkers compare of an input schema: the set of required names (strings
/// of `required`, sorted, once each) and each top-level property's `type` as written (by
/// property name, sorted). Borrowed from the schema: a study builds two per changed tool.
#[derive(PartialEq)]
struct Shape<'a> {
    required: BTreeSet<&'a str>,
    types: Vec<(&'a str, TypeText<'a>)>,
}

/// A property's `type` as its JSON text compares: absent, a string (whose text is equal
/// exactly when the strings are), or any other value's text (never equal to a string's).
#[derive(PartialEq)]
enum TypeText<'a> {
    Absent,
    Name(&'a str),
    Other(String),
}

fn shape(schema: Option<&Value>) -> Shape<'_> {
    let required = schema
        .and_then(Value::as_object)
        .map(required_names)
        .unwrap_or_default();
    // Keys of a map are unique: sorting them orders the pairs.
    let mut types: Vec<(&str, TypeText<'_>)> = schema
        .and_then(|s| s.field("properties"))
        .and_then(Value::as_object)
        .map(|p| {
            p.iter()
                .map(|(k, v)| {
                    let text = match v.field("type") {
                        None => TypeText::Absent,
                        Some(Value::String(name)) => TypeText::Name(name),
                        Some(other) => TypeText::Other(other.to_string()),
                    };
                    (k.as_str(), text)
                })
                .collect()
        })
        .unwrap_or_default();
    types.sort_unstable_by(|a, b| a.0.cmp(b.0));
    Shape { required, types }
}

impl Rule for RequiredAndTypes {
    fn id(&self) -> &'static str {
        "required-and-types"
    }
    fn added_in(&self) -> &'static str {
        "2026-11-30"
    }
    fn severity(&self) -> Severity {
        Severity::Breaking
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Study
    }
    fn summary(&self) -> &'static str {
        "emulation: tools by name; compares only required lists and top-level parameter types"
    }
    fn source(&self) -> &'static str {
        "behaviour of schema-compatibility checkers limited to required and type, written from that description (see the taxonomy study's METHOD.md)"
    }
    fn heavy(&self) -> bool {
        // It parses each changed inputSchema.
        true
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        // Tools by name, the last of a repeated name winning; shapes are computed only for
        // candidate tools whose inputSchema text differs from their approved namesake's (equal
        // texts have equal shapes).
        let approved = crate::ByLabel::new(comparison.approved);
        for tool in comparison.candidate.tools() {
            let Some(namesake) = approved.get(&tool.label_ref()) else {
                continue;
            };
            if namesake.raw_field("inputSchema") != tool.raw_field("inputSchema")
                && shape(namesake.input_schema()) != shape(tool.input_schema())
            {
                out.push(Finding::at(
                    self,
                    Some(ToolRef::of(&tool)),
                    tool.pointer("inputSchema"),
                    "required list or parameter types differ".into(),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlab_contract::payload;
    use serde_json::json;

    fn check(approved: Value, candidate: Value) -> usize {
        let a = payload::from_value(approved, "a").unwrap();
        let c = payload::from_value(candidate, "c").unwrap();
        let mut out = Vec::new();
        RequiredAndTypes.check(&Comparison::new(&a, &c), &mut out);
        out.len()
    }

    fn tool(name: &str, kind: &str, required: bool) -> Value {
        let required: Vec<&str> = if required { vec!["x"] } else { vec![] };
        json!({"name": name, "inputSchema": {"type": "object",
            "properties": {"x": {"type": kind}}, "required": required}})
    }

    #[test]
    fn flags_a_changed_type_or_required_list_and_ignores_the_rest() {
        let base = json!([tool("a", "string", true), tool("b", "string", false)]);
        assert_eq!(check(base.clone(), base.clone()), 0);
        let narrowed = json!([tool("a", "integer", true), tool("b", "string", false)]);
        assert_eq!(check(base.clone(), narrowed), 1);
        let required = json!([tool("a", "string", true), tool("b", "string", true)]);
        assert_eq!(check(base.clone(), required), 1);
        // Descriptions are outside what it compares; so is a tool without a namesake.
        let mut described = base.clone();
        described[0]["description"] = json!("new words");
        assert_eq!(check(base.clone(), described), 0);
        let renamed = json!([tool("c", "integer", false), tool("b", "string", false)]);
        assert_eq!(check(base, renamed), 0);
    }

    #[test]
    fn a_repeated_name_compares_with_its_last_approved_tool() {
        let approved = json!([tool("a", "string", true), tool("a", "integer", true)]);
        // Byte-identical to the first approved `a`, but the last one is the namesake.
        assert_eq!(
            check(approved.clone(), json!([tool("a", "string", true)])),
            1
        );
        assert_eq!(check(approved, json!([tool("a", "integer", true)])), 0);
    }

    /// The shape as first written, with owned sets and each type's JSON text ("any" when absent).
    type OwnedShape = (
        std::collections::BTreeSet<String>,
        std::collections::BTreeMap<String, String>,
    );
    fn owned_shape(schema: Option<&Value>) -> OwnedShape {
        let required = schema
            .and_then(Value::as_object)
            .map(|s| driftlab_contract::surface::required_names(s).into_iter().map(String::from).collect())
            .unwrap_or_default();
        let types = schema
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object)
            .map(|p| {
                let text = |v: &Value| v.get("type").map_or("any".to_string(), Value::to_string);
                p.iter().map(|(k, v)| (k.clone(), text(v))).collect()
            })
            .unwrap_or_default();
        (required, types)
    }

    /// Borrowed shapes compare as the owned ones did: every input schema of the real and
    /// generated bases against itself changed by every class, and schemas on the edges.
    #[test]
    fn borrowed_shapes_compare_as_owned_ones() {
        let schemas = |surface: &Value| -> Vec<Option<Value>> {
            let tools = surface["tools"].as_array().cloned().unwrap_or_default();
            tools.iter().map(|t| t.get("inputSchema").cloned()).collect()
        };
        let mut pairs = Vec::new();
        for (base, changed) in crate::mutated_pairs::mutated_pairs(9, 40) {
            pairs.extend(schemas(&base).into_iter().zip(schemas(&changed)));
        }
        let edges = [
            json!({"required": ["a", "b", "a", 3]}),
            json!({"required": ["b", "a"]}),
            json!({"properties": {"a": {"type": "any"}}}),
            json!({"properties": {"a": {}}}),
            json!({"properties": {"a": {"type": ["string", "null"]}}}),
            json!({"properties": {"a": {"type": ["null", "string"]}}}),
            json!({"properties": {"a": {"type": "string"}}}),
            json!({"properties": {"a": true, "b": {"type": 1.0}}}),
            json!({"properties": {"a": true, "b": {"type": 1}}}),
            json!([]),
            json!(null),
        ];
        for a in &edges {
            for b in &edges {
                pairs.push((Some(a.clone()), Some(b.clone())));
            }
            pairs.push((Some(a.clone()), None));
        }
        let mut differ = 0;
        for (a, b) in &pairs {
            let owned = owned_shape(a.as_ref()) != owned_shape(b.as_ref());
            assert_eq!(shape(a.as_ref()) != shape(b.as_ref()), owned, "{a:?} against {b:?}");
            differ += usize::from(owned);
        }
        assert!(differ > 200 && pairs.len() - differ > 1000, "{differ} of {}", pairs.len());
    }
}
