//! The report's main table: each class's detection by each gate, with the totals and the false
//! positives on unchanged controls.

use driftlab_plot::plot::count;
use driftlab_record::Summary;

/// The table in Markdown, a label column when every class has a label.
pub(super) fn summary_table(summary: &Summary) -> String {
    // Each class's label, when the study has labels: which rows a gate should flag.
    let label_of = |class: &str| {
        summary
            .labels
            .iter()
            .find(|l| l.mutation == class)
            .map(|l| l.label.as_str())
    };
    let labelled = summary.mutations.iter().all(|m| label_of(m).is_some());
    let mut out = String::from(if labelled {
        "| mutation class | label |"
    } else {
        "| mutation class |"
    });
    for gate in &summary.gates {
        out.push_str(&format!(" `{}` |", gate.id));
    }
    out.push_str(&format!(
        "\n|---|{}{}\n",
        if labelled { "---|" } else { "" },
        "---:|".repeat(summary.gates.len())
    ));
    for class in &summary.mutations {
        out.push_str(&format!("| `{class}` |"));
        if labelled {
            out.push_str(&format!(" {} |", label_of(class).unwrap_or("")));
        }
        for gate in &summary.gates {
            let text = summary.cell(&gate.id, class).map_or("-".into(), |c| {
                let na = if c.not_applicable > 0 {
                    format!(", {} n/a", c.not_applicable)
                } else {
                    String::new()
                };
                format!(
                    "{} ({}{na})",
                    count(c.detected, c.total),
                    driftlab_plot::plot::percent(c.rate)
                )
            });
            out.push_str(&format!(" {text} |"));
        }
        out.push('\n');
    }
    let pad = if labelled { " |" } else { "" };
    out.push_str(&format!("| **all classes** |{pad}"));
    for gate in &summary.gates {
        let text = summary.total(&gate.id).map_or("-".into(), |t| {
            format!(
                "**{}** ({})",
                count(t.detected, t.total),
                driftlab_plot::plot::percent(t.rate)
            )
        });
        out.push_str(&format!(" {text} |"));
    }
    out.push_str(&format!("\n| false positives on unchanged controls |{pad}"));
    for gate in &summary.gates {
        let text = summary
            .control(&gate.id)
            .map_or("-".into(), |c| count(c.false_positives, c.total));
        out.push_str(&format!(" {text} |"));
    }
    out.push('\n');
    out
}
