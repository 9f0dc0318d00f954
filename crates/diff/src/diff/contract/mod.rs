//! The contract diff: compares what two documents recorded of a server's contract beyond tools
//! (prompts, resources, resource templates, instructions, capabilities), each change tagged with
//! the [`ContractChangeKind`] whose rule reports it (`check::rules::contract_rules`). Computed
//! once per comparison and shared by those rules, as `diff` is for tools.
//!
//! A part is compared only when both documents recorded it. A part the approved document records
//! and the candidate does not is a change of its own ([`ContractChangeKind::PartUnrecorded`]):
//! a gate never passes what it did not see. An approved document that records tools only gates
//! tools only.

mod announced;
mod caching;
mod lists;
mod word_diff;

use serde_json::Value;

use crate::payload::short;
use crate::surface::contract::{ListKind, ServerContract};

/// Every kind of contract change; each has exactly one rule (counted by a test, as the tool
/// diff's kinds are).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::EnumCount)]
pub enum ContractChangeKind {
    PromptRemoved,
    PromptRenamed,
    PromptAdded,
    PromptArgumentRemoved,
    PromptRequiredArgumentAdded,
    PromptOptionalArgumentAdded,
    PromptArgumentBecameRequired,
    PromptArgumentBecameOptional,
    PromptTextChanged,
    ResourceRemoved,
    ResourceTemplateRemoved,
    ResourceUriChanged,
    ResourceAdded,
    ResourceMimeTypeChanged,
    ResourceTextChanged,
    ContractMetadataChanged,
    InstructionsChanged,
    CapabilityRemoved,
    CapabilityFlagDropped,
    CapabilityAdded,
    CapabilityChanged,
    PartUnrecorded,
    CacheScopeChanged,
    CacheTtlChanged,
}

/// One change in the contract beyond tools.
#[derive(Debug, Clone, PartialEq)]
pub struct ContractChange {
    pub kind: ContractChangeKind,
    /// What changed, e.g. `prompt "summarize" argument "style"`, `instructions`,
    /// `capability prompts.listChanged`: stable across reorders and document shapes.
    pub subject: String,
    pub old_pointer: Option<String>,
    pub new_pointer: Option<String>,
    pub old: Option<String>,
    pub new: Option<String>,
    pub message: String,
}

impl ContractChange {
    fn new(kind: ContractChangeKind, subject: String, message: String) -> ContractChange {
        ContractChange {
            kind,
            subject,
            old_pointer: None,
            new_pointer: None,
            old: None,
            new: None,
            message,
        }
    }

    fn at(mut self, old_pointer: Option<&str>, new_pointer: Option<&str>) -> ContractChange {
        self.old_pointer = old_pointer.map(str::to_string);
        self.new_pointer = new_pointer.map(str::to_string);
        self
    }

    fn values(mut self, old: Option<&Value>, new: Option<&Value>) -> ContractChange {
        self.old = old.map(short);
        self.new = new.map(short);
        self
    }
}

/// Every change from `approved` to `candidate`: what the server announced (instructions, then
/// capabilities), then prompts, resources and templates, each in approved order then added.
pub fn compare(
    approved: Option<&ServerContract>,
    candidate: Option<&ServerContract>,
) -> Vec<ContractChange> {
    let Some(approved) = approved else {
        return Vec::new();
    };
    let Some(candidate) = candidate else {
        return vec![unrecorded(
            "contract beyond tools",
            "the candidate records tools only",
            "",
        )];
    };
    let mut out = Vec::new();
    match (&approved.announced, &candidate.announced) {
        (Some(old), Some(new)) => announced::compare(old, new, &mut out),
        (Some(old), None) => out.push(unrecorded(
            "instructions and capabilities",
            "what the server announced in initialize or server/discover was not recorded",
            &old.pointer,
        )),
        (None, _) => {}
    }
    caching::compare(approved, candidate, &mut out);
    for kind in ListKind::ALL {
        match (approved.list(kind), candidate.list(kind)) {
            (Some(old), Some(new)) => lists::compare(kind, old, new, &mut out),
            // The approved server did not declare the capability: its empty list is implied,
            // not recorded, and whatever the candidate now offers there can only add.
            (Some(old), None) if old.is_empty() && approved.declares(kind) == Some(false) => {}
            (Some(_), None) => out.push(unrecorded(
                kind.plural(),
                &format!("its {} was not captured, or failed", kind.method()),
                &approved.list_pointer(kind),
            )),
            (None, _) => {}
        }
    }
    out
}

/// A part the approved document records and the candidate does not.
fn unrecorded(part: &str, why: &str, old_pointer: &str) -> ContractChange {
    ContractChange::new(
        ContractChangeKind::PartUnrecorded,
        part.to_string(),
        format!(
            "the approved snapshot records the server's {part} but the candidate does not \
             ({why}): not compared; gate tools only with --scope tools"
        ),
    )
    .at(Some(old_pointer), None)
}

/// `"text"` with JSON string quoting, as reports quote names.
fn quoted(text: &str) -> String {
    Value::from(text).to_string()
}
