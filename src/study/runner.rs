//! The parallel study runner: surfaces are processed in chunks, in parallel within a chunk, and
//! handed on in surface order, so no scheduling can change a byte of output and memory stays
//! bounded by the chunk size whatever the number of surfaces.

use std::ops::Range;

use rayon::prelude::*;

use crate::check::{Comparison, Finding};
use crate::generate;
use crate::mutate;
use crate::payload::{self, Limits, PayloadError};
use crate::record::{rate, Cell, Control, GateInfo, Row, Shard, Summary, Total};
use crate::study::spec::Study;

/// Surfaces per parallel chunk.
pub const CHUNK: u64 = 1024;

/// Which rows of `rows.csv` to keep; the summary always counts every row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RowsMode {
    /// every surface × class × gate row
    All,
    /// only rows where a gate failed to detect an applied change (controls excluded)
    Missed,
    /// no rows.csv
    None,
}

impl RowsMode {
    pub fn as_str(self) -> &'static str {
        match self {
            RowsMode::All => "all",
            RowsMode::Missed => "missed",
            RowsMode::None => "none",
        }
    }

    fn keeps(self, class: usize, applicable: bool, detected: bool) -> bool {
        match self {
            RowsMode::All => true,
            // Class 0 is the identity control, where "not detected" is the right answer.
            RowsMode::Missed => class != 0 && applicable && !detected,
            RowsMode::None => false,
        }
    }
}

/// A failure inside the runner is a defect (the generator or a mutation produced a payload the
/// reader refuses), never a property of the input.
#[derive(Debug, thiserror::Error)]
#[error("surface {surface}, mutation {mutation}: generated payload was rejected: {source}")]
pub struct RunError {
    pub surface: u64,
    pub mutation: &'static str,
    #[source]
    pub source: PayloadError,
}

/// What one gate decided on one candidate.
#[derive(Debug, Clone, Copy)]
struct Decision {
    class: usize,
    gate: usize,
    applicable: bool,
    detected: bool,
}

struct SurfaceResult {
    decisions: Vec<Decision>,
    /// Only the rows `RowsMode` keeps.
    rows: Vec<Row>,
}

