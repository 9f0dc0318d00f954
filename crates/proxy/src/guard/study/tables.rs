//! The guard study's two tables: `calls.csv` (every call on every path, a refused call's retry
//! beside it) and `summary.csv` (verdict counts per server and class).

use super::counts::{rate, SummaryRow};
use super::StudyResults;

pub(super) fn calls_csv(results: &StudyResults) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = [
        "server",
        "class",
        "label",
        "drift_index",
        "drift",
        "tool",
        "call",
        "arguments",
        "control",
        "without_guard",
        "without_guard_detail",
    ]
    .map(String::from)
    .to_vec();
    for mode in &results.spec.guard_modes {
        header.push(format!("guard_{mode}"));
        header.push(format!("guard_{mode}_detail"));
        header.push(format!("guard_{mode}_retry"));
        header.push(format!("guard_{mode}_retry_detail"));
    }
    w.write_record(&header)?;
    for row in &results.rows {
        let mut record = vec![
            row.server.clone(),
            row.class.to_string(),
            row.label.as_str().to_string(),
            row.drift_index.to_string(),
            row.drift.clone(),
            row.tool.clone(),
            row.call.to_string(),
            row.arguments.clone(),
            row.control.clone(),
            row.straight.verdict.as_str().to_string(),
            row.straight.detail.clone(),
        ];
        for (g, result) in row.guarded.iter().enumerate() {
            record.push(result.verdict.as_str().to_string());
            record.push(result.detail.clone());
            let retry = row.retried.get(g).and_then(Option::as_ref);
            record.push(retry.map_or("", |r| r.verdict.as_str()).to_string());
            record.push(retry.map_or(String::new(), |r| r.detail.clone()));
        }
        w.write_record(&record)?;
    }
    driftlab_contract::fs::csv_text::finish(w)
}

pub(super) fn summary_csv(rows: &[SummaryRow], total: &SummaryRow) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = ["server", "class", "label", "calls"]
        .map(String::from)
        .to_vec();
    for (path, _) in &total.paths {
        let p = path.replace('-', "_");
        for field in [
            "accepted_correct",
            "accepted_wrong",
            "rejected_with_error",
            "crash_timeout",
            "refused_by_guard",
            "needless_refusals",
            "retried",
            "repaired",
            "silent_failure_rate",
        ] {
            header.push(format!("{p}_{field}"));
        }
    }
    w.write_record(&header)?;
    for row in rows.iter().chain(std::iter::once(total)) {
        let mut record = vec![
            row.server.clone(),
            row.class.clone(),
            row.label.clone(),
            row.calls.to_string(),
        ];
        for (_, c) in &row.paths {
            for n in [
                c.accepted_correct,
                c.accepted_wrong,
                c.rejected_with_error,
                c.crash_timeout,
                c.refused_by_guard,
                c.needless_refusals,
                c.retried,
                c.repaired,
            ] {
                record.push(n.to_string());
            }
            record.push(rate(c.accepted_wrong, row.calls));
        }
        w.write_record(&record)?;
    }
    driftlab_contract::fs::csv_text::finish(w)
}
