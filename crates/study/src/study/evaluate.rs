//! One surface of a study, step by step: its approved contract is read once; then each class
//! makes a candidate (or does not apply), the candidate's bytes are read beside the approved
//! surface, the study's rules judge the pair, and each gate decides (or waits for its external
//! checker), with its row.

use serde_json::Value;

use crate::study::spec::Study;
use driftlab_check::check::{Comparison, Finding};
use driftlab_contract::payload::{self, Limits, PayloadError};
use driftlab_contract::surface::Surface;
use driftlab_mutate::mutate::{self, Applied, MutationClass};
use driftlab_record::Row;

use super::bases::base;
use super::gate::Gate;
use super::live;
use super::outcome::{Decision, Pending, RowsMode, SurfaceResult};
use super::run_error::{RunError, RunFailure};
use super::splice::{Base, Workspace};

/// Every decision of one surface (every class, control first, × every gate), and its rows.
pub(super) fn evaluate_surface(
    study: &Study,
    shared: &Shared,
    index: u64,
    mode: RowsMode,
) -> Result<SurfaceResult, RunError> {
    let failed = |mutation, failure| RunError {
        surface: index,
        mutation,
        failure,
    };
    let is_live = !study.spec.live.is_empty();
    // The base (for the classes) and the approved bytes a client receives: for a live server
    // its own bytes, exactly as a client receives them.
    let live = match is_live {
        true => Some(
            live::approved(study, index).map_err(|m| failed("(approved)", RunFailure::Live(m)))?,
        ),
        false => None,
    };
    let (base_name, base) = match &live {
        Some(live) => (live.name, Base::new(&live.value)),
        None => base(study, index),
    };
    let base_bytes: &[u8] = live.as_ref().map_or(base.bytes(), |live| &live.bytes);
    let approved = read_approved(study, base_bytes)
        .map_err(|e| failed("(approved)", RunFailure::Payload(e)))?;
    let external = study.gates.iter().any(|g| g.checker.is_some());
    let mut surface = Judged {
        study,
        shared,
        mode,
        rows: RowsOf {
            surface: index,
            base: base_name,
        },
        result: SurfaceResult {
            decisions: Vec::with_capacity((1 + study.mutations.len()) * study.gates.len()),
            rows: Vec::new(),
            approved: if external {
                base_bytes.to_vec()
            } else {
                Vec::new()
            },
            candidates: Vec::new(),
            pending: Vec::new(),
        },
        findings: vec![Vec::new(); study.rules.len()],
        ran: vec![false; study.rules.len()],
        verdicts: Vec::with_capacity(study.gates.len()),
    };
    // Classes that can edit the base's bytes do so on the approved reading of them.
    let mut workspace = Workspace::new(&base, Some(&approved));
    let mut spliced = Vec::with_capacity(base_bytes.len() + 64);
    for (class_index, class) in study.classes().enumerate() {
        // The control changes nothing: its candidate is the approved bytes.
        let control = class_index == 0;
        let outcome = match control {
            true => shared.control.clone(),
            false => {
                let stream = || mutate::stream(study.spec.seed, class, index);
                workspace.candidate(&base, class, stream, &mut spliced)
            }
        };
        let applied = match outcome {
            Ok(applied) => applied,
            Err(not_applicable) => {
                surface.not_applicable(class_index, class, &not_applicable.0);
                continue;
            }
        };
        let candidate = match is_live {
            // What a client of the drifted server receives, through `driftlab wrap`.
            true => {
                let class = (!control).then_some(class);
                let bytes =
                    through_wrap(study, index, class, base_bytes, &mut spliced).map_err(|m| {
                        failed(class.map_or("identity", |c| c.id()), RunFailure::Live(m))
                    })?;
                if external {
                    surface.result.candidates.push(bytes.clone());
                }
                let mut read = payload::read(&bytes, "candidate", Limits::default());
                if let Ok(read) = &mut read {
                    read.share_parsed(&approved);
                }
                read
            }
            // A generated candidate is read in its own buffer, which comes back for the next
            // class.
            false => {
                if control {
                    spliced.clear();
                    spliced.extend_from_slice(base_bytes);
                }
                if external {
                    surface.result.candidates.push(spliced.clone());
                }
                read_candidate(study, std::mem::take(&mut spliced), &approved)
            }
        }
        .map_err(|e| failed(class.id(), RunFailure::Payload(e)))?;
        surface.judge(&approved, &candidate);
        if !is_live {
            spliced = candidate.into_text().into_bytes();
        }
        surface.decide(class_index, class, &applied);
    }
    Ok(surface.result)
}

