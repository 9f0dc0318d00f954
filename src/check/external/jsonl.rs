//! JSON Lines checkers: started once, fed requests on stdin while their answers are read from
//! stdout (pipelined), each answer awaited at most the gate's timeout.

use std::process::Stdio;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use super::{
    join_in_order, parse_answer, request_line, slices, Answer, CheckerSpec, Request,
    MAX_ANSWER_LINE,
};
use crate::live::stdio::{describe_status, read_lines, Launch, ServerProcess, StdoutEvent};

/// The checker's processes, each with the channel its stdout lines arrive on.
pub struct Pool {
    spec: CheckerSpec,
    processes: Vec<Process>,
}

struct Process {
    process: ServerProcess,
    lines: Receiver<StdoutEvent>,
}

impl Pool {
    pub fn start(spec: &CheckerSpec) -> Result<Pool, String> {
        let launch = Launch {
            dir: Some(spec.dir.clone()),
            env: Vec::new(),
        };
        let mut processes = Vec::new();
        for _ in 0..spec.processes.max(1) {
            // The checker's stderr is the user's: a traceback shows up where they look.
            let (process, stdout, _) =
                ServerProcess::spawn_in(&spec.command, Stdio::inherit(), &launch).map_err(|e| {
                    format!(
                        "checker {:?} {:?}: cannot start: {e}",
                        spec.gate, spec.command
                    )
                })?;
            let (tx, lines) = mpsc::sync_channel(1024);
            thread::spawn(move || read_lines(stdout, MAX_ANSWER_LINE, false, tx));
            processes.push(Process { process, lines });
        }
        Ok(Pool {
            spec: spec.clone(),
            processes,
        })
    }

    pub fn judge(&mut self, requests: &[Request<'_>]) -> Result<Vec<Answer>, String> {
        let parts = slices(requests, self.processes.len());
        let spec = &self.spec;
        thread::scope(|scope| {
            let handles: Vec<_> = self
                .processes
                .iter_mut()
                .zip(parts)
                .map(|(process, part)| scope.spawn(move || judge_on(spec, process, part)))
                .collect();
            join_in_order(handles, requests.len())
        })
    }
}

/// Sends `requests` to one process from a writer thread while reading its answers here.
fn judge_on(
    spec: &CheckerSpec,
    process: &mut Process,
    requests: &[Request<'_>],
) -> Result<Vec<Answer>, String> {
    let Process { process, lines } = process;
    let pid = process.id();
    let (result, exited) = thread::scope(|scope| {
        let sender = &mut *process;
        let writer = scope.spawn(move || -> Result<(), String> {
            for request in requests {
                sender
                    .write_line(&request_line(request))
                    .map_err(|e| format!("cannot send request id {}: {e}", request.id))?;
            }
            Ok(())
        });
        let mut answers = Vec::with_capacity(requests.len());
        let mut failure = None;
        let mut exited = false;
        for request in requests {
            let answer = match lines.recv_timeout(spec.timeout) {
                Ok(StdoutEvent::Line(line)) => parse_answer(&line, request.id),
                Ok(StdoutEvent::TooLong) => {
                    Err(format!("answer longer than {MAX_ANSWER_LINE} bytes"))
                }
                Ok(StdoutEvent::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    exited = true;
                    Err("exited".into())
                }
                Ok(StdoutEvent::Failed(e)) => Err(format!("cannot read its stdout: {e}")),
                Err(RecvTimeoutError::Timeout) => {
                    Err(format!("no answer within {:?}", spec.timeout))
                }
            };
            match answer {
                Ok(answer) => answers.push(answer),
                Err(why) => {
                    failure = Some(format!("request id {}: {why}", request.id));
                    break;
                }
            }
        }
        if failure.is_some() {
            // The writer may be blocked on a full pipe the checker no longer reads: end it.
            ServerProcess::kill_group(pid);
        }
        let written = writer
            .join()
            .unwrap_or_else(|_| Err("writer panicked".into()));
        let result = match (failure, written) {
            (Some(why), _) | (None, Err(why)) => Err(why),
            (None, Ok(())) => Ok(answers),
        };
        (result, exited)
    });
    result.map_err(|mut why| {
        if exited {
            let status = process
                .exit_status(Duration::from_secs(1))
                .map_or("its stdout closed".into(), describe_status);
            why = format!("{why} ({status})");
        }
        format!("checker {:?} {:?}: {why}", spec.gate, spec.command)
    })
}
