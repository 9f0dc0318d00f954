//! Merging shard folders into the folder an unsharded run would have written, byte for byte
//! (only `run.json` differs): every shard verified against its manifest, each shard 1..=N
//! exactly once, rows concatenated, counts summed cell by cell.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};

use super::{verify, Finish, Manifest, ResultsFolder, ROWS, SUMMARY_JSON};
use crate::study::runner::RowsMode;
use driftlab_contract::fs::AtomicFile;
use driftlab_record::{metrics, rate, Summary};

struct ShardResult {
    dir: PathBuf,
    manifest: Manifest,
    summary: Summary,
}

/// A merged folder: its summary, how many shards went in, and the names of its files.
pub struct Merged {
    /// The merged summary.
    pub summary: Summary,
    /// How many shards went in.
    pub shards: usize,
    /// The folder's files.
    pub files: Vec<String>,
}

/// Merges the folders of all N shards of one study into `out`, byte for byte the folder an
/// unsharded run would have written (only `run.json` differs). Every shard must match its
/// manifest; figures and the report are written when `figures` is set.
pub fn merge(
    shard_dirs: &[PathBuf],
    out: &Path,
    force: bool,
    figures: bool,
    started: Instant,
) -> Result<Merged> {
    let mut shards = Vec::new();
    for dir in shard_dirs {
        // A shard is evidence: its files must be the bytes its manifest pinned.
        let pinned = [ROWS, SUMMARY_JSON];
        if let Some(m) = verify(dir, Some(&pinned))?.first() {
            bail!(
                "{}: does not match its manifest.json (sha256 {}, found {}): the shard was edited or damaged",
                dir.join(&m.file).display(),
                m.expected,
                m.found
            );
        }
        let manifest = Manifest::load(dir)?;
        let summary: Summary = driftlab_contract::fs::read_json(&dir.join(SUMMARY_JSON))?;
        shards.push(ShardResult {
            dir: dir.clone(),
            manifest,
            summary,
        });
    }
    check_complete(&mut shards)?;
    let first = &shards[0];
    let spec = first.manifest.spec.clone();
    let rows = RowsMode::parse(&first.manifest.rows);
    let folder = ResultsFolder::begin(out, &spec, None, rows, force)?;
    if rows != RowsMode::None {
        concatenate_rows(&shards, &folder.path().join(ROWS))?;
    }
    let summary = sum(&shards)?;
    let finish = Finish {
        out: folder.path(),
        spec: &spec,
        rule_set: &first.manifest.rule_set,
        command: first.manifest.command.clone(),
        research: first.manifest.research.clone(),
        rows,
        figures,
        started,
        provenance: first.manifest.provenance.clone(),
    };
    let files = finish.write(&summary)?;
    folder.commit()?;
    Ok(Merged {
        summary,
        shards: shards.len(),
        files,
    })
}

/// Same spec, rows mode and shard count everywhere; every shard 1..=N exactly once. Sorts by index.
fn check_complete(shards: &mut [ShardResult]) -> Result<()> {
    for s in shards.iter() {
        if s.manifest.shard.is_none() || s.summary.shard != s.manifest.shard {
            bail!(
                "{}: not a shard's results (run `driftlab study --shard K/N`)",
                s.dir.display()
            );
        }
    }
    shards.sort_by_key(|s| s.manifest.shard.map_or(0, |x| x.index));
    let first = &shards[0];
    let count = first.manifest.shard.map_or(0, |s| s.count);
    for s in shards.iter() {
        if s.manifest.spec != first.manifest.spec
            || s.manifest.rows != first.manifest.rows
            || s.manifest.rule_set != first.manifest.rule_set
        {
            bail!(
                "{} and {} are shards of different studies (spec, --rows or rule set differ)",
                first.dir.display(),
                s.dir.display()
            );
        }
    }
    let indices: Vec<u64> = shards
        .iter()
        .filter_map(|s| s.manifest.shard.map(|x| x.index))
        .collect();
    let expected: Vec<u64> = (1..=count).collect();
    if shards
        .iter()
        .any(|s| s.manifest.shard.map(|x| x.count) != Some(count))
        || indices != expected
    {
        let got: Vec<String> = indices.iter().map(|k| format!("{k}/{count}")).collect();
        let missing: Vec<String> = (1..=count)
            .filter(|k| !indices.contains(k))
            .map(|k| format!("{k}/{count}"))
            .collect();
        bail!(
            "need each of shards 1/{count} to {count}/{count} exactly once; got {}{}",
            got.join(", "),
            if missing.is_empty() {
                " (one repeated)".to_string()
            } else {
                format!(" (missing {})", missing.join(", "))
            }
        );
    }
    Ok(())
}

