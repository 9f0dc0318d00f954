//! A sweep's folder: `sweep.csv` (a row per configuration × gate × class), the spreads across
//! seeds as CSV and JSON, a manifest and the run record. It replaces only an empty folder or an
//! earlier sweep of the same spec.

use std::path::Path;
use std::time::Instant;

use anyhow::{bail, Result};
use serde_json::json;

use super::{csv_bytes, hash_files, json_bytes, RunRecord, StagedFolder, MANIFEST};
use crate::study::sweep::{self, Spread};
use crate::study::{Study, StudySpec};
use driftlab_record::provenance::Provenance;
use driftlab_record::Summary;

/// The files of a sweep folder besides the manifest and run record.
pub const FILES: [&str; 3] = ["sweep.csv", "sweep-summary.csv", "sweep-summary.json"];

/// Stages a sweep folder for `out` before the sweep runs (so two runs never write one folder):
/// refused, unless `force`, when `out` holds anything but an earlier sweep of `spec`.
pub fn begin(out: &Path, spec: &StudySpec, force: bool) -> Result<StagedFolder> {
    let staged = StagedFolder::begin(out)?;
    if !force {
        refuse_other(out, spec)?;
    }
    Ok(staged)
}

/// Writes the sweep of `summaries` (one per configuration) into the staged folder ([`FILES`],
/// the manifest and the run record) and swaps it in whole; returns the spreads.
pub fn write(
    staged: StagedFolder,
    study: &Study,
    (command, provenance): (&str, &Provenance),
    summaries: &[Summary],
    started: Instant,
) -> Result<Vec<Spread>> {
    let rows = sweep::rows(summaries);
    let spreads = sweep::spreads(&rows);
    let dir = staged.path();
    let [table, summary_csv, summary_json] = FILES;
    super::write(dir, table, &csv_bytes(&rows)?)?;
    super::write(dir, summary_csv, &csv_bytes(&spreads)?)?;
    super::write(dir, summary_json, &json_bytes(&spreads)?)?;
    let mut manifest = json!({
        "driftlab_version": env!("CARGO_PKG_VERSION"),
        "spec": study.spec,
        "rule_set": study.rule_set,
        "rng": driftlab_contract::rng::ALGORITHM,
        "command": command,
        "configurations": sweep::configurations(study),
    });
    if let (Some(fields), Ok(serde_json::Value::Object(pinned))) =
        (manifest.as_object_mut(), serde_json::to_value(provenance))
    {
        fields.extend(pinned);
        fields.insert("files".into(), json!(hash_files(dir, &FILES)?));
    }
    super::write(dir, MANIFEST, &json_bytes(&manifest)?)?;
    RunRecord::now(started).write(dir)?;
    staged.commit()?;
    Ok(spreads)
}

/// A sweep replaces only an empty folder or an earlier sweep of the same spec: never a study's
/// results (its rows are evidence) nor a folder of other files.
fn refuse_other(out: &Path, spec: &StudySpec) -> Result<()> {
    if super::staging::entry_names(out).is_empty() {
        return Ok(());
    }
    let overwrite = "choose another folder with --out or overwrite with --force";
    let manifest: Option<serde_json::Value> =
        driftlab_contract::fs::read_json(&out.join(MANIFEST)).ok();
    let Some(manifest) = manifest else {
        bail!(
            "{} is not empty and has no {}: not a driftlab results folder; {overwrite}",
            out.display(),
            MANIFEST
        );
    };
    if manifest.get("configurations").is_none() {
        bail!(
            "{} holds a study's results, not a sweep: {overwrite}",
            out.display()
        );
    }
    if manifest.get("spec") != Some(&serde_json::to_value(spec)?) {
        bail!(
            "{} holds a sweep of a different spec: {overwrite}",
            out.display()
        );
    }
    Ok(())
}

/// `results/<id>-sweep/`, or `results/<id>/` for a spec whose id already says it is a sweep (so
/// `mcp-contract-drift-sweep` does not become `…-sweep-sweep`).
pub fn default_folder(id: &str) -> String {
    match id.ends_with("-sweep") || id == "sweep" {
        true => id.to_string(),
        false => format!("{id}-sweep"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_sweep_folder_says_sweep_once() {
        assert_eq!(super::default_folder("study"), "study-sweep");
        assert_eq!(super::default_folder("drift-sweep"), "drift-sweep");
    }
}
