//! The guard study: what happens to an old client's calls when the server drifts, with and
//! without `driftlab guard` in between.
//!
//! For each server and mutation class: the server's real tools/list is the pinned contract; the
//! drifted server is `driftlab wrap --drift CLASS --enforce-drift` in front of the real server
//! (it lists the drifted contract and handles calls by it, see `proxy::drifted_server`); seeded
//! calls valid under the pinned schema go (a) straight to it and (b) through `driftlab guard
//! --approved PIN` in each guard mode. Every call also runs against the undrifted server (the
//! control); only calls that succeed there count, so an outcome is the drift's doing.

mod counts;
mod outcome;
mod placement;
mod retry;
pub mod session;
mod session_error;
mod spec;
mod tables;
mod write;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rayon::prelude::*;
use serde_json::Value;
use thiserror::Error;

use driftlab_contract::rng::Stream;
use driftlab_contract::text::shell_line;
use driftlab_mutate::mutate::{self, MutationClass};
use outcome::{is_drifted_server_entry, judge};
pub use outcome::{CallRow, PathResult, Skipped, Verdict};
use placement::{cell_calls, place};
pub use retry::aligned as aligned_retries;
use session::{fresh_dir, log_by_id, run_session, Call};
pub use session_error::{Leg, SessionError};
pub use spec::{GuardStudySpec, StudyServer};
pub use write::{file_names, write};

/// Why a guard study stopped: its spec, a session with a server, or writing its folder.
#[derive(Debug, Error)]
pub enum GuardStudyError {
    /// The spec cannot be read or is wrong (the message names the file and place).
    #[error("{0}")]
    Spec(String),
    /// A session with a server failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The results folder could not be written.
    #[error("{0}")]
    Write(String),
}

/// The placeholder for a session's own empty folder in a server's `command` and `env`.
pub(crate) const SESSION_PLACEHOLDER: &str = "{session}";

/// What a guard study found.
pub struct StudyResults {
    /// The spec it ran.
    pub spec: GuardStudySpec,
    /// One row per call.
    pub rows: Vec<CallRow>,
    /// The (server, class) cells it could not run.
    pub skipped: Vec<Skipped>,
    /// Calls dropped because they failed against the undrifted server, per (server, class).
    pub control_failures: usize,
}

/// A spec read and checked, with the folder its commands run in.
pub struct GuardStudy {
    /// The spec as read.
    pub spec: GuardStudySpec,
    /// Its classes, looked up.
    pub classes: Vec<&'static dyn MutationClass>,
    /// The spec's folder, where the servers' commands run.
    pub dir: PathBuf,
}

