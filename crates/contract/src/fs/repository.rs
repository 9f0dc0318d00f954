//! Where a file sits in its repository: the root paths are relative to (`GITHUB_WORKSPACE`, the
//! enclosing git work tree, the current folder) and a file's path from it as a URI reference,
//! as code scanning (SARIF) and workflow annotations require.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use thiserror::Error;

/// Why a file cannot be placed in its repository.
#[derive(Debug, Error)]
pub enum RepositoryError {
    /// The anchor path could not be resolved.
    #[error("{}: cannot resolve: {source}", .path.display())]
    Resolve {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The anchor file is outside the repository.
    #[error(
        "anchor file {} is outside the repository ({}): code scanning and annotations only show \
         files of the repository; give --anchor with a file inside it",
        .path.display(),
        .root.display()
    )]
    Outside {
        /// The file.
        path: PathBuf,
        /// The repository's root.
        root: PathBuf,
    },
    /// The current folder could not be read.
    #[error("cannot read the current folder: {0}")]
    CurrentDir(std::io::Error),
}

/// Where paths are relative to: `GITHUB_WORKSPACE` (the checkout a workflow uploads from), else
/// the enclosing git work tree, else the current folder.
pub fn repository_root() -> Result<PathBuf, RepositoryError> {
    if let Some(workspace) = std::env::var_os("GITHUB_WORKSPACE").filter(|w| !w.is_empty()) {
        return Ok(PathBuf::from(workspace));
    }
    let git = Command::new("git")
        .args(["rev-parse", "--show-toplevel"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    if let Some(out) = git.ok().filter(|o| o.status.success()) {
        let root = String::from_utf8_lossy(&out.stdout).trim_end().to_string();
        if !root.is_empty() {
            return Ok(PathBuf::from(root));
        }
    }
    std::env::current_dir().map_err(RepositoryError::CurrentDir)
}

/// `path` relative to the repository root, `/`-separated and percent-encoded.
pub fn relative_uri(path: &Path) -> Result<String, RepositoryError> {
    let root = repository_root()?;
    let canonical = |p: &Path| {
        p.canonicalize().map_err(|source| RepositoryError::Resolve {
            path: p.to_path_buf(),
            source,
        })
    };
    let (file, root_dir) = (canonical(path)?, canonical(&root)?);
    let Ok(relative) = file.strip_prefix(&root_dir) else {
        return Err(RepositoryError::Outside {
            path: path.to_path_buf(),
            root: root_dir,
        });
    };
    let parts: Vec<String> = relative
        .components()
        .map(|c| uri_segment(&c.as_os_str().to_string_lossy()))
        .collect();
    Ok(parts.join("/"))
}

/// One path segment as a URI reference segment: unreserved characters kept, the rest
/// percent-encoded (a space, `#`, `?`, `%` would change the URI's meaning).
fn uri_segment(segment: &str) -> String {
    let mut out = String::new();
    for b in segment.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'@' | b'+' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_percent_encoded() {
        assert_eq!(uri_segment("approved.json"), "approved.json");
        assert_eq!(uri_segment("my snap#1%.json"), "my%20snap%231%25.json");
        assert_eq!(uri_segment("é"), "%C3%A9");
    }
}
