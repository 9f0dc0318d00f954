//! The cells of the six-stack study's main table: each row's calls of one case counted by
//! outcome, in words, and summed per row.

use serde::Serialize;

use super::meaning::Kept;
use super::outcome::Outcome;
use super::{CallRow, StudyResults};

pub fn cell_calls<'a>(
    results: &'a StudyResults,
    row: &'a str,
    case: &'a str,
) -> impl Iterator<Item = (usize, &'a CallRow)> + 'a {
    results
        .calls
        .iter()
        .enumerate()
        .filter(move |(_, c)| c.row == row && c.case == case)
}

pub fn counts(results: &StudyResults, row: &str, case: &str) -> CellCounts {
    let mut counts = CellCounts::of(cell_calls(results, row, case).map(|(_, c)| c));
    if let Some((straight, _)) = row.split_once('+') {
        let ran_straight: Vec<u64> = cell_calls(results, straight, case)
            .filter(|(_, c)| c.judged.outcome == Outcome::Correct)
            .map(|(_, c)| c.call)
            .collect();
        counts.needless_refusals = cell_calls(results, row, case)
            .filter(|(_, c)| {
                c.control.outcome == Outcome::Correct
                    && c.judged.outcome == Outcome::Refused
                    && ran_straight.contains(&c.call)
            })
            .count();
    }
    counts
}

/// A cell in words: each outcome with its count, worst first, then what decided the first
/// call the drift touched ("silent 4, correct 8 [dropped max_results]").
pub fn measured(results: &StudyResults, row: &str, case: &str) -> String {
    let c = counts(results, row, case);
    if c.calls == 0 {
        return "– (not a case of this row)".into();
    }
    let named = |n: usize| {
        if n == 0 {
            String::new()
        } else if c.names_cause == n {
            " (all name the cause)".to_string()
        } else {
            format!(" ({} name the cause)", c.names_cause)
        }
    };
    let mut parts = Vec::new();
    for (n, name) in [(c.silent, "silent"), (c.crash, "crash"), (c.loud, "loud")] {
        if n > 0 {
            parts.push(format!("{name} {n}"));
        }
    }
    if c.loud + c.crash > 0 && c.refused == 0 {
        if let Some(last) = parts.last_mut() {
            last.push_str(&named(c.loud + c.crash));
        }
    }
    if c.refused > 0 {
        let needless = match c.needless_refusals {
            0 => String::new(),
            n => format!(" ({n} ran correctly without the guard)"),
        };
        parts.push(format!("refused {}{needless}", c.refused));
    }
    if c.correct > 0 {
        parts.push(format!("correct {}", c.correct));
    }
    let calls: Vec<&CallRow> = cell_calls(results, row, case).map(|(_, c)| c).collect();
    if c.control_failed > 0 {
        parts.push(format!(
            "{} of {} failed at version 1",
            c.control_failed, c.calls
        ));
    }
    let mut text = parts.join(", ");
    let touched = calls
        .iter()
        .find(|c| c.control.outcome == Outcome::Correct && c.judged.outcome != Outcome::Correct);
    if let Some(call) = touched.filter(|c| !c.judged.detail.is_empty()) {
        text.push_str(&format!(" [{}]", call.judged.detail));
    }
    text
}

/// A cell in a word or two, for the at-a-glance table: the calls the drift touched by outcome
/// ("silent 4"), `ok` when none was touched, `n/a` when no call got past version 1, `–` where
/// the row does not run the case.
pub fn glance(results: &StudyResults, row: &str, case: &str) -> String {
    let c = counts(results, row, case);
    if c.calls == 0 {
        return "–".into();
    }
    if c.calls == c.control_failed {
        return "n/a".into();
    }
    let parts: Vec<String> = [
        (c.silent, "silent"),
        (c.crash, "crash"),
        (c.loud, "loud"),
        (c.refused, "refused"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, name)| format!("{name} {n}"))
    .collect();
    if parts.is_empty() {
        "ok".into()
    } else {
        parts.join(", ")
    }
}

/// A row's cells summed over every case.
pub(crate) fn row_total(results: &StudyResults, row: &str) -> CellCounts {
    let mut total = CellCounts::default();
    for case in &results.spec.cases {
        total.add(&counts(results, row, &case.id));
    }
    total
}

/// A row's repairability: of its calls whose caller got an error (loud, crashed or refused),
/// how many the repairer's retry fixed as the caller meant them, then how the others that ran
/// fell short ("5 of 12 (4 exact, 1 coerced; 3 lost)"); `–` where no caller got an error.
pub(crate) fn repairability(results: &StudyResults, row: &str) -> String {
    let total = row_total(results, row);
    let errored = total.loud + total.crash + total.refused;
    if errored == 0 {
        return "–".into();
    }
    let named = |parts: &[(usize, &str)]| -> String {
        parts
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, name)| format!("{n} {name}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let kept = named(&[(total.exact, "exact"), (total.coerced, "coerced")]);
    let short = named(&[
        (total.lost, "lost"),
        (total.invented, "invented"),
        (total.other_tool, "other tool"),
    ]);
    let split = match (kept.is_empty(), short.is_empty()) {
        (true, true) => String::new(),
        (false, true) => format!(" ({kept})"),
        (true, false) => format!(" ({short})"),
        (false, false) => format!(" ({kept}; {short})"),
    };
    format!("{} of {errored}{split}", total.repaired)
}

/// Counts of one table cell: a row's calls of one case that ran correctly at version 1.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct CellCounts {
    /// Calls of the cell.
    pub calls: usize,
    /// Calls that did not run correctly at version 1 (left out of the rest).
    pub control_failed: usize,
    /// Calls that ran correctly at the drifted version.
    pub correct: usize,
    /// Calls that ran, silently wrong.
    pub silent: usize,
    /// Calls rejected with an error.
    pub loud: usize,
    /// Calls that crashed or timed out.
    pub crash: usize,
    /// Calls the guard refused.
    pub refused: usize,
    /// Loud, crashed or refused calls whose error names the cause.
    pub names_cause: usize,
    /// Behind the guard: refused calls that ran correctly on the same row without it.
    pub needless_refusals: usize,
    /// Loud, crashed or refused calls the repairer retried (their error named a change).
    pub retried: usize,
    /// Retries that repaired the call as its caller meant it: `exact` plus `coerced`.
    pub repaired: usize,
    /// Retries that ran correctly and handed the body exactly what the caller sent.
    pub exact: usize,
    /// Retries that ran correctly and changed a value only where version 2 narrowed its type.
    pub coerced: usize,
    /// Retries that ran correctly without a value the caller sent (dropped or replaced).
    pub lost: usize,
    /// Retries that ran correctly on a value the caller never sent.
    pub invented: usize,
    /// Retries that ran correctly on a tool the caller did not mean.
    pub other_tool: usize,
}

impl CellCounts {
    /// Counts `calls` (those of one row and case).
    pub fn of<'a>(calls: impl Iterator<Item = &'a CallRow>) -> CellCounts {
        let mut counts = CellCounts::default();
        for call in calls {
            counts.calls += 1;
            if call.control.outcome != Outcome::Correct {
                counts.control_failed += 1;
                continue;
            }
            match call.judged.outcome {
                Outcome::Correct => counts.correct += 1,
                Outcome::Silent => counts.silent += 1,
                Outcome::Loud => counts.loud += 1,
                Outcome::Crash => counts.crash += 1,
                Outcome::Refused => counts.refused += 1,
            }
            if call.judged.outcome != Outcome::Correct && call.judged.names_cause {
                counts.names_cause += 1;
            }
            if call.judged.outcome != Outcome::Correct {
                if call.retried.is_some() {
                    counts.retried += 1;
                }
                let kept = call.meaning.as_ref().map(|m| m.kept);
                counts.repaired += usize::from(kept.is_some_and(Kept::repaired));
                match kept {
                    Some(Kept::Exact) => counts.exact += 1,
                    Some(Kept::Coerced) => counts.coerced += 1,
                    Some(Kept::Lost) => counts.lost += 1,
                    Some(Kept::Invented) => counts.invented += 1,
                    Some(Kept::OtherTool) => counts.other_tool += 1,
                    None => {}
                }
            }
        }
        counts
    }

    /// The calls the drift touched: those that did not run correctly.
    pub fn touched(&self) -> usize {
        self.silent + self.loud + self.crash + self.refused
    }

    /// Adds another cell's counts to these.
    pub fn add(&mut self, other: &CellCounts) {
        self.calls += other.calls;
        self.control_failed += other.control_failed;
        self.correct += other.correct;
        self.silent += other.silent;
        self.loud += other.loud;
        self.crash += other.crash;
        self.refused += other.refused;
        self.names_cause += other.names_cause;
        self.needless_refusals += other.needless_refusals;
        self.retried += other.retried;
        self.repaired += other.repaired;
        self.exact += other.exact;
        self.coerced += other.coerced;
        self.lost += other.lost;
        self.invented += other.invented;
        self.other_tool += other.other_tool;
    }
}
