//! `manifest.json`: what a results folder pins. The folders of `guard-study`, `stack-study` and
//! `scan --corpus` get a [`FolderManifest`] (the study runner's own, richer manifest is
//! `study::results::Manifest`); `driftlab verify` reads the `files` of either.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The file name of every results folder's manifest.
pub const MANIFEST: &str = "manifest.json";

/// The driftlab that wrote a folder, the command that reproduces it, and each file's sha256.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct FolderManifest {
    /// The version of driftlab that wrote the folder.
    pub driftlab_version: String,
    /// The command that writes the folder again.
    pub command: String,
    /// Each file's sha256, by its path in the folder.
    pub files: BTreeMap<String, String>,
}

/// `manifest.json` for `files` (name, bytes) written by `command`: its name and bytes, to write
/// beside them.
pub fn folder_manifest(command: &str, files: &[(String, Vec<u8>)]) -> (String, Vec<u8>) {
    let manifest = FolderManifest {
        driftlab_version: env!("CARGO_PKG_VERSION").to_string(),
        command: command.to_string(),
        files: files
            .iter()
            .map(|(name, bytes)| (name.clone(), crate::text::sha256_hex(bytes)))
            .collect(),
    };
    // A struct of strings always serialises.
    let mut bytes = serde_json::to_vec_pretty(&manifest).unwrap_or_default();
    bytes.push(b'\n');
    (MANIFEST.to_string(), bytes)
}
