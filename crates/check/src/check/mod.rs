//! Checker rules: the `Rule` trait, findings, severities, gates.
//!
//! A rule looks at a [`Comparison`] (an approved surface and a candidate) and reports findings. It
//! never knows whether it runs inside a study or in the CI gate, nor where the payloads came from.

mod fail_on;
pub mod rules;
pub mod run;

pub use fail_on::{FailOn, TRUST_RULES};
pub use run::{check_each_tool, run_rules, PerTool};

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use driftlab_contract::surface::{Surface, Tool};
use driftlab_contract::text::sha256_hex;
use driftlab_diff::diff::Change;

/// How much a finding matters to a caller of the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// Worth knowing, changes nothing for callers.
    Info,
    /// A change existing callers keep working with.
    Compatible,
    /// Dangerous or prompt-facing: callers keep working, but the model may behave differently.
    Warning,
    /// A change that could not be judged soundly; never passed silently.
    Unknown,
    /// Existing callers or consumers can fail.
    Breaking,
}

impl Severity {
    /// Every severity, most severe first.
    pub const ALL: [Severity; 5] = [
        Severity::Breaking,
        Severity::Unknown,
        Severity::Warning,
        Severity::Compatible,
        Severity::Info,
    ];

    /// How reports, policies and CSV files spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Compatible => "compatible",
            Severity::Warning => "warning",
            Severity::Unknown => "unknown",
            Severity::Breaking => "breaking",
        }
    }

    /// The severity spelled `text`.
    pub fn parse(text: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// The tool a finding is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolRef {
    /// Index in the candidate (or in the approved surface, for a tool that is gone).
    pub index: usize,
    /// The name, `#<index>` when the tool has no string name, or `old -> new` for a rename.
    pub name: String,
}

impl ToolRef {
    /// The reference to `tool`.
    pub fn of(tool: &Tool<'_>) -> ToolRef {
        ToolRef {
            index: tool.index,
            name: tool.label(),
        }
    }
}

/// One thing a rule found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule's id.
    pub rule: &'static str,
    /// Its severity, after any policy.
    pub severity: Severity,
    /// The tool it is about, if one.
    pub tool: Option<ToolRef>,
    /// JSON pointer into the candidate payload (into the approved one when the thing is gone).
    pub pointer: String,
    /// JSON pointer into the approved payload, for diff findings.
    pub old_pointer: Option<String>,
    /// The approved value, shortened to one line.
    pub old: Option<String>,
    /// The candidate value, shortened to one line.
    pub new: Option<String>,
    /// One line, no trailing period.
    pub message: String,
    /// Against a baseline (`check --approved`): whether the approved snapshot already had it.
    pub baseline: Option<Baseline>,
    /// For a change in what a schema accepts: the value that proves it breaks.
    #[serde(skip)]
    pub witness: Option<std::sync::Arc<driftlab_diff::witness::Witness>>,
    /// For a finding outside the tools: what it is about (`prompt "summarize"`, `instructions`,
    /// `capability prompts`), named so that it stays the same across reorders and document shapes.
    pub subject: Option<String>,
}

/// Whether a finding is new or was already in the approved snapshot (SARIF `baselineState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Baseline {
    /// The approved snapshot did not have it.
    New,
    /// The approved snapshot had it already.
    Unchanged,
}

impl Baseline {
    /// How SARIF spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Baseline::New => "new",
            Baseline::Unchanged => "unchanged",
        }
    }
}

impl Finding {
    /// A finding about the candidate alone.
    pub fn at(rule: &dyn Rule, tool: Option<ToolRef>, pointer: String, message: String) -> Finding {
        Finding {
            rule: rule.id(),
            severity: rule.severity(),
            tool,
            pointer,
            old_pointer: None,
            old: None,
            new: None,
            message,
            baseline: None,
            witness: None,
            subject: None,
        }
    }

    /// What the finding is about: its tool's name, or the subject of a finding outside the tools.
    pub fn about(&self) -> Option<&str> {
        match &self.tool {
            Some(t) => Some(&t.name),
            None => self.subject.as_deref(),
        }
    }

    /// A finding that carries only its rule and severity, for a caller that keeps no more (see
    /// [`Comparison::verdict_only`]).
    pub fn verdict(rule: &dyn Rule) -> Finding {
        Finding::at(rule, None, String::new(), String::new())
    }

