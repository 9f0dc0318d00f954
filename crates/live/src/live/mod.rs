//! The live half: talking to real MCP servers.
//!
//! One transport per kind of connection ([`stdio`]: a child process speaking line-delimited
//! JSON-RPC; [`http`]: Streamable HTTP), one JSON-RPC [`session`] over either, and [`capture`]:
//! `initialize`, `notifications/initialized`, then `tools/list` following `nextCursor`, with the
//! result bytes kept exactly as the server sent them. Nothing in `check/`, `mutate/` or `study/`
//! knows a payload came from a live server: a capture is read by [`driftlab_contract::payload`] like a file.

pub mod capture;
pub mod capture_file;
pub mod era;
pub mod flow;
pub mod http;
mod options;
pub(crate) mod process_tree;
pub mod redact;
pub mod session;
pub mod sse;
pub mod stdio;
use std::time::Duration;

use thiserror::Error;

pub use capture::{capture, capture_on, Capture};
pub use options::{CaptureOptions, ProtocolMode};
pub use session::Session;
pub use stdio::StdioTransport;

/// The protocol version offered in `initialize` unless the user picks another: the newest
/// version that still has an `initialize` handshake (2026-07-28 removed it).
pub const DEFAULT_PROTOCOL_VERSION: &str = "2025-11-25";

/// How long a server may take to answer one phase (spawn + initialize, or one tools/list page).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a server may take to exit after its stdin is closed before its process group is
/// killed.
/// How many tools/list pages a listing follows by default (`capture --max-pages`, and the
/// guard's own listings): an endless or looping cursor ends there.
pub const DEFAULT_MAX_PAGES: usize = 100;

/// How long a server whose stdin was closed may take to exit before its process group is
/// killed.
pub const GRACE_PERIOD: Duration = Duration::from_secs(2);

/// Why talking to a server failed. Each message is one line; the caller prefixes the server.
#[derive(Debug, Error)]
pub enum LiveError {
    /// The command is on no `PATH` entry (its name).
    #[error("command not found: {0}")]
    NotFound(String),
    /// The command could not be started.
    #[error("cannot start `{program}`: {message}")]
    Spawn {
        /// The program.
        program: String,
        /// The operating system's reason.
        message: String,
    },
    /// The server exited before it answered: how, and its last words first, since they say
    /// why (a missing module, a missing key), then what it had not answered.
    #[error("the server exited ({status}){stderr}; it had not answered {phase}")]
    Exited {
        /// The request it was to answer (`initialize`, `tools/list`, …).
        phase: String,
        /// How it exited (`exit code 1`, `killed by signal 9`).
        status: String,
        /// The last lines of the server's stderr, prefixed with "; its stderr ends: ", or
        /// " with nothing on stderr".
        stderr: String,
    },
    /// No answer in time.
    #[error("no answer to {phase} within {seconds} s (raise it with --timeout)")]
    Timeout {
        /// The request that went unanswered.
        phase: String,
        /// The time allowed.
        seconds: f64,
    },
    /// No answer in time, after the server wrote a line on stdout that is no message (a
    /// banner, a log line): the likelier reason than a slow server.
    #[error(
        "no answer to {phase} within {seconds} s, and the server wrote `{line}` on stdout, which \
         MCP reserves for messages: a server must log to stderr"
    )]
    NotMessages {
        /// The request that went unanswered.
        phase: String,
        /// The time allowed.
        seconds: f64,
        /// The first such line, made safe to print.
        line: String,
    },
    /// A line from the server is not a JSON-RPC message.
    #[error("malformed JSON from the server while waiting for {phase}: {message}: {excerpt}")]
    Malformed {
        /// The request being waited for.
        phase: String,
        /// What is wrong with the line.
        message: String,
        /// The start of the line, made safe to print.
        excerpt: String,
    },
    /// A message over the size limit.
    #[error(
        "a message from the server is over the {limit}-byte limit (raise it with --max-bytes)"
    )]
    TooLarge {
        /// The limit in bytes.
        limit: usize,
    },
    /// The server answered with a JSON-RPC error.
    #[error("{phase} failed: JSON-RPC error {code}: {message}")]
    Rpc {
        /// The request that failed.
        phase: String,
        /// The error's code.
        code: i64,
        /// The error's message, made safe to print.
        message: String,
    },
    /// The server broke the protocol (what it did).
    #[error("{0}")]
    Protocol(String),
    /// The HTTP server wants authorization.
    #[error("{url} answered {phase} with HTTP 401: it needs authorization{challenge}")]
    Unauthorized {
        /// The endpoint.
        url: String,
        /// The request refused.
        phase: String,
        /// The `WWW-Authenticate` challenge, prefixed with " (", or empty.
        challenge: String,
    },
    /// Any other HTTP failure (the client's message).
    #[error("HTTP: {0}")]
    Http(String),
    /// A request could not be written to the server.
    #[error("cannot send {phase} to the server: {message}")]
    Send {
        /// The request.
        phase: String,
        /// Why it could not be written.
        message: String,
    },
}

