//! JUnit XML (GitLab, Jenkins and most CI systems read it): one test case per finding, failed
//! when the finding fails the gate, passed otherwise; a payload without findings is one passed
//! case. Text from the server is made visible (no control characters, which XML 1.0 forbids)
//! and escaped for XML.

use super::GateReport;

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

pub fn render(report: &GateReport<'_>) -> String {
    let outcome = report.outcome;
    let failures = outcome
        .findings
        .iter()
        .filter(|f| outcome.fails_gate(f))
        .count();
    let tests = outcome.findings.len().max(1);
    let suite = format!("driftlab {}", report.command);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"driftlab\" tests=\"{tests}\" failures=\"{failures}\">\n  \
         <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\">\n",
        xml(&suite)
    ));
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
            if f.baseline == Some(crate::check::Baseline::Unchanged) {
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
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
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