/// What every surface of a run shares, worked out once.
pub(super) struct Shared {
    /// The control's outcome: it draws nothing and changes nothing, so it is the same on every
    /// surface (and needs no stream of its own).
    pub control: mutate::Outcome,
    /// For each gate, the place of each of its rules in `Study::rules`.
    pub gate_rules: Vec<Vec<usize>>,
    /// The same places in the order a verdict is sought: rules that glance before rules that
    /// parse schemas ([`driftlab_check::check::Rule::heavy`]), rules of the whole pair before per-tool
    /// ones (which then find the changed schemas parsed).
    pub verdict_order: Vec<Vec<usize>>,
    /// Every rule's place, whole-pair rules before per-tool ones (which then find the changed
    /// schemas parsed): the order all of them run in for `--rows all`.
    pub every_rule: Vec<usize>,
    /// How much the diff must prove for the gates' verdicts.
    pub proving: driftlab_diff::diff::Proving,
}

impl Shared {
    pub fn new(study: &Study) -> Shared {
        let control = mutate::CONTROL;
        let place = |rule: &&dyn driftlab_check::check::Rule| {
            study.rules.iter().position(|r| r.id() == rule.id())
        };
        let gate_rules: Vec<Vec<usize>> = study
            .gates
            .iter()
            .map(|gate| gate.rules.iter().filter_map(place).collect())
            .collect();
        let cost = |&at: &usize| {
            let rule = study.rules[at];
            (rule.heavy(), rule.per_tool().is_some())
        };
        let verdict_order = gate_rules
            .iter()
            .map(|places| {
                let mut order = places.clone();
                order.sort_by_key(cost);
                order
            })
            .collect();
        let mut every_rule: Vec<usize> = (0..study.rules.len()).collect();
        every_rule.sort_by_key(|&at| study.rules[at].per_tool().is_some());
        Shared {
            control: control.apply(&mut Value::Null, &mut mutate::stream(0, control, 0)),
            gate_rules,
            verdict_order,
            every_rule,
            proving: driftlab_check::check::rules::diff_rules::proving_for(&study.rules),
        }
    }
}

/// The id of the request for surface `index` and class `class_index` (0: the control):
/// `surface × (classes + 1) + class`, the same in every shard and in `generate --checker-requests`.
pub(super) fn request_id(study: &Study, index: u64, class_index: usize) -> u64 {
    let classes = 1 + study.mutations.len() as u64;
    index.saturating_mul(classes) + class_index as u64
}

/// The approved surface of `bytes`, with the rest of its contract when the study compares it.
fn read_approved(study: &Study, bytes: &[u8]) -> Result<Surface, PayloadError> {
    let contract = contract_of(bytes, "approved", study.whole_contract())?;
    let read = payload::read(bytes, "approved", Limits::default())?;
    Ok(read.with_contract(contract))
}

/// A generated candidate's bytes read beside the approved surface (sharing what it parsed).
fn read_candidate(
    study: &Study,
    bytes: Vec<u8>,
    approved: &Surface,
) -> Result<Surface, PayloadError> {
    let contract = contract_of(&bytes, "candidate", study.whole_contract())?;
    let read = payload::read_candidate(bytes, "candidate", Limits::default(), approved)?;
    Ok(read.with_contract(contract))
}

/// The bytes a client of the live server receives through `driftlab wrap` for `class` (`None`:
/// the control), checked against what the study made: the mutation's bytes on one line (in
/// `spliced`), or for the control the server's own bytes.
fn through_wrap(
    study: &Study,
    index: u64,
    class: Option<&'static dyn MutationClass>,
    base_bytes: &[u8],
    spliced: &mut [u8],
) -> Result<Vec<u8>, live::LiveStudyError> {
    let received = live::through_wrap(study, index, class)?;
    let expected: &[u8] = match class {
        None => base_bytes,
        Some(_) => {
            driftlab_proxy::proxy::wrap::to_one_line(spliced);
            spliced
        }
    };
    match received == expected {
        true => Ok(received),
        false => Err(live::LiveStudyError::WrapDiffers),
    }
}

/// The rest of the server's contract in `bytes`, when the study compares it (`None`
/// otherwise: the surface then carries none, as the tools reader leaves it).
fn contract_of(
    bytes: &[u8],
    name: &str,
    whole_contract: bool,
) -> Result<Option<driftlab_contract::surface::ServerContract>, PayloadError> {
    match whole_contract {
        true => payload::contract::read(bytes, name, Limits::default()),
        false => Ok(None),
    }
}

/// The rows of one surface: one per class and gate, all built here.
struct RowsOf<'s> {
    surface: u64,
    base: &'s str,
}

impl RowsOf<'_> {
    /// A row before its verdict: a class that did not apply (`applied` is `None`, `detail`
    /// says why) or a candidate the gate has not judged yet.
    fn row(&self, class: &dyn MutationClass, applied: Result<&Applied, &str>, gate: &Gate) -> Row {
        let (applicable, tool_index, detail) = match applied {
            Ok(applied) => (true, applied.tool_index, applied.detail.clone()),
            Err(why) => (false, None, why.to_string()),
        };
        Row {
            surface: self.surface,
            base: self.base.into(),
            mutation: class.id().into(),
            applicable,
            tool_index,
            detail,
            gate: gate.id.clone(),
            detected: false,
            rules_fired: String::new(),
            findings: 0,
            first_pointer: String::new(),
        }
    }
}

