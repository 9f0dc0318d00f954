//! A results folder written as a whole: every file goes into a staging folder beside it, and
//! the finished staging folder is swapped in at the end. A run that fails, is interrupted or is
//! killed never leaves a mix of old and new files: the folder holds the old results or the new.

use std::ffi::OsString;
use std::fs::{self, File};
use std::path::{Path, PathBuf};

use driftlab_contract::cleanup::{self, Registration};

/// The prefix of every staging folder (and temporary file) driftlab writes.
pub use driftlab_contract::fs::TEMP_PREFIX;

/// Random characters after a staging folder's name: fixed, so the leftovers of one folder are
/// never confused with those of a folder whose name extends it (`a` and `a-b`).
const RANDOM_CHARS: usize = 6;

/// Why a results folder could not be staged, locked, copied or swapped in. Every message
/// starts with the path.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// An operation on `path` failed; `what` says which (`cannot create`, `cannot replace`, …).
    #[error("{}: {what}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The operation (`cannot create`, …).
        what: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Another driftlab is writing the folder.
    #[error("{}: another driftlab is writing this folder; wait for it or choose another --out", .0.display())]
    Locked(PathBuf),
    /// The folder has no parent to stage in.
    #[error("{}: a results folder needs a parent folder to stage in", .0.display())]
    NoParent(PathBuf),
    /// The folder holds files this command does not write.
    #[error("{} holds files {writer} does not write ({}): choose another folder with --out or overwrite with --force", out.display(), foreign.join(", "))]
    Foreign {
        /// The folder.
        out: PathBuf,
        /// The command that writes it.
        writer: String,
        /// The files it does not write.
        foreign: Vec<String>,
    },
}

/// An [`FolderError::Io`] maker for one path and operation.
fn io<'p>(
    path: &'p Path,
    what: &'static str,
) -> impl Fn(std::io::Error) -> FolderError + Copy + 'p {
    move |source| FolderError::Io {
        path: path.to_path_buf(),
        what,
        source,
    }
}

/// A results folder being written: locked, with an empty staging folder to write into.
pub struct StagedFolder {
    out: PathBuf,
    staging: Option<tempfile::TempDir>,
    /// `out` did not exist before this run: remove it again if the run does not commit.
    fresh: bool,
    _lock: File,
    _cleanup: Option<Registration>,
}

impl StagedFolder {
    /// Creates `out` if needed, locks it (refusing at once when another driftlab holds the
    /// lock), removes the staging folders that killed runs into `out` left behind, and opens
    /// a new, empty staging folder beside `out`.
    pub fn begin(out: &Path) -> Result<StagedFolder, FolderError> {
        let fresh = !out.exists();
        fs::create_dir_all(out).map_err(io(out, "cannot create"))?;
        let lock = lock(out)?;
        let (parent, name) = parent_and_name(out)?;
        clear_leftovers(&parent, &name);
        let staging = tempfile::Builder::new()
            .prefix(&staging_prefix(&name))
            .rand_bytes(RANDOM_CHARS)
            .tempdir_in(&parent)
            .map_err(io(&parent, "cannot create a staging folder"))?;
        let registration = cleanup::remove_on_signal(staging.path().to_path_buf());
        Ok(StagedFolder {
            out: out.to_path_buf(),
            staging: Some(staging),
            fresh,
            _lock: lock,
            _cleanup: Some(registration),
        })
    }

    /// Where to write the folder's files.
    pub fn path(&self) -> &Path {
        self.staging.as_ref().map_or(&self.out, |s| s.path())
    }

    /// The folder the files will be in after [`StagedFolder::commit`].
    pub fn out(&self) -> &Path {
        &self.out
    }

    /// Whether `out` existed before this run.
    #[cfg(test)]
    fn is_fresh(&self) -> bool {
        self.fresh
    }

