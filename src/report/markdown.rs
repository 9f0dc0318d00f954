//! Markdown for a pull-request comment or a job summary.

use super::escape::{code_span, visible};
use super::GateReport;

/// Prose from a server (a message that quotes names): control characters made visible and every
/// character Markdown or GitHub could act on (links, images, emphasis, HTML, @mentions) escaped.
fn text(message: &str) -> String {
    let mut out = String::new();
    for c in visible(message).chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '!' | '@' | '#' | '~' | '&'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
use crate::verdict::Verdict;

/// One table cell: a pipe would end it (escaped even inside code spans, as GFM asks).
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

pub fn render(report: &GateReport<'_>) -> String {
    let outcome = report.outcome;
    let verdict = match outcome.verdict {
        Verdict::Pass => "✅ PASS",
        Verdict::Drift => "❌ DRIFT",
    };
    let compared = match report.approved {
        Some(a) => format!("{} → {}", code_span(a), code_span(report.candidate)),
        None => code_span(report.candidate),
    };
    let mut out = format!(
        "### driftlab {}: {verdict}\n\n{compared}: {} (fail-on {})\n",
        report.command,
        report.count_line(),
        outcome.fail_on.as_str()
    );
    if !outcome.findings.is_empty() {
        out.push_str("\n| severity | rule | tool | where | what | old | new |\n|---|---|---|---|---|---|---|\n");
        for f in &outcome.findings {
            out.push_str(&format!(
                "| {} | `{}` | {} | {} | {} | {} | {} |\n",
                f.severity.as_str(),
                f.rule,
                cell(
                    &f.tool
                        .as_ref()
                        .map_or(String::new(), |t| code_span(&t.name))
                ),
                cell(&code_span(&f.pointer)),
                cell(&match f.baseline {
                    Some(crate::check::Baseline::Unchanged) =>
                        format!("{} (pre-existing)", text(&f.message)),
                    _ => text(&f.message),
                }),
                cell(&f.old.as_deref().map_or(String::new(), code_span)),
                cell(&f.new.as_deref().map_or(String::new(), code_span)),
            ));
        }
    }
    if !outcome.accepted.is_empty() {
        out.push_str(&format!(
            "\n{} finding(s) accepted by policy.\n",
            outcome.accepted.len()
        ));
    }
    out
}
