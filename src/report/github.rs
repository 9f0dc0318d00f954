//! GitHub Actions workflow commands: one annotation per finding.

use super::GateReport;
use crate::check::Severity;

/// Escapes data per the workflow-command rules (`%`, CR, LF; and `:`/`,` in properties).
fn data(text: &str) -> String {
    text.replace('%', "%25")
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
        assert_eq!(data("a%b\nc"), "a%25b%0Ac");
        assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
    }
}
