//! The headline table of a study summary, as plain text for the terminal.

use driftlab_record::Summary;

/// Rows: one per mutation class, then the total, then the control's false positives; one
/// column per gate.
pub fn headline(summary: &Summary) -> String {
    let changes: u64 = summary.totals.first().map_or(0, |t| t.total);
    let bases = if summary.bases.is_empty() {
        format!("{} tools per surface", summary.tools)
    } else if summary.bases.iter().all(|b| b.starts_with("live:")) {
        format!("surfaces from {} live servers", summary.bases.len())
    } else {
        format!("bases drawn from {} real payloads", summary.bases.len())
    };
    // A shard counts its own slice of the surfaces.
    let surfaces = match summary.shard {
        Some(s) => format!(
            "{} surfaces (shard {}/{} of {})",
            s.end.saturating_sub(s.first),
            s.index,
            s.count,
            summary.surfaces
        ),
        None => format!("{} surfaces", summary.surfaces),
    };
    let mut out = format!(
        "{}: {surfaces} x {} mutation classes = {} injected changes (seed {}, {bases})\n\n",
        summary.study,
        summary.mutations.len(),
        changes,
        summary.seed,
    );
    let mut grid: Vec<Vec<String>> = Vec::new();
    let mut header = vec!["mutation".to_string()];
    header.extend(summary.gates.iter().map(|g| g.id.clone()));
    grid.push(header);
    for mutation in &summary.mutations {
        let label = summary.labels.iter().find(|l| &l.mutation == mutation);
        let mut line = vec![match label {
            Some(l) => format!("{mutation} [{}]", l.label.as_str()),
            None => mutation.clone(),
        }];
        for gate in &summary.gates {
            line.push(match summary.cell(&gate.id, mutation) {
                Some(c) if c.not_applicable > 0 => {
                    format!("{}/{} ({} n/a)", c.detected, c.total, c.not_applicable)
                }
                Some(c) => format!("{}/{}", c.detected, c.total),
                None => "-".into(),
            });
        }
        grid.push(line);
    }
    // A labelled study with harmless classes leads with what matters: the share of changes a
    // gate should flag that it did, and the share of harmless ones it flagged anyway ("total"
    // adds the two kinds together, so a gate that flags everything would look good).
    if summary.has_harmless_classes() {
        let metric = |g: &str| summary.metrics.iter().find(|m| m.gate == g);
        let mut caught = vec!["should flag: detected (breaking+dangerous)".to_string()];
        let mut wolf = vec!["harmless: flagged (compatible+benign)".to_string()];
        for gate in &summary.gates {
            let m = metric(&gate.id);
            caught.push(m.map_or("-".into(), |m| {
                format!(
                    "{}/{}",
                    m.true_positives,
                    m.true_positives + m.false_negatives
                )
            }));
            wolf.push(m.map_or("-".into(), |m| {
                format!(
                    "{}/{}",
                    m.false_positives,
                    m.false_positives + m.true_negatives
                )
            }));
        }
        grid.push(caught);
        grid.push(wolf);
    }
    let mut total = vec!["total".to_string()];
    let mut control = vec!["false positives (identity)".to_string()];
    for gate in &summary.gates {
        total.push(
            summary
                .total(&gate.id)
                .map_or("-".into(), |t| format!("{}/{}", t.detected, t.total)),
        );
        control.push(
            summary
                .control(&gate.id)
                .map_or("-".into(), |c| format!("{}/{}", c.false_positives, c.total)),
        );
    }
    grid.push(total);
    grid.push(control);
    if !summary.crashes.is_empty() {
        // An external checker's crashes count as not detected above; say how many there were.
        let mut crashes = vec!["checker crashes (not detected)".to_string()];
        for gate in &summary.gates {
            crashes.push(summary.crashed(&gate.id).to_string());
        }
        grid.push(crashes);
    }
    let widths: Vec<usize> = (0..grid[0].len())
        .map(|col| {
            grid.iter()
                .map(|row| row[col].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for (i, columns) in column_groups(&widths).into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        for row in &grid {
            let mut line = format!("{:<w$}", row[0], w = widths[0]);
            for col in columns.clone() {
                line.push_str(&format!("  {:>w$}", row[col], w = widths[col]));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    if !summary.metrics.is_empty() {
        out.push('\n');
        out.push_str(&metrics(summary));
    }
    out
}

/// Widest a terminal table gets before its gate columns are split into several tables.
const MAX_WIDTH: usize = 100;

/// The gate columns (1..) in runs that fit [`MAX_WIDTH`] beside the first column; each run
/// holds at least one column, however wide.
fn column_groups(widths: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut groups = Vec::new();
    let (mut start, mut used) = (1, widths[0]);
    for (col, width) in widths.iter().enumerate().skip(1) {
        if col > start && used + 2 + width > MAX_WIDTH {
            groups.push(start..col);
            (start, used) = (col, widths[0]);
        }
        used += 2 + width;
    }
    if start < widths.len() {
        groups.push(start..widths.len());
    }
    groups
}

/// Precision, recall, F1, false-positive rate and mutation score per gate.
pub fn metrics(summary: &Summary) -> String {
    let show = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.3}"));
    let width = summary
        .metrics
        .iter()
        .map(|m| m.gate.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut out = format!(
        "{:<width$}  {:>9}  {:>6}  {:>5}  {:>5}  {:>14}\n",
        "gate", "precision", "recall", "F1", "FPR", "mutation score"
    );
    for m in &summary.metrics {
        out.push_str(&format!(
            "{:<width$}  {:>9}  {:>6}  {:>5}  {:>5}  {:>14}\n",
            m.gate,
            show(m.precision),
            show(m.recall),
            show(m.f1),
            show(m.false_positive_rate),
            show(m.mutation_score)
        ));
    }
    out
}

#[cfg(test)]
mod width_tests {
    use super::column_groups;

    #[test]
    fn gate_columns_split_into_tables_that_fit() {
        // Narrow: one table.
        assert_eq!(column_groups(&[40, 10, 10]), vec![1..3]);
        // Wide: runs that fit 100 columns beside the first, each with one column at least.
        assert_eq!(
            column_groups(&[40, 27, 27, 27, 120, 5]),
            vec![1..3, 3..4, 4..5, 5..6]
        );
    }
}