/// One surface being judged: its decisions and rows so far, and the findings of the current
/// candidate, per rule.
struct Judged<'s> {
    study: &'s Study,
    shared: &'s Shared,
    mode: RowsMode,
    rows: RowsOf<'s>,
    result: SurfaceResult,
    findings: Vec<Vec<Finding>>,
    /// Which rules ran on the current candidate (every one, unless only verdicts are kept).
    ran: Vec<bool>,
    /// Each gate's verdict on the current candidate (`false` for an external checker's).
    verdicts: Vec<bool>,
}

impl Judged<'_> {
    /// A class with no place to apply: undetected and not applicable at every gate.
    fn not_applicable(&mut self, class_index: usize, class: &dyn MutationClass, why: &str) {
        for gate in 0..self.study.gates.len() {
            self.result.decisions.push(Decision {
                class: class_index,
                gate,
                applicable: false,
                detected: false,
                crashed: false,
            });
        }
        if self.mode.keeps(class_index, false, false) {
            for gate in &self.study.gates {
                let row = self.rows.row(class, Err(why), gate);
                self.result.rows.push(row);
            }
        }
    }

    /// Every rule of the study on the pair, each rule's findings kept apart.
    fn judge(&mut self, approved: &Surface, candidate: &Surface) {
        // Only `--rows all` shows a finding's pointer (`--rows missed` keeps only rows without
        // findings): otherwise a finding counts only by its rule and severity.
        let comparison = match self.mode {
            RowsMode::All => Comparison::new(approved, candidate),
            _ => Comparison::verdict_only(approved, candidate),
        };
        // Rows keep no witness: the diff proves only what the gates' verdicts need.
        let comparison = comparison.proving(self.shared.proving);
        self.ran.fill(false);
        // Every row (`--rows all`) names every rule that fired: all of them run. Otherwise a
        // gate needs only its verdict, and a gate stops at its first rule with a finding at its
        // threshold (`Shared::verdict_order`): a gate detects when any of its rules has one, so
        // the verdicts are those of every rule run. A row kept then is an undetected one, for
        // which every rule of the gate ran.
        if self.mode == RowsMode::All {
            for &at in &self.shared.every_rule {
                self.run(at, &comparison);
            }
        }
        self.verdicts.clear();
        for (gate_index, gate) in self.study.gates.iter().enumerate() {
            let mut detected = false;
            if gate.checker.is_none() {
                for &at in &self.shared.verdict_order[gate_index] {
                    self.run(at, &comparison);
                    if self.findings[at]
                        .iter()
                        .any(|f| gate.fail_on.fails_finding(f))
                    {
                        detected = true;
                        break;
                    }
                }
            }
            self.verdicts.push(detected);
        }
    }

    /// Rule `at` on the pair, once per candidate; its findings are kept apart from the other
    /// rules', so the order rules run in changes no byte.
    fn run(&mut self, at: usize, comparison: &Comparison<'_>) {
        if !self.ran[at] {
            self.ran[at] = true;
            self.findings[at].clear();
            self.study.rules[at].check(comparison, &mut self.findings[at]);
        }
    }

    /// Each gate's decision on the candidate just judged, with its row; a gate with an external
    /// checker waits for the chunk's answers (see `study::checkers`).
    fn decide(&mut self, class_index: usize, class: &dyn MutationClass, applied: &Applied) {
        for (gate_index, gate) in self.study.gates.iter().enumerate() {
            if gate.checker.is_some() {
                self.result.pending.push(Pending {
                    id: request_id(self.study, self.rows.surface, class_index),
                    gate: gate_index,
                    class: class_index,
                    decision: self.result.decisions.len(),
                    row: (self.mode != RowsMode::None).then_some(self.result.rows.len()),
                    candidate: self.result.candidates.len() - 1,
                });
                self.result.decisions.push(Decision {
                    class: class_index,
                    gate: gate_index,
                    applicable: true,
                    detected: false,
                    crashed: false,
                });
                if self.mode != RowsMode::None {
                    let row = self.rows.row(class, Ok(applied), gate);
                    self.result.rows.push(row);
                }
                continue;
            }
            // The findings of this gate's rules that reach its threshold, rule by rule.
            let counted = |&at: &usize| {
                let hits = self.findings[at]
                    .iter()
                    .filter(|f| gate.fail_on.fails_finding(f));
                (self.study.rules[at].id(), hits)
            };
            let gate_rules = &self.shared.gate_rules[gate_index];
            let detected = self.verdicts[gate_index];
            self.result.decisions.push(Decision {
                class: class_index,
                gate: gate_index,
                applicable: true,
                detected,
                crashed: false,
            });
            if !self.mode.keeps(class_index, true, detected) {
                continue;
            }
            let fired: Vec<(&str, Vec<&Finding>)> = gate_rules
                .iter()
                .map(counted)
                .map(|(id, hits)| (id, hits.collect::<Vec<_>>()))
                .filter(|(_, hits)| !hits.is_empty())
                .collect();
            let row = Row {
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
                ..self.rows.row(class, Ok(applied), gate)
            };
            self.result.rows.push(row);
        }
    }
}
