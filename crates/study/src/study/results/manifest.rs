//! A results folder's manifest (what produced it, and the sha256 of every file) and its
//! volatile run record (`run.json`), and verifying a folder against its manifest.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{MANIFEST, RUN_JSON};
use crate::study::StudySpec;
use driftlab_contract::fs::{hash_file, read_json, regular_file, write_atomic, ReadError};
use driftlab_record::provenance::{CodeVersion, Provenance};
use driftlab_record::Shard;

/// What produced a results folder: deterministic but for the code that ran (the same spec, seed
/// and commit give the same manifest). When, where and on how many threads is in [`RunRecord`]
/// (`run.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    /// The version of driftlab that ran the study.
    pub driftlab_version: String,
    /// The spec as it ran.
    pub spec: StudySpec,
    /// The rule set `@payload` and `@diff` were read as (the spec's `rule_set`, else the newest
    /// of the build that ran it).
    #[serde(default)]
    pub rule_set: String,
    /// The seed every draw derives from.
    pub seed: u64,
    /// The random generator (`rng::ALGORITHM`).
    pub rng: String,
    /// The command that reproduces these results from a checkout.
    pub command: String,
    /// The folder with the study's METHOD.md and LIMITS.md, when known.
    pub research: Option<String>,
    /// Which rows rows.csv holds: `all`, `missed` or `none` (no rows.csv).
    #[serde(default = "all_rows")]
    pub rows: String,
    /// Set when these are one shard's results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// The code that ran, the spec's folder by SHA-256 (an external checker's scripts among
    /// it) and the environment its servers and checkers ran in.
    #[serde(flatten)]
    pub provenance: Provenance,
    /// sha256 of every other file in the folder but run.json, by file name.
    pub files: BTreeMap<String, String>,
}

/// What `verify` reads of either kind of manifest: the files it pins and what they were made
/// from.
#[derive(Deserialize)]
struct Pins {
    files: BTreeMap<String, String>,
    #[serde(flatten)]
    provenance: Provenance,
}

/// How many files a folder's manifest pins.
pub fn pinned_files(dir: &Path) -> Result<usize, ReadError> {
    Ok(read_json::<Pins>(&dir.join(MANIFEST))?.files.len())
}

/// What a folder's manifest says it was made from (empty for a manifest written before that
/// was recorded).
pub fn provenance(dir: &Path) -> Result<Provenance, ReadError> {
    Ok(read_json::<Pins>(&dir.join(MANIFEST))?.provenance)
}

/// `run.json`: the code that wrote a results folder and when, where and how it ran. It differs
/// between reruns, so it is neither in manifest.json nor pinned by it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunRecord {
    /// The code that ran.
    pub code: CodeVersion,
    /// When, where and on how many threads.
    #[serde(flatten)]
    pub run: RunInfo,
}

impl RunRecord {
    /// This binary's code and this run, started at `started`.
    pub fn now(started: std::time::Instant) -> RunRecord {
        RunRecord {
            code: CodeVersion::current(),
            run: RunInfo::now(started),
        }
    }

    /// Writes it as `dir/run.json`.
    pub fn write(&self, dir: &Path) -> io::Result<()> {
        let mut bytes = serde_json::to_vec_pretty(self).map_err(io::Error::other)?;
        bytes.push(b'\n');
        write_atomic(&dir.join(RUN_JSON), &bytes)
    }
}

/// When, where and on how many threads a study ran.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunInfo {
    /// When it started (RFC 3339, UTC).
    pub started_at: String,
    /// How long it took.
    pub duration_ms: u64,
    /// The host's name.
    pub host: String,
    /// The worker threads.
    pub threads: usize,
}

fn all_rows() -> String {
    "all".into()
}

impl RunInfo {
    /// This run's time, duration since `started`, host and thread count.
    pub fn now(started: std::time::Instant) -> RunInfo {
        let unix = driftlab_contract::text::unix_now();
        RunInfo {
            started_at: driftlab_contract::text::rfc3339(
                unix.saturating_sub(started.elapsed().as_secs()),
            ),
            duration_ms: started.elapsed().as_millis() as u64,
            host: host_name(),
            threads: rayon::current_num_threads(),
        }
    }
}

impl Manifest {
    /// The manifest of a results folder, if it has a readable one.
    pub fn read(dir: &Path) -> Option<Manifest> {
        Manifest::load(dir).ok()
    }

    /// Like [`Manifest::read`], with a one-line reason on failure.
    pub fn load(dir: &Path) -> Result<Manifest, driftlab_contract::fs::ReadError> {
        read_json(&dir.join(MANIFEST))
    }
}

/// sha256 of each named file in `dir`.
pub fn hash_files(dir: &Path, names: &[&str]) -> io::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for name in names {
        out.insert((*name).to_string(), hash_file(&dir.join(name))?);
    }
    Ok(out)
}

/// A file of a results folder whose bytes are not the ones its manifest pinned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The file's path in the folder.
    pub file: String,
    /// The sha256 the manifest pinned.
    pub expected: String,
    /// The file's sha256 now, or why it could not be read.
    pub found: String,
}

/// Re-hashes `names` of a results folder (every file its manifest pins, for `None`) against the
/// manifest; the files that do not match. The inputs and environment are checked apart
/// ([`provenance`], `Provenance::check`).
pub fn verify(dir: &Path, names: Option<&[&str]>) -> Result<Vec<Mismatch>, ReadError> {
    let manifest: Pins = read_json(&dir.join(MANIFEST))?;
    let mut out = Vec::new();
    for (file, expected) in &manifest.files {
        if names.is_some_and(|n| !n.contains(&file.as_str())) {
            continue;
        }
        let path = dir.join(file);
        let hash = regular_file(&path)
            .map_err(|e| e.to_string())
            .and_then(|()| hash_file(&path).map_err(|e| e.to_string()));
        let found = match hash {
            Ok(hash) if hash == *expected => continue,
            Ok(hash) => hash,
            Err(e) => format!("unreadable ({e})"),
        };
        out.push(Mismatch {
            file: file.clone(),
            expected: expected.clone(),
            found,
        });
    }
    if let Some(names) = names {
        for name in names {
            if !manifest.files.contains_key(*name) && dir.join(name).exists() {
                out.push(Mismatch {
                    file: name.to_string(),
                    expected: "(not in manifest.json)".into(),
                    found: "present".into(),
                });
            }
        }
    }
    Ok(out)
}

/// The host name, for the manifest only.
pub fn host_name() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}
