//! GitHub Actions workflow commands: one annotation per finding.

use super::GateReport;
use crate::check::Severity;

/// Escapes data per the workflow-command rules (`%`, and `:`/`,` in properties), after making
/// control characters visible (so CR and LF never reach the log).
fn data(text: &str) -> String {
    super::escape::visible(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

pub fn render(report: &GateReport<'_>) -> String {
    let mut out = String::new();
    for f in &report.outcome.findings {
        let level = match f.severity {
            Severity::Breaking | Severity::Unknown => "error",
            Severity::Warning => "warning",
            Severity::Compatible | Severity::Info => "notice",
        };
        let tool = f
            .tool
            .as_ref()
            .map_or(String::new(), |t| format!(" ({})", t.name));
        out.push_str(&format!(
            "::{level} file={},title={}::{} at {} [{}]\n",
            property(report.candidate),
            property(&format!("driftlab {}{tool}", f.rule)),
            data(&f.message),
            data(&f.pointer),
            f.fingerprint()
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
