//! The code of a study's external checkers, pinned in `manifest.json`: every file an external
//! gate's command names inside the spec's folder (its scripts: `adapters/x.py`), by SHA-256, so
//! that `driftlab verify` notices an edited checker. Not pinned: what lies outside the spec's
//! folder (an interpreter, a venv's `bin/python`, which links out of it), what a script imports,
//! and the interpreter's version: they differ between machines that rerun the same study, and
//! the manifest must not.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Mismatch;
use crate::study::Study;
use driftlab_contract::fs::hash_file;

/// The spec's folder, and per external gate each file its command names (the word as the spec
/// writes it, from that folder) and its sha256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckerCode {
    /// As the study was given it (relative to where it ran, e.g. `research/x`), `.` for none.
    pub folder: String,
    /// Per gate, each file's sha256 by the word that names it.
    pub files: BTreeMap<String, BTreeMap<String, String>>,
}

/// The files of `study`'s external gates' commands that lie in their spec's folder, `folder`
/// as the command line named it; `None` when there are none.
pub fn pin(study: &Study, folder: &str) -> std::io::Result<Option<CheckerCode>> {
    let mut code = BTreeMap::new();
    for gate in &study.gates {
        let Some(checker) = &gate.checker else {
            continue;
        };
        let written = study
            .spec
            .gates
            .iter()
            .find(|g| g.id == gate.id)
            .and_then(|g| g.command.clone())
            .unwrap_or_default();
        let mut files = BTreeMap::new();
        for word in written {
            if let Some(path) = own_file(&checker.dir, &word) {
                files.insert(word, hash_file(&path)?);
            }
        }
        if !files.is_empty() {
            code.insert(gate.id.clone(), files);
        }
    }
    Ok((!code.is_empty()).then(|| CheckerCode {
        folder: folder.to_string(),
        files: code,
    }))
}

/// `word` as a path from `dir`, when it names a regular file inside `dir`.
fn own_file(dir: &Path, word: &str) -> Option<PathBuf> {
    let path = dir.join(word);
    let real = path.canonicalize().ok()?;
    let inside = dir.canonicalize().is_ok_and(|dir| real.starts_with(dir));
    (inside && real.is_file()).then_some(real)
}

/// The pinned checker files that differ now, or that cannot be found. The spec's folder is
/// looked for from the current folder and from every folder above the results folder `dir`
/// (`results/<id>`, `out/`, …), and the first that holds every pinned file is the one checked:
/// a folder that merely exists there (`.` always does) is not taken for it, so `verify` answers
/// the same wherever it is run from.
pub fn verify(code: &CheckerCode, dir: &Path) -> Vec<Mismatch> {
    let research = code.folder.as_str();
    let mut candidates = vec![PathBuf::from(research)];
    if let Ok(dir) = dir.canonicalize() {
        candidates.extend(dir.ancestors().skip(1).map(|above| above.join(research)));
    }
    let holds_all = |d: &PathBuf| {
        code.files
            .values()
            .flat_map(|files| files.keys())
            .all(|word| d.join(word).is_file())
    };
    let spec_dir = candidates
        .iter()
        .find(|d| holds_all(d))
        .or_else(|| candidates.iter().find(|d| d.is_dir()))
        .cloned();
    let mut out = Vec::new();
    for (gate, files) in &code.files {
        for (word, expected) in files {
            let found = match &spec_dir {
                Some(spec_dir) => match hash_file(&spec_dir.join(word)) {
                    Ok(hash) if hash == *expected => continue,
                    Ok(hash) => hash,
                    Err(e) => format!("unreadable ({e})"),
                },
                None => format!(
                    "not found (no folder {research} here or above {})",
                    dir.display()
                ),
            };
            out.push(Mismatch {
                file: format!("checker {gate}: {research}/{word}"),
                expected: expected.clone(),
                found,
            });
        }
    }
    out
}
