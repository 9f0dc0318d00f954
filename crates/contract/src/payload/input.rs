//! Reading a payload named on a command line: a file, `-` for stdin, or `REV:PATH` (a file at a
//! git revision), always within the size limit, into a surface with the rest of the server's
//! contract when the document recorded it.

use std::io::{self, Read};
use std::path::Path;
use std::process::{Command, Stdio};

use super::{Limits, PayloadError};
use crate::fs::ReadError;
use crate::surface::Surface;

/// Why a named payload could not be read. Every message starts with the name.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The payload is over the size limit.
    #[error("{name}: payload is over the {max}-byte limit (raise it with --max-bytes)")]
    TooLarge {
        /// The payload's name (its path, or `<stdin>`).
        name: String,
        /// The limit in bytes.
        max: usize,
    },
    /// The file could not be read.
    #[error("{0}")]
    File(ReadError),
    /// Standard input could not be read.
    #[error("{name}: cannot read: {source}")]
    Stdin {
        /// The payload's name (its path, or `<stdin>`).
        name: String,
        /// The underlying error.
        source: io::Error,
    },
    /// `REV:PATH` that git cannot read (or cannot be run for); `why` is git's first line.
    #[error("{arg}: no such file, and git {why}")]
    Git {
        /// The argument as given.
        arg: String,
        /// git's first line.
        why: String,
    },
    /// The bytes are not a payload.
    #[error("{0}")]
    Payload(#[from] PayloadError),
}

/// Reads a payload from `arg`, refusing more than `limits.max_bytes`.
pub fn read_surface(arg: &str, limits: Limits) -> Result<Surface, InputError> {
    read_surface_beside(arg, limits, None)
}

/// [`read_surface`] of a candidate read beside the `approved` surface already read: each tool
/// with the bytes of an approved tool shares what that one parsed (see
/// [`super::read_candidate`]), so an unchanged release costs its text and little more.
pub fn read_surface_beside(
    arg: &str,
    limits: Limits,
    approved: Option<&Surface>,
) -> Result<Surface, InputError> {
    let (bytes, name) = read_bytes(arg, limits)?;
    read_document(bytes, &name, limits, approved)
}

/// [`read_surface`] of a document already read, named `name` in every message.
pub fn surface_of_bytes(bytes: Vec<u8>, name: &str, limits: Limits) -> Result<Surface, InputError> {
    read_document(bytes, name, limits, None)
}

fn read_document(
    bytes: Vec<u8>,
    name: &str,
    limits: Limits,
    approved: Option<&Surface>,
) -> Result<Surface, InputError> {
    // Read before the tools take the bytes; an unreadable document is reported by the tools
    // reader, whose messages name the line and column.
    let contract = super::contract::read(&bytes, name, limits);
    let surface = match approved {
        Some(approved) => super::read_candidate(bytes, name, limits, approved)?,
        None => super::read_owned(bytes, name, limits)?,
    };
    Ok(surface.with_contract(contract?))
}

/// `REV:PATH` (e.g. `origin/main:mcp/approved.json`), when `arg` names no file and has that
/// shape: PATH as git reads it (relative to the repository root unless it starts with `./`).
pub fn git_revision(arg: &str) -> Option<(&str, &str)> {
    let (rev, path) = arg.split_once(':')?;
    let plausible = !rev.is_empty() && !path.is_empty() && !rev.starts_with('-');
    (plausible && arg != "-" && !Path::new(arg).exists()).then_some((rev, path))
}

/// The bytes of PATH at REV, read with `git cat-file` and refused past `max` bytes.
fn read_from_git(arg: &str, rev: &str, path: &str, max: usize) -> Result<Vec<u8>, InputError> {
    let git = |why: String| InputError::Git {
        arg: arg.to_string(),
        why,
    };
    let object = format!("{rev}:{path}");
    let mut child = Command::new("git")
        .args(["cat-file", "blob", &object])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| git(format!("cannot be run to read it as REV:PATH: {e}")))?;
    let mut bytes = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        stdout
            .take((max as u64).saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| git(format!("output cannot be read: {e}")))?;
    }
    if bytes.len() > max {
        let _ = child.kill();
        let _ = child.wait();
        return Err(InputError::TooLarge {
            name: arg.to_string(),
            max,
        });
    }
    let output = child
        .wait_with_output()
        .map_err(|e| git(format!("did not finish: {e}")))?;
    if !output.status.success() {
        let why = String::from_utf8_lossy(&output.stderr);
        let why = why.lines().next().unwrap_or("").trim();
        return Err(git(format!("cannot read it as REV:PATH ({why})")));
    }
    Ok(bytes)
}

/// The bytes `arg` names and the name errors give them.
fn read_bytes(arg: &str, limits: Limits) -> Result<(Vec<u8>, String), InputError> {
    let max = limits.max_bytes;
    if let Some((rev, file)) = git_revision(arg) {
        return Ok((read_from_git(arg, rev, file, max)?, arg.to_string()));
    }
    if arg != "-" {
        let bytes = crate::fs::read_limited(Path::new(arg), max).map_err(|e| match e {
            ReadError::TooLarge { .. } => InputError::TooLarge {
                name: arg.to_string(),
                max,
            },
            e => InputError::File(e),
        })?;
        return Ok((bytes, arg.to_string()));
    }
    let name = "<stdin>".to_string();
    // Read one byte past the limit so an oversized payload is refused without reading it all.
    let mut bytes = Vec::new();
    if let Err(source) = io::stdin()
        .lock()
        .take((max as u64).saturating_add(1))
        .read_to_end(&mut bytes)
    {
        return Err(InputError::Stdin { name, source });
    }
    if bytes.len() > max {
        return Err(InputError::TooLarge { name, max });
    }
    Ok((bytes, name))
}
