//! A results folder being written: staged beside its destination, refused when the destination
//! holds another study's results, swapped in whole on commit.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::{staging, Manifest, StagedFolder, MANIFEST, ROWS};
use crate::study::runner::RowsMode;
use crate::study::StudySpec;
use driftlab_contract::fs::{csv_text, AtomicFile};
use driftlab_record::{Row, Shard};
use std::io::Write;

/// A study's results folder while it is written: staged beside `out`, swapped in whole on commit.
pub struct ResultsFolder {
    out: PathBuf,
    staged: StagedFolder,
}

impl ResultsFolder {
    /// Stages a folder for `out`. Refuses (unless `force`) a destination that holds results of
    /// another spec or shard, or more rows than `rows` keeps.
    pub fn begin(
        out: &Path,
        spec: &StudySpec,
        shard: Option<Shard>,
        rows: RowsMode,
        force: bool,
    ) -> Result<ResultsFolder> {
        let staged = StagedFolder::begin(out)?;
        guard_existing(out, spec, shard, rows, force)?;
        Ok(ResultsFolder {
            out: out.to_path_buf(),
            staged,
        })
    }

    /// The staging folder every file goes into.
    pub fn path(&self) -> &Path {
        self.staged.path()
    }

    /// `rows.csv`, written as rows are handed on; `None` when `mode` keeps no rows.
    pub fn rows(&self, mode: RowsMode) -> Result<Option<RowsFile>> {
        if mode == RowsMode::None {
            return Ok(None);
        }
        let shown = self.out.join(ROWS);
        let file = AtomicFile::create(&self.path().join(ROWS))
            .with_context(|| format!("cannot write {}", shown.display()))?;
        Ok(Some(RowsFile {
            file,
            header_written: false,
            shown,
        }))
    }

    /// Swaps the finished folder in for `out`.
    pub fn commit(self) -> Result<()> {
        Ok(self.staged.commit()?)
    }
}

/// `rows.csv` of a folder being written; errors name the file at its final place.
pub struct RowsFile {
    file: AtomicFile,
    /// Whether the header is written (with the first row).
    header_written: bool,
    shown: PathBuf,
}

impl RowsFile {
    /// Appends rows; each batch is serialized on its own, so its formula-like cells can be made
    /// text before it reaches the file (a batch ends with a whole record).
    pub fn write(&mut self, rows: &[Row]) -> Result<()> {
        let shown = &self.shown;
        let cannot = || format!("cannot write {}", shown.display());
        let mut batch = csv::WriterBuilder::new()
            .has_headers(!self.header_written)
            .from_writer(Vec::new());
        for row in rows {
            batch.serialize(row).with_context(cannot)?;
        }
        self.header_written |= !rows.is_empty();
        let bytes = csv_text::finish(batch).with_context(cannot)?;
        self.file.write_all(&bytes).with_context(cannot)
    }

    /// Finishes `rows.csv` in the staging folder.
    pub fn commit(self) -> Result<()> {
        let shown = self.shown;
        self.file
            .commit()
            .with_context(|| format!("cannot write {}", shown.display()))
    }
}

/// Refuses to overwrite another study's results (or a folder that holds other files), and to
/// replace a result with one that keeps fewer rows (`--rows none` over `--rows all`).
fn guard_existing(
    out: &Path,
    spec: &StudySpec,
    shard: Option<Shard>,
    rows: RowsMode,
    force: bool,
) -> Result<()> {
    if force || !out.exists() {
        return Ok(());
    }
    if !out.is_dir() {
        bail!("{} exists and is not a folder", out.display());
    }
    let overwrite = "choose another folder with --out or overwrite with --force";
    match Manifest::read(out) {
        Some(m) if m.spec == *spec && m.shard == shard => {
            let kept = RowsMode::parse(&m.rows);
            if rows.evidence() < kept.evidence() {
                bail!(
                    "{} holds rows.csv with {} rows; --rows {} would discard them: {overwrite}",
                    out.display(),
                    kept.as_str(),
                    rows.as_str()
                );
            }
            Ok(())
        }
        Some(m) => bail!(
            "{} holds results of a different study or shard (id {}, seed {}, {} surfaces, {} tools{}); {overwrite}",
            out.display(),
            m.spec.id,
            m.spec.seed,
            m.spec.surfaces,
            m.spec.tools,
            m.shard.map_or(String::new(), |s| format!(", shard {}/{}", s.index, s.count))
        ),
        None if staging::entry_names(out).is_empty() => Ok(()),
        None => bail!(
            "{} is not empty and has no {}: not a driftlab results folder; {overwrite}",
            out.display(),
            MANIFEST
        ),
    }
}
