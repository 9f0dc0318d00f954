//! GitHub Actions workflow commands: one annotation per finding, on its line of the anchor file.

use super::servers::{LockReport, ServerState};
use super::{GateReport, Render};
use driftlab_check::check::Severity;

/// Annotations GitHub shows per level and step; more are dropped without a word, so driftlab
/// writes at most this many and says how many it left out.
pub(crate) const PER_LEVEL: usize = 10;

/// Escapes data per the workflow-command rules (`%`, and `:`/`,` in properties), after making
/// control characters visible (so CR and LF never reach the log).
pub(super) fn data(text: &str) -> String {
    super::escape::visible(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

pub(super) fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The gate's report as GitHub Actions workflow commands, the most severe findings first.
pub fn render(report: &GateReport<'_>) -> String {
    let mut out = String::new();
    let mut shown = [0usize; 3];
    let mut left_out = 0;
    // Findings come most severe first, so breaking ones take the error slots first.
    for (i, f) in report.outcome.findings.iter().enumerate() {
        let (level, slot) = match f.severity {
            Severity::Breaking | Severity::Unknown => ("error", 0),
            Severity::Warning => ("warning", 1),
            Severity::Compatible | Severity::Info => ("notice", 2),
        };
        if shown[slot] == PER_LEVEL {
            left_out += 1;
            continue;
        }
        shown[slot] += 1;
        let tool = f
            .about()
            .map_or(String::new(), |about| format!(" ({about})"));
        let place = match report.anchor {
            Some(anchor) => match anchor.places.get(i) {
                Some(p) => format!(
                    "file={},line={},col={},endLine={},endColumn={},",
                    property(&anchor.uri),
                    p.start.0,
                    p.start.1,
                    p.end.0,
                    p.end.1
                ),
                None => format!("file={},", property(&anchor.uri)),
            },
            None => String::new(),
        };
        out.push_str(&format!(
            "::{level} {place}title={}::{} at {} [{}]\n",
            property(&format!("driftlab {}{tool}", f.rule)),
            data(&f.message),
            data(&f.pointer),
            f.fingerprint()
        ));
    }
    if left_out > 0 {
        out.push_str(&format!(
            "driftlab: {left_out} more finding(s) not annotated (GitHub shows {PER_LEVEL} per \
             level and step); the full list is in the job summary and in `driftlab {} --format text`\n",
            report.command
        ));
    }
    out.push_str(&format!(
        "driftlab {}: {} ({})\n",
        report.command,
        report.outcome.verdict.as_str().to_uppercase(),
        report.count_line()
    ));
    out
}

/// Annotations for a lockfile: each server's own, and one for a server that was not checked.
pub(crate) struct Github;

impl Render for Github {
    fn gate(&self, report: &GateReport<'_>, _colour: bool) -> String {
        render(report)
    }

    fn servers(&self, report: &LockReport<'_>, _colour: bool) -> String {
        let mut out = String::new();
        for server in &report.servers {
            match &server.state {
                ServerState::Checked(gate) => out.push_str(&render(gate)),
                _ => {
                    let level = if server.fails() { "error" } else { "notice" };
                    out.push_str(&format!(
                        "::{level} title={}::{}\n",
                        property(&format!("driftlab: server {}", server.name)),
                        data(&server.why())
                    ));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        // A line break or an ESC from a server cannot start a new workflow command.
        assert_eq!(data("a%b\nc"), "a%25b\\u{a}c");
        assert_eq!(data("x\u{1b}[2K"), "x\\u{1b}[2K");
        assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
    }
}
