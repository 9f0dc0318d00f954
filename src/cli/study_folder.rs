//! What a study that runs processes (`guard-study`, `stack-study`) needs before it starts: its
//! results folder claimed (a folder it did not write refused before minutes of work), a scratch
//! folder removed on a signal, a thread pool, and a progress line printer.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, Result};

use crate::study::results::{self, StagedFolder};

pub(super) struct Prepared {
    pub staged: StagedFolder,
    /// The scratch folder: remove it when the study ends (a signal removes it too).
    pub work: PathBuf,
    _remove_work: crate::cleanup::Registration,
    pub pool: rayon::ThreadPool,
    started: Instant,
    command: &'static str,
}

/// Claims `out` for a study whose files are `ours` (`writer` names it in the refusal).
pub(super) fn prepare(
    command: &'static str,
    out: &Path,
    ours: &[String],
    writer: &str,
    force: bool,
    threads: usize,
) -> Result<Prepared> {
    let staged = StagedFolder::begin(out)?;
    results::staging::refuse_foreign(out, |name| ours.iter().any(|o| o == name), writer, force)?;
    let work = std::env::temp_dir().join(format!("driftlab-{command}-{}", std::process::id()));
    let remove = crate::cleanup::remove_on_signal(work.clone());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| anyhow!("cannot start {threads} threads: {e}"))?;
    Ok(Prepared {
        staged,
        work,
        _remove_work: remove,
        pool,
        started: Instant::now(),
        command,
    })
}

impl Prepared {
    /// One progress line on stderr, with the seconds since the study started.
    pub fn progress(&self, line: &str) {
        eprintln!(
            "driftlab {}: [{:>5.1} s] {line}",
            self.command,
            self.started.elapsed().as_secs_f64()
        );
    }

    pub fn elapsed_secs(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }
}