/// Runs the whole study; see [`run_range`].
pub fn run<E>(
    study: &Study,
    rows: RowsMode,
    on_rows: impl FnMut(&[Row]) -> Result<(), E>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Summary, E>
where
    E: From<RunError>,
{
    run_range(study, 0..study.spec.surfaces, rows, on_rows, progress)
}

/// Runs surfaces `range` of the study, handing each chunk's kept rows (in surface order) to
/// `on_rows` and the number of finished surfaces to `progress`. The summary counts exactly the
/// surfaces in `range`.
pub fn run_range<E>(
    study: &Study,
    range: Range<u64>,
    mode: RowsMode,
    mut on_rows: impl FnMut(&[Row]) -> Result<(), E>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Summary, E>
where
    E: From<RunError>,
{
    let classes = study.classes().count();
    let mut tally = Tally::new(classes, study.gates.len());
    let mut start = range.start;
    while start < range.end {
        let end = (start + CHUNK).min(range.end);
        let chunk: Vec<Result<SurfaceResult, RunError>> = (start..end)
            .into_par_iter()
            .map(|index| evaluate_surface(study, index, mode))
            .collect();
        let mut rows = Vec::new();
        for result in chunk {
            let result = result?;
            tally.add(&result.decisions);
            rows.extend(result.rows);
        }
        if !rows.is_empty() {
            on_rows(&rows)?;
        }
        progress(end - start);
        start = end;
    }
    Ok(tally.summary(study))
}

/// Every decision of one surface (every class, control first, × every gate), and its rows.
fn evaluate_surface(study: &Study, index: u64, mode: RowsMode) -> Result<SurfaceResult, RunError> {
    let seed = study.spec.seed;
    let base = generate::surface(seed, index, study.spec.tools);
    // Serializing a Value cannot fail.
    let base_bytes = serde_json::to_vec(&base).unwrap_or_default();
    let reject = |mutation, source| RunError {
        surface: index,
        mutation,
        source,
    };
    let approved = payload::read(&base_bytes, "approved", Limits::default())
        .map_err(|e| reject("(approved)", e))?;
    let gates = study.gates.len();
    let mut result = SurfaceResult {
        decisions: Vec::with_capacity((1 + study.mutations.len()) * gates),
        rows: Vec::new(),
    };
    let mut findings: Vec<Vec<Finding>> = vec![Vec::new(); study.rules.len()];
    let mut bytes = Vec::with_capacity(base_bytes.len() + 64);
    for (class_index, class) in study.classes().enumerate() {
        let mut candidate = base.clone();
        let outcome = class.apply(&mut candidate, &mut mutate::stream(seed, class, index));
        let applied = match outcome {
            Ok(applied) => applied,
            Err(not_applicable) => {
                for gate in 0..gates {
                    result.decisions.push(Decision {
                        class: class_index,
                        gate,
                        applicable: false,
                        detected: false,
                    });
                }
                if mode.keeps(class_index, false, false) {
                    for gate in &study.gates {
                        result.rows.push(Row {
                            surface: index,
                            mutation: class.id().into(),
                            applicable: false,
                            tool_index: None,
                            detail: not_applicable.0.clone(),
                            gate: gate.id.clone(),
                            detected: false,
                            rules_fired: String::new(),
                            findings: 0,
                            first_pointer: String::new(),
                        });
                    }
                }
                continue;
            }
        };
        // Checkers read the bytes a client would receive, not the in-memory value.
        bytes.clear();
        serde_json::to_writer(&mut bytes, &candidate).unwrap_or_default();
        let candidate = payload::read(&bytes, "candidate", Limits::default())
            .map_err(|e| reject(class.id(), e))?;
        let comparison = Comparison::new(&approved, &candidate);
        for (rule, out) in study.rules.iter().zip(findings.iter_mut()) {
            out.clear();
            rule.check(&comparison, out);
        }
        for (gate_index, gate) in study.gates.iter().enumerate() {
            let fired = || {
                gate.rules.iter().filter_map(|rule| {
                    let at = study.rules.iter().position(|r| r.id() == rule.id())?;
                    findings[at]
                        .first()
                        .map(|first| (rule.id(), &findings[at], first))
                })
            };
            let detected = fired().next().is_some();
            result.decisions.push(Decision {
                class: class_index,
                gate: gate_index,
                applicable: true,
                detected,
            });
            if !mode.keeps(class_index, true, detected) {
                continue;
            }
            result.rows.push(Row {
                surface: index,
                mutation: class.id().into(),
                applicable: true,
                tool_index: applied.tool_index,
                detail: applied.detail.clone(),
                gate: gate.id.clone(),
                detected,
                rules_fired: fired().map(|(id, _, _)| id).collect::<Vec<_>>().join(";"),
                findings: fired().map(|(_, all, _)| all.len()).sum(),
                first_pointer: fired()
                    .next()
                    .map(|(_, _, first)| first.pointer.clone())
                    .unwrap_or_default(),
            });
        }
    }
    Ok(result)
}

/// Running counts per (class, gate): detected, applicable, not applicable.
struct Tally {
    gates: usize,
    counts: Vec<[u64; 3]>,
}

impl Tally {
    fn new(classes: usize, gates: usize) -> Tally {
        Tally {
            gates,
            counts: vec![[0; 3]; classes * gates],
        }
    }

    fn add(&mut self, decisions: &[Decision]) {
        for d in decisions {
            let counts = &mut self.counts[d.class * self.gates + d.gate];
            if d.applicable {
                counts[0] += u64::from(d.detected);
                counts[1] += 1;
            } else {
                counts[2] += 1;
            }
        }
    }

    fn summary(&self, study: &Study) -> Summary {
        let spec = &study.spec;
        let mut cells = Vec::new();
        let mut totals = Vec::new();
        let mut controls = Vec::new();
        for (g, gate) in study.gates.iter().enumerate() {
            let mut sum = [0u64; 3];
            // Class 0 is the control; the spec's classes follow in order.
            for (c, class) in study.mutations.iter().enumerate() {
                let [detected, total, not_applicable] = self.counts[(c + 1) * self.gates + g];
                sum = [sum[0] + detected, sum[1] + total, sum[2] + not_applicable];
                cells.push(Cell {
                    gate: gate.id.clone(),
                    mutation: class.id().into(),
                    detected,
                    total,
                    not_applicable,
                    rate: rate(detected, total),
                });
            }
            totals.push(Total {
                gate: gate.id.clone(),
                detected: sum[0],
                total: sum[1],
                not_applicable: sum[2],
                rate: rate(sum[0], sum[1]),
            });
            let [false_positives, total, _] = self.counts[g];
            controls.push(Control {
                gate: gate.id.clone(),
                false_positives,
                total,
            });
        }
        Summary {
            study: spec.id.clone(),
            title: spec.title.clone(),
            seed: spec.seed,
            surfaces: spec.surfaces,
            tools: spec.tools,
            shard: None::<Shard>,
            gates: study
                .gates
                .iter()
                .map(|g| GateInfo {
                    id: g.id.clone(),
                    rules: g.rules.iter().map(|r| r.id().to_string()).collect(),
                })
                .collect(),
            mutations: study.mutations.iter().map(|m| m.id().to_string()).collect(),
            cells,
            totals,
            controls,
        }
    }
}
