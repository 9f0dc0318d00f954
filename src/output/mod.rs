//! The results folder: file names, atomic writes, the manifest.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::record::Shard;
use crate::study::StudySpec;

pub mod folder;

pub use folder::StagedFolder;

use crate::fs::{hash_file, read_json, regular_file, write_atomic};

pub const ROWS: &str = "rows.csv";
pub const SUMMARY_CSV: &str = "summary.csv";
pub const SUMMARY_JSON: &str = "summary.json";
pub const METRICS_CSV: &str = "metrics.csv";
pub const MANIFEST: &str = "manifest.json";
pub const REPORT: &str = "report.md";
/// The volatile record of a run (code, time, host, threads), kept out of manifest.json so that a
/// rerun changes no committed byte; `results/*/run.json` is git-ignored.
pub const RUN_JSON: &str = "run.json";

/// Rows serialized as CSV (a header from the first row's field names), in memory.
pub fn csv_bytes<T: Serialize>(rows: impl IntoIterator<Item = T>) -> Result<Vec<u8>, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.serialize(row)?;
    }
    writer.into_inner().map_err(|e| e.into_error().into())
}

/// What produced a results folder: entirely deterministic (the same spec and seed give the same
/// manifest). Which code, when, where and on how many threads is in [`RunRecord`] (`run.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub driftlab_version: String,
    pub spec: StudySpec,
    /// The rule set `@payload` and `@diff` were read as (the spec's `rule_set`, else the newest
    /// of the build that ran it).
    #[serde(default)]
    pub rule_set: String,
    pub seed: u64,
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
    /// sha256 of every other file in the folder but run.json, by file name.
    pub files: BTreeMap<String, String>,
}

/// `run.json`: the code that wrote a results folder and when, where and how it ran. It differs
/// between reruns, so it is neither in manifest.json nor pinned by it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunRecord {
    pub code: CodeVersion,
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

/// The code a binary was built from (see build.rs): the git commit and whether tracked code
/// differed from it, when built in a checkout; a SHA-256 of the sources, always.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeVersion {
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_commit: Option<String>,
    /// Tracked sources differed from `git_commit` when the binary was built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_dirty: Option<bool>,
    pub source_sha256: String,
}

impl CodeVersion {
    /// This binary's.
    pub fn current() -> CodeVersion {
        let commit = env!("DRIFTLAB_GIT_COMMIT");
        CodeVersion {
            version: env!("CARGO_PKG_VERSION").to_string(),
            git_commit: (!commit.is_empty()).then(|| commit.to_string()),
            git_dirty: match env!("DRIFTLAB_GIT_DIRTY") {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            },
            source_sha256: env!("DRIFTLAB_SOURCE_SHA256").to_string(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunInfo {
    pub started_at: String,
    pub duration_ms: u64,
    pub host: String,
    pub threads: usize,
}

fn all_rows() -> String {
    "all".into()
}

impl RunInfo {
    /// This run's time, duration since `started`, host and thread count.
    pub fn now(started: std::time::Instant) -> RunInfo {
        let unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        RunInfo {
            started_at: rfc3339(unix.saturating_sub(started.elapsed().as_secs())),
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
    pub fn load(dir: &Path) -> Result<Manifest, String> {
        Ok(read_json(&dir.join(MANIFEST))?)
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
    pub file: String,
    pub expected: String,
    /// The file's sha256 now, or why it could not be read.
    pub found: String,
}

/// Re-hashes `names` of a results folder (every file its manifest pins, for `None`) against the
/// manifest; the files that do not match.
pub fn verify(dir: &Path, names: Option<&[&str]>) -> Result<Vec<Mismatch>, String> {
    let manifest = Manifest::load(dir)?;
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

/// Seconds since the Unix epoch as an RFC 3339 UTC timestamp.
pub fn rfc3339(unix_seconds: u64) -> String {
    let days = (unix_seconds / 86_400) as i64;
    let secs = unix_seconds % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_796_003_199), "2026-11-30T01:46:39Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }
}
