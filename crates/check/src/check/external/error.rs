//! Why an external checker stopped a study: set-up faults and broken answers, never verdicts
//! (a checker that fails on one comparison answers `Crashed`, which is counted, not raised).

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use super::{CheckerSpec, MAX_ANSWER_LINE};

/// A checker fault, with the gate and the command it belongs to.
#[derive(Debug, thiserror::Error)]
#[error("checker {gate:?} {command:?}: {fault}")]
pub struct CheckerError {
    pub gate: String,
    pub command: Vec<String>,
    pub fault: Fault,
}

impl CheckerError {
    pub fn new(spec: &CheckerSpec, fault: Fault) -> CheckerError {
        CheckerError {
            gate: spec.gate.clone(),
            command: spec.command.clone(),
            fault,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Fault {
    #[error("cannot start: {0}")]
    CannotStart(String),
    #[error("cannot create a scratch folder: {0}")]
    Scratch(io::Error),
    #[error("{}: {source}", path.display())]
    Folder { path: PathBuf, source: io::Error },
    #[error("request id {id}: {why}")]
    Request { id: u64, why: RequestFault },
    #[error("a checker worker panicked")]
    Panicked,
    #[error("it gave fewer answers than requests")]
    FewerAnswers,
}

/// What went wrong with one request.
#[derive(Debug, thiserror::Error)]
pub enum RequestFault {
    #[error("not an answer ({error}): {line}")]
    NotAnAnswer {
        error: serde_json::Error,
        /// The line, shortened for a one-line message.
        line: String,
    },
    #[error("answered id {got} where id {due} was due (answers must come in request order)")]
    OutOfOrder { got: u64, due: u64 },
    #[error("an answer needs `detected` (or `error`)")]
    NoVerdict,
    #[error("answer longer than {MAX_ANSWER_LINE} bytes")]
    TooLong,
    /// `status`: how it ended, or that its stdout closed.
    #[error("exited ({status})")]
    Exited { status: String },
    #[error("cannot read its stdout: {0}")]
    Unreadable(String),
    #[error("no answer within {0:?}")]
    NoAnswer(Duration),
    #[error("cannot send the request: {0}")]
    Send(io::Error),
    #[error("no exit within {0:?}")]
    NoExit(Duration),
    #[error("{}: {source}", path.display())]
    Payload { path: PathBuf, source: io::Error },
    #[error("cannot start {program:?}: {source}")]
    CannotRun { program: String, source: io::Error },
    #[error("cannot wait for it: {0}")]
    Wait(io::Error),
}
