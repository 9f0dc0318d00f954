//! The parallel study runner: surfaces are processed in chunks, in parallel within a chunk, and
//! handed on in surface order, so no scheduling can change a byte of output and memory stays
//! bounded by the chunk size whatever the number of surfaces.

use std::borrow::Cow;
use std::ops::Range;

use rayon::prelude::*;
use serde_json::Value;

use super::checkers::Checkers;
use super::live;
pub use super::outcome::RowsMode;
use super::outcome::{Decision, Pending, SurfaceResult};
use super::splice::{Base, Workspace};
use super::tally::Tally;
use crate::check::{Comparison, Finding};
use crate::generate;
use crate::mutate;
use crate::payload::{self, Limits, PayloadError};
use crate::record::{Row, Summary};
use crate::study::spec::Study;

/// Surfaces per parallel chunk.
pub const CHUNK: u64 = 1024;

/// A failure inside the runner: a defect when the generator or a mutation produced a payload
/// the reader refuses; a property of the environment when a live server could not be captured.
#[derive(Debug, thiserror::Error)]
#[error("surface {surface}, mutation {mutation}: {failure}")]
pub struct RunError {
    pub surface: u64,
    pub mutation: &'static str,
    /// Shown in the message above, so not chained as a source (`{:#}` would print it twice):
    /// a field named `source` would be one.
    pub failure: RunFailure,
}

