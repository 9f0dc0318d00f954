//! Why a lockfile cannot be read: each message one line that starts with the file.

use crate::fs::ReadError;
use crate::payload::PayloadError;

use super::LOCKFILE_VERSION;

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(transparent)]
    Json(#[from] PayloadError),
    #[error(
        "{file}: not a driftlab lockfile of this version (lockfileVersion {found}, expected \
         {LOCKFILE_VERSION}); make it with `driftlab lock --config FILE`"
    )]
    Version { file: String, found: String },
    #[error("{file}: not a valid lockfile: {error}")]
    Shape {
        file: String,
        error: serde_json::Error,
    },
    #[error(
        "{file}: needs exactly one of `config` (lock --config) and `discovered` (lock --discover)"
    )]
    ConfigOrDiscovered { file: String },
    #[error("{file}: server {name:?} is locked twice")]
    LockedTwice { file: String, name: String },
    #[error("{file}: server {name:?} needs exactly one of `contract` and `skipped`")]
    ContractOrSkipped { file: String, name: String },
    /// The digests are the pin: ones that do not match the recorded contract mean an edit.
    #[error(
        "{file}: server {name:?}: its digests do not match its recorded contract (edited by \
         hand?); lock it again with `driftlab lock --config FILE`"
    )]
    DigestsDiffer { file: String, name: String },
    #[error(
        "{file}: digests of another algorithm ({found:?}, expected {:?}); lock it again with \
         `driftlab lock --config FILE`",
        crate::digest::ALGORITHM
    )]
    DigestAlgorithm { file: String, found: String },
}
