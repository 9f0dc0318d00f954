//! Runs one study command to completion: JSON on its stdin, its stdout collected, at most a
//! timeout. Its stderr goes to a file beside the study's other scratch files, named in errors.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::StackStudyError;

/// Runs `argv` in `dir` with `input` on stdin; `scratch` is a file stem for its output.
pub fn run(
    argv: &[String],
    dir: &Path,
    input: &[u8],
    timeout: Duration,
    scratch: &Path,
) -> Result<Vec<u8>, StackStudyError> {
    let fail = |why: String| StackStudyError::Command(format!("{argv:?}: {why}"));
    let stdout_path = scratch.with_extension("out");
    let stderr_path = scratch.with_extension("err");
    let file = |path: &Path| {
        std::fs::File::create(path).map_err(|e| fail(format!("{}: {e}", path.display())))
    };
    let mut child = Command::new(&argv[0])
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
    let _cleanup = crate::cleanup::kill_on_signal(child.id() as i32);
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
                crate::live::stdio::ServerProcess::kill_group(child.id());
                let _ = child.wait();
                return Err(fail(format!(
                    "no exit within {timeout:?} (its stderr: {})",
                    stderr_path.display()
                )));
            }
            Err(e) => return Err(fail(e.to_string())),
        }
    };
    if !status.success() {
        return Err(fail(format!(
            "exited with {status} (its stderr: {})",
            stderr_path.display()
        )));
    }
    std::fs::read(&stdout_path).map_err(|e| fail(format!("{}: {e}", stdout_path.display())))
}
