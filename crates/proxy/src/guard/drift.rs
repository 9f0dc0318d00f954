//! What the guard keeps of the diff between the pin and the live list, per pinned tool: each
//! change as a refusal may say it (by kind, or quoting the server: [`ServerWords`]), and the
//! facts a refusal turns into what to send instead (a parameter's new name, the tool's new
//! name) or that refuse mode fails closed on (a change to a parameter that could not be
//! judged).

use std::collections::HashMap;

use super::words::{self, ServerWords};
use driftlab_check::check::{Finding, Severity};
use driftlab_check::verdict::FailOn;
use driftlab_contract::contract::Contract;

/// One breaking (or unjudged) change of a pinned tool, as a refusal may say it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    /// The finding's message: it quotes the server's new names, values and text.
    pub message: String,
    /// The change by kind alone: the rule and what it means, at the pinned parameter it is at.
    pub kind: String,
    /// The pinned top-level parameter the change is at, where it is at one the pin has.
    pub param: Option<String>,
}

impl Change {
    /// The change as a refusal says it.
    pub(crate) fn said(&self, words: ServerWords) -> String {
        match words {
            ServerWords::Kinds => self.kind.clone(),
            ServerWords::Quoted => words::quoted(&self.message),
        }
    }
}

/// The breaking (or unjudged) drift of one pinned tool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ToolDrift {
    /// The changes, in the order the diff found them.
    pub changes: Vec<Change>,
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
    /// Every change as a refusal says it, each once.
    pub(crate) fn said(&self, words: ServerWords) -> Vec<String> {
        let mut said: Vec<String> = Vec::new();
        for change in &self.changes {
            let line = change.said(words);
            if !said.contains(&line) {
                said.push(line);
            }
        }
        said
    }

    /// The changes about the pinned parameter `name`: by kind, those at it; quoting, those
    /// whose message names it.
    pub(crate) fn about(&self, name: &str, words: ServerWords) -> Vec<String> {
        let quoted = format!("\"{name}\"");
        self.changes
            .iter()
            .filter(|c| match words {
                ServerWords::Kinds => c.param.as_deref() == Some(name),
                ServerWords::Quoted => c.message.contains(&quoted),
            })
            .map(|c| c.said(words))
            .collect()
    }

    /// Whether a call touches a change that could not be judged; `touches` says whether it
    /// touches a (pinned) parameter.
    pub(crate) fn unjudged_for(&self, touches: impl Fn(&str) -> bool) -> bool {
        self.unjudged
            .iter()
            .any(|p| p.as_ref().is_none_or(|name| touches(name)))
    }
}

/// The breaking and unjudged findings, by the pinned name of the tool they concern (`pinned`:
/// the pinned tools' contracts, which say what a change may be named by).
pub fn by_tool(
    findings: &[Finding],
    pinned: &HashMap<String, Contract>,
) -> HashMap<String, ToolDrift> {
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
        entry.changes.push(change(finding, pinned.get(tool)));
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

/// A finding as a [`Change`]: its kind names the pinned parameter it is at only where the pin
/// has that parameter.
fn change(finding: &Finding, pinned: Option<&Contract>) -> Change {
    let at = finding.old_pointer.as_deref().unwrap_or(&finding.pointer);
    let param = parameter(at).map(|(name, _)| name).filter(|name| {
        pinned
            .and_then(|c| c.params.as_ref())
            .is_some_and(|p| p.contains(name))
    });
    let summary = driftlab_check::check::rules::by_id(finding.rule).map_or("", |r| r.summary());
    let kind = match &param {
        Some(name) => format!("{}: {} ({summary})", words::name(name), finding.rule),
        None => format!("{} ({summary})", finding.rule),
    };
    Change {
        message: finding.message.clone(),
        kind,
        param,
    }
}

/// The trust rules (`--fail-on trust`) each pinned tool's change fired, by pinned tool name, in
/// the order they fired.
pub(crate) fn lowered_trust(findings: &[Finding]) -> HashMap<String, Vec<&'static str>> {
    let mut lowered: HashMap<String, Vec<&'static str>> = HashMap::new();
    for finding in findings {
        if !driftlab_check::check::TRUST_RULES.contains(&finding.rule) {
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
