//! Each claim held against its cells: the rules that turn a claim and its cell into a verdict,
//! each with the reason it gives in the report (METHOD.md, *The claims*, writes the same
//! rules), and the evidence it cites.

use serde::Serialize;

use super::cells::{cell_calls, counts, glance, measured};
use super::outcome::{one_line, Outcome};
use super::spec::Claim;
use super::{CallRow, CellCounts, StudyResults};

/// A claim's verdict on one cell and why.
pub(crate) struct Verdict {
    /// `confirmed`, `contradicted`, `partly` or `untested`.
    pub verdict: &'static str,
    /// The rule's reason, in a sentence.
    pub reason: String,
}

/// Claims counted by verdict.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(crate) struct Tally {
    pub confirmed: usize,
    pub contradicted: usize,
    pub partly: usize,
    pub untested: usize,
}

impl Tally {
    /// Counts `verdicts`.
    pub fn of<'a>(verdicts: impl Iterator<Item = &'a str>) -> Tally {
        let mut tally = Tally::default();
        for verdict in verdicts {
            match verdict {
                "confirmed" => tally.confirmed += 1,
                "contradicted" => tally.contradicted += 1,
                "partly" => tally.partly += 1,
                _ => tally.untested += 1,
            }
        }
        tally
    }
}

/// Holds `claim` against its cell of `case`: `touched` are the cell's calls the drift touched.
pub(crate) fn verdict(
    results: &StudyResults,
    claim: &Claim,
    case: &str,
    touched: &[&CallRow],
) -> Verdict {
    let untested = |reason: String| Verdict {
        verdict: "untested",
        reason,
    };
    let c = counts(results, &claim.row, case);
    let ran = c.calls - c.control_failed;
    if let Some(reason) = &claim.untested {
        return untested(reason.clone());
    }
    if ran == 0 {
        let first = cell_calls(results, &claim.row, case)
            .next()
            // 200 characters reach what a framework's error wraps in its own words.
            .map(|(_, call)| one_line(&call.control_answer, 200))
            .unwrap_or_default();
        return untested(format!(
            "no call got past version 1; the first answered: {first}"
        ));
    }
    if let Some(against) = &claim.against {
        if same_outcomes(&c, &counts(results, against, case)) {
            return untested(format!(
                "the row without the option, `{against}`, ended alike here: the option decided \
                 nothing on this case"
            ));
        }
    }
    let cell = glance(results, &claim.row, case);
    let (holds, reason) = rule(claim, &c, ran, touched, &cell);
    let error_shown = claim.error.as_ref().is_none_or(|named| {
        touched.iter().any(|call| {
            call.judged.detail.contains(named.as_str()) || call.answer.contains(named.as_str())
        })
    });
    match (holds, error_shown) {
        (true, true) => Verdict {
            verdict: "confirmed",
            reason,
        },
        (true, false) => Verdict {
            verdict: "partly",
            reason: format!(
                "{reason}; no touched call shows {}",
                claim.error.as_deref().unwrap_or_default()
            ),
        },
        (false, _) => Verdict {
            verdict: "contradicted",
            reason,
        },
    }
}

/// Whether the claimed outcome holds on the cell, and why in words.
fn rule(
    claim: &Claim,
    c: &CellCounts,
    ran: usize,
    touched: &[&CallRow],
    cell: &str,
) -> (bool, String) {
    let stopped = c.loud + c.crash + c.refused;
    match claim.claimed.as_str() {
        "silent" if c.silent > 0 => (
            true,
            format!("{} of {ran} calls ran silently wrong", c.silent),
        ),
        "silent" => (false, format!("no call ran silently wrong ({cell})")),
        "loud" if c.silent == 0 && stopped > 0 => (
            true,
            format!("{stopped} of {ran} calls were stopped with an error, none silently wrong"),
        ),
        "loud" if c.silent > 0 => (
            false,
            format!("{} of {ran} calls ran silently wrong ({cell})", c.silent),
        ),
        "loud" => (false, format!("no call was stopped ({cell})")),
        // Validation was skipped when the body ran on what version 2 rejects or lacks, whether
        // it then answered wrong (silent) or failed on it (crash).
        "unvalidated" => {
            let reached = touched
                .iter()
                .filter(|call| !call.received.is_empty())
                .count();
            if reached > 0 {
                (
                    true,
                    format!("{reached} of {ran} calls reached the tool body unvalidated ({cell})"),
                )
            } else if touched.is_empty() {
                (false, "no call was touched: every one ran correctly".into())
            } else {
                (
                    false,
                    format!("every touched call was stopped before the tool body ({cell})"),
                )
            }
        }
        // Every call that ran at version 1 ran as meant: straight (translated) or retried as
        // its error advised and repaired.
        "followed" if c.correct + c.repaired == ran => (
            true,
            format!(
                "all {ran} calls ran as meant ({} straight, {} repaired)",
                c.correct, c.repaired
            ),
        ),
        "followed" => (
            false,
            format!(
                "{} of {ran} calls did not run as meant",
                ran - c.correct - c.repaired
            ),
        ),
        _ if c.touched() > 0 && c.refused == c.touched() => (
            true,
            format!(
                "all {} touched calls were refused before the server",
                c.refused
            ),
        ),
        _ => (
            false,
            format!("not every touched call was refused ({cell})"),
        ),
    }
}