impl GuardStudy {
    /// Reads and checks the spec at `path`.
    pub fn load(path: &Path) -> Result<GuardStudy, GuardStudyError> {
        let spec_error = GuardStudyError::Spec;
        let text = driftlab_contract::fs::read_text(path, driftlab_contract::fs::MAX_SMALL_FILE)
            .map_err(|e| spec_error(e.to_string()))?;
        let spec: GuardStudySpec = toml::from_str(&text).map_err(|e| {
            let (line, column, message) = driftlab_contract::text::toml_error(&text, &e);
            spec_error(format!("{}:{line}:{column}: {message}", path.display()))
        })?;
        if let Some(problem) = driftlab_contract::id_problem(&spec.id) {
            return Err(spec_error(format!("{}: id {problem}", path.display())));
        }
        let classes = spec
            .classes
            .iter()
            .map(|id| {
                mutate::by_id(id).ok_or_else(|| {
                    spec_error(format!(
                        "{}: unknown mutation class {id:?} (see `driftlab mutations`)",
                        path.display()
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        for mode in &spec.guard_modes {
            if mode != "refuse" && mode != "warn" {
                return Err(spec_error(format!(
                    "{}: guard mode {mode:?}: expected \"refuse\" or \"warn\"",
                    path.display()
                )));
            }
        }
        if spec.servers.is_empty() || spec.calls_per_tool == 0 {
            return Err(spec_error(format!(
                "{}: a study needs a [[server]] and calls_per_tool ≥ 1",
                path.display()
            )));
        }
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        Ok(GuardStudy { spec, classes, dir })
    }
}

impl GuardStudy {
    /// Every server's argv (run in the spec's folder).
    pub fn argvs(&self) -> Vec<Vec<String>> {
        self.spec
            .servers
            .iter()
            .map(|s| s.command.clone())
            .collect()
    }

    /// Every server command the spec runs, as written (placeholders kept), with the names of
    /// the variables it sets, for the user's consent.
    pub fn commands(&self) -> Vec<String> {
        self.spec
            .servers
            .iter()
            .map(|server| {
                let mut line = format!("{}: {}", server.name, shell_line(&server.command));
                if !server.env.is_empty() {
                    let names: Vec<&str> = server.env.keys().map(String::as_str).collect();
                    line.push_str(&format!("  (env: {})", names.join(", ")));
                }
                line
            })
            .collect()
    }
}

/// One server's pinned contract and its seeded calls, per callable tool in list order.
struct Pinned {
    list: Value,
    pin_file: PathBuf,
    calls: Vec<(String, Vec<Call>)>,
}

/// Where a class's drift landed on a server, and the calls aimed at it.
struct Cell<'a> {
    server: &'a StudyServer,
    class: &'static dyn MutationClass,
    drift_index: u64,
    drift: String,
    /// The pinned tools the drift touched; all callable tools for a whole-surface change.
    targets: Vec<String>,
}

/// Runs the study; `driftlab` is the binary that provides `wrap` and `guard`, `work` a folder
/// for the sessions' files. `progress` hears one line per finished cell.
pub fn run(
    study: &GuardStudy,
    driftlab: &Path,
    work: &Path,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<StudyResults, GuardStudyError> {
    let spec = &study.spec;
    let timeout = Duration::from_secs(spec.timeout_secs);
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    let mut control_failures = 0;
    for (s, server) in spec.servers.iter().enumerate() {
        let pinned = pin(study, server, s, work, timeout)?;
        let mut cells = Vec::new();
        for &class in &study.classes {
            match place(study, server, class, &pinned) {
                Ok(cell) => cells.push(cell),
                Err(reason) => skipped.push(Skipped {
                    server: server.name.clone(),
                    class: class.id(),
                    reason: reason.to_string(),
                }),
            }
        }
        // Controls: each cell's calls against the undrifted server, in a fresh session.
        let plain = |name: String, calls: &[Call]| {
            let dir = fresh_dir(work, &name)?;
            run_session(
                &argv_of(server, &dir),
                &study.dir,
                &env_of(server, &dir),
                calls,
                timeout,
            )
            .map_err(SessionError::server(&server.name, Leg::Plain))
        };
        let results: Vec<Result<Vec<CallRow>, SessionError>> = cells
            .par_iter()
            .enumerate()
            .map(|(c, cell)| {
                let calls = cell_calls(&pinned, &cell.targets);
                let control = plain(format!("s{s}-c{c}-control"), &calls)?;
                let wrap_log = |dir: &Path| dir.join("wrap.jsonl");
                let wrap_argv = |dir: &Path| {
                    let mut argv = vec![
                        driftlab.display().to_string(),
                        "wrap".into(),
                        "--drift".into(),
                        cell.class.id().into(),
                        "--enforce-drift".into(),
                        "--seed".into(),
                        spec.seed.to_string(),
                        "--drift-index".into(),
                        cell.drift_index.to_string(),
                        "--log".into(),
                        wrap_log(dir).display().to_string(),
                        "--".into(),
                    ];
                    argv.extend(argv_of(server, dir));
                    argv
                };
                let dir = fresh_dir(work, &format!("s{s}-c{c}-straight"))?;
                let straight = run_session(
                    &wrap_argv(&dir),
                    &study.dir,
                    &env_of(server, &dir),
                    &calls,
                    timeout,
                )
                .map_err(SessionError::server(
                    &server.name,
                    Leg::Drifted {
                        class: cell.class.id(),
                    },
                ))?;
                let straight_log = log_by_id(&wrap_log(&dir), is_drifted_server_entry);
                check_drift(&wrap_log(&dir), cell)?;
                let guard_argv = |dir: &Path, mode: &str| {
                    let mut argv = vec![
                        driftlab.display().to_string(),
                        "guard".into(),
                        "--approved".into(),
                        pinned.pin_file.display().to_string(),
                        "--on-drift".into(),
                        mode.to_string(),
                        "--max-retries".into(),
                        "1000".into(),
                        // What the study measured: refusals that name the server's new names
                        // (the default says them by kind since 2026-12-06).
                        "--quote-server-words".into(),
                        "--audit".into(),
                        dir.join("guard.jsonl").display().to_string(),
                        "--".into(),
                    ];
                    argv.extend(wrap_argv(dir));
                    argv
                };
                // One guarded session: its run, refusals (by id) and the drifted server's log.
                let guarded_session = |name: String, mode: &str, calls: &[Call]| {
                    let dir = fresh_dir(work, &name)?;
                    let leg = Leg::Guarded {
                        class: cell.class.id(),
                        mode: mode.to_string(),
                    };
                    let run = run_session(
                        &guard_argv(&dir, mode),
                        &study.dir,
                        &env_of(server, &dir),
                        calls,
                        timeout,
                    )
                    .map_err(SessionError::server(&server.name, leg))?;
                    let refusals = log_by_id(&dir.join("guard.jsonl"), |e| {
                        e.get("event") == Some(&Value::from("refuse"))
                    });
                    let log = log_by_id(&wrap_log(&dir), is_drifted_server_entry);
                    Ok::<_, SessionError>((run, refusals, log))
                };
                let mut guarded = Vec::new();
                for (g, mode) in spec.guard_modes.iter().enumerate() {
                    let (run, refusals, log) =
                        guarded_session(format!("s{s}-c{c}-guard-{g}"), mode, &calls)?;
                    // Each refused call once more, as the repairer rewrites it.
                    let wanted = retry::retries(&calls, &run, &refusals, &pinned.list);
                    let to_run: Vec<Call> = wanted.iter().flatten().cloned().collect();
                    let retried = if to_run.is_empty() {
                        vec![None; calls.len()]
                    } else {
                        let name = format!("s{s}-c{c}-guard-{g}-retry");
                        let (rerun, refused, relog) = guarded_session(name, mode, &to_run)?;
                        let judged = rerun
                            .outcomes
                            .iter()
                            .map(|(id, o)| judge(o, relog.get(id), refused.get(id)))
                            .collect();
                        retry::aligned(&wanted, judged)
                    };
                    guarded.push((run, refusals, log, retried));
                }
                let mut out = Vec::new();
                for (i, call) in calls.iter().enumerate() {
                    let (id, control_outcome) = &control.outcomes[i];
                    let straight_result =
                        judge(&straight.outcomes[i].1, straight_log.get(id), None);
                    let guarded_results = guarded
                        .iter()
                        .map(|(run, refusals, log, _)| {
                            judge(&run.outcomes[i].1, log.get(id), refusals.get(id))
                        })
                        .collect();
                    let retried = guarded.iter().map(|g| g.3[i].clone()).collect();
                    out.push(CallRow {
                        server: server.name.clone(),
                        class: cell.class.id(),
                        label: cell.class.label(),
                        drift_index: cell.drift_index,
                        drift: cell.drift.clone(),
                        tool: call.tool.clone(),
                        call: i as u64,
                        arguments: call.arguments.to_string(),
                        control: control_outcome.as_string(),
                        straight: straight_result,
                        guarded: guarded_results,
                        retried,
                    });
                }
                progress(&format!(
                    "{} × {}: {} calls",
                    server.name,
                    cell.class.id(),
                    calls.len()
                ));
                Ok(out)
            })
            .collect();
        for cell_rows in results {
            let cell_rows = cell_rows?;
            control_failures += cell_rows.iter().filter(|r| r.control != "success").count();
            rows.extend(cell_rows);
        }
    }
    Ok(StudyResults {
        spec: study.spec.clone(),
        rows,
        skipped,
        control_failures,
    })
}

/// The drifted server must have drawn the drift the study placed (same seed, class, index).
fn check_drift(log: &Path, cell: &Cell<'_>) -> Result<(), SessionError> {
    let text = std::fs::read_to_string(log).map_err(|e| SessionError::file(log, e))?;
    let drawn: Vec<String> = text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|e| e.get("action") == Some(&Value::from("drift")))
        .filter_map(|e| e.get("detail").and_then(Value::as_str).map(String::from))
        .collect();
    if drawn.is_empty() || drawn.iter().any(|d| *d != cell.drift) {
        return Err(SessionError::WrongDrift {
            server: cell.server.name.clone(),
            class: cell.class.id(),
            drawn,
            placed: cell.drift.clone(),
        });
    }
    Ok(())
}

/// The session folder substituted into a server's arguments.
fn argv_of(server: &StudyServer, dir: &Path) -> Vec<String> {
    let dir = dir.display().to_string();
    server
        .command
        .iter()
        .map(|a| a.replace(SESSION_PLACEHOLDER, &dir))
        .collect()
}

fn env_of(server: &StudyServer, dir: &Path) -> Vec<(String, String)> {
    let dir = dir.display().to_string();
    server
        .env
        .iter()
        .map(|(k, v)| (k.clone(), v.replace(SESSION_PLACEHOLDER, &dir)))
        .collect()
}

/// Captures the server's tools/list (the pin) and draws the calls for its callable tools.
fn pin(
    study: &GuardStudy,
    server: &StudyServer,
    s: usize,
    work: &Path,
    timeout: Duration,
) -> Result<Pinned, SessionError> {
    let dir = fresh_dir(work, &format!("s{s}-pin"))?;
    let run = run_session(
        &argv_of(server, &dir),
        &study.dir,
        &env_of(server, &dir),
        &[],
        timeout,
    )
    .map_err(SessionError::server(&server.name, Leg::Plain))?;
    let list: Value =
        serde_json::from_slice(&run.tools_list).map_err(|error| SessionError::ToolsList {
            server: server.name.clone(),
            error,
        })?;
    let pin_file = dir.join("pin.json");
    std::fs::write(&pin_file, &run.tools_list).map_err(|e| SessionError::file(&pin_file, e))?;
    let tools = list
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut calls = Vec::new();
    for tool in &tools {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        if server
            .tools
            .as_ref()
            .is_some_and(|allowed| !allowed.iter().any(|a| a == name))
        {
            continue;
        }
        let schema = tool.get("inputSchema").cloned().unwrap_or(Value::Null);
        let mut tool_calls = Vec::new();
        for i in 0..study.spec.calls_per_tool {
            let mut rng =
                Stream::derive(study.spec.seed, &format!("call:{}:{name}", server.name), i);
            if let Some(arguments) = super::calls::valid_arguments(&schema, &mut rng) {
                tool_calls.push(Call {
                    tool: name.to_string(),
                    arguments,
                });
            }
        }
        calls.push((name.to_string(), tool_calls));
    }
    if let Some(allowed) = &server.tools {
        for name in allowed {
            if !calls.iter().any(|(n, _)| n == name) {
                return Err(SessionError::NoSuchTool {
                    server: server.name.clone(),
                    tool: name.clone(),
                });
            }
        }
    }
    Ok(Pinned {
        list,
        pin_file,
        calls,
    })
}