    /// Swaps the staging folder in as `out` and removes the old contents.
    pub fn commit(mut self) -> Result<(), FolderError> {
        let Some(staging) = self.staging.take() else {
            return Ok(());
        };
        let failed = io(&self.out, "cannot replace");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // Results are shared evidence: readable like any folder the user creates (not 0700).
            fs::set_permissions(staging.path(), fs::Permissions::from_mode(0o755))
                .map_err(failed)?;
        }
        swap(staging.path(), &self.out).map_err(failed)?;
        // The staging path now holds the old contents; dropping the TempDir removes them.
        drop(staging);
        Ok(())
    }
}

impl Drop for StagedFolder {
    fn drop(&mut self) {
        if self.staging.is_some() && self.fresh {
            // Not committed: a folder this run created goes again (only if still empty).
            let _ = fs::remove_dir(&self.out);
        }
    }
}

/// Exchanges two folders atomically (Linux `renameat2(RENAME_EXCHANGE)`); where that is not
/// supported, moves `out` aside and `staging` into place, restoring `out` if the second rename
/// fails. Either way `staging` ends up holding the old contents.
fn swap(staging: &Path, out: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| {
            std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(std::io::Error::other)
        };
        let (from, to) = (c(staging)?, c(out)?);
        // SAFETY: both paths are valid NUL-terminated strings that outlive the call.
        let result = unsafe {
            libc::syscall(
                libc::SYS_renameat2,
                libc::AT_FDCWD,
                from.as_ptr(),
                libc::AT_FDCWD,
                to.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if result == 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        if !matches!(error.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS)) {
            return Err(error);
        }
    }
    let mut aside = staging.as_os_str().to_os_string();
    aside.push(".old");
    let aside = PathBuf::from(aside);
    fs::rename(out, &aside)?;
    if let Err(e) = fs::rename(staging, out) {
        let _ = fs::rename(&aside, out);
        return Err(e);
    }
    fs::rename(&aside, staging)
}

fn parent_and_name(out: &Path) -> Result<(PathBuf, OsString), FolderError> {
    let absolute = std::path::absolute(out).map_err(io(out, "cannot resolve"))?;
    match (absolute.parent(), absolute.file_name()) {
        (Some(parent), Some(name)) => Ok((parent.to_path_buf(), name.to_os_string())),
        _ => Err(FolderError::NoParent(out.to_path_buf())),
    }
}

fn staging_prefix(name: &OsString) -> String {
    format!("{TEMP_PREFIX}{}-", name.to_string_lossy())
}

/// Removes the staging folders of earlier runs into `name` that were killed before they could
/// clean up. Called with `name` locked, so no live run is writing any of them. (A `.old` folder,
/// left only if the non-Linux fallback of [`swap`] was killed between its renames, may hold
/// the previous results and is left for the user.)
fn clear_leftovers(parent: &Path, name: &OsString) {
    let prefix = staging_prefix(name);
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let file_name = entry.file_name();
        let file_name = file_name.to_string_lossy();
        let is_leftover = file_name
            .strip_prefix(&prefix)
            .is_some_and(|rest| rest.chars().count() == RANDOM_CHARS);
        if is_leftover && entry.file_type().is_ok_and(|t| t.is_dir()) {
            cleanup::remove(&entry.path());
        }
    }
}

/// Takes an exclusive `flock` on the folder itself, or refuses at once when another driftlab
/// holds it: two runs writing one folder would interleave. The kernel releases the lock when
/// the process dies, even by `kill -9`.
pub fn lock(dir: &Path) -> Result<File, FolderError> {
    let file = File::open(dir).map_err(io(dir, "cannot open to lock"))?;
    #[cfg(unix)]
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: flock on a file descriptor this function owns; no memory is shared.
        let taken = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
        if !taken {
            return Err(FolderError::Locked(dir.to_path_buf()));
        }
    }
    Ok(file)
}

