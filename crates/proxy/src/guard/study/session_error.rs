//! Why a session of the guard study failed: a file of its folder, or a server (which leg of the
//! cell it was on), each one line.

use std::fmt;
use std::io;

use thiserror::Error;

use driftlab_live::live::LiveError;

/// Why a session of a guard study failed.
#[derive(Debug, Error)]
pub enum SessionError {
    /// A file of the session could not be written or read.
    #[error("{path}: {error}")]
    File {
        /// The file.
        path: String,
        /// The underlying error.
        error: io::Error,
    },
    /// A server failed.
    #[error("server {server}{leg}: {error}")]
    Server {
        /// The server's name.
        server: String,
        /// Which of the cell's sessions.
        leg: Leg,
        /// Boxed: a LiveError is large and this error travels up through every `?`.
        error: Box<LiveError>,
    },
    /// A server's tools/list result is not JSON of the expected shape.
    #[error("server {server}: tools/list: {error}")]
    ToolsList {
        /// The server's name.
        server: String,
        /// What is wrong.
        error: serde_json::Error,
    },
    /// The spec names a tool the server does not list.
    #[error("server {server}: no tool {tool:?} in its tools/list")]
    NoSuchTool {
        /// The server's name.
        server: String,
        /// The tool's name.
        tool: String,
    },
    /// The proxy drifted another tool than the study placed the drift on.
    #[error(
        "server {server} drifted by {class}: the proxy drew {drawn:?}, the study placed {placed:?}"
    )]
    WrongDrift {
        /// The server's name.
        server: String,
        /// The class.
        class: &'static str,
        /// The tools the proxy's drift touched.
        drawn: Vec<String>,
        /// The tool the study placed the drift on.
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

    /// `error` on the file at `path`.
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
    Drifted {
        /// The class.
        class: &'static str,
    },
    /// The drifted server behind the guard in this mode.
    Guarded {
        /// The class.
        class: &'static str,
        /// The guard's `--on-drift`.
        mode: String,
    },
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
