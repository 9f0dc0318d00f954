//! Another watcher's history read into a record: the layout of algomaster99/mcp-drift, a git
//! repository whose `snapshots/tools/<server>.json` holds each server's `tools` array as last
//! polled, one commit per recorded change.
//!
//! Each commit that adds or changes a server's file is one observation, at the commit's time
//! (the record says what the repository says: a change merged out of order is seen in the
//! order it landed). The array is kept byte for byte inside `{"tools": …}`, the shape of a
//! `tools/list` result.

use std::path::Path;
use std::process::Command;

use super::poll::seen_contract;
use super::record::{valid_server_name, Observation, Record, Seen};
use super::time::unix_seconds;
use driftlab_check::check::Rule;

/// What an import added.
#[derive(Debug, Default)]
pub struct Imported {
    /// Commits read.
    pub commits: usize,
    /// Observations appended.
    pub observations: usize,
    /// Files skipped, with why.
    pub skipped: Vec<String>,
}

const TOOLS: &str = "snapshots/tools/";

fn git(repo: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{}: git {} failed: {}",
            repo.display(),
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(output.stdout)
}

/// Reads the mcp-drift repository at `repo` (its checked-out branch's history) into `record`.
/// The record must not have logs for these servers yet: an import is a whole history.
pub fn import_mcp_drift(
    repo: &Path,
    record: &Record,
    rules: &[&'static dyn Rule],
) -> Result<Imported, String> {
    let log = git(
        repo,
        &[
            "log",
            "--reverse",
            "--format=%x01%H %cI",
            "--name-status",
            "--no-renames",
            "--",
            TOOLS,
        ],
    )?;
    let log = String::from_utf8(log).map_err(|_| "git log is not UTF-8".to_string())?;
    let mut imported = Imported::default();
    let already = record.servers()?;
    for block in log.split('\u{1}').filter(|b| !b.trim().is_empty()) {
        let mut lines = block.lines();
        let head = lines.next().unwrap_or_default();
        let (commit, time) = head
            .split_once(' ')
            .ok_or_else(|| format!("git log: unexpected line {head:?}"))?;
        let seconds =
            unix_seconds(time).ok_or_else(|| format!("commit {commit}: time {time:?} unread"))?;
        let at = driftlab_contract::text::rfc3339(seconds);
        imported.commits += 1;
        for line in lines.filter(|l| !l.is_empty()) {
            let (status, path) = line
                .split_once('\t')
                .ok_or_else(|| format!("commit {commit}: unexpected line {line:?}"))?;
            let Some(server) = path
                .strip_prefix(TOOLS)
                .and_then(|p| p.strip_suffix(".json"))
            else {
                continue;
            };
            if status == "D" {
                imported
                    .skipped
                    .push(format!("{commit} {path}: deleted (the watcher stopped)"));
                continue;
            }
            if !valid_server_name(server) {
                imported
                    .skipped
                    .push(format!("{commit} {path}: {server:?} cannot name a log"));
                continue;
            }
            if already.iter().any(|s| s == server) {
                return Err(format!(
                    "{server}: the record has a log for it already; import into a new record"
                ));
            }
            let array = git(repo, &["show", &format!("{commit}:{path}")])?;
            if array.trim_ascii() == b"null" {
                record.append(
                    server,
                    &Observation {
                        at: at.clone(),
                        seen: Seen::Failed {
                            failed: "no-listing".into(),
                            reason: "the watcher recorded null: it read no tools/list".into(),
                        },
                    },
                )?;
                imported.observations += 1;
                continue;
            }
            let mut bytes = b"{\"tools\":".to_vec();
            bytes.extend_from_slice(&array);
            bytes.push(b'}');
            let seen = seen_contract(record, server, &bytes, rules)?;
            record.append(
                server,
                &Observation {
                    at: at.clone(),
                    seen,
                },
            )?;
            imported.observations += 1;
        }
    }
    Ok(imported)
}
