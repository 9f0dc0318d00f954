//! Scan output formats; each returns text and does no I/O.

use serde_json::json;

use super::output_contract::Class;
use super::{ratio, ScanReport};

fn percent(part: usize, whole: usize) -> String {
    format!("{:.0}%", 100.0 * ratio(part, whole))
}

fn class_name(class: Class) -> &'static str {
    match class {
        Class::Enforceable => "enforceable",
        Class::Partial => "partial",
        Class::Vacuous => "vacuous",
        Class::Invalid => "invalid",
    }
}

/// `yes/applies` for an input-strength question.
fn share(yes: usize, applies: usize) -> String {
    if applies == 0 {
        return "n/a (no tool it applies to)".into();
    }
    format!("{yes}/{applies} ({})", percent(yes, applies))
}

/// The report as text for a terminal.
pub fn text(r: &ScanReport) -> String {
    let mut out = String::new();
    let t = r.tools;
    out.push_str(&format!("scan  {} (seed {})\n\n", r.source, r.seed));
    out.push_str("output contracts\n");
    out.push_str(&format!(
        "  declare an outputSchema      {:>4}/{t}  {}\n",
        r.with_output_schema,
        percent(r.with_output_schema, t)
    ));
    for (label, n) in [
        ("enforceable", r.enforceable),
        ("partially enforceable", r.partially_enforceable),
        ("vacuous", r.vacuous),
        ("invalid (cannot compile)", r.invalid_output_schema),
        ("SDK auto-wrapped", r.fastmcp_wrapped),
    ] {
        out.push_str(&format!("  {label:<28} {n:>4}/{t}  {}\n", percent(n, t)));
    }
    let i = &r.input;
    out.push_str("input contracts\n");
    out.push_str(&format!(
        "  usable input schema          {}\n",
        share(i.usable, t)
    ));
    out.push_str(&format!(
        "  reject an unknown parameter  {}\n",
        share(i.rejects_unknown_parameter, t)
    ));
    out.push_str(&format!(
        "  reject a missing required    {}\n",
        share(i.rejects_missing_required, i.with_required)
    ));
    out.push_str(&format!(
        "  reject a wrong type          {}\n",
        share(i.rejects_wrong_type, i.with_typed_parameter)
    ));
    out.push_str(&format!(
        "  reject a value outside enum  {}\n",
        share(i.rejects_outside_enum, i.with_enum)
    ));
    out.push_str(&format!(
        "  meet the minimum bar         {}\n",
        share(i.meets_minimum_bar, t)
    ));
    if let Some(probes) = &r.probes {
        out.push_str("error probes\n");
        for p in probes {
            let verdict = serde_json::to_value(p.verdict).unwrap_or_default();
            out.push_str(&format!(
                "  {:<18} {:<16} {}\n",
                p.probe,
                verdict.as_str().unwrap_or(""),
                driftlab_contract::text::shorten(&p.detail, 100)
            ));
        }
    }
    out.push_str("\ntools\n");
    for tool in &r.tool_results {
        let output = tool
            .output
            .as_ref()
            .map_or("no outputSchema", |o| class_name(o.class));
        let bar = if tool.input.meets_minimum_bar {
            "input strict"
        } else {
            "input open"
        };
        out.push_str(&format!(
            "  {:<32} {output:<16} {bar}\n",
            driftlab_contract::text::shorten(&tool.name, 32)
        ));
        if let Some(o) = &tool.output {
            for reason in &o.reasons {
                out.push_str(&format!(
                    "      {}\n",
                    driftlab_contract::text::shorten(reason, 200)
                ));
            }
        }
    }
    out
}

/// The report as JSON (`--format json`).
pub fn json(r: &ScanReport) -> String {
    let mut text = serde_json::to_string_pretty(r).unwrap_or_default();
    text.push('\n');
    text
}

/// The report as Markdown.
pub fn markdown(r: &ScanReport) -> String {
    let t = r.tools;
    let i = &r.input;
    let mut out = format!(
        "### driftlab scan: `{}`\n\n| measure | tools | share |\n|---|---:|---:|\n",
        r.source.replace('`', "'")
    );
    for (label, n, of) in [
        ("declare an outputSchema", r.with_output_schema, t),
        ("enforceable outputSchema", r.enforceable, t),
        ("partially enforceable", r.partially_enforceable, t),
        ("vacuous outputSchema", r.vacuous, t),
        ("SDK auto-wrapped", r.fastmcp_wrapped, t),
        (
            "input rejects an unknown parameter",
            i.rejects_unknown_parameter,
            t,
        ),
        ("input meets the minimum bar", i.meets_minimum_bar, t),
    ] {
        out.push_str(&format!("| {label} | {n}/{of} | {} |\n", percent(n, of)));
    }
    if let Some(probes) = &r.probes {
        out.push_str("\n| probe | verdict | code |\n|---|---|---:|\n");
        for p in probes {
            let verdict = serde_json::to_value(p.verdict).unwrap_or_default();
            let code = p.code.map_or(String::new(), |c| c.to_string());
            out.push_str(&format!(
                "| {} | {} | {code} |\n",
                p.probe,
                verdict.as_str().unwrap_or("")
            ));
        }
    }
    out
}

/// A shields.io endpoint badge: enforceable output contracts of all tools.
pub fn badge(r: &ScanReport) -> String {
    let share = r.enforceable_share();
    let color = if share >= 0.8 {
        "brightgreen"
    } else if share >= 0.3 {
        "yellow"
    } else {
        "red"
    };
    let badge = json!({
        "schemaVersion": 1,
        "label": "MCP output contracts",
        "message": format!("{}/{} enforceable", r.enforceable, r.tools),
        "color": color,
    });
    format!("{badge}\n")
}
