//! What a breaking pair breaks, told by its most sweeping breaking finding: a tool, or a path
//! every call carries, removed or renamed (every caller of it breaks); values narrowed (some
//! calls are refused); an output changed; another part of the contract.

use serde::Serialize;
use serde_json::Value;

use driftlab_check::check::{Finding, Severity};
use driftlab_contract::surface::Surface;

/// What a breaking pair breaks, the most sweeping first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BreakKind {
    /// A tool gone or renamed, a new parameter every call must carry, or one every call
    /// carried removed or renamed: every caller of that tool breaks.
    Removed,
    /// A value, type, enum member, bound or optional parameter no longer accepted: the calls
    /// that send it break.
    Narrowed,
    /// An output may now carry what consumers did not expect.
    Output,
    /// Prompts, resources, capabilities or instructions.
    Other,
}

impl BreakKind {
    /// How the tables spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            BreakKind::Removed => "removed",
            BreakKind::Narrowed => "narrowed",
            BreakKind::Output => "output",
            BreakKind::Other => "other",
        }
    }
}

/// The most sweeping kind among `findings`' breaking ones (`old`: the older release, to read
/// whether a removed or renamed parameter was required).
pub(crate) fn break_kind(findings: &[Finding], old: &Surface) -> Option<BreakKind> {
    let mut document: Option<Value> = None;
    findings
        .iter()
        .filter(|f| f.severity == Severity::Breaking)
        .map(|f| kind_of(f, old, &mut document))
        .min()
}

fn kind_of(finding: &Finding, old: &Surface, document: &mut Option<Value>) -> BreakKind {
    let pointer = finding.old_pointer.as_deref().unwrap_or(&finding.pointer);
    match finding.rule {
        "tool-removed" | "tool-renamed" | "required-parameter-added" | "input-schema-replaced" => {
            BreakKind::Removed
        }
        "parameter-removed" | "parameter-renamed" => {
            let document = document
                .get_or_insert_with(|| serde_json::from_str(old.text()).unwrap_or(Value::Null));
            if was_required(document, pointer) {
                BreakKind::Removed
            } else {
                BreakKind::Narrowed
            }
        }
        rule if rule.starts_with("output-") || pointer.contains("/outputSchema") => {
            BreakKind::Output
        }
        _ if finding.tool.is_some() => BreakKind::Narrowed,
        _ => BreakKind::Other,
    }
}

/// Whether the property at `pointer` (`…/properties/NAME`) is listed in its object's `required`.
fn was_required(document: &Value, pointer: &str) -> bool {
    let Some((object, name)) = pointer.rsplit_once('/') else {
        return false;
    };
    let Some(object) = object.strip_suffix("/properties") else {
        return false;
    };
    let name = name.replace("~1", "/").replace("~0", "~");
    document
        .pointer(object)
        .and_then(|o| o.get("required"))
        .and_then(Value::as_array)
        .is_some_and(|r| r.iter().any(|n| n.as_str() == Some(name.as_str())))
}

#[cfg(test)]
mod tests {
    use super::was_required;

    #[test]
    fn a_parameter_is_required_where_its_object_lists_it() {
        let document = serde_json::json!({"toolsList": {"tools": [{"inputSchema": {
            "type": "object", "properties": {"path": {}, "a/b": {}, "x": {}},
            "required": ["path", "a/b"]}}]}});
        let at = |name: &str| format!("/toolsList/tools/0/inputSchema/properties/{name}");
        assert!(was_required(&document, &at("path")));
        assert!(was_required(&document, &at("a~1b")));
        assert!(!was_required(&document, &at("x")));
        assert!(!was_required(&document, "/toolsList/tools/0/name"));
    }
}
