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

use driftlab_contract::payload::short;
use driftlab_contract::surface::contract::{ListKind, ServerContract};

/// Every kind of contract change; each has exactly one rule (counted by a test, as the tool
/// diff's kinds are).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::EnumCount)]
pub enum ContractChangeKind {
    /// A prompt is gone: prompts/get with its name fails. (`prompt-removed`)
    PromptRemoved,
    /// A removed and an added prompt have the same arguments and description: a rename; the old
    /// name fails. (`prompt-renamed`)
    PromptRenamed,
    /// A new prompt is listed. (`prompt-added`)
    PromptAdded,
    /// A prompt argument is gone: clients that send it may be refused. (`prompt-argument-removed`)
    PromptArgumentRemoved,
    /// A prompt has a new required argument: existing calls lack it. (`prompt-required-argument-
    /// added`)
    PromptRequiredArgumentAdded,
    /// A prompt has a new optional argument. (`prompt-optional-argument-added`)
    PromptOptionalArgumentAdded,
    /// An optional prompt argument became required. (`prompt-argument-became-required`)
    PromptArgumentBecameRequired,
    /// A required prompt argument became optional. (`prompt-argument-became-optional`)
    PromptArgumentBecameOptional,
    /// A prompt's or argument's description or title changed: text the model or user reads.
    /// (`prompt-text-changed`)
    PromptTextChanged,
    /// A listed resource is gone (by uri). (`resource-removed`)
    ResourceRemoved,
    /// A resource template is gone (by uriTemplate). (`resource-template-removed`)
    ResourceTemplateRemoved,
    /// A resource's uri or a template's uriTemplate changed under the same name: clients holding
    /// the old one fail. (`resource-uri-changed`)
    ResourceUriChanged,
    /// A new resource or resource template is listed. (`resource-added`)
    ResourceAdded,
    /// A resource's or template's mimeType changed: clients that parse by type may misread it.
    /// (`resource-mime-type-changed`)
    ResourceMimeTypeChanged,
    /// A resource's or template's name, title or description changed: text the model or user reads.
    /// (`resource-text-changed`)
    ResourceTextChanged,
    /// Another field of a prompt, argument, resource or template changed (icons, annotations, size,
    /// _meta, ...). (`contract-metadata-changed`)
    ContractMetadataChanged,
    /// The server's instructions changed, appeared or went away: prompt text the model reads (a
    /// word-level diff is in the message). (`instructions-changed`)
    InstructionsChanged,
    /// The server no longer declares a capability (or an experimental/extensions entry): clients
    /// that use it fail. (`capability-removed`)
    CapabilityRemoved,
    /// Tools/prompts/resources.listChanged or resources.subscribe went from true to absent or
    /// false: a client relying on change notifications keeps stale lists. (`capability-flag-
    /// dropped`)
    CapabilityFlagDropped,
    /// The server declares a new capability. (`capability-added`)
    CapabilityAdded,
    /// A declared capability's settings changed otherwise. (`capability-changed`)
    CapabilityChanged,
    /// The approved snapshot records a part of the contract (prompts, resources, templates,
    /// instructions and capabilities) that the candidate does not: not compared (use --scope tools
    /// to gate tools only). (`contract-part-unrecorded`)
    PartUnrecorded,
    /// A result's cacheScope changed (2026-07-28): public lets shared caches serve it across
    /// authorization contexts. (`cache-scope-changed`)
    CacheScopeChanged,
    /// A result's ttlMs changed (2026-07-28): clients refetch it on another schedule. (`cache-ttl-
    /// changed`)
    CacheTtlChanged,
}

/// One change in the contract beyond tools.
#[derive(Debug, Clone, PartialEq)]
pub struct ContractChange {
    /// What kind of change it is (each kind is one rule's).
    pub kind: ContractChangeKind,
    /// What changed, e.g. `prompt "summarize" argument "style"`, `instructions`,
    /// `capability prompts.listChanged`: stable across reorders and document shapes.
    pub subject: String,
    /// Where the change is in the approved document (a JSON Pointer), when it is there.
    pub old_pointer: Option<String>,
    /// Where the change is in the candidate document, when it is there.
    pub new_pointer: Option<String>,
    /// The old value, shortened to one line, when there is one.
    pub old: Option<String>,
    /// The new value, shortened to one line, when there is one.
    pub new: Option<String>,
    /// The change in one line.
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