#[derive(Debug, thiserror::Error)]
pub enum RunFailure {
    #[error("generated payload was rejected: {0}")]
    Payload(#[from] PayloadError),
    #[error(transparent)]
    Live(crate::study::live::LiveStudyError),
    #[error(transparent)]
    Checker(#[from] crate::check::external::CheckerError),
}

impl RunError {
    /// Whether this is a defect in driftlab (exit 70) rather than a server that failed (exit 2).
    pub fn is_defect(&self) -> bool {
        matches!(self.failure, RunFailure::Payload(_))
    }
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
    let checker_failed = |surface, message| RunError {
        surface,
        mutation: "(checker)",
        failure: RunFailure::Checker(message),
    };
    let mut checkers = Checkers::start(study).map_err(|m| checker_failed(range.start, m))?;
    let shared = Shared::new(study);
    let mut start = range.start;
    while start < range.end {
        let end = start.saturating_add(CHUNK).min(range.end);
        let chunk: Vec<Result<SurfaceResult, RunError>> = (start..end)
            .into_par_iter()
            .map(|index| evaluate_surface(study, &shared, index, mode))
            .collect();
        let mut chunk: Vec<SurfaceResult> = chunk.into_iter().collect::<Result<_, _>>()?;
        // External checkers judge the whole chunk in surface order, then the rows are final.
        checkers
            .judge(&mut chunk, mode)
            .map_err(|m| checker_failed(start, m))?;
        let mut rows = Vec::new();
        for result in chunk {
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

/// What every surface of a run shares, worked out once.
struct Shared {
    /// The control's outcome: it draws nothing and changes nothing, so it is the same on every
    /// surface (and needs no stream of its own).
    control: mutate::Outcome,
    /// For each gate, the place of each of its rules in `Study::rules`.
    gate_rules: Vec<Vec<usize>>,
    /// How much the diff must prove for the gates' verdicts.
    proving: crate::check::diff::Proving,
}

impl Shared {
    fn new(study: &Study) -> Shared {
        let control = mutate::CONTROL;
        let place =
            |rule: &&dyn crate::check::Rule| study.rules.iter().position(|r| r.id() == rule.id());
        Shared {
            control: control.apply(&mut Value::Null, &mut mutate::stream(0, control, 0)),
            gate_rules: study
                .gates
                .iter()
                .map(|gate| gate.rules.iter().filter_map(place).collect())
                .collect(),
            proving: crate::check::rules::diff_rules::proving_for(&study.rules),
        }
    }
}

/// Every decision of one surface (every class, control first, × every gate), and its rows.
fn evaluate_surface(
    study: &Study,
    shared: &Shared,
    index: u64,
    mode: RowsMode,
) -> Result<SurfaceResult, RunError> {
    let seed = study.spec.seed;
    let reject = |mutation, source: PayloadError| RunError {
        surface: index,
        mutation,
        failure: source.into(),
    };
    let live_failure = |mutation, failure| RunError {
        surface: index,
        mutation,
        failure: RunFailure::Live(failure),
    };
    let is_live = !study.spec.live.is_empty();
    // The base (for the classes) and the approved bytes a client receives: for a live server
    // its own bytes, exactly as a client receives them.
    let live = if is_live {
        Some(live::approved(study, index).map_err(|m| live_failure("(approved)", m))?)
    } else {
        None
    };
    let (base_name, base) = match &live {
        Some(live) => (live.name, Base::new(&live.value)),
        None => base(study, index),
    };
    let base_bytes: &[u8] = live.as_ref().map_or(base.bytes(), |live| &live.bytes);
    let whole_contract = study.whole_contract();
    let approved = contract_of(base_bytes, "approved", whole_contract)
        .and_then(|contract| {
            let read = payload::read(base_bytes, "approved", Limits::default())?;
            Ok(read.with_contract(contract))
        })
        .map_err(|e| reject("(approved)", e))?;
    let gates = study.gates.len();
    let external = study.gates.iter().any(|g| g.checker.is_some());
    let mut result = SurfaceResult {
        decisions: Vec::with_capacity((1 + study.mutations.len()) * gates),
        rows: Vec::new(),
        approved: if external {
            base_bytes.to_vec()
        } else {
            Vec::new()
        },
        candidates: Vec::new(),
        pending: Vec::new(),
    };
    let mut findings: Vec<Vec<Finding>> = vec![Vec::new(); study.rules.len()];
    // Classes that can edit the base's bytes do so on the approved reading of them.
    let mut workspace = Workspace::new(&base, Some(&approved));
    let mut spliced = Vec::with_capacity(base_bytes.len() + 64);
    let mut through_wrap;
    for (class_index, class) in study.classes().enumerate() {
        // The control changes nothing: its candidate is the approved bytes.
        let control = class_index == 0;
        let stream = || mutate::stream(seed, class, index);
        let outcome = if control {
            shared.control.clone()
        } else {
            workspace.candidate(&base, class, stream, &mut spliced)
        };
        let applied = match outcome {
            Ok(applied) => applied,
            Err(not_applicable) => {
                for gate in 0..gates {
                    result.decisions.push(Decision {
                        class: class_index,
                        gate,
                        applicable: false,
                        detected: false,
                        crashed: false,
                    });
                }
                if mode.keeps(class_index, false, false) {
                    for gate in &study.gates {
                        result.rows.push(Row {
                            surface: index,
                            base: base_name.into(),
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
        let candidate_bytes: &[u8] = if is_live {
            // What a client of the drifted server receives, through `driftlab wrap`; it must be
            // exactly the mutation's bytes (or, for the control, the server's own bytes).
            through_wrap = live::through_wrap(study, index, (!control).then_some(class))
                .map_err(|m| live_failure(class.id(), m))?;
            let expected = if control {
                base_bytes
            } else {
                crate::proxy::wrap::to_one_line(&mut spliced);
                &spliced
            };
            if through_wrap != expected {
                return Err(live_failure(class.id(), live::LiveStudyError::WrapDiffers));
            }
            &through_wrap
        } else {
            if control {
                spliced.clear();
                spliced.extend_from_slice(base_bytes);
            }
            &spliced
        };
        if external {
            result.candidates.push(candidate_bytes.to_vec());
        }
        // A generated candidate is read in its own buffer, which comes back for the next class.
        let owned = !is_live;
        let read = if owned {
            let bytes = std::mem::take(&mut spliced);
            contract_of(&bytes, "candidate", whole_contract).and_then(|contract| {
                let read =
                    payload::read_candidate(bytes, "candidate", Limits::default(), &approved)?;
                Ok(read.with_contract(contract))
            })
        } else {
            payload::read(candidate_bytes, "candidate", Limits::default()).map(|mut read| {
                read.share_parsed(&approved);
                read
            })
        };
        let candidate = read.map_err(|e| reject(class.id(), e))?;
        // Only `--rows all` shows a finding's pointer (`--rows missed` keeps only rows without
        // findings): otherwise a finding counts only by its rule and severity.
        let comparison = if mode == RowsMode::All {
            Comparison::new(&approved, &candidate)
        } else {
            Comparison::verdict_only(&approved, &candidate)
        };
        // Rows keep no witness: the diff proves only what the gates' verdicts need.
        let comparison = comparison.proving(shared.proving);
        for (rule, out) in study.rules.iter().zip(findings.iter_mut()) {
            out.clear();
            rule.check(&comparison, out);
        }
        if owned {
            spliced = candidate.into_text().into_bytes();
        }
        // This candidate's row for a gate, before its verdict is filled in (below, or when an
        // external checker answers).
        let row_for = |gate: &super::gate::Gate| Row {
            surface: index,
            base: base_name.into(),
            mutation: class.id().into(),
            applicable: true,
            tool_index: applied.tool_index,
            detail: applied.detail.clone(),
            gate: gate.id.clone(),
            detected: false,
            rules_fired: String::new(),
            findings: 0,
            first_pointer: String::new(),
        };
        for (gate_index, gate) in study.gates.iter().enumerate() {
            if gate.checker.is_some() {
                // Judged later, with the whole chunk; the row waits for the answer.
                result.pending.push(Pending {
                    id: request_id(study, index, class_index),
                    gate: gate_index,
                    class: class_index,
                    decision: result.decisions.len(),
                    row: (mode != RowsMode::None).then_some(result.rows.len()),
                    candidate: result.candidates.len() - 1,
                });
                result.decisions.push(Decision {
                    class: class_index,
                    gate: gate_index,
                    applicable: true,
                    detected: false,
                    crashed: false,
                });
                if mode != RowsMode::None {
                    result.rows.push(row_for(gate));
                }
                continue;
            }
            // The findings of this gate's rules that reach its threshold, rule by rule.
            let counted = |&at: &usize| {
                let hits = findings[at]
                    .iter()
                    .filter(|f| gate.fail_on.fails(f.severity));
                (study.rules[at].id(), hits)
            };
            let gate_rules = &shared.gate_rules[gate_index];
            let detected = gate_rules
                .iter()
                .map(counted)
                .any(|(_, mut hits)| hits.next().is_some());
            result.decisions.push(Decision {
                class: class_index,
                gate: gate_index,
                applicable: true,
                detected,
                crashed: false,
            });
            if !mode.keeps(class_index, true, detected) {
                continue;
            }
            let fired: Vec<(&str, Vec<&Finding>)> = gate_rules
                .iter()
                .map(counted)
                .map(|(id, hits)| (id, hits.collect::<Vec<_>>()))
                .filter(|(_, hits)| !hits.is_empty())
                .collect();
            result.rows.push(Row {
                detected,
                rules_fired: fired
                    .iter()
                    .map(|(id, _)| *id)
                    .collect::<Vec<_>>()
                    .join(";"),
                findings: fired.iter().map(|(_, hits)| hits.len()).sum(),
                first_pointer: fired
                    .first()
                    .map(|(_, hits)| hits[0].pointer.clone())
                    .unwrap_or_default(),
                ..row_for(gate)
            });
        }
    }
    Ok(result)
}

/// The rest of the server's contract in `bytes`, when the study compares it (`None`
/// otherwise: the surface then carries none, as the tools reader leaves it).
fn contract_of(
    bytes: &[u8],
    name: &str,
    whole_contract: bool,
) -> Result<Option<crate::surface::ServerContract>, PayloadError> {
    match whole_contract {
        true => payload::contract::read(bytes, name, Limits::default()),
        false => Ok(None),
    }
}

/// The id of the request for surface `index` and class `class_index` (0: the control):
/// `surface × (classes + 1) + class`, the same in every shard and in `generate --checker-requests`.
fn request_id(study: &Study, index: u64, class_index: usize) -> u64 {
    let classes = 1 + study.mutations.len() as u64;
    index.saturating_mul(classes) + class_index as u64
}

/// What a study sends its external checkers for surface `index` (generated or real bases, not
/// live servers): the approved bytes and, for the control and each applicable class, the
/// request id and the candidate bytes. `driftlab generate --checker-requests` writes these.
pub fn checker_comparisons(study: &Study, index: u64) -> (Vec<u8>, Vec<(u64, Vec<u8>)>) {
    let (_, base) = base(study, index);
    let mut workspace = Workspace::new(&base, None);
    let mut candidates = Vec::new();
    for (class_index, class) in study.classes().enumerate() {
        let id = request_id(study, index, class_index);
        if class_index == 0 {
            candidates.push((id, base.bytes().to_vec()));
            continue;
        }
        let mut bytes = Vec::new();
        let stream = || mutate::stream(study.spec.seed, class, index);
        if workspace
            .candidate(&base, class, stream, &mut bytes)
            .is_ok()
        {
            candidates.push((id, bytes));
        }
    }
    (base.bytes().to_vec(), candidates)
}

/// Surface `index`'s base: generated, or a real payload drawn with `below(bases)` from the
/// stream `(seed, "base", index)`.
pub fn base_surface(study: &Study, index: u64) -> (&str, Cow<'_, Value>) {
    match real_base(study, index) {
        Some((name, value)) => (name, Cow::Borrowed(value)),
        None => (SYNTHETIC, Cow::Owned(generated_surface(study, index))),
    }
}

/// Generated surface `index`, with a whole contract when the study's classes change one.
fn generated_surface(study: &Study, index: u64) -> Value {
    let (seed, tools) = (study.spec.seed, study.spec.tools);
    match study.whole_contract() {
        true => generate::surface_with_contract(seed, index, tools),
        false => generate::surface(seed, index, tools),
    }
}

/// [`base_surface`] ready for splicing: a generated base is written straight to bytes.
fn base(study: &Study, index: u64) -> (&str, Base<'_>) {
    match real_base(study, index) {
        Some((name, value)) => (name, Base::new(value)),
        None if study.whole_contract() => (SYNTHETIC, Base::owned(generated_surface(study, index))),
        None => {
            let plan = generate::plan(study.spec.seed, index, study.spec.tools);
            (SYNTHETIC, Base::generated(plan))
        }
    }
}

/// The base name of a generated surface.
const SYNTHETIC: &str = "synthetic";

/// The real payload surface `index` is based on; `None` for a study of generated surfaces.
fn real_base(study: &Study, index: u64) -> Option<(&str, &Value)> {
    if study.bases.is_empty() {
        return None;
    }
    let mut rng = crate::rng::Stream::derive(study.spec.seed, "base", index);
    let (name, value) = rng.choose(&study.bases);
    Some((name.as_str(), value))
}
