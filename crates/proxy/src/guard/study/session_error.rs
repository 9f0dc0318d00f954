//! Why a session of the guard study failed: a file of its folder, or a server (which leg of the
//! cell it was on), each one line.

use std::fmt;
use std::io;

use thiserror::Error;

use crate::live::LiveError;

#[derive(Debug, Error)]
pub enum SessionError {
    #[error("{path}: {error}")]
    File { path: String, error: io::Error },
    #[error("server {server}{leg}: {error}")]
    Server {
        server: String,
        leg: Leg,
        /// Boxed: a LiveError is large and this error travels up through every `?`.
        error: Box<LiveError>,
    },
    #[error("server {server}: tools/list: {error}")]
    ToolsList {
        server: String,
        error: serde_json::Error,
    },
    #[error("server {server}: no tool {tool:?} in its tools/list")]
    NoSuchTool { server: String, tool: String },
    #[error(
        "server {server} drifted by {class}: the proxy drew {drawn:?}, the study placed {placed:?}"
    )]
    WrongDrift {
        server: String,
        class: &'static str,
        drawn: Vec<String>,
        placed: String,
    },
}

impl SessionError {
    /// `server` failed on `leg` of a cell.
    pub fn server(server: &str, leg: Leg) -> impl FnOnce(LiveError) -> Self {
        let server = server.to_string();
        move |error| SessionError::Server {
            server,
            leg,
            error: Box::new(error),
        }
    }

    pub fn file(path: &std::path::Path, error: io::Error) -> Self {
        SessionError::File {
            path: path.display().to_string(),
            error,
        }
    }
}

/// Which of a cell's sessions a server failed in.
#[derive(Debug)]
pub enum Leg {
    /// The undrifted server (the pin and the controls).
    Plain,
    /// The drifted server, called straight.
    Drifted { class: &'static str },
    /// The drifted server behind the guard in this mode.
    Guarded { class: &'static str, mode: String },
}

impl fmt::Display for Leg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Leg::Plain => Ok(()),
            Leg::Drifted { class } => write!(f, " drifted by {class}"),
            Leg::Guarded { class, mode } => {
                write!(f, " drifted by {class} behind the guard ({mode})")
            }
        }
    }
}
