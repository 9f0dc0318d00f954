//! Writes that readers never see half done: a temporary file beside the destination, renamed
//! into place.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

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
    /// A temporary file beside `dest`, which [`AtomicFile::commit`] renames over it; a device or
    /// a FIFO (`/dev/stdout`) is written directly.
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

/// Replaces the file `dest` with `bytes` atomically, keeping its permissions (a client config
/// may hold secrets and be readable by its owner only), unless it no longer holds `expected`:
/// then nothing is written and the error says the file changed since it was read. A `dest`
/// that is a symbolic link (a config kept in a dotfiles folder) stays one: the file it points
/// to is replaced.
pub fn replace_if_unchanged(dest: &Path, bytes: &[u8], expected: &[u8]) -> io::Result<()> {
    let resolved;
    let dest = if fs::symlink_metadata(dest)?.file_type().is_symlink() {
        resolved = fs::canonicalize(dest)?;
        resolved.as_path()
    } else {
        dest
    };
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

/// [`write_atomic`] of a file holding what `like` holds (a client config's backup): created
/// with `like`'s permissions rather than the 0644 of results, so a secret stays its owner's.
pub fn write_atomic_like(dest: &Path, bytes: &[u8], like: &Path) -> io::Result<()> {
    let permissions = fs::metadata(like)?.permissions();
    let mut file = AtomicFile::create(dest)?;
    if let Target::Temp { writer, .. } = &file.target {
        writer.get_ref().as_file().set_permissions(permissions)?;
    }
    file.write_all(bytes)?;
    file.commit()
}

/// Writes each named file into `dir` atomically, in order, and returns the names; the error
/// names the file that could not be written.
pub fn write_files_atomic(
    dir: &Path,
    files: Vec<(String, Vec<u8>)>,
) -> Result<Vec<String>, (std::path::PathBuf, io::Error)> {
    for (name, bytes) in &files {
        let path = dir.join(name);
        write_atomic(&path, bytes).map_err(|e| (path, e))?;
    }
    Ok(files.into_iter().map(|(name, _)| name).collect())
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
    Ok(crate::text::hex(&hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

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
