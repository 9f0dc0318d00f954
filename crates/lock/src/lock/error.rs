//! Why a lockfile cannot be read: each message one line that starts with the file.

use driftlab_contract::fs::ReadError;
use driftlab_contract::payload::PayloadError;

use super::LOCKFILE_VERSION;

/// Why a lockfile cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The file is not JSON.
    #[error(transparent)]
    Json(#[from] PayloadError),
    /// Another lockfile version.
    #[error(
        "{file}: not a driftlab lockfile of this version (lockfileVersion {found}, expected \
         {LOCKFILE_VERSION}); make it with `driftlab lock --config FILE`"
    )]
    Version {
        /// The lockfile.
        file: String,
        /// What the file has.
        found: String,
    },
    /// JSON, but not a lockfile.
    #[error("{file}: not a valid lockfile: {error}")]
    Shape {
        /// The lockfile.
        file: String,
        /// What is wrong.
        error: serde_json::Error,
    },
    /// Neither or both of `config` and `discovered`.
    #[error(
        "{file}: needs exactly one of `config` (lock --config) and `discovered` (lock --discover)"
    )]
    ConfigOrDiscovered {
        /// The lockfile.
        file: String,
    },
    /// Two entries of one server.
    #[error("{file}: server {name:?} is locked twice")]
    LockedTwice {
        /// The lockfile.
        file: String,
        /// The server's name.
        name: String,
    },
    /// An entry with neither or both of `contract` and `skipped`.
    #[error("{file}: server {name:?} needs exactly one of `contract` and `skipped`")]
    ContractOrSkipped {
        /// The lockfile.
        file: String,
        /// The server's name.
        name: String,
    },
    /// The digests are the pin: ones that do not match the recorded contract mean an edit.
    #[error(
        "{file}: server {name:?}: its digests do not match its recorded contract (edited by \
         hand?); lock it again with `driftlab lock --config FILE`"
    )]
    DigestsDiffer {
        /// The lockfile.
        file: String,
        /// The server's name.
        name: String,
    },
    /// Digests of another algorithm.
    #[error(
        "{file}: digests of another algorithm ({found:?}, expected {:?}); lock it again with \
         `driftlab lock --config FILE`",
        driftlab_contract::digest::ALGORITHM
    )]
    DigestAlgorithm {
        /// The lockfile.
        file: String,
        /// What the file has.
        found: String,
    },
}