    /// What the finding is, as 16 hex digits: rule, tool name (both names for a rename), the
    /// paths inside the tool and the values. Never the file pointer, so the same finding keeps
    /// its fingerprint (and its `[[accept]]` waiver) when tools are reordered or the payload is a
    /// capture, a bare result or a JSON-RPC response.
    /// A finding outside the tools is known by its subject instead of its pointers.
    pub fn fingerprint(&self) -> String {
        let tool = self.tool.as_ref().map_or("", |t| t.name.as_str());
        let (about, inside, inside_old) = match &self.subject {
            Some(subject) => (subject.as_str(), "", ""),
            None => (
                tool,
                inside_tool(&self.pointer),
                self.old_pointer.as_deref().map_or("", inside_tool),
            ),
        };
        let parts = [
            self.rule,
            about,
            inside,
            inside_old,
            self.old.as_deref().unwrap_or(""),
            self.new.as_deref().unwrap_or(""),
        ];
        sha256_hex(parts.join("\u{0}").as_bytes())[..16].to_string()
    }
}

/// The part of a payload pointer inside its tool: what follows the first `/tools/<index>`
/// (`/tools/3/inputSchema/required` → `/inputSchema/required`), or what follows `/tools` for a
/// pointer at the list itself; in a bare array of tools, what follows `/<index>`.
pub fn inside_tool(pointer: &str) -> &str {
    let mut at = 0;
    while let Some(found) = pointer[at..].find("/tools") {
        let start = at + found + "/tools".len();
        let rest = &pointer[start..];
        if rest.is_empty() {
            return rest;
        }
        if rest.starts_with('/') {
            return after_index(rest).unwrap_or(rest);
        }
        at = start;
    }
    // A bare array of tools: the tool is the first segment.
    after_index(pointer).unwrap_or(pointer)
}

/// What follows a leading `/<digits>` segment, if the pointer starts with one.
fn after_index(pointer: &str) -> Option<&str> {
    let after = pointer.strip_prefix('/')?;
    let digits = after.bytes().take_while(u8::is_ascii_digit).count();
    let end = &after[digits..];
    (digits > 0 && (end.is_empty() || end.starts_with('/'))).then_some(end)
}

/// What a rule looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleKind {
    /// Checks the candidate payload alone (`driftlab check`).
    Payload,
    /// Compares the candidate with the approved surface (`driftlab check` and `driftlab diff`).
    Diff,
    /// A composite rule of a published study; used by studies only.
    Study,
    /// Judged by `check --lock` from what the lockfile recorded beside the contract.
    Lock,
}

impl RuleKind {
    /// How `driftlab rules` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Payload => "payload",
            RuleKind::Diff => "diff",
            RuleKind::Study => "study",
            RuleKind::Lock => "lock",
        }
    }
}

/// An approved surface and a candidate, with the diff between them computed once, on first use,
/// and shared by every diff rule.
pub struct Comparison<'a> {
    /// The approved surface.
    pub approved: &'a Surface,
    /// The candidate surface.
    pub candidate: &'a Surface,
    changes: OnceLock<Vec<Change>>,
    contract_changes: OnceLock<Vec<driftlab_diff::diff::contract::ContractChange>>,
    /// Whether findings say where and what (tool, pointer, message), or only that they exist.
    detail: bool,
    /// How much the diff proves (witnesses, or only the verdict).
    proving: driftlab_diff::diff::Proving,
}

