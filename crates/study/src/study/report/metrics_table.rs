//! The report's metrics table: each gate against the expected labels, with what it counts
//! and what it leaves out said above it.

use driftlab_plot::plot::count;
use driftlab_record::Summary;

/// The section: a paragraph on what is counted, then one row per gate.
pub(super) fn metrics_table(summary: &Summary) -> String {
    let mut out = String::from("## Against the expected labels\n\n");
    out.push_str(&labels_preamble(summary));
    // External checkers' crashes get a column of their own when there are any.
    let crashes = !summary.crashes.is_empty();
    out.push_str(
        "| gate | TP | FN | FP | TN | precision | recall (pooled) | recall (macro) | F1 | FP rate | controls flagged | mutation score |",
    );
    out.push_str(if crashes { " crashes |\n" } else { "\n" });
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    out.push_str(if crashes { "---:|\n" } else { "\n" });
    let show = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.3}"));
    for m in &summary.metrics {
        let crashed = summary.crashed(&m.gate);
        let controls = summary
            .controls
            .iter()
            .find(|c| c.gate == m.gate)
            .map_or("n/a".to_string(), |c| count(c.false_positives, c.total));
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            m.gate,
            m.true_positives,
            m.false_negatives,
            m.false_positives,
            m.true_negatives,
            show(m.precision),
            show(m.recall),
            show(macro_recall(summary, &m.gate)),
            show(m.f1),
            show(m.false_positive_rate),
            controls,
            show(m.mutation_score)
        ));
        if crashes {
            out.push_str(&format!(" {crashed} |"));
        }
        out.push('\n');
    }
    out.push('\n');
    out
}

/// What the metrics table counts, and what it does not.
fn labels_preamble(summary: &Summary) -> String {
    let harmless = summary.has_harmless_classes();
    let controls = summary.controls.first().map_or(0, |c| c.total);
    let mut text = String::from(
        "Breaking and dangerous changes are positives (a gate should flag them); compatible and \
         benign changes are negatives. ",
    );
    text.push_str(&format!(
        "The {} unchanged controls (a surface compared with itself) are not counted as \
         negatives: they are no change at all, and counting them would make a gate's FP rate \
         depend on how many surfaces the study draws rather than on which harmless changes it \
         flags. They have a column of their own (`controls flagged`, k/n). ",
        count_word(controls)
    ));
    if !harmless {
        text.push_str(
            "This study has no compatible or benign class, so FP and TN are 0 and the FP rate is \
             n/a: precision here says only that no injected change was flagged wrongly. ",
        );
    }
    text.push_str(
        "Pooled recall counts every injected breaking or dangerous change, so a class weighs as \
         many times as the surfaces it applies to; macro recall is the mean of the per-class \
         recalls, each class weighing the same. Mutation score: the share of breaking and \
         dangerous classes a gate detects every time they apply.\n\n",
    );
    text
}

/// `2,400` for a count.
fn count_word(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The mean over breaking and dangerous classes that applied of `gate`'s detection rate.
fn macro_recall(summary: &Summary, gate: &str) -> Option<f64> {
    let rates: Vec<f64> = summary
        .cells
        .iter()
        .filter(|c| c.gate == gate && c.total > 0)
        .filter(|c| {
            summary
                .labels
                .iter()
                .any(|l| l.mutation == c.mutation && l.label.should_flag())
        })
        .map(|c| c.detected as f64 / c.total as f64)
        .collect();
    (!rates.is_empty()).then(|| rates.iter().sum::<f64>() / rates.len() as f64)
}
