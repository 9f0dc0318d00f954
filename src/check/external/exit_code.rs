//! Exit-code checkers ("compare two files, exit 1 on breaking"): one run per comparison, the
//! two payloads written to files whose paths replace `{approved}` and `{candidate}` in argv.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::{join_in_order, slices, Answer, CheckerSpec, Request};
use crate::live::stdio::describe_status;

/// Runs the command per comparison, in `processes` parallel workers, each with its own folder.
pub struct Runner {
    spec: CheckerSpec,
    scratch: tempfile::TempDir,
    _cleanup: crate::cleanup::Registration,
}

impl Runner {
    pub fn new(spec: &CheckerSpec) -> Result<Runner, String> {
        let scratch = tempfile::Builder::new()
            .prefix("driftlab-checker-")
            .tempdir()
            .map_err(|e| {
                format!(
                    "checker {:?}: cannot create a scratch folder: {e}",
                    spec.gate
                )
            })?;
        let cleanup = crate::cleanup::remove_on_signal(scratch.path().to_path_buf());
        Ok(Runner {
            spec: spec.clone(),
            scratch,
            _cleanup: cleanup,
        })
    }

    pub fn judge(&mut self, requests: &[Request<'_>]) -> Result<Vec<Answer>, String> {
        let parts = slices(requests, self.spec.processes);
        let (spec, scratch) = (&self.spec, self.scratch.path());
        thread::scope(|scope| {
            let handles: Vec<_> = parts
                .into_iter()
                .enumerate()
                .map(|(worker, part)| {
                    let folder = scratch.join(format!("worker-{worker}"));
                    scope.spawn(move || {
                        std::fs::create_dir_all(&folder)
                            .map_err(|e| format!("{}: {e}", folder.display()))?;
                        part.iter().map(|r| run_one(spec, &folder, r)).collect()
                    })
                })
                .collect();
            join_in_order(handles, requests.len())
        })
    }
}

/// Runs the command once. An exit code in the mapping is an answer; any other exit or a signal
/// is a crash (an answer of its own). A command that cannot start or outlives the timeout
/// stops the study: those are set-up errors, not properties of the checker's judgement.
fn run_one(spec: &CheckerSpec, folder: &Path, request: &Request<'_>) -> Result<Answer, String> {
    let fail = |why: String| {
        format!(
            "checker {:?} {:?}: request id {}: {why}",
            spec.gate, spec.command, request.id
        )
    };
    let approved = folder.join("approved.json");
    let candidate = folder.join("candidate.json");
    std::fs::write(&approved, request.approved)
        .map_err(|e| fail(format!("{}: {e}", approved.display())))?;
    std::fs::write(&candidate, request.candidate)
        .map_err(|e| fail(format!("{}: {e}", candidate.display())))?;
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
        .map_err(|e| fail(format!("cannot start {:?}: {e}", argv[0])))?;
    let _cleanup = crate::cleanup::kill_on_signal(child.id() as i32);
    let until = Instant::now() + spec.timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(2)),
            Ok(None) => {
                crate::live::stdio::ServerProcess::kill_group(child.id());
                let _ = child.wait();
                return Err(fail(format!("no exit within {:?}", spec.timeout)));
            }
            Err(e) => return Err(fail(e.to_string())),
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
