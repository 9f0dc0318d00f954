//! `sorted-hash`: emulates the snapshot strategy of published drift tools that hash each tool's
//! name, description and input schema, sort tools by name, and coerce a missing or `null` schema
//! to `{}`. Modelled behaviour: fires when the sorted list of (name, hash) pairs differs. Blind by
//! construction to tool order, to `outputSchema`, `title` and annotations, and to a schema that
//! was `{}` becoming missing or `null`.

use serde_json::Value;

use crate::check::{Comparison, Finding, Rule, RuleKind, Severity};
use crate::surface::{sha256_hex, Surface};

pub struct SortedHash;

/// (name, hash of name + description + canonical input schema), sorted by name.
fn digest(surface: &Surface) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = surface
        .tools()
        .map(|t| {
            let schema = match t.input_schema() {
                None | Some(Value::Null) => Value::Object(Default::default()),
                Some(s) => s.clone(),
            };
            let text = format!(
                "{}\u{0}{}\u{0}{}",
                t.label(),
                t.fields
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or(""),
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
        if digest(comparison.approved) != digest(comparison.candidate) {
            out.push(Finding::at(
                self,
                None,
                "/tools".into(),
                "sorted per-tool hashes differ from the snapshot".into(),
            ));
        }
    }
}
