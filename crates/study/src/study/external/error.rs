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
    /// The gate's id.
    pub gate: String,
    /// The checker's argv.
    pub command: Vec<String>,
    /// What went wrong.
    pub fault: Fault,
}

impl CheckerError {
    /// `fault` of the checker `spec` describes.
    pub fn new(spec: &CheckerSpec, fault: Fault) -> CheckerError {
        CheckerError {
            gate: spec.gate.clone(),
            command: spec.command.clone(),
            fault,
        }
    }
}

/// What went wrong with a checker as a whole.
#[derive(Debug, thiserror::Error)]
pub enum Fault {
    /// The checker could not be started (why).
    #[error("cannot start: {0}")]
    CannotStart(String),
    /// The scratch folder could not be made.
    #[error("cannot create a scratch folder: {0}")]
    Scratch(io::Error),
    /// A file of the scratch folder could not be written.
    #[error("{}: {source}", path.display())]
    Folder {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// One request went wrong.
    #[error("request id {id}: {why}")]
    Request {
        /// The request id.
        id: u64,
        /// What went wrong.
        why: RequestFault,
    },
    /// A worker thread panicked.
    #[error("a checker worker panicked")]
    Panicked,
    /// The checker ended with requests unanswered.
    #[error("it gave fewer answers than requests")]
    FewerAnswers,
}

/// What went wrong with one request.
#[derive(Debug, thiserror::Error)]
pub enum RequestFault {
    /// A line that is not an answer.
    #[error("not an answer ({error}): {line}")]
    NotAnAnswer {
        /// What is wrong.
        error: serde_json::Error,
        /// The line, shortened for a one-line message.
        line: String,
    },
    /// An answer for another request than the one due.
    #[error("answered id {got} where id {due} was due (answers must come in request order)")]
    OutOfOrder {
        /// The id answered.
        got: u64,
        /// The id due.
        due: u64,
    },
    /// An answer with neither `detected` nor `error`.
    #[error("an answer needs `detected` (or `error`)")]
    NoVerdict,
    /// An answer over the line limit.
    #[error("answer longer than {MAX_ANSWER_LINE} bytes")]
    TooLong,
    /// `status`: how it ended, or that its stdout closed.
    #[error("exited ({status})")]
    Exited {
        /// How it ended.
        status: String,
    },
    /// Its stdout could not be read (why).
    #[error("cannot read its stdout: {0}")]
    Unreadable(String),
    /// No answer in time (the time allowed).
    #[error("no answer within {0:?}")]
    NoAnswer(Duration),
    /// The request could not be written to it.
    #[error("cannot send the request: {0}")]
    Send(io::Error),
    /// It did not exit in time (exit-code mode; the time allowed).
    #[error("no exit within {0:?}")]
    NoExit(Duration),
    /// A payload file could not be written (exit-code mode).
    #[error("{}: {source}", path.display())]
    Payload {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The command could not be run (exit-code mode).
    #[error("cannot start {program:?}: {source}")]
    CannotRun {
        /// The program.
        program: String,
        /// The underlying error.
        source: io::Error,
    },
    /// Its exit could not be waited for.
    #[error("cannot wait for it: {0}")]
    Wait(io::Error),
}
