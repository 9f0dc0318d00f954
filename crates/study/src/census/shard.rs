//! A census split over machines: `census --shard K/N` captures and derives a slice of the
//! spec's packages and records which (`census-shard.json`, pinned by the shard's manifest);
//! [`merge`] joins all N shard folders into the bytes the unsharded census writes, because
//! those bytes come from the captures alone.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::derive::Census;
use super::spec::CensusSpec;
use super::write::CAPTURES;
use driftlab_record::provenance::{CodeVersion, Provenance};

/// The record a shard folder carries.
pub const SHARD_FILE: &str = "census-shard.json";

/// What a shard is a slice of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardFile {
    /// 1-based.
    pub index: u64,
    /// How many shards.
    pub count: u64,
    /// The command the unsharded census writes into its manifest; the merge writes it too.
    pub command: String,
    /// The whole census's spec, verbatim.
    pub spec: String,
    /// This shard's packages (`npm:NAME`, `pypi:NAME`), in the spec's order.
    pub packages: Vec<String>,
}

impl ShardFile {
    /// The record of shard `index` of `count` of the census `spec_text` describes.
    pub fn new(spec_text: &str, spec: &CensusSpec, index: u64, count: u64, command: &str) -> Self {
        ShardFile {
            index,
            count,
            command: command.to_string(),
            spec: spec_text.to_string(),
            packages: spec
                .shard(index, count)
                .packages
                .iter()
                .map(|p| p.source.clone())
                .collect(),
        }
    }

    /// The file's name and bytes.
    pub fn file(&self) -> Result<(String, Vec<u8>), String> {
        let bytes = crate::study::results::json_bytes(self).map_err(|e| e.to_string())?;
        Ok((SHARD_FILE.to_string(), bytes))
    }
}

/// Copies a package's records (a flat folder of files) into `to`, over files of the same name
/// (with --force) and beside any others.
fn copy_records(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let entries = std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("{}: {e}", from.display()))?
            .path();
        if path.is_file() {
            let dest = to.join(path.file_name().unwrap_or_default());
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            driftlab_contract::fs::write_atomic(&dest, &bytes)
                .map_err(|e| format!("{}: {e}", dest.display()))?;
        }
    }
    Ok(())
}

/// Whether `dir` is a census shard's folder.
pub fn is_shard(dir: &Path) -> bool {
    dir.join(SHARD_FILE).is_file()
}

/// Joins the folders of all N shards of one census into `out` (their captures, then every
/// derived file from them): the bytes the unsharded census writes. Each shard must match its
/// manifest; `out` must hold no captures unless `force`.
pub fn merge(shards: &[PathBuf], out: &Path, force: bool) -> Result<(Census, Vec<String>), String> {
    let mut records: Vec<(ShardFile, &PathBuf)> = Vec::new();
    for dir in shards {
        let record: ShardFile =
            driftlab_contract::fs::read_json(&dir.join(SHARD_FILE)).map_err(|e| e.to_string())?;
        let mismatches = crate::study::results::verify(dir, None).map_err(|e| e.to_string())?;
        if let Some(m) = mismatches.first() {
            return Err(format!(
                "{}: {} does not match its manifest.json (and {} more): the shard was edited or damaged",
                dir.display(),
                m.file,
                mismatches.len() - 1
            ));
        }
        records.push((record, dir));
    }
    records.sort_by_key(|(r, _)| r.index);
    let (first, first_dir) = &records[0];
    for (record, dir) in &records {
        if record.spec != first.spec || record.command != first.command {
            return Err(format!(
                "{} and {} are shards of different censuses (their specs differ)",
                first_dir.display(),
                dir.display()
            ));
        }
    }
    let indices: Vec<u64> = records.iter().map(|(r, _)| r.index).collect();
    let wanted: Vec<u64> = (1..=first.count).collect();
    if indices != wanted || records.iter().any(|(r, _)| r.count != first.count) {
        return Err(format!(
            "need each of shards 1/{n} to {n}/{n} exactly once; got {}",
            records
                .iter()
                .map(|(r, _)| format!("{}/{}", r.index, r.count))
                .collect::<Vec<_>>()
                .join(", "),
            n = first.count
        ));
    }
    let spec = CensusSpec::parse(&first.spec).map_err(|e| format!("the shards' spec: {e}"))?;
    let captures = out.join(CAPTURES);
    if !force && std::fs::read_dir(&captures).is_ok_and(|mut d| d.next().is_some()) {
        return Err(format!(
            "{}: holds captures already; merge into a new folder or give --force",
            captures.display()
        ));
    }
    for (record, dir) in &records {
        let own = spec.shard(record.index, record.count);
        for package in &own.packages {
            let folder = package.package()?.folder();
            let from = dir.join(CAPTURES).join(&folder);
            if !from.is_dir() {
                continue;
            }
            copy_records(&from, &captures.join(&folder))?;
            super::store::copy_contracts(&dir.join(CAPTURES), &from, &captures)?;
        }
    }
    // What the shards were made from (their spec's folder), by the code that merges them.
    let provenance = Provenance {
        code: Some(CodeVersion::current()),
        ..crate::study::results::provenance(first_dir).map_err(|e| e.to_string())?
    };
    super::derive_and_write(&spec, out, (&first.command, &provenance), Vec::new())
}
