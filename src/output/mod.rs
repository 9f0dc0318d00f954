//! The results folder: file names, atomic writes, the manifest.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::record::Shard;
use crate::study::StudySpec;
use crate::surface::hex;

pub mod folder;

pub use folder::StagedFolder;

pub const ROWS: &str = "rows.csv";
pub const SUMMARY_CSV: &str = "summary.csv";
pub const SUMMARY_JSON: &str = "summary.json";
pub const METRICS_CSV: &str = "metrics.csv";
pub const MANIFEST: &str = "manifest.json";
pub const REPORT: &str = "report.md";
/// The volatile record of a run (code, time, host, threads), kept out of manifest.json so that a
/// rerun changes no committed byte; `results/*/run.json` is git-ignored.
pub const RUN_JSON: &str = "run.json";

/// A file written beside its destination under a temporary name and renamed into place on
/// [`AtomicFile::commit`]; dropped uncommitted (or when the commit fails), it removes itself.
/// Readers never see half a file. The temporary file has an unpredictable name and is created
/// with `O_EXCL`, so nobody who can write to the folder can plant a symlink for it to follow. A
/// destination that exists and is not a regular file (a device, a FIFO, `/dev/stdout`) is
/// written directly: replacing it with a regular file would be wrong, and it has no atomicity to
/// keep.
pub struct AtomicFile {
    target: Target,
}

enum Target {
    Temp {
        writer: BufWriter<tempfile::NamedTempFile>,
        dest: PathBuf,
        _cleanup: crate::cleanup::Registration,
    },
    Direct(BufWriter<File>),
    Done,
}

/// The prefix of every temporary file driftlab writes.
pub const TEMP_PREFIX: &str = ".driftlab-tmp-";

impl AtomicFile {
    pub fn create(dest: &Path) -> io::Result<AtomicFile> {
        if let Ok(meta) = fs::metadata(dest) {
            if !meta.is_file() && !meta.is_dir() {
                let file = fs::OpenOptions::new().write(true).open(dest)?;
                return Ok(AtomicFile {
                    target: Target::Direct(BufWriter::new(file)),
                });
            }
        }
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(TEMP_PREFIX)
            .tempfile_in(dir)?;
        // Results are shared evidence: readable like any file the user creates (not 0600).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            temp.as_file()
                .set_permissions(fs::Permissions::from_mode(0o644))?;
        }
        let cleanup = crate::cleanup::remove_on_signal(temp.path().to_path_buf());
        Ok(AtomicFile {
            target: Target::Temp {
                writer: BufWriter::with_capacity(1 << 16, temp),
                dest: dest.to_path_buf(),
                _cleanup: cleanup,
            },
        })
    }

    /// Flushes, syncs and renames the file into place.
    pub fn commit(mut self) -> io::Result<()> {
        match std::mem::replace(&mut self.target, Target::Done) {
            Target::Temp { writer, dest, .. } => {
                let temp = writer.into_inner().map_err(|e| e.into_error())?;
                temp.as_file().sync_all()?;
                temp.persist(&dest).map_err(|e| e.error)?;
                Ok(())
            }
            Target::Direct(mut writer) => writer.flush(),
            Target::Done => Ok(()),
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.target {
            Target::Temp { writer, .. } => writer.write(buf),
            Target::Direct(writer) => writer.write(buf),
            Target::Done => Err(io::Error::other("file already committed")),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match &mut self.target {
            Target::Temp { writer, .. } => writer.flush(),
            Target::Direct(writer) => writer.flush(),
            Target::Done => Ok(()),
        }
    }
}

/// Rows serialized as CSV (a header from the first row's field names), in memory.
pub fn csv_bytes<T: Serialize>(rows: impl IntoIterator<Item = T>) -> Result<Vec<u8>, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.serialize(row)?;
    }
    writer.into_inner().map_err(|e| e.into_error().into())
}

/// Replaces the file `dest` with `bytes` atomically, keeping its permissions (a client config
/// may hold secrets and be readable by its owner only), unless it no longer holds `expected`:
/// then nothing is written and the error says the file changed since it was read.
pub fn replace_if_unchanged(dest: &Path, bytes: &[u8], expected: &[u8]) -> io::Result<()> {
    let permissions = fs::metadata(dest)?.permissions();
    let dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)?;
    let _cleanup = crate::cleanup::remove_on_signal(temp.path().to_path_buf());
    temp.as_file().set_permissions(permissions)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    if fs::read(dest)? != expected {
        return Err(io::Error::other(
            "it changed since driftlab read it; nothing was written (run the command again)",
        ));
    }
    temp.persist(dest).map_err(|e| e.error)?;
    Ok(())
}

