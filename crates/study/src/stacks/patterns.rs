//! The table at a glance, saying each thing once: rows whose calls ended alike in every input
//! case are one pattern, listed with the rows it covers; the output side (a changed answer)
//! gets a line of its own, and so do the repairs, summed apart for the unguarded and the
//! guarded paths.

use std::fmt::Write as _;

use serde::Serialize;

use super::cells::{glance, row_total};
use super::spec::Case;
use super::{CellCounts, StudyResults, STRAIGHT};

/// Rows whose calls ended alike in every input case.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Pattern {
    /// Each input case's cell, as the at-a-glance table writes it.
    pub cells: Vec<String>,
    /// The rows it covers, in table order.
    pub rows: Vec<String>,
}

/// The cases about a tool's inputs (the rest are about its answer).
fn input_cases(results: &StudyResults) -> impl Iterator<Item = &Case> {
    results.spec.cases.iter().filter(|c| c.output_key.is_none())
}

/// The rows grouped by their input cells, in the order each pattern first appears.
pub(crate) fn patterns(results: &StudyResults) -> Vec<Pattern> {
    let mut out: Vec<Pattern> = Vec::new();
    for row in &results.rows {
        let cells: Vec<String> = input_cases(results)
            .map(|case| glance(results, &row.row, &case.id))
            .collect();
        match out.iter_mut().find(|p| p.cells == cells) {
            Some(pattern) => pattern.rows.push(row.row.clone()),
            None => out.push(Pattern {
                cells,
                rows: vec![row.row.clone()],
            }),
        }
    }
    out
}

/// The repairs summed over the unguarded rows and over the guarded ones.
pub(crate) fn repair_totals(results: &StudyResults) -> (CellCounts, CellCounts) {
    let (mut straight, mut guarded) = (CellCounts::default(), CellCounts::default());
    for row in &results.rows {
        let total = row_total(results, &row.row);
        if row.path == STRAIGHT {
            straight.add(&total);
        } else {
            guarded.add(&total);
        }
    }
    (straight, guarded)
}

/// The at-a-glance section: the patterns table, the output side, the repairs.
pub(crate) fn glance_section(md: &mut String, results: &StudyResults) {
    let patterns = patterns(results);
    let _ = writeln!(md, "## At a glance\n");
    let _ = writeln!(
        md,
        "The {} table lines (rows, and MCP rows per guard path) end in {} patterns: a pattern \
         is rows whose calls ended alike in every case about a tool's inputs.\n",
        results.rows.len(),
        patterns.len()
    );
    let cases: Vec<&str> = input_cases(results).map(|c| c.id.as_str()).collect();
    let _ = writeln!(md, "| pattern | {} | rows |", cases.join(" | "));
    let _ = writeln!(md, "|{}", "---|".repeat(cases.len() + 2));
    for (i, pattern) in patterns.iter().enumerate() {
        let rows: Vec<String> = pattern.rows.iter().map(|r| format!("`{r}`")).collect();
        let _ = writeln!(
            md,
            "| {} | {} | {} |",
            i + 1,
            pattern.cells.join(" | "),
            rows.join(", ")
        );
    }
    let _ = writeln!(
        md,
        "\nOf {} calls per case: the calls the drift touched, by outcome (`ok`: every call ran \
         correctly; `n/a`: no call got past version 1; `–`: not a case of the row). The full \
         table below gives every row its own line, with the survey's claims.\n",
        results.spec.calls_per_case
    );
    output_side(md, results);
    repairs_line(md, results);
}

/// One line per case about a tool's answer: its cells, each with the rows and paths it covers.
fn output_side(md: &mut String, results: &StudyResults) {
    for case in results.spec.cases.iter().filter(|c| c.output_key.is_some()) {
        let mut groups: Vec<(String, usize, Vec<&str>)> = Vec::new();
        for row in &results.rows {
            let cell = glance(results, &row.row, &case.id);
            let at = match groups.iter().position(|(c, _, _)| *c == cell) {
                Some(at) => at,
                None => {
                    groups.push((cell, 0, Vec::new()));
                    groups.len() - 1
                }
            };
            let (_, rows, paths) = &mut groups[at];
            *rows += 1;
            if !paths.contains(&row.path.as_str()) {
                paths.push(&row.path);
            }
        }
        let parts: Vec<String> = groups
            .iter()
            .map(|(cell, rows, paths)| {
                let noun = if *rows == 1 { "row" } else { "rows" };
                format!("{cell} on {rows} {noun} ({})", paths.join(", "))
            })
            .collect();
        let _ = writeln!(
            md,
            "**The output side** (`{}`: {}): {}.\n",
            case.id,
            case.drift,
            parts.join("; ")
        );
    }
}

/// The repairs in a sentence each for the unguarded and the guarded paths.
fn repairs_line(md: &mut String, results: &StudyResults) {
    let (straight, guarded) = repair_totals(results);
    for (what, c) in [("unguarded rows", straight), ("guarded paths", guarded)] {
        let ran = c.exact + c.coerced + c.lost + c.invented + c.other_tool;
        let _ = writeln!(
            md,
            "**Repairs on the {what}**: of {} calls whose caller got an error, the repairer \
             retried {}; {ran} retries ran correctly, of which {} kept what the caller meant \
             (*repaired*: {} exact, {} coerced where the new type forced it) and {} did not \
             ({} lost a value, {} invented one, {} called another tool).\n",
            c.loud + c.crash + c.refused,
            c.retried,
            c.repaired,
            c.exact,
            c.coerced,
            c.lost + c.invented + c.other_tool,
            c.lost,
            c.invented,
            c.other_tool
        );
    }
}
