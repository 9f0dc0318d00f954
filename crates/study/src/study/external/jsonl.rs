//! JSON Lines checkers: started once, fed requests on stdin while their answers are read from
//! stdout (pipelined), each answer awaited at most the gate's timeout.

use std::process::Stdio;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use super::{
    join_in_order, parse_answer, request_line, slices, Answer, CheckerError, CheckerSpec, Fault,
    Request, RequestFault,
};
use crate::study::external::MAX_ANSWER_LINE;
use driftlab_live::live::stdio::{describe_status, read_lines, Launch, ServerProcess, StdoutEvent};

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
    pub fn start(spec: &CheckerSpec) -> Result<Pool, CheckerError> {
        let launch = Launch {
            dir: Some(spec.dir.clone()),
            env: Vec::new(),
        };
        let mut processes = Vec::new();
        for _ in 0..spec.processes.max(1) {
            // The checker's stderr is the user's: a traceback shows up where they look.
            let (process, stdout, _) =
                ServerProcess::spawn_in(&spec.command, Stdio::inherit(), &launch)
                    .map_err(|e| CheckerError::new(spec, Fault::CannotStart(e.to_string())))?;
            let (tx, lines) = mpsc::sync_channel(1024);
            thread::spawn(move || read_lines(stdout, MAX_ANSWER_LINE, false, tx));
            processes.push(Process { process, lines });
        }
        Ok(Pool {
            spec: spec.clone(),
            processes,
        })
    }

    pub fn spec(&self) -> &CheckerSpec {
        &self.spec
    }

    pub fn judge(&mut self, requests: &[Request<'_>]) -> Result<Vec<Answer>, CheckerError> {
        let parts = slices(requests, self.processes.len());
        let spec = &self.spec;
        thread::scope(|scope| {
            let handles: Vec<_> = self
                .processes
                .iter_mut()
                .zip(parts)
                .map(|(process, part)| scope.spawn(move || judge_on(spec, process, part)))
                .collect();
            join_in_order(spec, handles, requests.len())
        })
    }
}

/// Sends `requests` to one process from a writer thread while reading its answers here.
fn judge_on(
    spec: &CheckerSpec,
    process: &mut Process,
    requests: &[Request<'_>],
) -> Result<Vec<Answer>, CheckerError> {
    let Process { process, lines } = process;
    let pid = process.id();
    let result = thread::scope(|scope| {
        let sender = &mut *process;
        let writer = scope.spawn(move || -> Result<(), Fault> {
            for request in requests {
                sender
                    .write_line(&request_line(request))
                    .map_err(|e| Fault::Request {
                        id: request.id,
                        why: RequestFault::Send(e),
                    })?;
            }
            Ok(())
        });
        let mut answers = Vec::with_capacity(requests.len());
        let mut failure = None;
        for request in requests {
            let answer = match lines.recv_timeout(spec.timeout) {
                Ok(StdoutEvent::Line(line)) => parse_answer(&line, request.id),
                Ok(StdoutEvent::TooLong) => Err(RequestFault::TooLong),
                Ok(StdoutEvent::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    Err(RequestFault::Exited {
                        status: String::new(),
                    })
                }
                Ok(StdoutEvent::Failed(e)) => Err(RequestFault::Unreadable(e)),
                Err(RecvTimeoutError::Timeout) => Err(RequestFault::NoAnswer(spec.timeout)),
            };
            match answer {
                Ok(answer) => answers.push(answer),
                Err(why) => {
                    failure = Some(Fault::Request {
                        id: request.id,
                        why,
                    });
                    break;
                }
            }
        }
        if failure.is_some() {
            // The writer may be blocked on a full pipe the checker no longer reads: end it.
            ServerProcess::kill_group(pid);
        }
        let written = writer.join().unwrap_or(Err(Fault::Panicked));
        match (failure, written) {
            (Some(why), _) | (None, Err(why)) => Err(why),
            (None, Ok(())) => Ok(answers),
        }
    });
    result.map_err(|mut fault| {
        // The exit status is known only once the process is waited for, after the scope.
        if let Fault::Request {
            why: RequestFault::Exited { status },
            ..
        } = &mut fault
        {
            *status = process
                .exit_status(Duration::from_secs(1))
                .map_or("its stdout closed".into(), describe_status);
        }
        CheckerError::new(spec, fault)
    })
}
