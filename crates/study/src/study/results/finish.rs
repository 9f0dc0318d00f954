//! Everything a results folder holds after the rows: summaries, figures, report, manifest and
//! run record.

use std::path::Path;

use anyhow::{Context, Result};

use super::manifest::{hash_files, Manifest, RunRecord};
use super::{
    csv_bytes, json_bytes, MANIFEST, METRICS_CSV, REPORT, ROWS, RUN_JSON, SUMMARY_CSV, SUMMARY_JSON,
};
use crate::study::report::{self, ReportContext};
use crate::study::runner::RowsMode;
use crate::study::spec::DEFAULT_SPEC_PATH;
use crate::study::StudySpec;
use driftlab_plot::plot;
use driftlab_record::provenance::Provenance;
use driftlab_record::Summary;
use std::time::Instant;

const DEFAULT_LIMITS: &str =
    include_str!("../../../../../research/mcp-contract-drift-2026-08-22/LIMITS.md");

/// Renders every figure as SVG and PNG into `dir`, for the screen and both print presets;
/// returns the file names written.
pub fn write_figures(dir: &Path, summary: &Summary) -> Result<Vec<String>> {
    write_figures_in(dir, summary, &plot::Medium::DEFAULTS)
}

/// Renders every figure in each medium of `media` into `dir`; returns the file names written.
pub fn write_figures_in(
    dir: &Path,
    summary: &Summary,
    media: &[plot::Medium],
) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for &medium in media {
        for figure in plot::all(summary, medium)? {
            for (name, bytes) in figure.files() {
                write(dir, &name, bytes)?;
                names.push(name);
            }
        }
    }
    remove_other_parts(dir, media, &names)?;
    Ok(names)
}

/// Removes the files of a figure drawn in another number of parts before (the matrix in one
/// piece where it is now in parts, or the reverse), so a folder never holds both.
fn remove_other_parts(dir: &Path, media: &[plot::Medium], written: &[String]) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = media
            .iter()
            .any(|m| m.names_a_file_of(plot::DETECTION_MATRIX, &name));
        if ours && !written.contains(&name) {
            std::fs::remove_file(entry.path())
                .with_context(|| format!("cannot remove {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Writes `report.md`, reading the command and the rows hash from the manifest.
pub fn write_report(dir: &Path, summary: &Summary, manifest: &Manifest) -> Result<()> {
    let limits = limits_text(manifest.research.as_deref());
    let context = ReportContext {
        command: &manifest.command,
        rows_sha256: manifest.files.get(ROWS).map(String::as_str),
        research_dir: manifest.research.as_deref(),
        limits: limits.as_deref(),
        rule_set: match manifest.rule_set.as_str() {
            "" => driftlab_check::check::rules::sets::latest(),
            set => set,
        },
    };
    write(dir, REPORT, report::markdown(summary, &context).as_bytes())
}

/// The folder holding a spec's METHOD.md / LIMITS.md: the default study's research folder, or the
/// spec file's folder when it has either file.
pub fn research_dir(spec: Option<&Path>) -> Option<String> {
    match spec {
        None => Path::new(DEFAULT_SPEC_PATH)
            .parent()
            .map(|p| p.display().to_string()),
        Some(path) => {
            let dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            (dir.join("METHOD.md").exists() || dir.join("LIMITS.md").exists())
                .then(|| dir.display().to_string())
        }
    }
}

/// LIMITS.md from the research folder; the embedded copy for the default study when the folder
/// is not on disk (e.g. the binary runs outside a checkout).
fn limits_text(research: Option<&str>) -> Option<String> {
    let research = research?;
    driftlab_contract::fs::read_text(
        &Path::new(research).join("LIMITS.md"),
        driftlab_contract::fs::MAX_SMALL_FILE,
    )
    .ok()
    .or_else(|| {
        let default = Path::new(DEFAULT_SPEC_PATH).parent()?;
        (Path::new(research) == default).then(|| DEFAULT_LIMITS.to_string())
    })
}

/// Writes `bytes` to `dir/name` atomically.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let path = dir.join(name);
    driftlab_contract::fs::write_atomic(&path, bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Everything after the rows: summaries, figures, report, manifest. Shared by `study` and
/// `merge`, so a merged folder is written exactly as an unsharded run writes it.
pub struct Finish<'a> {
    /// The results folder.
    pub out: &'a Path,
    /// The spec that ran.
    pub spec: &'a StudySpec,
    /// The rule set `@payload` and `@diff` were read as.
    pub rule_set: &'a str,
    /// The command that reproduces the folder.
    pub command: String,
    /// The folder of the study's METHOD.md and LIMITS.md, when known.
    pub research: Option<String>,
    /// Which rows were kept.
    pub rows: RowsMode,
    /// Whether figures are drawn.
    pub figures: bool,
    /// When the run started (for `run.json`).
    pub started: Instant,
    /// What the results were made from: the code, the spec's folder and the environment.
    pub provenance: Provenance,
}

impl Finish<'_> {
    /// Writes every file but rows.csv; returns the names of all files in the folder.
    pub fn write(&self, summary: &Summary) -> Result<Vec<String>> {
        let out = self.out;
        write(out, SUMMARY_CSV, &csv_bytes(summary.csv_rows())?)?;
        write(out, SUMMARY_JSON, &json_bytes(summary)?)?;
        write(out, METRICS_CSV, &csv_bytes(&summary.metrics)?)?;

        let mut files: Vec<String> = Vec::new();
        if self.rows != RowsMode::None {
            files.push(ROWS.into());
        }
        files.extend([SUMMARY_CSV, SUMMARY_JSON, METRICS_CSV].map(String::from));
        if self.figures {
            files.extend(write_figures(out, summary)?);
        }
        let names: Vec<&str> = files.iter().map(String::as_str).collect();
        let mut manifest = Manifest {
            driftlab_version: env!("CARGO_PKG_VERSION").to_string(),
            seed: self.spec.seed,
            spec: self.spec.clone(),
            rule_set: self.rule_set.to_string(),
            rng: driftlab_contract::rng::ALGORITHM.to_string(),
            command: self.command.clone(),
            research: self.research.clone(),
            rows: self.rows.as_str().to_string(),
            shard: summary.shard,
            files: hash_files(out, &names)?,
            provenance: self.provenance.clone(),
        };
        if self.figures {
            write_report(out, summary, &manifest)?;
            manifest.files.extend(hash_files(out, &[REPORT])?);
            files.push(REPORT.into());
        }
        write(out, MANIFEST, &json_bytes(&manifest)?)?;
        files.push(MANIFEST.into());
        RunRecord::now(self.started).write(out)?;
        files.push(RUN_JSON.into());
        Ok(files)
    }
}
