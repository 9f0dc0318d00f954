//! `driftlab scan`: can the declared contract reject a wrong answer?
//!
//! Static (any payload or capture): output-contract coverage and enforceability
//! ([`output_contract`]), input-contract strength ([`input_strength`]). Live: error-conformance
//! [`probes`]. The method is in `research/2026-11-30-output-contracts/METHOD.md`.

pub mod corpus_study;
pub mod corrupt;
pub(crate) mod input_strength;
pub(crate) mod output_contract;
pub mod probes;
pub mod render;
pub mod study;
mod study_error;

pub use study_error::ScanStudyError;

use serde::Serialize;
use serde_json::Value;

use driftlab_contract::rng::Stream;
use driftlab_contract::surface::Surface;
use input_strength::InputVerdict;
use output_contract::{Class, OutputVerdict};
use probes::Probe;

/// The seed of a scan unless the user picks another.
pub const DEFAULT_SEED: u64 = 20261130;

/// The whole answer of a scan: the JSON contract of `--format json`.
#[derive(Debug, Clone, Serialize)]
pub struct ScanReport {
    /// What was scanned: the payload's path, the server's command or URL, or a capture's name.
    pub source: String,
    /// The seed of the corrupted instances.
    pub seed: u64,
    /// Tools scanned.
    pub tools: usize,
    /// Tools with an outputSchema.
    pub with_output_schema: usize,
    /// Tools whose outputSchema is enforceable: it rejects every corrupted leaf.
    pub enforceable: usize,
    /// Tools whose outputSchema is partially enforceable: every variant rejected, some leaves
    /// unguarded.
    pub partially_enforceable: usize,
    /// Tools whose outputSchema is vacuous: it accepts a corrupted answer.
    pub vacuous: usize,
    /// outputSchemas the validator cannot compile.
    pub invalid_output_schema: usize,
    /// Tools whose outputSchema is an SDK's automatic `{"result": …}` wrapper
    /// (`x-fastmcp-wrap-result: true`).
    pub fastmcp_wrapped: usize,
    /// How input schemas refuse out-of-date calls.
    pub input: InputCounts,
    /// Live probes; absent for a payload file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probes: Option<Vec<Probe>>,
    /// Each tool's verdicts, in listed order.
    pub tool_results: Vec<ToolResult>,
}

/// How many tools' input schemas refuse each kind of out-of-date call (of those it applies to).
#[derive(Debug, Clone, Default, Serialize)]
pub struct InputCounts {
    /// Tools with a usable (compilable, object-root) input schema.
    pub usable: usize,
    /// Usable schemas that refuse an unknown parameter.
    pub rejects_unknown_parameter: usize,
    /// Schemas with a required parameter.
    pub with_required: usize,
    /// Of them, schemas that refuse a call missing it.
    pub rejects_missing_required: usize,
    /// Schemas with a typed parameter.
    pub with_typed_parameter: usize,
    /// Of them, schemas that refuse a value of the wrong type.
    pub rejects_wrong_type: usize,
    /// Schemas with an enum.
    pub with_enum: usize,
    /// Of them, schemas that refuse a value outside it.
    pub rejects_outside_enum: usize,
    /// Schemas that meet the minimum bar: unknown parameters refused, and missing required ones too.
    pub meets_minimum_bar: usize,
}

/// One tool's verdicts.
#[derive(Debug, Clone, Serialize)]
pub struct ToolResult {
    /// The tool's name.
    pub name: String,
    /// `None` when the tool declares no outputSchema.
    pub output: Option<OutputVerdict>,
    /// Its outputSchema is an SDK's `{"result": …}` wrapper.
    pub fastmcp_wrapped: bool,
    /// What its input schema refuses.
    pub input: InputVerdict,
}

/// Scans every tool of `surface`. Tool `i` draws from its own stream `(seed, "scan", i)`.
pub fn scan_surface(surface: &Surface, source: &str, seed: u64) -> ScanReport {
    let mut report = ScanReport {
        source: source.to_string(),
        seed,
        tools: surface.len(),
        with_output_schema: 0,
        enforceable: 0,
        partially_enforceable: 0,
        vacuous: 0,
        invalid_output_schema: 0,
        fastmcp_wrapped: 0,
        input: InputCounts::default(),
        probes: None,
        tool_results: Vec::new(),
    };
    for tool in surface.tools() {
        let mut rng = Stream::derive(seed, "scan", tool.index as u64);
        let output = tool
            .output_schema()
            .map(|s| output_contract::judge(s, &mut rng));
        let wrapped = tool
            .output_schema()
            .and_then(|s| s.get("x-fastmcp-wrap-result"))
            == Some(&Value::Bool(true));
        let mut output = output;
        if let Some(verdict) = &mut output {
            report.with_output_schema += 1;
            match verdict.class {
                Class::Enforceable => report.enforceable += 1,
                Class::Partial => report.partially_enforceable += 1,
                Class::Vacuous => report.vacuous += 1,
                Class::Invalid => report.invalid_output_schema += 1,
            }
            if wrapped {
                verdict.reasons.push(
                    "SDK auto-wrapped result (x-fastmcp-wrap-result): {\"result\": <value>} holds \
                     whatever the function returned"
                        .into(),
                );
            }
        }
        report.fastmcp_wrapped += usize::from(wrapped);
        let input = input_strength::judge(tool.input_schema());
        count_input(&mut report.input, &input);
        report.tool_results.push(ToolResult {
            name: tool.label(),
            output,
            fastmcp_wrapped: wrapped,
            input,
        });
    }
    report
}

fn count_input(counts: &mut InputCounts, v: &InputVerdict) {
    let tally = |applies: &mut usize, yes: &mut usize, answer: Option<bool>| {
        if let Some(answer) = answer {
            *applies += 1;
            *yes += usize::from(answer);
        }
    };
    counts.usable += usize::from(v.usable);
    counts.rejects_unknown_parameter += usize::from(v.rejects_unknown_parameter);
    counts.meets_minimum_bar += usize::from(v.meets_minimum_bar);
    tally(
        &mut counts.with_required,
        &mut counts.rejects_missing_required,
        v.rejects_missing_required,
    );
    tally(
        &mut counts.with_typed_parameter,
        &mut counts.rejects_wrong_type,
        v.rejects_wrong_type,
    );
    tally(
        &mut counts.with_enum,
        &mut counts.rejects_outside_enum,
        v.rejects_outside_enum,
    );
}

impl ScanReport {
    /// Share of all tools whose outputSchema is enforceable (0 for no tools).
    pub fn enforceable_share(&self) -> f64 {
        ratio(self.enforceable, self.tools)
    }

    /// Share of probes that ran and were answered correctly; `None` without probes.
    pub fn error_handling_share(&self) -> Option<f64> {
        let ran: Vec<bool> = self
            .probes
            .as_ref()?
            .iter()
            .filter_map(|p| p.verdict.good())
            .collect();
        Some(ratio(ran.iter().filter(|g| **g).count(), ran.len()))
    }
}

/// `part / whole`; 0 when `whole` is 0.
pub fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}
