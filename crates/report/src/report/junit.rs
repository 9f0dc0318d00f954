//! JUnit XML (GitLab, Jenkins and most CI systems read it): one test case per finding, failed
//! when the finding fails the gate, passed otherwise; a payload without findings is one passed
//! case. Text from the server is made visible (no control characters, which XML 1.0 forbids)
//! and escaped for XML.

use super::servers::{LockReport, ServerState};
use super::{GateReport, Render};

/// Escapes for XML text and attributes, after making control characters visible.
pub(super) fn xml(text: &str) -> String {
    let mut out = String::new();
    for c in super::escape::visible(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// `(tests, failures)` of a report: a case per finding (one for none), failed when the
/// finding fails the gate.
fn counts(report: &GateReport<'_>) -> (usize, usize) {
    let outcome = report.outcome;
    let failures = outcome
        .findings
        .iter()
        .filter(|f| outcome.fails_gate(f))
        .count();
    (outcome.findings.len().max(1), failures)
}

/// The gate's report as JUnit XML: a test case per finding, or one passing case when none.
pub fn render(report: &GateReport<'_>) -> String {
    let (tests, failures) = counts(report);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"driftlab\" tests=\"{tests}\" failures=\"{failures}\">\n"
    ));
    let name = format!("driftlab {}", report.command);
    out.push_str(&suite(report, &name, (tests, failures)));
    out.push_str("</testsuites>\n");
    out
}

/// One `<testsuite>` named `name`: the report's properties and a case per finding (`counts`
/// are the report's, [`counts`]).
fn suite(report: &GateReport<'_>, name: &str, (tests, failures): (usize, usize)) -> String {
    let outcome = report.outcome;
    let mut out = format!(
        "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\">\n",
        xml(name)
    );
    out.push_str(&format!(
        "    <properties>\n      <property name=\"candidate\" value=\"{}\"/>\n      \
         <property name=\"verdict\" value=\"{}\"/>\n      <property name=\"fail_on\" value=\"{}\"/>\n    </properties>\n",
        xml(report.candidate),
        outcome.verdict.as_str(),
        outcome.fail_on.as_str()
    ));
    if outcome.findings.is_empty() {
        out.push_str(&format!(
            "    <testcase classname=\"driftlab\" name=\"{}: no findings\"/>\n",
            xml(report.candidate)
        ));
    }
    for f in &outcome.findings {
        let tool = f.about().unwrap_or("(payload)");
        out.push_str(&format!(
            "    <testcase classname=\"driftlab.{}\" name=\"{} {}\">\n",
            xml(f.rule),
            xml(tool),
            xml(&f.pointer)
        ));
        let detail = format!(
            "{} at {} [fingerprint {}]{}",
            f.message,
            f.pointer,
            f.fingerprint(),
            if f.baseline == Some(driftlab_check::check::Baseline::Unchanged) {
                " (pre-existing)"
            } else {
                ""
            }
        );
        if outcome.fails_gate(f) {
            out.push_str(&format!(
                "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                f.severity.as_str(),
                xml(&f.message),
                xml(&detail)
            ));
        } else {
            out.push_str(&format!(
                "      <system-out>{}: {}</system-out>\n",
                f.severity.as_str(),
                xml(&detail)
            ));
        }
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n");
    out
}

/// JUnit for a lockfile: a `<testsuite>` per server, its findings' cases for a checked server,
/// one case for a server that was not (failed when that fails the run, skipped otherwise).
pub(crate) struct Junit;

impl Render for Junit {
    fn gate(&self, report: &GateReport<'_>, _colour: bool) -> String {
        render(report)
    }

    fn servers(&self, report: &LockReport<'_>, _colour: bool) -> String {
        let mut suites = String::new();
        let (mut tests, mut failures) = (0, 0);
        for server in &report.servers {
            let suite_name = format!("driftlab check --lock: {}", server.name);
            match &server.state {
                ServerState::Checked(gate) => {
                    let (gate_tests, gate_failures) = counts(gate);
                    tests += gate_tests;
                    failures += gate_failures;
                    suites.push_str(&suite(gate, &suite_name, (gate_tests, gate_failures)));
                }
                _ => {
                    tests += 1;
                    let verdict = if server.fails() {
                        failures += 1;
                        format!(
                            "<failure type=\"{}\" message=\"{}\"/>",
                            server.status().to_ascii_lowercase(),
                            xml(&server.why())
                        )
                    } else {
                        format!("<skipped message=\"{}\"/>", xml(&server.why()))
                    };
                    suites.push_str(&format!(
                        "  <testsuite name=\"{}\" tests=\"1\" failures=\"{}\">\n    <testcase classname=\"driftlab\" name=\"server {}\">{verdict}</testcase>\n  </testsuite>\n",
                        xml(&suite_name),
                        u8::from(server.fails()),
                        xml(&server.name)
                    ));
                }
            }
        }
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"driftlab\" tests=\"{tests}\" failures=\"{failures}\">\n{suites}</testsuites>\n"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_text_cannot_break_the_xml() {
        assert_eq!(
            xml("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
        // XML 1.0 has no escape for most control characters: they are shown, not passed.
        assert_eq!(xml("x\u{1b}y\u{0}"), "x\\u{1b}y\\u{0}");
    }
}
