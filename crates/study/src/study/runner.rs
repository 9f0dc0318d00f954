//! The parallel study runner: surfaces are processed in chunks, in parallel within a chunk, and
//! handed on in surface order, so no scheduling can change a byte of output and memory stays
//! bounded by the chunk size whatever the number of surfaces.

use std::ops::Range;

use rayon::prelude::*;

use super::bases::base;
pub use super::bases::base_surface;
use super::checkers::Checkers;
use super::evaluate::{evaluate_surface, request_id, Shared};
pub use super::outcome::RowsMode;
use super::outcome::SurfaceResult;
pub use super::run_error::{RunError, RunFailure};
use super::splice::Workspace;
use super::tally::Tally;
use crate::study::spec::Study;
use driftlab_mutate::mutate;
use driftlab_record::{Row, Summary};

/// Surfaces per parallel chunk.
pub const CHUNK: u64 = 1024;

/// Runs the whole study; see [`run_range`].
pub fn run<E>(
    study: &Study,
    rows: RowsMode,
    on_rows: impl FnMut(&[Row]) -> Result<(), E>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Summary, E>
where
    E: From<RunError>,
{
    run_range(study, 0..study.spec.surfaces, rows, on_rows, progress)
}

/// Runs surfaces `range` of the study, handing each chunk's kept rows (in surface order) to
/// `on_rows` and the number of finished surfaces to `progress`. The summary counts exactly the
/// surfaces in `range`.
pub fn run_range<E>(
    study: &Study,
    range: Range<u64>,
    mode: RowsMode,
    mut on_rows: impl FnMut(&[Row]) -> Result<(), E>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Summary, E>
where
    E: From<RunError>,
{
    let classes = study.classes().count();
    let mut tally = Tally::new(classes, study.gates.len());
    let checker_failed = |surface, message| RunError {
        surface,
        mutation: "(checker)",
        failure: RunFailure::Checker(message),
    };
    let mut checkers = Checkers::start(study).map_err(|m| checker_failed(range.start, m))?;
    let shared = Shared::new(study);
    let mut start = range.start;
    while start < range.end {
        let end = start.saturating_add(CHUNK).min(range.end);
        let chunk: Vec<Result<SurfaceResult, RunError>> = (start..end)
            .into_par_iter()
            .map(|index| evaluate_surface(study, &shared, index, mode))
            .collect();
        let mut chunk: Vec<SurfaceResult> = chunk.into_iter().collect::<Result<_, _>>()?;
        // External checkers judge the whole chunk in surface order, then the rows are final.
        checkers
            .judge(&mut chunk, mode)
            .map_err(|m| checker_failed(start, m))?;
        let mut rows = Vec::new();
        for result in chunk {
            tally.add(&result.decisions);
            rows.extend(result.rows);
        }
        if !rows.is_empty() {
            on_rows(&rows)?;
        }
        progress(end - start);
        start = end;
    }
    Ok(tally.summary(study))
}

/// What a study sends its external checkers for surface `index` (generated or real bases, not
/// live servers): the approved bytes and, for the control and each applicable class, the
/// request id and the candidate bytes. `driftlab generate --checker-requests` writes these.
pub(crate) fn checker_comparisons(study: &Study, index: u64) -> (Vec<u8>, Vec<(u64, Vec<u8>)>) {
    let (_, base) = base(study, index);
    let mut workspace = Workspace::new(&base, None);
    let mut candidates = Vec::new();
    for (class_index, class) in study.classes().enumerate() {
        let id = request_id(study, index, class_index);
        if class_index == 0 {
            candidates.push((id, base.bytes().to_vec()));
            continue;
        }
        let mut bytes = Vec::new();
        let stream = || mutate::stream(study.spec.seed, class, index);
        if workspace
            .candidate(&base, class, stream, &mut bytes)
            .is_ok()
        {
            candidates.push((id, bytes));
        }
    }
    (base.bytes().to_vec(), candidates)
}
