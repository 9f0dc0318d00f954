//! Which file a gate's findings are shown in (SARIF, `--format github`): the one the user named
//! with `--anchor`, else the file they compared. Its place in the repository is
//! `fs::repository`; the findings' places in it, `report::anchor`.

use std::path::PathBuf;

use anyhow::{anyhow, Result};

use driftlab_check::verdict::Outcome;
use driftlab_contract::fs::repository::{relative_uri, repository_root};
use driftlab_contract::payload::{self, Limits};
use driftlab_report::report::anchor::{self, Anchor, Side};

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
        Some(arg) => match driftlab_contract::payload::input::git_revision(arg) {
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
    let bytes = driftlab_contract::fs::read_limited(&path, limits.max_bytes)
        .map_err(|e| anyhow!("anchor file {e}"))?;
    let surface = payload::read(&bytes, &shown, limits)?;
    let text = String::from_utf8_lossy(&bytes);
    let places = anchor::place(&text, side, &surface, &outcome.findings);
    Ok(Some(Anchor {
        uri: relative_uri(&path)?,
        places,
    }))
}