/// Where a live server is: a command to spawn, or a Streamable HTTP endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// argv of the server process; run directly, never through a shell.
    Command(Vec<String>),
    /// The endpoint URL and the extra request headers (`name`, `value`).
    Url {
        /// The endpoint's URL.
        url: String,
        /// Headers sent with every request (`name`, `value`).
        headers: Vec<(String, String)>,
    },
}

impl Target {
    /// A short human label, e.g. `live:npx -y server` or `live:http://127.0.0.1:3001/mcp`.
    pub fn label(&self) -> String {
        let text = match self {
            Target::Command(argv) => argv.join(" "),
            Target::Url { url, .. } => url.clone(),
        };
        format!("live:{}", driftlab_contract::text::shorten(&text, 80))
    }

    /// How a capture file records the server: `{"command": [argv…]}` or `{"url": …}` (headers
    /// are left out: they may hold credentials).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Target::Command(argv) => serde_json::json!({ "command": argv }),
            Target::Url { url, .. } => serde_json::json!({ "url": url }),
        }
    }
}

/// A connection to a server that carries JSON-RPC messages, one at a time, as raw bytes.
pub trait Transport {
    /// Sends one message (a JSON object, no trailing newline). `phase` names it in errors.
    fn send(&mut self, message: &[u8], phase: &str) -> Result<(), LiveError>;
    /// The next line or message from the server, waiting at most `timeout`. A line may be
    /// anything the server printed; the session decides what it is.
    fn recv(&mut self, timeout: Duration, phase: &str) -> Result<Vec<u8>, LiveError>;
    /// Told the negotiated protocol version once `initialize` succeeded (HTTP sends it as a
    /// header on later requests), or before `server/discover` (2026-07-28 sends it on every
    /// request).
    fn negotiated(&mut self, _protocol_version: &str) {}
    /// Forgets the version and any session: a `server/discover` probe failed and the legacy
    /// handshake starts afresh.
    fn forget_negotiated(&mut self) {}
    /// Ends the connection and releases every resource (for a process: close stdin, wait a grace
    /// period, kill the process group, reap). Safe to call twice.
    fn close(&mut self);
    /// How many bytes the server wrote to its stderr (stdio only).
    fn stderr_bytes(&self) -> u64 {
        0
    }
}

/// A boxed transport is a transport, so commands can pick stdio or HTTP at run time.
impl<T: Transport + ?Sized> Transport for Box<T> {
    fn send(&mut self, message: &[u8], phase: &str) -> Result<(), LiveError> {
        (**self).send(message, phase)
    }
    fn recv(&mut self, timeout: Duration, phase: &str) -> Result<Vec<u8>, LiveError> {
        (**self).recv(timeout, phase)
    }
    fn negotiated(&mut self, protocol_version: &str) {
        (**self).negotiated(protocol_version)
    }
    fn forget_negotiated(&mut self) {
        (**self).forget_negotiated()
    }
    fn close(&mut self) {
        (**self).close()
    }
    fn stderr_bytes(&self) -> u64 {
        (**self).stderr_bytes()
    }
}
