//! The one reader for every file driftlab reads: a regular file of at most a given size, with
//! an error that names the file and what was wrong.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Why a file could not be read. Its message starts with the path.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The path is a folder.
    #[error("{}: is a folder, not a file", path.display())]
    Folder {
        /// The file.
        path: PathBuf,
    },
    /// The path is a FIFO, a socket or a device.
    #[error("{}: not a regular file (a FIFO, socket or device); for a pipe, use `-` (stdin) where a payload is read", path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
    },
    /// The file is over the size limit.
    #[error("{}: over the {max}-byte limit", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit in bytes.
        max: usize,
    },
    /// The file is not UTF-8.
    #[error("{}: not UTF-8 (invalid byte at offset {offset})", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The byte offset of the first invalid byte.
        offset: usize,
    },
    /// The file was read but is not the JSON expected; `message` has serde's place cut off,
    /// since line and column are given apart.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
        /// What is wrong.
        message: String,
    },
}

/// The size limit of every file driftlab reads that is not a payload (specs, policies, logs):
/// far above any real one.
pub const MAX_SMALL_FILE: usize = 16 * 1024 * 1024;

/// The size limit of a JSON file read whole: the default payload limit.
pub const MAX_JSON_FILE: usize = 64 * 1024 * 1024;

/// A regular file of at most `max` bytes. A folder, a FIFO or a device is refused before it is
/// opened (opening a FIFO blocks until a writer comes; `/dev/zero` never ends); a larger file is
/// refused without reading it all.
pub fn read_limited(path: &Path, max: usize) -> Result<Vec<u8>, ReadError> {
    let cannot = |source: io::Error| ReadError::Io {
        path: path.to_path_buf(),
        source,
    };
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
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            max,
        });
    }
    Ok(bytes)
}

/// Refuses anything but a regular file (following symlinks), without opening it.
pub fn regular_file(path: &Path) -> Result<(), ReadError> {
    let meta = fs::metadata(path).map_err(|source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if meta.is_dir() {
        return Err(ReadError::Folder {
            path: path.to_path_buf(),
        });
    }
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            path: path.to_path_buf(),
        });
    }
    Ok(())
}

/// A UTF-8 text file, read through [`read_limited`].
pub fn read_text(path: &Path, max: usize) -> Result<String, ReadError> {
    let bytes = read_limited(path, max)?;
    String::from_utf8(bytes).map_err(|e| ReadError::NotUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// A JSON file of at most [`MAX_JSON_FILE`] bytes, parsed.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ReadError> {
    let bytes = read_limited(path, MAX_JSON_FILE)?;
    serde_json::from_slice(&bytes).map_err(|e| {
        let message = e.to_string();
        let message = message
            .rfind(" at line ")
            .map_or(message.as_str(), |cut| &message[..cut]);
        ReadError::Json {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: message.to_string(),
        }
    })
}

/// The `*.json` files of `dir`, sorted by name; entries that vanish while listed are left out.
pub fn json_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_is_its_own_error_and_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.json");
        fs::write(&big, b"[1, 2]").unwrap();
        assert!(matches!(
            read_limited(&big, 3),
            Err(ReadError::TooLarge { max: 3, .. })
        ));
        assert!(matches!(
            read_limited(dir.path(), 3),
            Err(ReadError::Folder { .. })
        ));
        let latin = dir.path().join("latin.txt");
        fs::write(&latin, b"ab\xff").unwrap();
        let e = read_text(&latin, 10).unwrap_err();
        assert!(matches!(e, ReadError::NotUtf8 { offset: 2, .. }));
        assert!(e.to_string().starts_with(&latin.display().to_string()));
        fs::write(&big, b"[1,\n 2").unwrap();
        let e = read_json::<serde_json::Value>(&big)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(&format!("{}:2:", big.display())), "{e}");
        assert!(!e.contains(" at line "), "{e}");
    }
}