/// Copies a file or a folder tree to `to` (which must not exist); symbolic links are copied as
/// links, never followed.
pub fn copy_tree(from: &Path, to: &Path) -> Result<(), FolderError> {
    let failed = io(from, "cannot copy");
    let meta = fs::symlink_metadata(from).map_err(failed)?;
    if meta.file_type().is_symlink() {
        #[cfg(unix)]
        std::os::unix::fs::symlink(fs::read_link(from).map_err(failed)?, to).map_err(failed)?;
        return Ok(());
    }
    if !meta.is_dir() {
        return fs::copy(from, to).map(drop).map_err(failed);
    }
    fs::create_dir(to).map_err(failed)?;
    for entry in fs::read_dir(from).map_err(failed)? {
        let entry = entry.map_err(failed)?;
        copy_tree(&entry.path(), &to.join(entry.file_name()))?;
    }
    Ok(())
}

/// Refuses, unless `force`, a folder holding entries its writer does not write (`owns` names
/// those it does); `writer` completes "files … does not write".
pub fn refuse_foreign(
    out: &Path,
    owns: impl Fn(&str) -> bool,
    writer: &str,
    force: bool,
) -> Result<(), FolderError> {
    let foreign: Vec<String> = entry_names(out)
        .into_iter()
        .filter(|name| !owns(name))
        .collect();
    if foreign.is_empty() || force {
        return Ok(());
    }
    Err(FolderError::Foreign {
        out: out.to_path_buf(),
        writer: writer.to_string(),
        foreign,
    })
}

/// The names of the entries in `dir` (none if it cannot be read).
pub(crate) fn entry_names(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names = entry_names(dir);
        names.sort();
        names
    }

    #[test]
    fn the_folder_changes_as_a_whole_or_not_at_all() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("results");
        fs::create_dir(&out).unwrap();
        fs::write(out.join("rows.csv"), "old rows").unwrap();
        fs::write(out.join("manifest.json"), "old manifest").unwrap();

        // A run that fails after writing some files: nothing of it reaches the folder.
        let run = StagedFolder::begin(&out).unwrap();
        fs::write(run.path().join("rows.csv"), "new rows").unwrap();
        drop(run);
        assert_eq!(names(&out), ["manifest.json", "rows.csv"]);
        assert_eq!(
            fs::read_to_string(out.join("rows.csv")).unwrap(),
            "old rows"
        );
        assert_eq!(names(root.path()), ["results"], "no staging folder is left");

        // A run that commits: exactly its files, none of the old ones.
        let run = StagedFolder::begin(&out).unwrap();
        fs::write(run.path().join("rows.csv"), "new rows").unwrap();
        run.commit().unwrap();
        assert_eq!(names(&out), ["rows.csv"]);
        assert_eq!(
            fs::read_to_string(out.join("rows.csv")).unwrap(),
            "new rows"
        );
        assert_eq!(names(root.path()), ["results"]);
    }

    #[test]
    fn a_fresh_folder_goes_again_when_the_run_fails_and_one_writer_at_a_time() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("new");
        let run = StagedFolder::begin(&out).unwrap();
        assert!(run.is_fresh());
        let second = StagedFolder::begin(&out).err().unwrap();
        assert!(matches!(second, FolderError::Locked(_)), "{second}");
        assert!(
            second.to_string().contains("another driftlab is writing"),
            "{second}"
        );
        drop(run);
        assert!(!out.exists());
    }

    #[test]
    fn leftovers_of_a_killed_run_are_cleared_and_only_its_own() {
        let root = tempfile::tempdir().unwrap();
        let out = root.path().join("a");
        fs::create_dir(&out).unwrap();
        // What `kill -9` leaves: a staging folder of `a`; and one of `a-b`, which is not ours.
        let ours = root.path().join(format!("{TEMP_PREFIX}a-x1y2z3"));
        let theirs = root.path().join(format!("{TEMP_PREFIX}a-b-x1y2z3"));
        for dir in [&ours, &theirs] {
            fs::create_dir(dir).unwrap();
            fs::write(dir.join("rows.csv"), "partial").unwrap();
        }
        let run = StagedFolder::begin(&out).unwrap();
        assert!(!ours.exists());
        assert!(theirs.exists());
        run.commit().unwrap();
    }
}
