//! The external checkers of a study's gates: started once per run, each judging every pending
//! comparison of a chunk in surface order; their answers complete the decisions and rows.

use super::outcome::{Pending, RowsMode, SurfaceResult};
use super::Study;
use crate::study::external::{Answer, Checker, CheckerError, Fault, Request};

/// One running checker per external gate (by gate position).
pub(super) struct Checkers {
    by_gate: Vec<Option<Checker>>,
}

impl Checkers {
    pub fn start(study: &Study) -> Result<Checkers, CheckerError> {
        let by_gate = study
            .gates
            .iter()
            .map(|g| g.checker.as_ref().map(Checker::start).transpose())
            .collect::<Result<_, _>>()?;
        Ok(Checkers { by_gate })
    }

    /// Asks each checker about its gate's pending comparisons, fills in the decisions and rows,
    /// and drops the rows `mode` does not keep.
    pub fn judge(
        &mut self,
        chunk: &mut [SurfaceResult],
        mode: RowsMode,
    ) -> Result<(), CheckerError> {
        for (gate, checker) in self.by_gate.iter_mut().enumerate() {
            let Some(checker) = checker else {
                continue;
            };
            let requests: Vec<Request<'_>> = chunk
                .iter()
                .flat_map(|r| {
                    r.pending
                        .iter()
                        .filter(|p| p.gate == gate)
                        .map(|p| Request {
                            id: p.id,
                            approved: &r.approved,
                            candidate: &r.candidates[p.candidate],
                        })
                })
                .collect();
            if requests.is_empty() {
                continue;
            }
            let answers = checker.judge(&requests)?;
            let mut answers = answers.into_iter();
            for result in chunk.iter_mut() {
                let pending = std::mem::take(&mut result.pending);
                for p in pending.iter().filter(|p| p.gate == gate) {
                    let answer = answers
                        .next()
                        .ok_or_else(|| checker.fault(Fault::FewerAnswers))?;
                    apply(result, p, &answer);
                }
                result.pending = pending;
            }
        }
        for result in chunk.iter_mut() {
            drop_unkept_rows(result, mode);
            result.pending.clear();
            result.candidates.clear();
        }
        Ok(())
    }
}

fn apply(result: &mut SurfaceResult, pending: &Pending, answer: &Answer) {
    let decision = &mut result.decisions[pending.decision];
    decision.detected = answer.detected();
    decision.crashed = matches!(answer, Answer::Crashed(_));
    let Some(row) = pending.row.map(|i| &mut result.rows[i]) else {
        return;
    };
    row.detected = answer.detected();
    match answer {
        Answer::Judged {
            rules,
            findings,
            first_pointer,
            ..
        } => {
            row.rules_fired = rules.join(";");
            row.findings = *findings;
            row.first_pointer = first_pointer.clone();
        }
        Answer::Crashed(status) => row.rules_fired = format!("(crashed: {status})"),
    }
}

/// Removes the rows of judged comparisons that `mode` does not keep (e.g. detected ones under
/// `--rows missed`), keeping every other row in place.
fn drop_unkept_rows(result: &mut SurfaceResult, mode: RowsMode) {
    let unkept: Vec<usize> = result
        .pending
        .iter()
        .filter_map(|p| {
            let detected = result.decisions[p.decision].detected;
            p.row.filter(|_| !mode.keeps(p.class, true, detected))
        })
        .collect();
    if unkept.is_empty() {
        return;
    }
    let mut position = 0;
    result.rows.retain(|_| {
        let keep = !unkept.contains(&position);
        position += 1;
        keep
    });
}
