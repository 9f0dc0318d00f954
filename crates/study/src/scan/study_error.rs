//! Why the output-contracts study cannot read its captures or write its folder: one line that
//! starts with the file or folder.

use std::io;

use thiserror::Error;

use driftlab_contract::fs::ReadError;
use driftlab_contract::payload::PayloadError;
use driftlab_plot::plot::PlotError;

/// Why a scan study stopped.
#[derive(Debug, Error)]
pub enum ScanStudyError {
    /// A folder could not be read.
    #[error("{folder}: cannot read folder: {error}")]
    Folder {
        /// The folder.
        folder: String,
        /// What is wrong.
        error: io::Error,
    },
    /// A folder has no captures (its path).
    #[error("{0}: no *.json captures")]
    NoCaptures(String),
    /// A file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A capture is not a payload.
    #[error(transparent)]
    Payload(#[from] PayloadError),
    /// A file is not a live scan report (its path).
    #[error("{0}: not a live scan report (no `probes`)")]
    NotALiveReport(String),
    /// A figure could not be drawn.
    #[error(transparent)]
    Figure(#[from] PlotError),
    /// The summary or a table cannot be encoded (a bug: every field is plain data).
    #[error("cannot encode {file}: {why}")]
    Encode {
        /// The file.
        file: &'static str,
        /// What went wrong.
        why: String,
    },
    /// A file could not be written.
    #[error("{file}: cannot write: {error}")]
    Write {
        /// The file.
        file: String,
        /// What is wrong.
        error: io::Error,
    },
}
