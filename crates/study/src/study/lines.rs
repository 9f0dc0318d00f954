//! A study's inputs as JSON Lines, for any other checker: its generated surfaces (and each
//! mutated candidate), or the request lines it sends an external checker, in the order it
//! sends them. `driftlab generate` writes them.

use std::io::{self, Write};

use serde_json::{json, Value};
use thiserror::Error;

use super::runner::{base_surface, checker_comparisons};
use super::Study;
use crate::study::external::{request_line, Request};
use driftlab_mutate::mutate;

/// Why `generate --checker-requests` could not write its lines.
#[derive(Debug, Error)]
pub enum LinesError {
    /// The study takes its candidates from live servers.
    #[error("a live study's candidates come from its servers: run the study instead")]
    LiveStudy,
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl LinesError {
    /// A closed pipe (`| head`) is a normal way to stop reading.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, LinesError::Io(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// The request lines of every comparison, in the order a study sends them.
pub fn write_requests(study: &Study, out: &mut dyn Write) -> Result<(), LinesError> {
    if !study.spec.live.is_empty() {
        return Err(LinesError::LiveStudy);
    }
    for index in 0..study.spec.surfaces {
        let (approved, candidates) = checker_comparisons(study, index);
        for (id, candidate) in &candidates {
            let request = Request {
                id: *id,
                approved: &approved,
                candidate,
            };
            out.write_all(&request_line(&request))?;
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// Each surface as `{"surface", "payload"}`; with `candidates`, each followed by one line per
/// class (control first): `{"surface", "mutation", "tool_index", "detail", "payload"}`, or
/// `"not_applicable"` with a reason.
pub fn write_surfaces(
    study: &Study,
    candidates: bool,
    out: &mut dyn Write,
) -> Result<(), LinesError> {
    let spec = &study.spec;
    for index in 0..spec.surfaces {
        let (_, base) = base_surface(study, index);
        line(out, &json!({"surface": index, "payload": &base}))?;
        if !candidates {
            continue;
        }
        for class in study.classes() {
            let mut candidate = base.clone().into_owned();
            let outcome = class.apply(&mut candidate, &mut mutate::stream(spec.seed, class, index));
            let record = match outcome {
                Ok(applied) => json!({
                    "surface": index,
                    "mutation": class.id(),
                    "tool_index": applied.tool_index,
                    "detail": applied.detail,
                    "payload": candidate,
                }),
                Err(not_applicable) => json!({
                    "surface": index,
                    "mutation": class.id(),
                    "not_applicable": not_applicable.0,
                    "payload": Value::Null,
                }),
            };
            line(out, &record)?;
        }
    }
    Ok(())
}

fn line(out: &mut dyn Write, value: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}
