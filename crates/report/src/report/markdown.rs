//! Markdown for a pull-request comment or a job summary.

use super::escape::{code_span, visible};
use super::servers::{LockReport, ServerState};
use super::{GateReport, Render};

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
use driftlab_check::verdict::Verdict;

/// One table cell: a pipe would end it (escaped even inside code spans, as GFM asks).
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The longest `--format markdown` report, in bytes: a GitHub comment holds 65,536 characters.
pub(crate) const COMMENT_BYTES: usize = 64_000;
/// The longest report appended to `GITHUB_STEP_SUMMARY` (GitHub's limit per step is 1 MiB).
pub const STEP_SUMMARY_BYTES: usize = 1024 * 1024 - 1024;

/// The report for a pull-request comment, at most [`COMMENT_BYTES`].
pub fn render(report: &GateReport<'_>) -> String {
    render_within(report, COMMENT_BYTES)
}

/// The report in at most `max_bytes`: the verdict first, then as many whole table rows as fit,
/// then a line saying how many were left out.
pub fn render_within(report: &GateReport<'_>, max_bytes: usize) -> String {
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
    let mut accepted = match outcome.accepted.len() {
        0 => String::new(),
        n => format!("\n{n} finding(s) accepted by policy.\n"),
    };
    accepted.push_str(&super::waivers::summary(outcome));
    // Room kept for the accepted line and the truncation note.
    let budget = max_bytes.saturating_sub(accepted.len() + 200);
    if !outcome.findings.is_empty() {
        out.push_str("\n| severity | rule | tool | where | what | old | new |\n|---|---|---|---|---|---|---|\n");
        for (i, f) in outcome.findings.iter().enumerate() {
            let row = row(f);
            if out.len() + row.len() > budget {
                out.push_str(&format!(
                    "\n… {} more finding(s) not shown: the report is bounded to {} bytes; \
                     `driftlab {} --format text` lists all.\n",
                    outcome.findings.len() - i,
                    max_bytes,
                    report.command
                ));
                break;
            }
            out.push_str(&row);
        }
    }
    out.push_str(&accepted);
    out
}

fn row(f: &driftlab_check::check::Finding) -> String {
    format!(
        "| {} | `{}` | {} | {} | {} | {} | {} |\n",
        f.severity.as_str(),
        f.rule,
        cell(&f.about().map_or(String::new(), code_span)),
        cell(&code_span(&f.pointer)),
        cell(&match f.baseline {
            Some(driftlab_check::check::Baseline::Unchanged) =>
                format!("{} (pre-existing)", text(&f.message)),
            _ => text(&f.message),
        }),
        cell(&f.old.as_deref().map_or(String::new(), code_span)),
        cell(&f.new.as_deref().map_or(String::new(), code_span)),
    )
}

/// A lockfile table's cell: server text made visible, and a pipe escaped.
fn lock_cell(text: &str) -> String {
    cell(&visible(text))
}

/// Markdown for a lockfile: the run's verdict, a table of servers, then each drifted server's
/// own section.
pub struct Markdown;

impl Render for Markdown {
    fn gate(&self, report: &GateReport<'_>, _colour: bool) -> String {
        render(report)
    }

    fn servers(&self, report: &LockReport<'_>, _colour: bool) -> String {
        let verdict = match report.verdict() {
            Verdict::Pass => "✅ PASS",
            Verdict::Drift => "❌ DRIFT",
        };
        let mut out = format!(
            "### driftlab check --lock: {verdict}\n\n`{}`: {} (fail-on {})\n\n| server | status | findings |\n|---|---|---|\n",
            report.lock.replace('`', "'"),
            report.summary(),
            report.fail_on.as_str()
        );
        for server in &report.servers {
            let findings = match &server.state {
                ServerState::Checked(gate) => gate.count_line(),
                _ => server.why(),
            };
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                lock_cell(&server.name),
                server.status(),
                lock_cell(&findings)
            ));
        }
        for server in &report.servers {
            if let ServerState::Checked(gate) = &server.state {
                if gate.outcome.findings.is_empty() {
                    continue;
                }
                let single = render(gate);
                // The server's own section, a level below the run's.
                let body = single.split_once('\n').map_or("", |(_, rest)| rest);
                out.push_str(&format!("\n#### {}{body}", lock_cell(&server.name)));
            }
        }
        out
    }
}