/// Two cells whose calls ended alike, outcome by outcome.
fn same_outcomes(a: &CellCounts, b: &CellCounts) -> bool {
    (
        a.control_failed,
        a.correct,
        a.silent,
        a.loud,
        a.crash,
        a.refused,
    ) == (
        b.control_failed,
        b.correct,
        b.silent,
        b.loud,
        b.crash,
        b.refused,
    )
}

/// Touched: the cell's calls that ran correctly at version 1 and not at version 2.
pub(crate) fn is_touched(call: &CallRow) -> bool {
    call.control.outcome == Outcome::Correct && call.judged.outcome != Outcome::Correct
}

/// A claim of the survey held against its cells.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ClaimResult<'a> {
    pub row: &'a str,
    pub case: &'a str,
    pub says: &'a str,
    pub claimed: String,
    pub measured: String,
    /// `confirmed`, `contradicted`, `partly` (the outcome holds, the named error does not) or
    /// `untested` (no call of the cell ran correctly at version 1, the option decided nothing,
    /// or the spec says why the row cannot test it).
    pub verdict: &'static str,
    /// Why, by the rule of the claimed outcome (METHOD.md, *The claims*).
    pub reason: String,
    /// What the verdict holds for: the row's stack and option (and guard path), never more.
    pub scope: String,
    /// The evidence: the cell's first call the drift touched, else its first call that ran at
    /// version 1, else its first call (whose `control_answer` says why none ran), as its
    /// calls.csv record number (1 is the first after the header; a record may span lines).
    pub evidence_record: usize,
    /// The same call by its key: `row`, `case` and `call` of calls.csv.
    pub evidence_call: u64,
}

/// Holds each claim against its cells.
pub fn claims<'a>(results: &'a StudyResults) -> Vec<ClaimResult<'a>> {
    let mut out = Vec::new();
    for claim in &results.spec.claims {
        for case in &claim.cases {
            out.push(hold(results, claim, case));
        }
    }
    out
}

fn hold<'a>(results: &'a StudyResults, claim: &'a Claim, case: &'a str) -> ClaimResult<'a> {
    let touched: Vec<(usize, &CallRow)> = cell_calls(results, &claim.row, case)
        .filter(|(_, c)| is_touched(c))
        .collect();
    let touched_calls: Vec<&CallRow> = touched.iter().map(|(_, c)| *c).collect();
    let Verdict { verdict, reason } = verdict(results, claim, case, &touched_calls);
    // The evidence: the first call the drift touched, else the first that ran at version 1,
    // else (untested) the first call, whose version-1 answer says why none ran.
    let evidence = touched.first().map(|(i, _)| *i).or_else(|| {
        let mut calls = cell_calls(results, &claim.row, case);
        let first = calls.next().map(|(i, _)| i);
        calls
            .find(|(_, c)| c.control.outcome == Outcome::Correct)
            .map(|(i, _)| i)
            .or(first)
    });
    let claimed = match &claim.error {
        Some(error) => format!("{} ({error})", claim.claimed),
        None => claim.claimed.clone(),
    };
    let scope = results
        .rows
        .iter()
        .find(|r| r.row == claim.row)
        .map(|r| match r.path.as_str() {
            super::STRAIGHT => format!("{} · {}", r.stack, r.option),
            path => format!("{} · {} behind the guard ({path})", r.stack, r.option),
        })
        .unwrap_or_else(|| claim.row.clone());
    ClaimResult {
        row: &claim.row,
        scope,
        case,
        says: &claim.says,
        claimed,
        measured: measured(results, &claim.row, case),
        verdict,
        reason,
        evidence_record: evidence.map_or(0, |i| i + 1),
        evidence_call: evidence.map_or(0, |i| results.calls[i].call),
    }
}
