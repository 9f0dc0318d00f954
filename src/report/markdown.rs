//! Markdown for a pull-request comment or a job summary.

use super::GateReport;
use crate::verdict::Verdict;

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

pub fn render(report: &GateReport<'_>) -> String {
    let outcome = report.outcome;
    let verdict = match outcome.verdict {
        Verdict::Pass => "✅ PASS",
        Verdict::Drift => "❌ DRIFT",
    };
    let compared = match report.approved {
        Some(a) => format!("`{a}` → `{}`", report.candidate),
        None => format!("`{}`", report.candidate),
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
                "| {} | `{}` | {} | `{}` | {} | {} | {} |\n",
                f.severity.as_str(),
                f.rule,
                cell(
                    &f.tool
                        .as_ref()
                        .map_or(String::new(), |t| format!("`{}`", t.name))
                ),
                cell(&f.pointer),
                cell(&match f.baseline {
                    Some(crate::check::Baseline::Unchanged) =>
                        format!("{} (pre-existing)", f.message),
                    _ => f.message.clone(),
                }),
                cell(&f.old.as_deref().map_or(String::new(), |v| format!("`{v}`"))),
                cell(&f.new.as_deref().map_or(String::new(), |v| format!("`{v}`"))),
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
