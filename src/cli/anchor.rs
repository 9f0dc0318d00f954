//! Which repository file a gate's findings are shown in (SARIF, `--format github`), and its path
//! relative to the repository root, as code scanning and annotations require.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{anyhow, bail, Result};

use crate::payload::{self, Limits};
use crate::report::anchor::{self, Anchor, Side};
use crate::verdict::Outcome;

/// What the gate compared, as the user named it.
pub(super) struct Compared<'a> {
    /// `--approved` (or diff's old payload): a file, or `REV:PATH`.
    pub approved: Option<&'a str>,
    /// The candidate file; `None` for a live server.
    pub candidate: Option<&'a str>,
}

/// The anchor file: `--anchor`, else the candidate file, else the approved snapshot (for
/// `REV:PATH`, PATH in the working tree). `None` when there is none (stdin, a live server and no
/// snapshot).
fn choose(flag: Option<&str>, compared: &Compared<'_>) -> Result<Option<(PathBuf, Side)>> {
    let side_of = |path: &str| {
        if compared.candidate == Some(path) {
            Side::Candidate
        } else if compared.approved == Some(path) {
            Side::Approved
        } else {
            Side::Other
        }
    };
    if let Some(path) = flag {
        return Ok(Some((PathBuf::from(path), side_of(path))));
    }
    if let Some(path) = compared.candidate.filter(|p| *p != "-") {
        return Ok(Some((PathBuf::from(path), Side::Candidate)));
    }
    match compared.approved {
        Some("-") | None => Ok(None),
        Some(arg) => match crate::payload::input::git_revision(arg) {
            Some((_, path)) => {
                let in_tree = match path.strip_prefix("./") {
                    Some(relative) => PathBuf::from(relative),
                    None => repository_root()?.join(path),
                };
                Ok(Some((in_tree, Side::Other)))
            }
            None => Ok(Some((PathBuf::from(arg), Side::Approved))),
        },
    }
}

/// The anchor for this outcome, or `None` when nothing names a file; an anchor outside the
/// repository is an error (code scanning drops such results).
pub(super) fn resolve(
    flag: Option<&str>,
    compared: &Compared<'_>,
    outcome: &Outcome,
    limits: Limits,
) -> Result<Option<Anchor>> {
    let Some((path, side)) = choose(flag, compared)? else {
        return Ok(None);
    };
    let shown = path.display().to_string();
    let bytes =
        crate::fs::read_limited(&path, limits.max_bytes).map_err(|e| anyhow!("anchor file {e}"))?;
    let surface = payload::read(&bytes, &shown, limits)?;
    let text = String::from_utf8_lossy(&bytes);
    let places = anchor::place(&text, side, &surface, &outcome.findings);
    Ok(Some(Anchor {
        uri: relative_uri(&path)?,
        places,
    }))
}

/// Where paths are relative to: `GITHUB_WORKSPACE` (the checkout a workflow uploads from), else
/// the enclosing git work tree, else the current folder.
fn repository_root() -> Result<PathBuf> {
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
    Ok(std::env::current_dir()?)
}

/// `path` relative to the repository root, `/`-separated and percent-encoded.
pub(super) fn relative_uri(path: &Path) -> Result<String> {
    let root = repository_root()?;
    let canonical = |p: &Path| {
        p.canonicalize()
            .map_err(|e| anyhow!("{}: cannot resolve: {e}", p.display()))
    };
    let (file, root_dir) = (canonical(path)?, canonical(&root)?);
    let Ok(relative) = file.strip_prefix(&root_dir) else {
        bail!(
            "anchor file {} is outside the repository ({}): code scanning and annotations only \
             show files of the repository; give --anchor with a file inside it",
            path.display(),
            root_dir.display()
        );
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
