//! The results folder as a type: its file names, staging (a folder is replaced whole or not at
//! all), the manifest and run record, writing everything after the rows, verifying a folder
//! against its manifest, and merging shard folders. The CLI parses arguments and calls this.

mod finish;
mod folder;
mod manifest;
mod merge;
pub mod staging;
pub mod sweep;

use serde::Serialize;

pub use finish::{research_dir, write, write_figures, write_figures_in, write_report, Finish};
pub use folder::{ResultsFolder, RowsFile};
pub use manifest::{
    hash_files, host_name, pinned_files, provenance, verify, Manifest, Mismatch, RunInfo, RunRecord,
};
pub use merge::{merge, Merged};
pub use staging::StagedFolder;

/// Every row kept (`--rows`).
pub(crate) const ROWS: &str = "rows.csv";
/// The summary, one line per gate and class (long format).
pub const SUMMARY_CSV: &str = "summary.csv";
/// The summary.
pub const SUMMARY_JSON: &str = "summary.json";
/// Each gate judged against the labels.
pub(crate) const METRICS_CSV: &str = "metrics.csv";
pub use driftlab_record::provenance::MANIFEST;
/// The report.
pub const REPORT: &str = "report.md";
/// The volatile record of a run (code, time, host, threads), kept out of manifest.json so that a
/// rerun changes no committed byte; `results/*/run.json` is git-ignored.
pub(crate) const RUN_JSON: &str = "run.json";

/// Rows serialized as CSV (a header from the first row's field names), in memory, formula-like
/// cells made text ([`driftlab_contract::fs::csv_text`]).
pub(crate) fn csv_bytes<T: Serialize>(
    rows: impl IntoIterator<Item = T>,
) -> Result<Vec<u8>, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.serialize(row)?;
    }
    driftlab_contract::fs::csv_text::finish(writer)
}

/// Pretty JSON with a trailing newline.
pub fn json_bytes<T: serde::Serialize>(value: &T) -> serde_json::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    Ok(bytes)
}