/// rows.csv of every shard in order, the header once (a shard with no rows has no header).
fn concatenate_rows(shards: &[ShardResult], dest: &Path) -> Result<()> {
    let mut out =
        AtomicFile::create(dest).with_context(|| format!("cannot write {}", dest.display()))?;
    let mut header_written = false;
    for s in shards {
        let path = s.dir.join(ROWS);
        driftlab_contract::fs::regular_file(&path)?;
        let file = File::open(&path).with_context(|| format!("{}: cannot read", path.display()))?;
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let mut header = Vec::new();
        reader.read_until(b'\n', &mut header)?;
        if header.is_empty() {
            continue;
        }
        let cannot_write = || format!("cannot write {}", dest.display());
        if !header_written {
            out.write_all(&header).with_context(cannot_write)?;
            header_written = true;
        }
        // Copied by hand, so a full disk is reported as a write error and a bad shard as a read.
        loop {
            let block = reader
                .fill_buf()
                .with_context(|| format!("{}: cannot read", path.display()))?;
            if block.is_empty() {
                break;
            }
            let n = block.len();
            out.write_all(block).with_context(cannot_write)?;
            reader.consume(n);
        }
    }
    out.commit()
        .with_context(|| format!("cannot write {}", dest.display()))
}

/// Adds the shards' counts cell by cell and recomputes every rate.
fn sum(shards: &[ShardResult]) -> Result<Summary> {
    let mut merged = shards[0].summary.clone();
    merged.shard = None;
    for s in &shards[1..] {
        let other = &s.summary;
        if other.cells.len() != merged.cells.len() || other.totals.len() != merged.totals.len() {
            bail!(
                "{}: summary does not match the other shards",
                s.dir.display()
            );
        }
        let add = |a: &mut u64, b: u64| -> Result<()> {
            *a = a
                .checked_add(b)
                .ok_or_else(|| anyhow!("{}: counts overflow when summed", s.dir.display()))?;
            Ok(())
        };
        // Cells are matched by (gate, class), never by position.
        for o in &other.cells {
            let Some(m) = merged
                .cells
                .iter_mut()
                .find(|m| m.gate == o.gate && m.mutation == o.mutation)
            else {
                bail!(
                    "{}: cell {} × {} is not in the other shards",
                    s.dir.display(),
                    o.gate,
                    o.mutation
                );
            };
            add(&mut m.detected, o.detected)?;
            add(&mut m.total, o.total)?;
            add(&mut m.not_applicable, o.not_applicable)?;
        }
        for o in &other.totals {
            let Some(m) = merged.totals.iter_mut().find(|m| m.gate == o.gate) else {
                bail!(
                    "{}: gate {} is not in the other shards",
                    s.dir.display(),
                    o.gate
                );
            };
            add(&mut m.detected, o.detected)?;
            add(&mut m.total, o.total)?;
            add(&mut m.not_applicable, o.not_applicable)?;
        }
        for o in &other.controls {
            let Some(m) = merged.controls.iter_mut().find(|m| m.gate == o.gate) else {
                bail!(
                    "{}: gate {} is not in the other shards",
                    s.dir.display(),
                    o.gate
                );
            };
            add(&mut m.false_positives, o.false_positives)?;
            add(&mut m.total, o.total)?;
        }
        for o in &other.crashes {
            match merged
                .crashes
                .iter_mut()
                .find(|m| m.gate == o.gate && m.mutation == o.mutation)
            {
                Some(m) => add(&mut m.crashed, o.crashed)?,
                None => merged.crashes.push(o.clone()),
            }
        }
    }
    // In the order an unsharded run lists them: by gate, then class (the control first).
    let gate_at = |g: &str| merged.gates.iter().position(|x| x.id == g);
    let class_at = |c: &str| {
        (c != driftlab_mutate::mutate::CONTROL.id())
            .then(|| merged.mutations.iter().position(|x| x == c))
    };
    let mut crashes = std::mem::take(&mut merged.crashes);
    crashes.sort_by_key(|c| (gate_at(&c.gate), class_at(&c.mutation)));
    merged.crashes = crashes;
    for c in &mut merged.cells {
        c.rate = rate(c.detected, c.total);
    }
    for t in &mut merged.totals {
        t.rate = rate(t.detected, t.total);
    }
    merged.metrics = metrics(&merged.gates, &merged.cells, &merged.labels);
    Ok(merged)
}
