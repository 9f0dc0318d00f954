//! What the guard keeps of the diff between the pin and the live list, per pinned tool: the
//! messages it quotes, and the facts a refusal turns into what to send instead (a parameter's
//! new name, the tool's new name) or that refuse mode fails closed on (a change to a parameter
//! that could not be judged).

use std::collections::HashMap;

use crate::check::{Finding, Severity};
use crate::verdict::FailOn;

/// The breaking (or unjudged) drift of one pinned tool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ToolDrift {
    /// The findings' messages, as the audit log and refusals quote them.
    pub messages: Vec<String>,
    /// Top-level parameters renamed: old name → new name.
    pub renamed: Vec<(String, String)>,
    /// The tool's new name, where the tool was renamed.
    pub renamed_to: Option<String>,
    /// Top-level parameters (pinned names) whose change could not be judged; `None` in the list
    /// stands for the input schema as a whole.
    pub unjudged: Vec<Option<String>>,
    /// The live listing names the tool more than once (`tool-duplicated`).
    pub duplicated: bool,
}

impl ToolDrift {
    /// Whether a call touches a change that could not be judged; `touches` says whether it
    /// touches a (pinned) parameter.
    pub(crate) fn unjudged_for(&self, touches: impl Fn(&str) -> bool) -> bool {
        self.unjudged
            .iter()
            .any(|p| p.as_ref().is_none_or(|name| touches(name)))
    }
}

/// The breaking and unjudged findings, by the pinned name of the tool they concern.
pub fn by_tool(findings: &[Finding]) -> HashMap<String, ToolDrift> {
    let mut drift: HashMap<String, ToolDrift> = HashMap::new();
    for finding in findings {
        if !FailOn::Breaking.fails(finding.severity) {
            continue;
        }
        let name = finding.tool.as_ref().map(|t| t.name.as_str()).unwrap_or("");
        let (tool, new_name) = match name.split_once(" -> ") {
            Some((old, new)) => (old, Some(new)),
            None => (name, None),
        };
        let entry = drift.entry(tool.to_string()).or_default();
        entry.messages.push(finding.message.clone());
        match finding.rule {
            "tool-renamed" => entry.renamed_to = new_name.map(String::from),
            "tool-duplicated" => entry.duplicated = true,
            "parameter-renamed" => {
                let names = (string(&finding.old), string(&finding.new));
                let top = finding.old_pointer.as_deref().and_then(parameter);
                if let ((Some(old), Some(new)), Some((at, true))) = (names, top) {
                    if at == old {
                        entry.renamed.push((old, new));
                    }
                }
            }
            _ => {}
        }
        if finding.severity == Severity::Unknown {
            let at = finding.old_pointer.as_deref().unwrap_or(&finding.pointer);
            if let Some(input) = at.split_once("/inputSchema").map(|(_, rest)| rest) {
                let param = parameter(at).map(|(name, _)| name);
                if param.is_some() || !input.starts_with("/properties") {
                    entry.unjudged.push(param);
                }
            }
        }
    }
    drift
}

/// The trust rules (`--fail-on trust`) each pinned tool's change fired, by pinned tool name, in
/// the order they fired.
pub(crate) fn lowered_trust(findings: &[Finding]) -> HashMap<String, Vec<&'static str>> {
    let mut lowered: HashMap<String, Vec<&'static str>> = HashMap::new();
    for finding in findings {
        if !crate::check::TRUST_RULES.contains(&finding.rule) {
            continue;
        }
        let name = finding.tool.as_ref().map(|t| t.name.as_str()).unwrap_or("");
        let tool = name.split(" -> ").next().unwrap_or(name);
        let rules = lowered.entry(tool.to_string()).or_default();
        if !rules.contains(&finding.rule) {
            rules.push(finding.rule);
        }
    }
    lowered
}

/// A finding's old or new value when it is a JSON string (a name).
fn string(value: &Option<String>) -> Option<String> {
    serde_json::from_str(value.as_deref()?).ok()
}

/// The top-level parameter a pointer into a tool is under, and whether it points at the
/// parameter itself (`/…/inputSchema/properties/NAME`) rather than inside it.
fn parameter(pointer: &str) -> Option<(String, bool)> {
    let (_, rest) = pointer.split_once("/inputSchema/properties/")?;
    let (segment, inside) = match rest.split_once('/') {
        Some((segment, _)) => (segment, true),
        None => (rest, false),
    };
    Some((segment.replace("~1", "/").replace("~0", "~"), !inside))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pointer_names_its_top_level_parameter() {
        assert_eq!(
            parameter("/0/inputSchema/properties/city"),
            Some(("city".into(), true))
        );
        assert_eq!(
            parameter("/tools/2/inputSchema/properties/a~1b/items/type"),
            Some(("a/b".into(), false))
        );
        assert_eq!(parameter("/0/outputSchema/properties/x"), None);
    }
}
