//! The output-contracts study as a results folder: scan every capture of a corpus (and read
//! the live reports beside them), write the folder as a whole into a staging folder and swap it
//! in. The folder may hold what the study reads (its live reports, `results/…/live`): every
//! entry but the study's own files is carried into the new folder.

use std::path::{Path, PathBuf};

use thiserror::Error;

use super::study;
use super::study_error::ScanStudyError;
use super::ScanReport;
use crate::study::results::staging::{self, FolderError, StagedFolder};
use driftlab_contract::payload::Limits;
use driftlab_record::provenance::{Inputs, Provenance};

/// Why a corpus scan study stopped.
#[derive(Debug, Error)]
pub enum CorpusStudyError {
    /// The results folder could not be staged or swapped in.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// A capture or live report that cannot be read, or a file that cannot be written.
    #[error(transparent)]
    Study(#[from] ScanStudyError),
}

/// What a corpus study reads, and where it writes.
pub struct CorpusStudy<'a> {
    /// The folder of captures.
    pub corpus: &'a Path,
    /// The folder of live scan reports, if any.
    pub live: Option<&'a Path>,
    /// The results folder.
    pub out: &'a Path,
    /// The seed of the corrupted instances.
    pub seed: u64,
    /// The payload reader's limits.
    pub limits: Limits,
    /// Overwrite a folder that holds entries this study does not write.
    pub force: bool,
}

impl CorpusStudy<'_> {
    /// The command that reruns this study, as the report prints it.
    pub fn command(&self) -> String {
        let mut command = format!("driftlab scan --corpus {}", self.corpus.display());
        if let Some(dir) = self.live {
            command.push_str(&format!(" --live {}", dir.display()));
        }
        command.push_str(&format!(" --out {}", self.out.display()));
        if self.seed != super::DEFAULT_SEED {
            command.push_str(&format!(" --seed {}", self.seed));
        }
        command
    }

    /// Runs the study and writes its folder; returns each server's report.
    pub fn run(&self) -> Result<Vec<ScanReport>, CorpusStudyError> {
        let out = self.out;
        let staged = StagedFolder::begin(out)?;
        // Its own files, and folders (the live reports), are never foreign.
        let files = study::file_names();
        let owns = |name: &str| files.iter().any(|f| f == name) || out.join(name).is_dir();
        staging::refuse_foreign(out, owns, "a scan study", self.force)?;
        let reports = study::scan_folder(self.corpus, self.seed, self.limits)?;
        let id = out.file_name().map_or("output-contracts".into(), |n| {
            n.to_string_lossy().into_owned()
        });
        let (live, kept) = match self.live {
            Some(dir) => (study::read_live(dir)?, study::kept_live(dir, out)?),
            None => (Vec::new(), Vec::new()),
        };
        let inputs = Inputs::of_folder(self.corpus, None, Some(out)).map_err(|error| {
            ScanStudyError::Folder {
                folder: self.corpus.display().to_string(),
                error,
            }
        })?;
        let provenance = Provenance::of(inputs, &[]);
        study::write(
            staged.path(),
            (&id, self.seed),
            (&self.command(), &provenance),
            &reports,
            (&live, &kept),
        )?;
        for name in staging::entry_names(out) {
            if !files.contains(&name) {
                let to: PathBuf = staged.path().join(&name);
                staging::copy_tree(&out.join(&name), &to)?;
            }
        }
        staged.commit()?;
        Ok(reports)
    }
}
