//! A study's running counts per (class, gate), and the summary they make.

use super::outcome::Decision;
use crate::study::spec::Study;
use driftlab_record::{
    metrics, rate, Cell, ClassLabel, Control, CrashCount, GateInfo, Shard, Summary, Total,
};

/// Running counts per (class, gate): detected, applicable, not applicable, checker crashes.
pub(super) struct Tally {
    gates: usize,
    counts: Vec<[u64; 4]>,
}

impl Tally {
    pub(super) fn new(classes: usize, gates: usize) -> Tally {
        Tally {
            gates,
            counts: vec![[0; 4]; classes * gates],
        }
    }

    pub(super) fn add(&mut self, decisions: &[Decision]) {
        for d in decisions {
            let counts = &mut self.counts[d.class * self.gates + d.gate];
            if d.applicable {
                counts[0] += u64::from(d.detected);
                counts[1] += 1;
                counts[3] += u64::from(d.crashed);
            } else {
                counts[2] += 1;
            }
        }
    }

    pub(super) fn summary(&self, study: &Study) -> Summary {
        let spec = &study.spec;
        let mut cells = Vec::new();
        let mut totals = Vec::new();
        let mut controls = Vec::new();
        let mut crashes = Vec::new();
        for (g, gate) in study.gates.iter().enumerate() {
            let mut sum = [0u64; 3];
            // Class 0 is the control; the spec's classes follow in order.
            for (c, class) in study.classes().enumerate() {
                let crashed = self.counts[c * self.gates + g][3];
                if crashed > 0 {
                    crashes.push(CrashCount {
                        gate: gate.id.clone(),
                        mutation: class.id().into(),
                        crashed,
                    });
                }
            }
            for (c, class) in study.mutations.iter().enumerate() {
                let [detected, total, not_applicable, _] = self.counts[(c + 1) * self.gates + g];
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
            let [false_positives, total, _, _] = self.counts[g];
            controls.push(Control {
                gate: gate.id.clone(),
                false_positives,
                total,
            });
        }
        let gates: Vec<GateInfo> = study
            .gates
            .iter()
            .map(|g| GateInfo {
                id: g.id.clone(),
                rules: g.rules.iter().map(|r| r.id().to_string()).collect(),
                // As the spec wrote it: the resolved path is this machine's.
                command: spec
                    .gates
                    .iter()
                    .find(|s| s.id == g.id)
                    .and_then(|s| s.command.clone()),
            })
            .collect();
        let labels: Vec<ClassLabel> = study
            .mutations
            .iter()
            .map(|m| ClassLabel {
                mutation: m.id().into(),
                label: m.label(),
            })
            .collect();
        Summary {
            metrics: metrics(&gates, &cells, &labels),
            crashes,
            labels,
            study: spec.id.clone(),
            title: spec.title.clone(),
            seed: spec.seed,
            surfaces: spec.surfaces,
            tools: spec.tools,
            shard: None::<Shard>,
            bases: if study.spec.live.is_empty() {
                study.bases.iter().map(|(name, _)| name.clone()).collect()
            } else {
                study
                    .spec
                    .live
                    .iter()
                    .map(|s| format!("live:{}", s.name))
                    .collect()
            },
            gates,
            mutations: study.mutations.iter().map(|m| m.id().to_string()).collect(),
            cells,
            totals,
            controls,
        }
    }
}
