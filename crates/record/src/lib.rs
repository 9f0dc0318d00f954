//! A study's evidence: its rows, their tallies, and what its results were made from.
//!
//! One `Row` per surface × mutation × gate, and the `Summary` that tallies them, as
//! serializable structs; and [`provenance`], the code, inputs and environment a results folder's
//! manifest pins (floor 5).

#![deny(missing_docs)]

pub mod provenance;

use serde::{Deserialize, Serialize};

use driftlab_mutate::mutate::Label;

/// One surface × mutation × gate: did the gate detect the change?
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// Index of the generated surface (its random stream is derived from it).
    pub surface: u64,
    /// `synthetic`, or the file stem of the real payload the surface was drawn from.
    pub base: String,
    /// Mutation class id; `identity` is the control.
    pub mutation: String,
    /// False when the class had no place to apply on this surface (never dropped silently).
    pub applicable: bool,
    /// The changed tool's index in the approved surface; empty for whole-surface changes.
    pub tool_index: Option<usize>,
    /// What changed, e.g. `get_user -> "get user"` or `order 2,0,1`.
    pub detail: String,
    /// The gate's id.
    pub gate: String,
    /// True when any of the gate's rules reported a finding.
    pub detected: bool,
    /// Ids of the gate's rules that fired, `;`-separated, in gate order.
    pub rules_fired: String,
    /// Number of findings the gate's rules reported.
    pub findings: usize,
    /// JSON pointer of the first finding in the candidate payload.
    pub first_pointer: String,
}

/// Detection tally of one gate on one mutation class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// The gate's id.
    pub gate: String,
    /// The class's id.
    pub mutation: String,
    /// Rows where the gate detected the change.
    pub detected: u64,
    /// Rows where the class applied (the denominator of `rate`).
    pub total: u64,
    /// Rows where the class had no place to apply.
    pub not_applicable: u64,
    /// `detected / total`; `None` when `total` is 0.
    pub rate: Option<f64>,
}

/// A gate's tally over every non-control class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Total {
    /// The gate's id.
    pub gate: String,
    /// Rows where the gate detected the change.
    pub detected: u64,
    /// Rows where a class applied.
    pub total: u64,
    /// Rows where a class had no place to apply.
    pub not_applicable: u64,
    /// `detected / total`; `None` when `total` is 0.
    pub rate: Option<f64>,
}

/// A gate's false positives on the unchanged control candidates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Control {
    /// The gate's id.
    pub gate: String,
    /// Unchanged candidates the gate flagged.
    pub false_positives: u64,
    /// Unchanged candidates compared.
    pub total: u64,
}

/// Which slice of a study a shard ran: shard `index` of `count` (1-based), surfaces
/// `first..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// The shard's number, from 1.
    pub index: u64,
    /// How many shards the study is cut into.
    pub count: u64,
    /// Its first surface.
    pub first: u64,
    /// One past its last surface.
    pub end: u64,
}

impl Shard {
    /// Shard `index` of `count` (1-based): surfaces `⌊(index−1)·S/count⌋ .. ⌊index·S/count⌋`.
    pub fn of(index: u64, count: u64, surfaces: u64) -> Shard {
        let bound = |k: u64| (u128::from(k) * u128::from(surfaces) / u128::from(count)) as u64;
        Shard {
            index,
            count,
            first: bound(index - 1),
            end: bound(index),
        }
    }
}

/// A gate as a summary records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateInfo {
    /// The gate's id.
    pub id: String,
    /// Its rules' ids, in order.
    pub rules: Vec<String>,
    /// An external checker's argv, as the spec gives it (then `rules` is empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
}

/// Comparisons an external checker crashed on (exit-code mode), per gate and class (the
/// control included); only non-zero counts are listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrashCount {
    /// The gate's id.
    pub gate: String,
    /// The class's id.
    pub mutation: String,
    /// Comparisons the checker crashed on.
    pub crashed: u64,
}

