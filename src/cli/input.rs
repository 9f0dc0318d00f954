//! Reading payload files (or stdin, or a file at a git revision) with a size limit, into
//! surfaces.

use std::io::{self, Read};
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::payload::{self, Limits};
use crate::surface::Surface;

/// Reads a payload from a path, or stdin for `-`, refusing more than `limits.max_bytes`.
/// The surface carries the rest of the server's contract when the document recorded it.
pub(super) fn read_surface(path: &str, limits: Limits) -> Result<Surface> {
    let (bytes, name) = read_bytes(path, limits)?;
    // Read before the tools take the bytes; an unreadable document is reported by the tools
    // reader, whose messages name the line and column.
    let contract = payload::contract::read(&bytes, &name, limits);
    let surface = payload::read_owned(bytes, &name, limits)?;
    Ok(surface.with_contract(contract?))
}

/// `REV:PATH` (e.g. `origin/main:mcp/approved.json`), when `arg` names no file and has that
/// shape: PATH as git reads it (relative to the repository root unless it starts with `./`).
pub(super) fn git_revision(arg: &str) -> Option<(&str, &str)> {
    let (rev, path) = arg.split_once(':')?;
    let plausible = !rev.is_empty() && !path.is_empty() && !rev.starts_with('-');
    (plausible && arg != "-" && !Path::new(arg).exists()).then_some((rev, path))
}

/// The bytes of PATH at REV, read with `git cat-file` and refused past `max` bytes.
fn read_from_git(arg: &str, rev: &str, path: &str, max: usize) -> Result<Vec<u8>> {
    let object = format!("{rev}:{path}");
    let mut child = Command::new("git")
        .args(["cat-file", "blob", &object])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| {
            format!("{arg}: no such file, and git cannot be run to read it as REV:PATH")
        })?;
    let mut bytes = Vec::new();
    let stdout = child.stdout.take().expect("piped");
    stdout
        .take((max as u64).saturating_add(1))
        .read_to_end(&mut bytes)
        .with_context(|| format!("{arg}: cannot read from git"))?;
    if bytes.len() > max {
        let _ = child.kill();
        let _ = child.wait();
        bail!("{arg}: payload is over the {max}-byte limit (raise it with --max-bytes)");
    }
    let output = child.wait_with_output()?;
    if !output.status.success() {
        let why = String::from_utf8_lossy(&output.stderr);
        let why = why.lines().next().unwrap_or("").trim();
        bail!("{arg}: no such file, and git cannot read it as REV:PATH ({why})");
    }
    Ok(bytes)
}

fn read_bytes(path: &str, limits: Limits) -> Result<(Vec<u8>, String)> {
    let name = if path == "-" {
        "<stdin>".to_string()
    } else {
        path.to_string()
    };
    if let Some((rev, file)) = git_revision(path) {
        return Ok((read_from_git(path, rev, file, limits.max_bytes)?, name));
    }
    if path != "-" {
        let bytes =
            crate::fs::read_limited(Path::new(path), limits.max_bytes).map_err(|e| match e {
                crate::fs::ReadError::TooLarge { .. } => {
                    anyhow::anyhow!("{e} (raise it with --max-bytes)")
                }
                e => anyhow::anyhow!(e),
            })?;
        return Ok((bytes, name));
    }
    let reader: Box<dyn Read> = Box::new(io::stdin().lock());
    // Read one byte past the limit so an oversized payload is refused without reading it all.
    let mut bytes = Vec::new();
    reader
        .take((limits.max_bytes as u64).saturating_add(1))
        .read_to_end(&mut bytes)
        .with_context(|| format!("{name}: cannot read"))?;
    if bytes.len() > limits.max_bytes {
        bail!(
            "{name}: payload is over the {}-byte limit (raise it with --max-bytes)",
            limits.max_bytes
        );
    }
    Ok((bytes, name))
}
