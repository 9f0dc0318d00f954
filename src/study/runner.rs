//! The parallel study runner: surfaces are processed in chunks, in parallel within a chunk, and
//! their rows handed on in surface order, so no scheduling can change a byte of output and memory
//! stays bounded by the chunk size.

use rayon::prelude::*;

use crate::check::{Comparison, Finding};
use crate::generate;
use crate::mutate;
use crate::payload::{self, Limits, PayloadError};
use crate::record::{rate, Cell, Control, GateInfo, Row, Summary, Total};
use crate::study::spec::Study;

/// Surfaces per parallel chunk.
pub const CHUNK: u64 = 1024;

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

/// Runs the study, handing each chunk's rows (in surface order) to `on_rows` and reporting
/// finished surfaces to `progress`. Returns the complete summary.
pub fn run<E>(
    study: &Study,
    mut on_rows: impl FnMut(&[Row]) -> Result<(), E>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Summary, E>
where
    E: From<RunError>,
{
    let classes: Vec<_> = study.classes().collect();
    let gate_ids = study.gates.iter().map(|g| g.id.clone()).collect();
    let mut tally = Tally::new(classes.len(), gate_ids);
    let surfaces = study.spec.surfaces;
    let mut start = 0;
    while start < surfaces {
        let end = (start + CHUNK).min(surfaces);
        let chunk: Vec<Result<Vec<Row>, RunError>> = (start..end)
            .into_par_iter()
            .map(|index| evaluate_surface(study, index))
            .collect();
        let mut rows = Vec::with_capacity(chunk.len() * classes.len() * study.gates.len());
        for surface_rows in chunk {
            rows.extend(surface_rows?);
        }
        tally.add(&rows);
        on_rows(&rows)?;
        progress(end - start);
        start = end;
    }
    Ok(tally.summary(study))
}

/// All rows of one surface: every class (control first) × every gate.
pub fn evaluate_surface(study: &Study, index: u64) -> Result<Vec<Row>, RunError> {
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
    let mut rows = Vec::with_capacity((1 + study.mutations.len()) * study.gates.len());
    let mut findings: Vec<Vec<Finding>> = vec![Vec::new(); study.rules.len()];
    for class in study.classes() {
        let mut candidate = base.clone();
        let outcome = class.apply(&mut candidate, &mut mutate::stream(seed, class, index));
        let applied = match outcome {
            Ok(applied) => applied,
            Err(not_applicable) => {
                for gate in &study.gates {
                    rows.push(Row {
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
                continue;
            }
        };
        // Checkers read the bytes a client would receive, not the in-memory value.
        let bytes = serde_json::to_vec(&candidate).unwrap_or_default();
        let candidate = payload::read(&bytes, "candidate", Limits::default())
            .map_err(|e| reject(class.id(), e))?;
        let comparison = Comparison::new(&approved, &candidate);
        for (rule, out) in study.rules.iter().zip(findings.iter_mut()) {
            out.clear();
            rule.check(&comparison, out);
        }
        for gate in &study.gates {
            let mut fired = Vec::new();
            let mut count = 0;
            let mut first_pointer = String::new();
            for rule in &gate.rules {
                let at = study
                    .rules
                    .iter()
                    .position(|r| r.id() == rule.id())
                    .unwrap_or_default();
                let found = &findings[at];
                if let Some(first) = found.first() {
                    fired.push(rule.id());
                    count += found.len();
                    if first_pointer.is_empty() {
                        first_pointer.clone_from(&first.pointer);
                    }
                }
            }
            rows.push(Row {
                surface: index,
                mutation: class.id().into(),
                applicable: true,
                tool_index: applied.tool_index,
                detail: applied.detail.clone(),
                gate: gate.id.clone(),
                detected: !fired.is_empty(),
                rules_fired: fired.join(";"),
                findings: count,
                first_pointer,
            });
        }
    }
    Ok(rows)
}

/// Running counts per (class, gate): detected, applicable, not applicable.
struct Tally {
    gates: Vec<String>,
    classes: Vec<String>,
    counts: Vec<[u64; 3]>,
}

impl Tally {
    fn new(classes: usize, gates: Vec<String>) -> Tally {
        Tally {
            counts: vec![[0; 3]; classes * gates.len()],
            gates,
            classes: Vec::with_capacity(classes),
        }
    }

    fn slot(&mut self, mutation: &str) -> usize {
        match self.classes.iter().position(|c| c == mutation) {
            Some(i) => i,
            None => {
                self.classes.push(mutation.to_string());
                self.classes.len() - 1
            }
        }
    }

    fn add(&mut self, rows: &[Row]) {
        for row in rows {
            let class = self.slot(&row.mutation);
            let gate = self
                .gates
                .iter()
                .position(|g| *g == row.gate)
                .unwrap_or_default();
            let counts = &mut self.counts[class * self.gates.len() + gate];
            if row.applicable {
                counts[0] += u64::from(row.detected);
                counts[1] += 1;
            } else {
                counts[2] += 1;
            }
        }
    }

    fn get(&self, mutation: &str, gate: usize) -> [u64; 3] {
        self.classes
            .iter()
            .position(|c| c == mutation)
            .map_or([0; 3], |class| self.counts[class * self.gates.len() + gate])
    }

    fn summary(&self, study: &Study) -> Summary {
        let spec = &study.spec;
        let mut cells = Vec::new();
        let mut totals = Vec::new();
        let mut controls = Vec::new();
        for (g, gate) in study.gates.iter().enumerate() {
            let mut sum = [0u64; 3];
            for class in &study.mutations {
                let [detected, total, not_applicable] = self.get(class.id(), g);
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
            let [false_positives, total, _] = self.get(mutate::CONTROL.id(), g);
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
