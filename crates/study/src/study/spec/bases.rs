//! A study's real base surfaces: every `*.json` payload of the folder its spec's `bases` names.

use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

use driftlab_contract::fs::ReadError;
use driftlab_contract::payload::{self, PayloadError, DEFAULT_MAX_BYTES};

/// Why the bases cannot be read; the spec's error names the spec file and `bases` before it.
#[derive(Debug, Error)]
pub(crate) enum BasesError {
    #[error("cannot read {}: {error}", dir.display())]
    Folder { dir: PathBuf, error: io::Error },
    #[error("{} holds no *.json payloads", .0.display())]
    Empty(PathBuf),
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(transparent)]
    Payload(#[from] PayloadError),
}

/// Reads every `*.json` payload in `folder` (relative to the spec file), sorted by file name,
/// as (file stem, `{"tools":[…]}`).
pub fn load(spec_path: &str, folder: &str) -> Result<Vec<(String, serde_json::Value)>, BasesError> {
    let dir = Path::new(spec_path)
        .parent()
        .unwrap_or(Path::new("."))
        .join(folder);
    let files = driftlab_contract::fs::json_files(&dir).map_err(|error| BasesError::Folder {
        dir: dir.clone(),
        error,
    })?;
    if files.is_empty() {
        return Err(BasesError::Empty(dir));
    }
    files
        .into_iter()
        .map(|file| {
            let bytes = driftlab_contract::fs::read_limited(&file, DEFAULT_MAX_BYTES)?;
            let name = file.display().to_string();
            let surface = payload::read(&bytes, &name, payload::Limits::default())?;
            let stem = file
                .file_stem()
                .map_or(name.clone(), |s| s.to_string_lossy().into_owned());
            Ok((stem, surface.to_value()))
        })
        .collect()
}
