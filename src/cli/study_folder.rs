//! What a study that runs processes (`guard-study`, `stack-study`) needs before it starts: its
//! results folder claimed (a folder it did not write refused before minutes of work), a scratch
//! folder removed on a signal, a thread pool, and a progress line printer; and the run both
//! commands share from there to the files written.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, Result};

use driftlab_study::study::results::{self, StagedFolder};

struct Prepared {
    pub staged: StagedFolder,
    /// The scratch folder: remove it when the study ends (a signal removes it too).
    pub work: PathBuf,
    _remove_work: driftlab_contract::cleanup::Registration,
    pub pool: rayon::ThreadPool,
    started: Instant,
    command: &'static str,
}

/// Claims `out` for a study whose files are `ours` (`writer` names it in the refusal).
fn prepare(
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
    let remove = driftlab_contract::cleanup::remove_on_signal(work.clone());
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

/// Where a study command writes: its results folder and what it may hold there.
pub(super) struct Folder<'a> {
    /// The command's name, on progress lines.
    pub command: &'static str,
    pub out: &'a Path,
    /// The file names the study writes.
    pub ours: &'a [String],
    /// The study, as a refusal names it ("a guard study").
    pub writer: &'a str,
    pub force: bool,
    pub threads: usize,
}

/// Claims the folder, runs the study in the pool with a scratch folder and progress lines,
/// writes its files into the folder at once, and says how many calls went into which files.
pub(super) fn run_and_write<R: Send, E>(
    folder: Folder<'_>,
    run: impl FnOnce(&Path, &(dyn Fn(&str) + Sync)) -> Result<R, E> + Send,
    write: impl FnOnce(&R, &Path) -> Result<Vec<String>, E>,
    calls: impl FnOnce(&R) -> usize,
) -> Result<u8>
where
    E: std::error::Error + Send + Sync + 'static,
{
    // Claimed before the study runs, so a foreign folder is refused before any work.
    let prepared = prepare(
        folder.command,
        folder.out,
        folder.ours,
        folder.writer,
        folder.force,
        folder.threads,
    )?;
    let progress = |line: &str| prepared.progress(line);
    let results = prepared.pool.install(|| run(&prepared.work, &progress));
    let _ = std::fs::remove_dir_all(&prepared.work);
    let results = results?;
    let files = write(&results, prepared.staged.path())?;
    let seconds = prepared.elapsed_secs();
    prepared.staged.commit()?;
    eprintln!(
        "driftlab {}: {} calls in {seconds:.1} s; wrote {} to {}",
        folder.command,
        calls(&results),
        files.join(", "),
        folder.out.display()
    );
    Ok(super::exit::PASS)
}
