//! Why the output-contracts study cannot read its captures or write its folder: one line that
//! starts with the file or folder.

use std::io;

use thiserror::Error;

use crate::fs::ReadError;
use crate::payload::PayloadError;
use crate::plot::PlotError;

#[derive(Debug, Error)]
pub enum ScanStudyError {
    #[error("{folder}: cannot read folder: {error}")]
    Folder { folder: String, error: io::Error },
    #[error("{0}: no *.json captures")]
    NoCaptures(String),
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(transparent)]
    Payload(#[from] PayloadError),
    #[error("{0}: not a live scan report (no `probes`)")]
    NotALiveReport(String),
    #[error(transparent)]
    Figure(#[from] PlotError),
    /// The summary or a table cannot be encoded (a bug: every field is plain data).
    #[error("cannot encode {file}: {why}")]
    Encode { file: &'static str, why: String },
    #[error("{file}: cannot write: {error}")]
    Write { file: String, error: io::Error },
}