/// Everything a chart, a report or a reader needs from a finished study.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The study's id.
    pub study: String,
    /// The study's title (empty: none).
    pub title: String,
    /// The seed every draw derives from.
    pub seed: u64,
    /// Surfaces in the whole study (a shard counts only its own slice, see `shard`).
    pub surfaces: u64,
    /// Tools per generated surface.
    pub tools: usize,
    /// Names of the real payloads surfaces were drawn from; empty for synthetic surfaces.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bases: Vec<String>,
    /// Set on a shard's summary only; a merged or unsharded summary has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// The gates, in spec order.
    pub gates: Vec<GateInfo>,
    /// Non-control classes, in spec order.
    pub mutations: Vec<String>,
    /// Per gate and class, in gate then class order.
    pub cells: Vec<Cell>,
    /// Per gate, over every non-control class.
    pub totals: Vec<Total>,
    /// Per gate, on the unchanged controls.
    pub controls: Vec<Control>,
    /// Each class's expected label (`breaking`, `dangerous`, `compatible`, `benign`).
    #[serde(default)]
    pub labels: Vec<ClassLabel>,
    /// Per gate, detection judged against the labels.
    #[serde(default)]
    pub metrics: Vec<GateMetrics>,
    /// External checkers' crashes; absent when there were none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crashes: Vec<CrashCount>,
}

/// A class and its expected label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassLabel {
    /// The class's id.
    pub mutation: String,
    /// Its label.
    pub label: Label,
}

/// A gate judged against the labels: breaking and dangerous rows are positives (a gate should
/// flag them), compatible and benign rows negatives; the identity control is counted apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateMetrics {
    /// The gate's id.
    pub gate: String,
    /// Breaking or dangerous rows the gate flagged.
    pub true_positives: u64,
    /// Breaking or dangerous rows it missed.
    pub false_negatives: u64,
    /// Compatible or benign rows it flagged.
    pub false_positives: u64,
    /// Compatible or benign rows it let pass.
    pub true_negatives: u64,
    /// TP / (TP + FP)
    pub precision: Option<f64>,
    /// TP / (TP + FN)
    pub recall: Option<f64>,
    /// 2 · precision · recall / (precision + recall)
    pub f1: Option<f64>,
    /// FP / (FP + TN): how often the gate cries wolf on compatible and benign changes.
    pub false_positive_rate: Option<f64>,
    /// Share of breaking and dangerous classes the gate detects every time they apply (a class
    /// is "killed" when its detection rate is 1).
    pub mutation_score: Option<f64>,
}

/// Computes every gate's metrics from the cells and the class labels.
pub fn metrics(gates: &[GateInfo], cells: &[Cell], labels: &[ClassLabel]) -> Vec<GateMetrics> {
    let label_of = |m: &str| labels.iter().find(|l| l.mutation == m).map(|l| l.label);
    gates
        .iter()
        .map(|gate| {
            let (mut tp, mut fn_, mut fp, mut tn, mut killed, mut flaggable) =
                (0, 0, 0, 0, 0u64, 0u64);
            for c in cells.iter().filter(|c| c.gate == gate.id) {
                match label_of(&c.mutation) {
                    Some(l) if l.should_flag() => {
                        tp += c.detected;
                        fn_ += c.total - c.detected;
                        if c.total > 0 {
                            flaggable += 1;
                            killed += u64::from(c.detected == c.total);
                        }
                    }
                    Some(Label::Compatible | Label::Benign) => {
                        fp += c.detected;
                        tn += c.total - c.detected;
                    }
                    _ => {}
                }
            }
            let precision = rate(tp, tp + fp);
            let recall = rate(tp, tp + fn_);
            let f1 = match (precision, recall) {
                (Some(p), Some(r)) if p + r > 0.0 => Some(2.0 * p * r / (p + r)),
                (Some(_), Some(_)) => Some(0.0),
                _ => None,
            };
            GateMetrics {
                gate: gate.id.clone(),
                true_positives: tp,
                false_negatives: fn_,
                false_positives: fp,
                true_negatives: tn,
                precision,
                recall,
                f1,
                false_positive_rate: rate(fp, fp + tn),
                mutation_score: rate(killed, flaggable),
            }
        })
        .collect()
}

