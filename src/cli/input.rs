//! Reading payload files (or stdin) with a size limit, into surfaces.

use std::io::{self, Read};
use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::payload::{self, Limits};
use crate::surface::Surface;

/// Reads a payload from a path, or stdin for `-`, refusing more than `limits.max_bytes`.
pub(super) fn read_surface(path: &str, limits: Limits) -> Result<Surface> {
    let (bytes, name) = read_bytes(path, limits)?;
    Ok(payload::read_owned(bytes, &name, limits)?)
}

fn read_bytes(path: &str, limits: Limits) -> Result<(Vec<u8>, String)> {
    let name = if path == "-" {
        "<stdin>".to_string()
    } else {
        path.to_string()
    };
    if path != "-" {
        let bytes =
            crate::output::read_limited(Path::new(path), limits.max_bytes).map_err(|e| match e
                .ends_with("-byte limit")
            {
                true => anyhow::anyhow!("{e} (raise it with --max-bytes)"),
                false => anyhow::anyhow!(e),
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
