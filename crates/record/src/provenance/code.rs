//! The code that wrote a results folder: driftlab's commit and a digest of its sources, as the
//! binary was built (build.rs).

use serde::{Deserialize, Serialize};

/// The code a binary was built from (see build.rs): the git commit and whether tracked code
/// differed from it, when built in a checkout; a SHA-256 of the sources, always.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeVersion {
    /// driftlab's version.
    pub version: String,
    /// The git commit built, in a checkout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_commit: Option<String>,
    /// Tracked sources differed from `git_commit` when the binary was built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_dirty: Option<bool>,
    /// A SHA-256 of the sources (see build.rs).
    pub source_sha256: String,
}

/// The code the running program was built from, as its own crate names it at link time (the
/// binary's crate places one function here, because only it sees every source: a digest taken
/// here would rebuild this crate on every change anywhere).
#[linkme::distributed_slice]
pub static CODE_VERSION: [fn() -> CodeVersion];

impl CodeVersion {
    /// This program's ([`CODE_VERSION`]); a program that names none gets its version alone and
    /// `source_sha256` "unregistered".
    pub fn current() -> CodeVersion {
        match CODE_VERSION[..] {
            [version] => version(),
            _ => CodeVersion {
                version: env!("CARGO_PKG_VERSION").to_string(),
                git_commit: None,
                git_dirty: None,
                source_sha256: "unregistered".to_string(),
            },
        }
    }

    /// One line for a reader: `commit 5ab24ee (and changes not committed)`.
    pub fn describe(&self) -> String {
        match (&self.git_commit, self.git_dirty) {
            (Some(commit), Some(true)) => {
                format!("commit {commit} and changes not committed to it")
            }
            (Some(commit), _) => format!("commit {commit}"),
            (None, _) => format!(
                "driftlab {} built outside a git checkout (sources {})",
                self.version, self.source_sha256
            ),
        }
    }
}
