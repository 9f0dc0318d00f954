//! `sorted-hash`: emulates the snapshot strategy of published drift tools that hash each tool's
//! name, description and input schema, sort tools by name, and coerce a missing or `null` schema
//! to `{}`. Modelled behaviour: fires when the sorted list of (name, hash) pairs differs. Blind by
//! construction to tool order, to `outputSchema`, `title` and annotations, and to a schema that
//! was `{}` becoming missing or `null`.

use serde_json::Value;

use crate::check::{Comparison, Finding, Rule, RuleKind, Severity};
use crate::surface::{sha256_hex, Surface, Tool};

pub struct SortedHash;

/// (name, hash of name + description + canonical input schema) of the given tools, sorted.
fn digest<'a>(tools: impl Iterator<Item = Tool<'a>>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = tools
        .map(|t| {
            let schema = match t.input_schema() {
                None | Some(Value::Null) => Value::Object(Default::default()),
                Some(s) => s.clone(),
            };
            let text = format!(
                "{}\u{0}{}\u{0}{}",
                t.label(),
                t.get("description").and_then(Value::as_str).unwrap_or(""),
                canonical(&schema)
            );
            (t.label(), sha256_hex(text.as_bytes()))
        })
        .collect();
    out.sort();
    out
}

/// JSON with object keys sorted at every level, so key order never changes a hash.
pub(crate) fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let items: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), canonical(&map[k])))
                .collect();
            format!("{{{}}}", items.join(","))
        }
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

/// Which tools of each side have no partner with the same bytes and a string name on the other
/// (partners are matched one to one). An unnamed tool's entry depends on its index: never matched.
fn unmatched_tools(approved: &Surface, candidate: &Surface) -> (Vec<bool>, Vec<bool>) {
    let mut keep_approved = vec![true; approved.len()];
    let mut keep_candidate = vec![true; candidate.len()];
    // Partners have the same bytes, so both are named or neither is.
    let partners = candidate.same_text_partners(approved);
    for (tool, partner) in candidate.tools().zip(partners) {
        if let (Some(partner), Some(_)) = (partner, tool.name_str()) {
            keep_approved[partner] = false;
            keep_candidate[tool.index] = false;
        }
    }
    (keep_approved, keep_candidate)
}

impl Rule for SortedHash {
    fn id(&self) -> &'static str {
        "sorted-hash"
    }
    fn severity(&self) -> Severity {
        Severity::Breaking
    }
    fn kind(&self) -> RuleKind {
        RuleKind::Study
    }
    fn summary(&self) -> &'static str {
        "emulation: per-tool hash of name, description and input schema (missing/null coerced to {}), tools sorted by name"
    }
    fn source(&self) -> &'static str {
        "behaviour of published hash-snapshot drift tools, written from their description (see the taxonomy study's METHOD.md)"
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        let (approved, candidate) = (comparison.approved, comparison.candidate);
        // A named tool with the same bytes on both sides has the same entry on both, and equal
        // entries cancel out of the two sorted lists: only the other tools are hashed.
        let (keep_approved, keep_candidate) = unmatched_tools(approved, candidate);
        let side = |s: &'_ Surface, keep: &[bool]| digest(s.tools().filter(|t| keep[t.index]));
        if side(approved, &keep_approved) != side(candidate, &keep_candidate) {
            out.push(Finding::at(
                self,
                None,
                "/tools".into(),
                "sorted per-tool hashes differ from the snapshot".into(),
            ));
        }
    }
}
