//! The capture file: the shared corpus format (`initializeResult`, `toolsList` and a `capture`
//! block of facts), with the server's result bytes embedded exactly as received. Documented in
//! `docs/capture-format.md`; [`crate::payload`] reads it like any other payload.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::capture::{Capture, Timings};
use super::session::Observed;
use super::Target;
use crate::surface::sha256_hex;

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
    initialize_result: &'a RawValue,
    tools_list: ToolsList<'a>,
    capture: Facts<'a>,
}

/// One page is stored as the result itself; several as an array of results, in order.
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
    pages: usize,
    tools_list_raw_sha256: Vec<String>,
    tools_list_raw_bytes: usize,
    timings_ms: Timings,
    #[serde(flatten)]
    observed: &'a Observed,
    stderr_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    runs: Option<&'a Runs>,
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
}

/// The capture file's bytes (pretty JSON, ending in a newline).
pub fn render(
    capture: &Capture,
    target: &Target,
    captured_at: &str,
    runs: Option<&Runs>,
) -> Vec<u8> {
    let pages: Vec<&RawValue> = capture.pages.iter().map(|p| &**p).collect();
    let file = CaptureFile {
        format: FORMAT,
        server: target.to_json(),
        protocol_version_requested: &capture.protocol_version_requested,
        protocol_version: capture.protocol_version.as_deref(),
        client_capabilities: &capture.client_capabilities,
        initialize_result: &capture.initialize_result,
        tools_list: match pages.as_slice() {
            [one] => ToolsList::One(one),
            _ => ToolsList::Pages(pages.clone()),
        },
        capture: Facts {
            captured_by: format!("driftlab {}", env!("CARGO_PKG_VERSION")),
            captured_at,
            pages: pages.len(),
            tools_list_raw_sha256: pages
                .iter()
                .map(|p| sha256_hex(p.get().as_bytes()))
                .collect(),
            tools_list_raw_bytes: capture.tools_list_len(),
            timings_ms: capture.timings,
            observed: &capture.observed,
            stderr_bytes: capture.stderr_bytes,
            runs,
        },
    };
    let mut bytes = serde_json::to_vec_pretty(&file).expect("a capture always serialises");
    bytes.push(b'\n');
    bytes
}
