//! The capture file: the shared corpus format (`initializeResult`, `toolsList` and a `capture`
//! block of facts), with the server's result bytes embedded exactly as received. Documented in
//! `docs/capture-format.md`; [`crate::payload`] reads it like any other payload.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use std::collections::BTreeMap;

use super::capture::{Capture, ListOutcome, Negotiation, Timings};
use super::era::Era;
use super::session::Observed;
use super::Target;
use crate::surface::contract::ListKind;
use crate::text::sha256_hex;

/// The file's format and version, bumped when a field changes meaning.
pub const FORMAT: &str = "driftlab-capture/1";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CaptureFile<'a> {
    format: &'static str,
    server: Value,
    protocol_version_requested: &'a str,
    protocol_version: Option<&'a str>,
    client_capabilities: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    initialize_result: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    discover_result: Option<&'a RawValue>,
    tools_list: ToolsList<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompts_list: Option<ToolsList<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resources_list: Option<ToolsList<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_templates_list: Option<ToolsList<'a>>,
    capture: Facts<'a>,
}

/// One page is stored as the result itself; several as an array of results, in order (the same
/// for every list).
#[derive(Serialize)]
#[serde(untagged)]
enum ToolsList<'a> {
    One(&'a RawValue),
    Pages(Vec<&'a RawValue>),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Facts<'a> {
    captured_by: String,
    captured_at: &'a str,
    negotiation: &'a Negotiation,
    pages: usize,
    tools_list_raw_sha256: Vec<String>,
    tools_list_raw_bytes: usize,
    timings_ms: Timings,
    #[serde(flatten)]
    observed: &'a Observed,
    stderr_bytes: u64,
    /// How each list besides tools went, by method (whole-contract captures only).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    lists: BTreeMap<&'static str, ListFacts>,
    #[serde(skip_serializing_if = "Option::is_none")]
    runs: Option<&'a Runs>,
}

/// `listed` (with pages, bytes, digests and time), `not-declared` or `failed` (with the error).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListFacts {
    outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pages: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_bytes: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_sha256: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

impl ListFacts {
    fn of(outcome: &ListOutcome) -> ListFacts {
        let none = ListFacts {
            outcome: "not-declared",
            pages: None,
            raw_bytes: None,
            raw_sha256: None,
            ms: None,
            error: None,
        };
        match outcome {
            ListOutcome::NotDeclared => none,
            ListOutcome::Failed(error) => ListFacts {
                outcome: "failed",
                error: Some(error.clone()),
                ..none
            },
            ListOutcome::Listed { pages, ms } => ListFacts {
                outcome: "listed",
                pages: Some(pages.len()),
                raw_bytes: Some(pages.iter().map(|p| p.get().len()).sum()),
                raw_sha256: Some(
                    pages
                        .iter()
                        .map(|p| sha256_hex(p.get().as_bytes()))
                        .collect(),
                ),
                ms: Some(*ms),
                ..none
            },
        }
    }
}

/// One page as the result itself, several as an array.
fn stored(pages: &[Box<RawValue>]) -> ToolsList<'_> {
    match pages {
        [one] => ToolsList::One(one),
        _ => ToolsList::Pages(pages.iter().map(|p| &**p).collect()),
    }
}

/// How repeated captures of the same server compared (`--runs N`).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Runs {
    pub count: usize,
    /// Every run's tools/list bytes equal the first run's.
    pub bytes_identical: bool,
    /// Every run lists the same tool names in the same order.
    pub same_tool_order: bool,
    /// Runs (1-based) whose tools/list bytes differ from run 1.
    pub differing_runs: Vec<usize>,
    /// The rest of the contract (`initialize` or `server/discover`, `prompts/list`,
    /// `resources/list`, `resources/templates/list`): per method whose result differs in some
    /// run, those runs (1-based). Absent when every part was the same in every run.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub differing_parts: BTreeMap<&'static str, Vec<usize>>,
}

/// The capture file's bytes (pretty JSON, ending in a newline).
pub fn render(
    capture: &Capture,
    target: &Target,
    captured_at: &str,
    runs: Option<&Runs>,
) -> Vec<u8> {
    let pages: Vec<&RawValue> = capture.pages.iter().map(|p| &**p).collect();
    let listed = |kind: ListKind| {
        capture.other_lists.iter().find_map(|l| match &l.outcome {
            ListOutcome::Listed { pages, .. } if l.kind == kind => Some(stored(pages)),
            _ => None,
        })
    };
    let file = CaptureFile {
        format: FORMAT,
        server: target.to_json(),
        protocol_version_requested: &capture.protocol_version_requested,
        protocol_version: capture.protocol_version.as_deref(),
        client_capabilities: &capture.client_capabilities,
        initialize_result: (capture.negotiation.era == Era::Handshake)
            .then_some(&*capture.initialize_result),
        discover_result: (capture.negotiation.era == Era::Modern)
            .then_some(&*capture.initialize_result),
        tools_list: stored(&capture.pages),
        prompts_list: listed(ListKind::Prompts),
        resources_list: listed(ListKind::Resources),
        resource_templates_list: listed(ListKind::ResourceTemplates),
        capture: Facts {
            captured_by: format!("driftlab {}", env!("CARGO_PKG_VERSION")),
            captured_at,
            negotiation: &capture.negotiation,
            pages: pages.len(),
            tools_list_raw_sha256: pages
                .iter()
                .map(|p| sha256_hex(p.get().as_bytes()))
                .collect(),
            tools_list_raw_bytes: capture.tools_list_len(),
            timings_ms: capture.timings,
            observed: &capture.observed,
            stderr_bytes: capture.stderr_bytes,
            lists: capture
                .other_lists
                .iter()
                .map(|l| (l.kind.method(), ListFacts::of(&l.outcome)))
                .collect(),
            runs,
        },
    };
    let mut bytes = serde_json::to_vec_pretty(&file).expect("a capture always serialises");
    bytes.push(b'\n');
    bytes
}
