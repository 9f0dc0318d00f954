//! The six-stack study's report.md: the headline, the stack × drift table with each claim
//! beside its cell, the claims with their evidence rows, and how to reproduce.

use std::fmt::Write as _;

use super::cells::{measured, repairability};
use super::outcome::{one_line, Outcome};
use super::spec::{GuardPath, StackRow};
use super::verdicts::ClaimResult;
use super::verdicts::Tally;
use super::{
    CallRow, StudyResults, ADAPTERS_FIGURE_STEM, CALLS_CSV, FIGURE_STEM, STRAIGHT, SUMMARY_CSV,
};

/// A table with a line per stack row and a column per case: `separator` between the stack and
/// its option, each cell from `cell`, then `mark` once per claim about that cell.
fn row_table(
    md: &mut String,
    results: &StudyResults,
    claims: &[ClaimResult<'_>],
    leading: &[&str],
    separator: &str,
    mark: impl Fn(&mut String, &ClaimResult<'_>),
    cell: impl Fn(&StudyResults, &str, &str) -> String,
) {
    let spec = &results.spec;
    table_header(md, leading, spec);
    for row in &results.rows {
        let _ = write!(
            md,
            "| {}{separator}{}{} |",
            row.stack,
            row.option,
            path_title(&row.path, &spec.guards)
        );
        for case in &spec.cases {
            let mut text = cell(results, &row.row, &case.id);
            for claim in claims
                .iter()
                .filter(|c| c.row == row.row && c.case == case.id)
            {
                mark(&mut text, claim);
            }
            let _ = write!(md, " {} |", text.replace('|', "\\|"));
        }
        let _ = writeln!(md, " {} |", repairability(results, &row.row));
    }
}

/// A table's header: the leading columns, then one column per case.
fn table_header(md: &mut String, leading: &[&str], spec: &super::StackStudySpec) {
    let columns: Vec<&str> = leading
        .iter()
        .copied()
        .chain(spec.cases.iter().map(|c| c.id.as_str()))
        .chain(["repaired"])
        .collect();
    let _ = writeln!(md, "| {} |", columns.join(" | "));
    let _ = writeln!(md, "|{}", "---|".repeat(columns.len()));
}

fn path_title(path: &str, guards: &[GuardPath]) -> String {
    if path == STRAIGHT {
        return String::new();
    }
    let options = guards
        .iter()
        .find(|g| g.id == path)
        .map(|g| g.options.join(" "))
        .unwrap_or_default();
    format!(" · `driftlab guard {options}`")
}

pub fn report(results: &StudyResults, claims: &[ClaimResult<'_>], reproduce: &str) -> String {
    let spec = &results.spec;
    let mut md = String::new();
    let _ = writeln!(md, "# {}\n", spec.title);
    // The survey's claims and driftlab's own (about its guard: the guarded paths) are counted
    // apart: the guard confirming driftlab's claim is not evidence about the survey.
    let (guard, survey): (Vec<&ClaimResult<'_>>, Vec<&ClaimResult<'_>>) =
        claims.iter().partition(|c| c.row.contains('+'));
    let Tally {
        confirmed,
        contradicted,
        partly,
        untested,
    } = Tally::of(survey.iter().map(|c| c.verdict));
    let measured_cells = results
        .rows
        .iter()
        .flat_map(|row| spec.cases.iter().map(move |case| (row, case)))
        .filter(|(row, case)| super::cells::counts(results, &row.row, &case.id).calls > 0)
        .count();
    let Tally {
        confirmed: guard_confirmed,
        contradicted: guard_contradicted,
        ..
    } = Tally::of(guard.iter().map(|c| c.verdict));
    let _ = writeln!(
        md,
        "{} claims of the survey held against {} measured cells: **{confirmed} confirmed, \
         {contradicted} contradicted, {partly} partly** (the outcome holds, the named error \
         does not), {untested} untested (no call got past version 1). Apart from them, \
         driftlab's own {} claims about its guard: {guard_confirmed} confirmed, \
         {guard_contradicted} contradicted. {} calls per case, seed {}, drawn from the bench's \
         version-1 contract; each ran at version 1 first, and a call that failed there is left \
         out of its cell.\n",
        survey.len(),
        measured_cells,
        guard.len(),
        spec.calls_per_case,
        spec.seed
    );
    let _ = writeln!(md, "![Outcomes per stack row]({FIGURE_STEM}.svg)\n");
    let _ = writeln!(
        md,
        "![Outcomes per row through the stacks' MCP adapters]({ADAPTERS_FIGURE_STEM}.svg)\n"
    );
    let _ = writeln!(
        md,
        "{}\n",
        driftlab_plot::plot::print_links(&[FIGURE_STEM, ADAPTERS_FIGURE_STEM])
    );
    super::patterns::glance_section(&mut md, results);
    let _ = writeln!(md, "## Stack × drift\n");
    row_table(
        &mut md,
        results,
        claims,
        &["stack", "option"],
        " | ",
        |cell, claim| {
            let _ = write!(
                cell,
                "<br>claimed: {} → **{}**",
                claim.claimed, claim.verdict
            );
        },
        measured,
    );
    let _ = writeln!(
        md,
        "\n*correct*: the body ran with what the version-1 client meant and the answer reads \
         as that client expects; *silent*: accepted but wrong (an argument dropped or coerced, \
         or an answer without what the client reads); *loud*: rejected before the body ran, \
         with an error the caller sees; *crash*: the body ran and failed, or no answer came; \
         *refused*: the guard answered with a correction and the server never saw the call. \
         In brackets: what decided the cell's first call the drift touched. *repaired*: of the calls \
         whose caller got an error (loud, crashed or refused), those a deterministic repairer \
         fixed: it reads only the error's text and the tool's version-1 schema, applies what \
         the text names (a new name, the allowed values, a missing parameter with its type, \
         the tool to call instead), retries once on the same path, and the retry ran \
         correctly and as the caller meant it: what reached the tool body carries every value \
         the caller sent (under version 2's names), invents none and calls the intended tool \
         (*exact*), or changes a value only where version 2 narrowed its type (*coerced*, \
         98.5 → 99). A retry that ran correctly but *lost* a value the caller sent (dropped or \
         replaced), *invented* one, or called an *other tool* is not counted repaired; \
         `retry_meaning` in calls.csv says which, per call.\n"
    );
    let notes: Vec<&StackRow> = spec.stacks.iter().filter(|r| r.note.is_some()).collect();
    if !notes.is_empty() {
        let _ = writeln!(md, "What a row's cells cannot show:\n");
        for row in notes {
            let _ = writeln!(
                md,
                "- **{} · {}**: {}",
                row.stack,
                row.option,
                row.note.as_deref().unwrap_or_default()
            );
        }
        md.push('\n');
    }
    let failed: Vec<&CallRow> = results
        .calls
        .iter()
        .filter(|c| c.control.outcome != Outcome::Correct)
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(
            md,
            "Calls that failed at version 1, before any drift (left out of their cells), with \
             the first such answer per row:\n"
        );
        for row in &results.rows {
            let of_row: Vec<&&CallRow> = failed.iter().filter(|c| c.row == row.row).collect();
            if let Some(first) = of_row.first() {
                let _ = writeln!(
                    md,
                    "- `{}`: {} calls; `{}` call {}: {}",
                    row.row,
                    of_row.len(),
                    first.case,
                    first.call,
                    one_line(&first.control_answer, 240)
                );
            }
        }
        let _ = writeln!(md);
    }
    claims_section(&mut md, "The survey's claims", &survey);
    claims_section(&mut md, "driftlab's own claims about its guard", &guard);
    let _ = writeln!(md, "## Rows\n");
    for row in results.rows.iter().filter(|r| r.path == STRAIGHT) {
        let _ = writeln!(
            md,
            "- `{}`: {}, {} — {}",
            row.row, row.stack, row.option, row.packages
        );
    }
    let _ = writeln!(md, "\n## Cases\n");
    for case in &spec.cases {
        let _ = writeln!(md, "- `{}` ({}): {}", case.id, case.class, case.drift);
    }
    let _ = writeln!(
        md,
        "\nPer row and case: `{SUMMARY_CSV}`; every call with what the body received and what \
         the caller got: `{CALLS_CSV}`.\n\nReproduce:\n\n```sh\n{reproduce}\n```"
    );
    md
}

/// A group of claims: each claim's verdicts by scope in a sentence, then one line per cell with
/// its evidence. A verdict holds for its row's stack and option only.
fn claims_section(md: &mut String, title: &str, claims: &[&ClaimResult<'_>]) {
    if claims.is_empty() {
        return;
    }
    let _ = writeln!(md, "## {title}\n");
    let mut said: Vec<&str> = Vec::new();
    for c in claims {
        if !said.contains(&c.says) {
            said.push(c.says);
        }
    }
    for says in said {
        let mut verdicts: Vec<(&str, &str, Vec<&str>)> = Vec::new();
        for c in claims.iter().filter(|c| c.says == says) {
            match verdicts
                .iter_mut()
                .find(|(v, s, _)| *v == c.verdict && *s == c.scope)
            {
                Some((_, _, cases)) => cases.push(c.case),
                None => verdicts.push((c.verdict, &c.scope, vec![c.case])),
            }
        }
        let parts: Vec<String> = verdicts
            .iter()
            .map(|(verdict, scope, cases)| {
                format!("**{verdict}** for {scope} ({})", cases.join(", "))
            })
            .collect();
        let _ = writeln!(md, "- *{says}*: {}", parts.join("; "));
    }
    let _ = writeln!(
        md,
        "\n| claim | row | case | claimed | measured | verdict, for | why | evidence |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|");
    for c in claims {
        let evidence = format!(
            "`{CALLS_CSV}` record {}: call {}",
            c.evidence_record, c.evidence_call
        );
        let _ = writeln!(
            md,
            "| {} | `{}` | `{}` | {} | {} | **{}** for {} | {} | {evidence} |",
            c.says,
            c.row,
            c.case,
            c.claimed,
            c.measured.replace('|', "\\|"),
            c.verdict,
            c.scope,
            c.reason.replace('|', "\\|")
        );
    }
    md.push('\n');
}
