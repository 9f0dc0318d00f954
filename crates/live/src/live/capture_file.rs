//! The capture file: the shared corpus format (`initializeResult`, `toolsList` and a `capture`
//! block of facts), with the server's result bytes embedded exactly as received. Documented in
//! `docs/capture-format.md`; [`driftlab_contract::payload`] reads it like any other payload.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use std::collections::BTreeMap;

use super::capture::{Capture, ListOutcome, Negotiation, Timings};
use super::era::Era;
use super::session::Observed;
use super::Target;
use driftlab_contract::surface::contract::ListKind;
use driftlab_contract::text::sha256_hex;

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
    /// How many captures were made.
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

impl Runs {
    /// Repeated captures of one server compared with the first: which runs differ in tools/list
    /// (and whether only in bytes or in tool order too), and in which other part.
    pub fn compare(first: &Capture, later: &[Capture]) -> Runs {
        let names = |c: &Capture| -> Option<Vec<String>> {
            let bytes = c.tools_list_bytes();
            driftlab_contract::payload::read(
                &bytes,
                "run",
                driftlab_contract::payload::Limits {
                    max_bytes: usize::MAX,
                },
            )
            .ok()
            .map(|s| s.tools().map(|t| t.label()).collect())
        };
        let first_bytes = first.tools_list_bytes();
        let first_names = names(first);
        let differing_runs: Vec<usize> = later
            .iter()
            .enumerate()
            .filter(|(_, c)| c.tools_list_bytes() != first_bytes)
            .map(|(i, _)| i + 2)
            .collect();
        let first_parts = contract_parts(first);
        let mut differing_parts = std::collections::BTreeMap::new();
        for (run, capture) in later.iter().enumerate() {
            let parts = contract_parts(capture);
            for (method, bytes) in &first_parts {
                let same = parts.iter().any(|(m, b)| m == method && b == bytes);
                if !same {
                    differing_parts
                        .entry(*method)
                        .or_insert_with(Vec::new)
                        .push(run + 2);
                }
            }
        }
        Runs {
            count: later.len() + 1,
            bytes_identical: differing_runs.is_empty(),
            same_tool_order: later.iter().all(|c| names(c) == first_names),
            differing_runs,
            differing_parts,
        }
    }
}

/// What a run answered beyond tools/list, per method: the announcement's bytes, and each other
/// list's page bytes (a refused list counts as refused, whatever the error said).
fn contract_parts(capture: &Capture) -> Vec<(&'static str, Vec<u8>)> {
    let announcement = match capture.negotiation.era {
        Era::Handshake => "initialize",
        Era::Modern => "server/discover",
    };
    let mut parts = vec![(
        announcement,
        capture.initialize_result.get().as_bytes().to_vec(),
    )];
    for list in &capture.other_lists {
        let bytes = match &list.outcome {
            ListOutcome::Listed { pages, .. } => pages
                .iter()
                .flat_map(|page| page.get().as_bytes().iter().copied().chain([b'\n']))
                .collect(),
            ListOutcome::NotDeclared => b"not declared".to_vec(),
            ListOutcome::Failed(_) => b"failed".to_vec(),
        };
        parts.push((list.kind.method(), bytes));
    }
    parts
}
/// What a capture lists, read exactly as a payload file would be; with `whole_contract`, the
/// rest of the contract it recorded is attached too (read from the capture file's form, as a
/// saved capture would be).
pub fn surface_of(
    capture: &Capture,
    target: &Target,
    limits: driftlab_contract::payload::Limits,
    whole_contract: bool,
) -> Result<driftlab_contract::surface::Surface, driftlab_contract::payload::PayloadError> {
    let label = target.label();
    let surface = driftlab_contract::payload::read(&capture.tools_list_bytes(), &label, limits)?;
    if !whole_contract {
        return Ok(surface);
    }
    let document = render(capture, target, "", None);
    let unlimited = driftlab_contract::payload::Limits {
        max_bytes: usize::MAX,
    };
    let contract = driftlab_contract::payload::contract::read(&document, &label, unlimited)?;
    Ok(surface.with_contract(contract))
}
