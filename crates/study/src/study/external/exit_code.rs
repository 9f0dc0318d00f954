//! Exit-code checkers ("compare two files, exit 1 on breaking"): one run per comparison, the
//! two payloads written to files whose paths replace `{approved}` and `{candidate}` in argv.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::{
    join_in_order, slices, Answer, CheckerError, CheckerSpec, Fault, Request, RequestFault,
};
use driftlab_live::live::stdio::describe_status;

/// Runs the command per comparison, in `processes` parallel workers, each with its own folder.
pub struct Runner {
    spec: CheckerSpec,
    scratch: tempfile::TempDir,
    _cleanup: driftlab_contract::cleanup::Registration,
}

impl Runner {
    pub fn new(spec: &CheckerSpec) -> Result<Runner, CheckerError> {
        let scratch = tempfile::Builder::new()
            .prefix("driftlab-checker-")
            .tempdir()
            .map_err(|e| CheckerError::new(spec, Fault::Scratch(e)))?;
        let cleanup = driftlab_contract::cleanup::remove_on_signal(scratch.path().to_path_buf());
        Ok(Runner {
            spec: spec.clone(),
            scratch,
            _cleanup: cleanup,
        })
    }

    pub fn spec(&self) -> &CheckerSpec {
        &self.spec
    }

    pub fn judge(&mut self, requests: &[Request<'_>]) -> Result<Vec<Answer>, CheckerError> {
        let parts = slices(requests, self.spec.processes);
        let (spec, scratch) = (&self.spec, self.scratch.path());
        thread::scope(|scope| {
            let handles: Vec<_> = parts
                .into_iter()
                .enumerate()
                .map(|(worker, part)| {
                    let folder = scratch.join(format!("worker-{worker}"));
                    scope.spawn(move || {
                        std::fs::create_dir_all(&folder).map_err(|source| {
                            let path = folder.clone();
                            CheckerError::new(spec, Fault::Folder { path, source })
                        })?;
                        part.iter()
                            .map(|r| {
                                run_one(spec, &folder, r).map_err(|why| {
                                    CheckerError::new(spec, Fault::Request { id: r.id, why })
                                })
                            })
                            .collect()
                    })
                })
                .collect();
            join_in_order(spec, handles, requests.len())
        })
    }
}

/// Runs the command once. An exit code in the mapping is an answer; any other exit or a signal
/// is a crash (an answer of its own). A command that cannot start or outlives the timeout
/// stops the study: those are set-up errors, not properties of the checker's judgement.
fn run_one(
    spec: &CheckerSpec,
    folder: &Path,
    request: &Request<'_>,
) -> Result<Answer, RequestFault> {
    let write = |path: &Path, bytes: &[u8]| {
        std::fs::write(path, bytes).map_err(|source| RequestFault::Payload {
            path: path.to_path_buf(),
            source,
        })
    };
    let approved = folder.join("approved.json");
    let candidate = folder.join("candidate.json");
    write(&approved, request.approved)?;
    write(&candidate, request.candidate)?;
    let argv: Vec<String> = spec
        .command
        .iter()
        .map(|a| {
            a.replace("{approved}", &path_text(&approved))
                .replace("{candidate}", &path_text(&candidate))
        })
        .collect();
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(&spec.dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|source| RequestFault::CannotRun {
            program: argv[0].clone(),
            source,
        })?;
    let _cleanup = driftlab_contract::cleanup::kill_on_signal(child.id() as i32);
    let until = Instant::now() + spec.timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(2)),
            Ok(None) => {
                driftlab_live::live::stdio::ServerProcess::kill_group(child.id());
                let _ = child.wait();
                return Err(RequestFault::NoExit(spec.timeout));
            }
            Err(e) => return Err(RequestFault::Wait(e)),
        }
    };
    let answer = match status.code() {
        Some(code) if spec.detected_codes.contains(&code) => judged(true),
        Some(code) if spec.not_detected_codes.contains(&code) => judged(false),
        _ => Answer::Crashed(describe_status(status)),
    };
    Ok(answer)
}

fn judged(detected: bool) -> Answer {
    Answer::Judged {
        detected,
        rules: Vec::new(),
        findings: usize::from(detected),
        first_pointer: String::new(),
    }
}

fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
