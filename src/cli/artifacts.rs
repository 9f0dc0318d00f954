//! Figures and the report of a results folder: written after a study and by `driftlab figures`.

use std::path::Path;

use anyhow::{Context, Result};

use crate::output::{self, Manifest};
use crate::plot;
use crate::record::Summary;
use crate::report::study_report::{self, ReportContext};
use crate::study::spec::DEFAULT_SPEC_PATH;

const DEFAULT_LIMITS: &str = include_str!("../../research/mcp-contract-drift-2026-08-22/LIMITS.md");

/// Renders every figure as SVG and PNG into `dir`; returns the file names written.
pub(super) fn write_figures(dir: &Path, summary: &Summary) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for figure in plot::all(summary)? {
        for (extension, bytes) in [("svg", figure.svg.as_bytes()), ("png", &figure.png[..])] {
            let name = format!("{}.{extension}", figure.stem);
            write(dir, &name, bytes)?;
            names.push(name);
        }
    }
    Ok(names)
}

/// Writes `report.md`, reading the command and the rows hash from the manifest.
pub(super) fn write_report(dir: &Path, summary: &Summary, manifest: &Manifest) -> Result<()> {
    let limits = limits_text(manifest.research.as_deref());
    let context = ReportContext {
        command: &manifest.command,
        rows_sha256: manifest.files.get(output::ROWS).map(String::as_str),
        research_dir: manifest.research.as_deref(),
        limits: limits.as_deref(),
        rule_set: match manifest.rule_set.as_str() {
            "" => crate::check::rules::sets::latest(),
            set => set,
        },
    };
    write(
        dir,
        output::REPORT,
        study_report::markdown(summary, &context).as_bytes(),
    )
}

/// The folder holding a spec's METHOD.md / LIMITS.md: the default study's research folder, or the
/// spec file's folder when it has either file.
pub(super) fn research_dir(spec: Option<&Path>) -> Option<String> {
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
    crate::fs::read_text(
        &Path::new(research).join("LIMITS.md"),
        crate::fs::MAX_SMALL_FILE,
    )
    .ok()
    .or_else(|| {
        let default = Path::new(DEFAULT_SPEC_PATH).parent()?;
        (Path::new(research) == default).then(|| DEFAULT_LIMITS.to_string())
    })
}

pub(super) fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let path = dir.join(name);
    crate::fs::write_atomic(&path, bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}