/// Writes `bytes` to `dest` atomically.
pub fn write_atomic(dest: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = AtomicFile::create(dest)?;
    file.write_all(bytes)?;
    file.commit()
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
        read_json(&dir.join(MANIFEST))
    }
}

/// The one reader for every file driftlab reads: a regular file of at most `max` bytes. A
/// folder, a FIFO or a device is refused before it is opened (opening a FIFO blocks until a
/// writer comes; `/dev/zero` never ends); a larger file is refused without reading it all.
pub fn read_limited(path: &Path, max: usize) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let cannot = |e: io::Error| format!("{}: cannot read: {e}", path.display());
    regular_file(path)?;
    let file = File::open(path).map_err(cannot)?;
    // Sized up front: growing by doubling would hold two copies of a large file at once.
    let size = file
        .metadata()
        .map_or(0, |m| m.len())
        .min((max as u64).saturating_add(1));
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take((max as u64).saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() > max {
        return Err(format!("{}: over the {max}-byte limit", path.display()));
    }
    Ok(bytes)
}

/// Refuses anything but a regular file (following symlinks), without opening it.
pub fn regular_file(path: &Path) -> Result<(), String> {
    let meta = fs::metadata(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    if meta.is_dir() {
        return Err(format!("{}: is a folder, not a file", path.display()));
    }
    if !meta.is_file() {
        return Err(format!(
            "{}: not a regular file (a FIFO, socket or device); for a pipe, use `-` (stdin) where a payload is read",
            path.display()
        ));
    }
    Ok(())
}

/// The size limit of every file driftlab reads that is not a payload (specs, policies, logs):
/// far above any real one.
pub const MAX_SMALL_FILE: usize = 16 * 1024 * 1024;

/// Reads a UTF-8 text file through [`read_limited`].
pub fn read_text(path: &Path, max: usize) -> Result<String, String> {
    let bytes = read_limited(path, max)?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{}: not UTF-8 (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

/// Reads and parses a JSON file (at most the payload limit); the error names the file and the
/// place.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, String> {
    let bytes = read_limited(path, crate::payload::DEFAULT_MAX_BYTES)?;
    serde_json::from_slice(&bytes).map_err(|e| {
        let message = e.to_string();
        let message = message
            .rfind(" at line ")
            .map_or(message.as_str(), |cut| &message[..cut]);
        format!("{}:{}:{}: {message}", path.display(), e.line(), e.column())
    })
}

/// sha256 of each named file in `dir`.
pub fn hash_files(dir: &Path, names: &[&str]) -> io::Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for name in names {
        out.insert((*name).to_string(), hash_file(&dir.join(name))?);
    }
    Ok(out)
}

/// sha256 of a file, read in blocks (rows.csv can be large).
pub fn hash_file(path: &Path) -> io::Result<String> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hex(&hasher.finalize()))
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
        let found =
            match regular_file(&path).and_then(|()| hash_file(&path).map_err(|e| e.to_string())) {
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

    #[test]
    fn atomic_file_appears_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("rows.csv");
        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"a,b\n").unwrap();
        assert!(!dest.exists());
        f.commit().unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"a,b\n");

        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"half").unwrap();
        drop(f); // interrupted: the old file stays, no temp file is left
        assert_eq!(fs::read(&dest).unwrap(), b"a,b\n");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_symlink_is_never_followed_and_devices_are_written_in_place() {
        // Whatever name an attacker guesses and links to a victim file, the temp file is new.
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, b"keep").unwrap();
        for guess in [".rows.csv.tmp-1", ".driftlab-tmp-000000"] {
            std::os::unix::fs::symlink(&victim, dir.path().join(guess)).unwrap();
        }
        write_atomic(&dir.path().join("rows.csv"), b"new").unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"keep");
        assert_eq!(fs::read(dir.path().join("rows.csv")).unwrap(), b"new");
        // A device stays a device: /dev/null is written, not replaced by a regular file.
        write_atomic(Path::new("/dev/null"), b"x").unwrap();
        assert!(!fs::metadata("/dev/null").unwrap().is_file());
        // A commit that cannot rename (the destination is a folder) leaves no temp file.
        let folder = dir.path().join("folder");
        fs::create_dir(&folder).unwrap();
        assert!(write_atomic(&folder, b"x").is_err());
        let left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                e.file_name().to_string_lossy().starts_with(TEMP_PREFIX) && !e.path().is_symlink()
            })
            .collect();
        assert!(left.is_empty());
    }
}
