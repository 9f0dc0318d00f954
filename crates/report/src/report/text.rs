//! Plain text for a terminal; ANSI colours only when asked for (TTY and no NO_COLOR).

use super::escape::visible;
use super::servers::{LockReport, ServerState};
use super::{GateReport, Render};
use driftlab_check::check::Severity;
use driftlab_check::verdict::Verdict;

/// The gate's report as text for a terminal, painted with ANSI colours when `colour`.
pub fn render(report: &GateReport<'_>, colour: bool) -> String {
    let paint = |code: &str, text: &str| {
        if colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    };
    let outcome = report.outcome;
    let verdict = match outcome.verdict {
        Verdict::Pass => paint("1;32", "PASS"),
        Verdict::Drift => paint("1;31", "DRIFT"),
    };
    let compared = match report.approved {
        Some(a) => format!("{} -> {}", visible(a), visible(report.candidate)),
        None => visible(report.candidate).into_owned(),
    };
    let mut out = format!(
        "{verdict}  {compared}: {} (fail-on {})\n",
        report.count_line(),
        outcome.fail_on.as_str()
    );
    for f in &outcome.findings {
        let code = match f.severity {
            Severity::Breaking => "31",
            Severity::Unknown => "35",
            Severity::Warning => "33",
            Severity::Compatible => "32",
            Severity::Info => "2",
        };
        let tool = f
            .about()
            .map_or(String::new(), |about| format!("  {}", visible(about)));
        out.push_str(&format!(
            "\n{}  {}{tool}\n    {}\n    at {}",
            paint(code, &format!("{:<10}", f.severity.as_str().to_uppercase())),
            f.rule,
            visible(&f.message),
            visible(&f.pointer)
        ));
        if let Some(old) = f.old_pointer.as_deref().filter(|p| *p != f.pointer) {
            out.push_str(&format!(" (approved: {})", visible(old)));
        }
        out.push('\n');
        if f.old.is_some() || f.new.is_some() {
            out.push_str(&format!(
                "    old: {}\n    new: {}\n",
                visible(f.old.as_deref().unwrap_or("(absent)")),
                visible(f.new.as_deref().unwrap_or("(absent)"))
            ));
        }
        if let Some(w) = &f.witness {
            let what = if f.message.contains("outputSchema") || f.rule.starts_with("output-") {
                "allowed now, rejected by the approved schema"
            } else {
                "accepted before, rejected now"
            };
            out.push_str(&format!(
                "    witness ({what}): {}\n",
                visible(&driftlab_contract::payload::short(&w.value))
            ));
        }
        out.push_str(&format!("    fingerprint: {}\n", f.fingerprint()));
        if f.baseline == Some(driftlab_check::check::Baseline::Unchanged) {
            out.push_str("    pre-existing: the approved snapshot has it too (fails only with --fail-on-existing)\n");
        }
    }
    out.push_str(&super::waivers::listing(outcome));
    if !outcome.accepted.is_empty() {
        out.push_str(&format!(
            "\n{} finding(s) accepted by policy:\n",
            outcome.accepted.len()
        ));
        for (f, reason) in &outcome.accepted {
            out.push_str(&format!(
                "  {} {} {}: {reason}\n",
                f.fingerprint(),
                f.rule,
                visible(&f.pointer)
            ));
        }
    }
    out
}

/// Text for a lockfile: each server's gate report (or why it was not checked), then the run's
/// verdict.
pub struct Text;

impl Render for Text {
    fn gate(&self, report: &GateReport<'_>, colour: bool) -> String {
        render(report, colour)
    }

    fn servers(&self, report: &LockReport<'_>, colour: bool) -> String {
        let mut out = String::new();
        for server in &report.servers {
            match &server.state {
                ServerState::Checked(gate) => out.push_str(&render(gate, colour)),
                _ => out.push_str(&format!(
                    "{:<8} server {}: {}\n",
                    server.status(),
                    visible(&server.name),
                    server.why()
                )),
            }
            out.push('\n');
        }
        out.push_str(&format!(
            "{}  {}: {} (fail-on {})\n",
            report.verdict().as_str().to_ascii_uppercase(),
            report.lock,
            report.summary(),
            report.fail_on.as_str()
        ));
        out
    }
}