impl<'a> Comparison<'a> {
    /// A comparison whose findings carry their detail and whose diff proves with witnesses.
    pub fn new(approved: &'a Surface, candidate: &'a Surface) -> Comparison<'a> {
        Comparison {
            approved,
            candidate,
            changes: OnceLock::new(),
            contract_changes: OnceLock::new(),
            detail: true,
            proving: driftlab_diff::diff::Proving::Witnesses,
        }
    }

    /// This comparison, with the diff proving only as much as `proving` asks: a caller that
    /// keeps no witness and counts findings by `--fail-on` (a study's gates) passes
    /// [`rules::diff_rules::proving_for`] of its rules, and its verdicts stay the same.
    pub fn proving(self, proving: driftlab_diff::diff::Proving) -> Comparison<'a> {
        Comparison { proving, ..self }
    }

    /// A comparison for a caller that uses only how many findings each rule reports and their
    /// severity (a study that keeps no pointers): a rule may then leave out the tool, pointer
    /// and message (see [`Comparison::finding`]). The findings are the same in number, rule and
    /// severity.
    pub fn verdict_only(approved: &'a Surface, candidate: &'a Surface) -> Comparison<'a> {
        Comparison {
            detail: false,
            ..Comparison::new(approved, candidate)
        }
    }

    /// Whether findings carry their tool, pointer and message (see [`Comparison::verdict_only`]).
    pub(crate) fn detail(&self) -> bool {
        self.detail
    }

    /// A finding of `rule` about the candidate, with the tool, pointer and message `detail`
    /// builds, when this comparison keeps them (only the rule and severity otherwise).
    pub fn finding(
        &self,
        rule: &dyn Rule,
        detail: impl FnOnce() -> (Option<ToolRef>, String, String),
    ) -> Finding {
        if !self.detail {
            return Finding::verdict(rule);
        }
        let (tool, pointer, message) = detail();
        Finding::at(rule, tool, pointer, message)
    }

    /// Every change between the two surfaces, in approved-tool order.
    pub fn changes(&self) -> &[Change] {
        self.changes.get_or_init(|| {
            driftlab_diff::diff::compare_proving(self.approved, self.candidate, self.proving)
        })
    }

    /// Every change in the contract beyond tools (prompts, resources, instructions,
    /// capabilities), when the approved document recorded it.
    pub(crate) fn contract_changes(&self) -> &[driftlab_diff::diff::contract::ContractChange] {
        self.contract_changes.get_or_init(|| {
            driftlab_diff::diff::contract::compare(
                self.approved.contract(),
                self.candidate.contract(),
            )
        })
    }
}

/// A checker rule. Implementations are listed in [`rules::registry`].
pub trait Rule: Sync {
    /// Stable kebab-case id, used in specs, CSV files, policies and CI output.
    fn id(&self) -> &'static str;
    /// The severity of its findings, before any policy.
    fn severity(&self) -> Severity;
    /// What it judges: a payload alone, a pair, a study's composite, or a lockfile entry.
    fn kind(&self) -> RuleKind;
    /// One line for `driftlab rules` and the rule table of docs/checkers.md.
    fn summary(&self) -> &'static str;
    /// Where in the MCP specification (or elsewhere) the rule comes from.
    fn source(&self) -> &'static str;
    /// The rule set the rule joined: the day it landed (`YYYY-MM-DD`), shared by the rules that
    /// land that day. A new rule names a new date, never an existing set's, and a rule's date
    /// never changes: a study pinned with `rule_set` then keeps its results (`rules::sets`).
    fn added_in(&self) -> &'static str;
    /// Which part of a server's contract the rule looks at: `tools`, `prompts`, `resources` or
    /// `server` (instructions and capabilities).
    fn part(&self) -> &'static str {
        "tools"
    }
    /// The protocol versions the rule applies to (`all`, or a range such as
    /// `2025-06-18…2025-11-25`).
    fn era(&self) -> &'static str {
        "all"
    }
    /// The client profile an opt-in rule belongs to (`--profile NAME`); `None` for the rules
    /// every gate runs.
    fn profile(&self) -> Option<&'static str> {
        None
    }
    /// Adds what it finds in `comparison` to `out`.
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>);
    /// A rule that judges each candidate tool alone says so here (see [`PerTool`]).
    fn per_tool(&self) -> Option<&dyn PerTool> {
        None
    }
    /// Whether the rule parses or walks the changed tools' schemas (itself or through the
    /// shared diff), where the others glance at names and raw texts: a caller that needs only
    /// a gate's verdict runs these last, and not at all once a cheaper rule decided it.
    fn heavy(&self) -> bool {
        false
    }
}

/// Shown by id (a spec's `Debug` lists its classes and rules).
impl std::fmt::Debug for dyn Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::inside_tool;

    #[test]
    fn pointers_inside_a_tool_lose_the_file_shape_and_the_index() {
        for (pointer, inside) in [
            ("/tools/3/inputSchema/required", "/inputSchema/required"),
            ("/toolsList/tools/12/name", "/name"),
            ("/result/tools/0", ""),
            (
                "/2/result/tools/7/inputSchema/properties/tools/1",
                "/inputSchema/properties/tools/1",
            ),
            ("/toolsList/tools", ""),
            ("", ""),
            ("/4/inputSchema", "/inputSchema"),
            ("/x", "/x"),
        ] {
            assert_eq!(inside_tool(pointer), inside, "{pointer}");
        }
    }
}
