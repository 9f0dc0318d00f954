//! `required-and-types`: emulates checkers that match tools by name and compare only each input
//! schema's `required` list (as a set) and the `type` of each top-level property. Modelled
//! behaviour: fires when either differs for a tool present in both. Blind by construction to
//! enums, constraints, descriptions, annotations, output schemas, added, removed or renamed
//! tools, and order.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::Value;

use crate::check::{Comparison, Finding, Rule, RuleKind, Severity, ToolRef};
use crate::surface::required_names;

pub struct RequiredAndTypes;

type Shape = (BTreeSet<String>, BTreeMap<String, String>);

fn shape(schema: Option<&Value>) -> Shape {
    let required = schema
        .and_then(Value::as_object)
        .map(required_names)
        .unwrap_or_default();
    let types = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|p| {
            p.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.get("type").map_or("any".to_string(), Value::to_string),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    (required, types)
}

impl Rule for RequiredAndTypes {
    fn id(&self) -> &'static str {
        "required-and-types"
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
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        let approved: HashMap<String, Shape> = comparison
            .approved
            .tools()
            .map(|t| (t.label(), shape(t.input_schema())))
            .collect();
        for tool in comparison.candidate.tools() {
            if approved
                .get(&tool.label())
                .is_some_and(|s| *s != shape(tool.input_schema()))
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
