//! Runs one study command to completion: JSON on its stdin, its stdout collected, at most a
//! timeout. Its stderr goes to a scratch file whose last lines a failure quotes (the scratch
//! folder is removed when the study ends).

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::StackStudyError;

/// Runs `argv` in `dir` with `input` on stdin; `scratch` is a file stem for its output.
/// `$DRIFTLAB` names `driftlab` (the real-server cases start `driftlab wrap` with it).
pub fn run(
    argv: &[String],
    dir: &Path,
    input: &[u8],
    timeout: Duration,
    scratch: &Path,
    driftlab: Option<&Path>,
) -> Result<Vec<u8>, StackStudyError> {
    let fail = |why: String| StackStudyError::Command(format!("{argv:?}: {why}"));
    let stdout_path = scratch.with_extension("out");
    let stderr_path = scratch.with_extension("err");
    let file = |path: &Path| {
        std::fs::File::create(path).map_err(|e| fail(format!("{}: {e}", path.display())))
    };
    let mut command = Command::new(&argv[0]);
    if let Some(driftlab) = driftlab {
        command.env("DRIFTLAB", driftlab);
    }
    let mut child = command
        .args(&argv[1..])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(file(&stdout_path)?)
        .stderr(file(&stderr_path)?)
        .process_group(0)
        .spawn()
        .map_err(|e| {
            fail(format!(
                "cannot start {:?} in {}: {e}",
                argv[0],
                dir.display()
            ))
        })?;
    let _cleanup = driftlab_contract::cleanup::kill_on_signal(child.id() as i32);
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input)
            .map_err(|e| fail(format!("stdin: {e}")))?;
    }
    let until = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                driftlab_live::live::stdio::ServerProcess::kill_group(child.id());
                let _ = child.wait();
                return Err(fail(format!(
                    "no exit within {timeout:?}{}",
                    stderr_tail(&stderr_path)
                )));
            }
            Err(e) => return Err(fail(e.to_string())),
        }
    };
    if !status.success() {
        return Err(fail(format!(
            "exited with {status}{}",
            stderr_tail(&stderr_path)
        )));
    }
    std::fs::read(&stdout_path).map_err(|e| fail(format!("{}: {e}", stdout_path.display())))
}

/// The last lines of a failed command's stderr, for its error message.
fn stderr_tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let tail = lines[lines.len().saturating_sub(3)..].join(" | ");
    format!("; its stderr ends: {tail}")
}