/// One line of `summary.csv` (long format).
#[derive(Debug, Serialize)]
pub struct SummaryCsvRow<'a> {
    /// `change` (one class), `total` (all classes) or `control` (identity: false positives).
    pub kind: &'static str,
    /// The gate's id.
    pub gate: &'a str,
    /// The class's id (`all` for `total`, `identity` for `control`).
    pub mutation: &'a str,
    /// Detected rows (false positives for `control`).
    pub detected: u64,
    /// Rows compared.
    pub total: u64,
    /// Rows where the class had no place to apply.
    pub not_applicable: u64,
    /// `detected / total`; `None` when `total` is 0.
    pub rate: Option<f64>,
}

/// `detected / total`; `None` when `total` is 0.
pub fn rate(detected: u64, total: u64) -> Option<f64> {
    (total > 0).then(|| detected as f64 / total as f64)
}

impl Summary {
    /// The spec's title, or its id when it has none.
    pub fn display_title(&self) -> &str {
        if self.title.is_empty() {
            &self.study
        } else {
            &self.title
        }
    }

    /// Whether the labels make some comparisons harmless (compatible or benign), so a gate can
    /// be wrong by flagging: then recall and the false-positive rate say more than a total.
    pub fn has_harmless_classes(&self) -> bool {
        self.metrics
            .iter()
            .any(|m| m.false_positives + m.true_negatives > 0)
    }

    /// How many comparisons gate `gate`'s external checker crashed on, all classes together.
    pub fn crashed(&self, gate: &str) -> u64 {
        self.crashes
            .iter()
            .filter(|c| c.gate == gate)
            .map(|c| c.crashed)
            .sum()
    }

    /// The tally of `gate` on `mutation`.
    pub fn cell(&self, gate: &str, mutation: &str) -> Option<&Cell> {
        self.cells
            .iter()
            .find(|c| c.gate == gate && c.mutation == mutation)
    }

    /// The tally of `gate` over every non-control class.
    pub fn total(&self, gate: &str) -> Option<&Total> {
        self.totals.iter().find(|t| t.gate == gate)
    }

    /// The false positives of `gate` on the controls.
    pub fn control(&self, gate: &str) -> Option<&Control> {
        self.controls.iter().find(|c| c.gate == gate)
    }

    /// The long-format CSV rows: per class, then the total, then the control, per gate.
    pub fn csv_rows(&self) -> Vec<SummaryCsvRow<'_>> {
        let mut rows = Vec::new();
        for gate in &self.gates {
            for cell in self.cells.iter().filter(|c| c.gate == gate.id) {
                rows.push(SummaryCsvRow {
                    kind: "change",
                    gate: &gate.id,
                    mutation: &cell.mutation,
                    detected: cell.detected,
                    total: cell.total,
                    not_applicable: cell.not_applicable,
                    rate: cell.rate,
                });
            }
            if let Some(t) = self.total(&gate.id) {
                rows.push(SummaryCsvRow {
                    kind: "total",
                    gate: &gate.id,
                    mutation: "all",
                    detected: t.detected,
                    total: t.total,
                    not_applicable: t.not_applicable,
                    rate: t.rate,
                });
            }
            if let Some(c) = self.control(&gate.id) {
                rows.push(SummaryCsvRow {
                    kind: "control",
                    gate: &gate.id,
                    mutation: driftlab_mutate::mutate::CONTROL.id(),
                    detected: c.false_positives,
                    total: c.total,
                    not_applicable: 0,
                    rate: rate(c.false_positives, c.total),
                });
            }
        }
        rows
    }
}
