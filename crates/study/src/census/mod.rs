//! `driftlab census`: the release history of real MCP servers replayed. Each release of each
//! package is installed into a folder of its own and its whole contract captured (kept in the
//! results folder under `captures/`); consecutive releases are diffed with witnesses, and each
//! pair's version bump is set beside what it broke. Everything but the captures is derived from
//! the captures alone, so `--offline` rewrites the same bytes.

pub mod anchor;
pub mod break_kind;
pub mod derive;
mod entry;
mod failures;
mod figures;
pub mod online;
mod pep440;
mod registry_facts;
pub mod sandbox;
pub mod scratch;
pub mod shard;
pub mod spec;
mod store;
pub mod version;
pub mod write;

use std::path::Path;

use derive::{capture_name, failure_name, install_name, Census, Failure, Install};
use spec::CensusSpec;
use version::Scheme;

use driftlab_record::provenance::Provenance;

use derive::VERSIONS_FAILED;

/// A PyPI listing failure, with whether the index has the package after all: pip lists no
/// version when none suits this Python (Requires-Python), and says so as it says "no such
/// package".
fn with_what_the_index_lists(
    spec: &CensusSpec,
    package: &spec::Package,
    scratch: &scratch::Scratch,
    reason: String,
) -> String {
    if package.scheme != Scheme::Pypi {
        return reason;
    }
    match registry_facts::facts(spec, package, scratch) {
        Ok(facts) if !facts.published.is_empty() => {
            let releases = match facts.published.len() {
                1 => "1 release".to_string(),
                n => format!("{n} releases"),
            };
            format!(
                "{reason} / the index lists {releases} of it, {} (Requires-Python or platform)",
                failures::NONE_INSTALLABLE
            )
        }
        _ => reason,
    }
}

/// Fetches every chosen release not yet recorded under `captures` (a capture or a failure;
/// nothing recorded is fetched again), telling `progress` about each. A package whose registry
/// cannot list its versions is recorded as such.
pub fn fetch(
    spec: &CensusSpec,
    captures: &Path,
    scratch: &scratch::Scratch,
    progress: &dyn Fn(&str),
) -> Result<(), String> {
    for package_spec in &spec.packages {
        let package = package_spec.package()?;
        let folder = captures.join(package.folder());
        std::fs::create_dir_all(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        let write = |name: &str, bytes: &[u8]| {
            driftlab_contract::fs::write_atomic(&folder.join(name), bytes)
                .map_err(|e| format!("{}: {e}", folder.join(name).display()))
        };
        let versions = match online::available_versions(spec, &package, scratch) {
            Ok(versions) => {
                let _ = std::fs::remove_file(folder.join(VERSIONS_FAILED));
                versions
            }
            Err(reason) => {
                let reason = with_what_the_index_lists(spec, &package, scratch, reason);
                progress(&format!(
                    "{}: cannot list versions: {reason}",
                    package.key()
                ));
                let reason = scratch.scrub(&reason);
                write(
                    VERSIONS_FAILED,
                    &json_line(&Failure {
                        stage: "versions".into(),
                        reason,
                        sandboxed: false,
                    })?,
                )?;
                continue;
            }
        };
        // Without publish times a release is installed as of today, and its row says so.
        let facts = registry_facts::facts(spec, &package, scratch).unwrap_or_else(|why| {
            progress(&format!("{}: no publish times: {why}", package.key()));
            Default::default()
        });
        let versions = match &spec.released_since {
            Some(since) => {
                let (kept, undated) = registry_facts::released_since(&versions, &facts, since);
                if undated > 0 {
                    progress(&format!(
                        "{}: {undated} releases left out: the registry gave no publish time",
                        package.key()
                    ));
                }
                kept
            }
            None => versions,
        };
        let chosen = package_spec.choose(package.scheme, &versions);
        for (_, version) in &chosen.releases {
            if folder.join(capture_name(version)).is_file()
                || folder.join(failure_name(version)).is_file()
            {
                continue;
            }
            // npm `--before`, uv `--exclude-newer`; pip takes no date to resolve by.
            let as_of = match package.scheme {
                Scheme::Pypi if scratch.tools.uv.is_none() => None,
                _ => facts.published.get(version.as_str()).map(String::as_str),
            };
            let install = Install {
                as_of: as_of.unwrap_or_default().to_string(),
                deprecated: registry_facts::deprecation(spec, &package, version, scratch),
                yanked: facts.yanked.get(version.as_str()).cloned(),
            };
            // Written first: a record without it was installed as of the day it ran.
            if install != Install::default() {
                write(&install_name(version), &json_line(&install)?)?;
            }
            let started = std::time::Instant::now();
            match online::capture_release(spec, package_spec, &package, (version, as_of), scratch) {
                Ok(bytes) => {
                    store::write_capture(captures, &folder.join(capture_name(version)), &bytes)?;
                    progress(&format!(
                        "{} {version}: captured in {:.1} s",
                        package.key(),
                        started.elapsed().as_secs_f64()
                    ));
                }
                Err(failure) => {
                    progress(&format!(
                        "{} {version}: {} failed: {}",
                        package.key(),
                        failure.stage,
                        failure.reason
                    ));
                    write(&failure_name(version), &json_line(&failure)?)?;
                }
            }
        }
    }
    Ok(())
}

fn json_line<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, String> {
    crate::study::results::json_bytes(value).map_err(|e| e.to_string())
}

/// Derives the census from `dir/captures` and writes every derived file into `dir`, with
/// `extra` files (a shard's record) written and pinned beside them.
pub fn derive_and_write(
    spec: &CensusSpec,
    dir: &Path,
    (command, provenance): (&str, &Provenance),
    extra: Vec<(String, Vec<u8>)>,
) -> Result<(Census, Vec<String>), String> {
    let rule_set = spec
        .rule_set
        .clone()
        .unwrap_or_else(|| driftlab_check::check::rules::sets::latest().to_string());
    let captures = dir.join(write::CAPTURES);
    // Whole captures (as a census before content-addressed storage wrote them) are split first.
    for package in &spec.packages {
        store::pack(&captures, &captures.join(package.package()?.folder()))?;
    }
    let census = derive::derive(spec, &captures, &rule_set)?;
    let captures = write::read_captures(dir, spec)?;
    let files = write::render(
        &census,
        (&spec.id, &spec.title),
        (command, provenance),
        &captures,
        extra,
    )?;
    let names = driftlab_contract::fs::write_files_atomic(dir, files)
        .map_err(|(path, e)| format!("{}: {e}", path.display()))?;
    Ok((census, names))
}
