//! One session of the guard study: start a server command in a fresh folder, initialize, list
//! the tools, send calls one at a time and record how each ended.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use driftlab_contract::payload::DEFAULT_MAX_BYTES;
use driftlab_live::live::stdio::{Launch, StdioTransport};
use driftlab_live::live::{
    capture_on, CaptureOptions, LiveError, Session, DEFAULT_PROTOCOL_VERSION,
};

use super::SessionError;

/// How one call ended, as the client saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A result without `isError: true`.
    Success,
    /// A result with `isError: true`.
    ToolError,
    /// A JSON-RPC error with this code.
    RpcError(i64),
    /// No answer within the timeout.
    Timeout,
    /// The server (or a proxy in front of it) exited.
    Crash,
    /// Anything else: malformed answers, send failures.
    Broken,
}

impl Outcome {
    /// How `calls.csv` spells it (`success`, `jsonrpc-error -32602`, …).
    pub fn as_string(&self) -> String {
        match self {
            Outcome::Success => "success".into(),
            Outcome::ToolError => "tool-error".into(),
            Outcome::RpcError(code) => format!("jsonrpc-error {code}"),
            Outcome::Timeout => "timeout".into(),
            Outcome::Crash => "crash".into(),
            Outcome::Broken => "broken".into(),
        }
    }
}

/// A call to send: the tool's name and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The tool's name.
    pub tool: String,
    /// The `arguments` object.
    pub arguments: Value,
}

/// What a session produced: the tools/list result bytes, each call's outcome and its
/// JSON-RPC id (the session numbers requests from 1: initialize, tools/list, then the calls),
/// and each call's answer: the result, `{"code", "message"}` of an error, or null.
pub struct SessionRun {
    /// The tools/list result, exactly as sent.
    pub tools_list: Vec<u8>,
    /// Each call's JSON-RPC id and outcome, in call order.
    pub outcomes: Vec<(u64, Outcome)>,
    /// Each call's answer, in call order.
    pub answers: Vec<Value>,
}

/// Runs `argv` in folder `cwd` with `env` added, lists its tools and sends `calls`.
pub fn run_session(
    argv: &[String],
    cwd: &Path,
    env: &[(String, String)],
    calls: &[Call],
    timeout: Duration,
) -> Result<SessionRun, LiveError> {
    let launch = Launch {
        dir: Some(cwd.to_path_buf()),
        env: env.to_vec(),
    };
    let transport = StdioTransport::spawn_in(argv, DEFAULT_MAX_BYTES, None, &launch)?;
    let mut session = Session::new(transport);
    let options = CaptureOptions {
        protocol_version: DEFAULT_PROTOCOL_VERSION.into(),
        client_capabilities: json!({}),
        timeout,
        max_pages: 1,
        max_bytes: DEFAULT_MAX_BYTES,
        whole_contract: false,
        // The committed results were captured with the handshake; keep them reproducible.
        protocol: driftlab_live::live::ProtocolMode::Legacy,
    };
    let capture = match capture_on(&mut session, &options) {
        Ok(capture) => capture,
        Err(e) => {
            session.close();
            return Err(e);
        }
    };
    let mut outcomes = Vec::with_capacity(calls.len());
    let mut answers = Vec::with_capacity(calls.len());
    // initialize and tools/list took ids 1 and 2.
    let mut id = 2;
    let mut crashed = false;
    for call in calls {
        id += 1;
        if crashed {
            outcomes.push((id, Outcome::Crash));
            answers.push(Value::Null);
            continue;
        }
        let params = json!({"name": call.tool, "arguments": call.arguments});
        let mut answer = Value::Null;
        let outcome = match session.request("tools/call", &params, timeout, "tools/call") {
            Ok(raw) => match serde_json::from_str::<Value>(raw.get()) {
                Ok(result) => {
                    let is_error = result.get("isError") == Some(&Value::Bool(true));
                    answer = result;
                    if is_error {
                        Outcome::ToolError
                    } else {
                        Outcome::Success
                    }
                }
                Err(_) => Outcome::Broken,
            },
            Err(LiveError::Rpc { code, message, .. }) => {
                answer = json!({"code": code, "message": message});
                Outcome::RpcError(code)
            }
            Err(LiveError::Timeout { .. }) => Outcome::Timeout,
            Err(LiveError::Exited { .. }) => Outcome::Crash,
            Err(_) => Outcome::Broken,
        };
        answers.push(answer);
        // After a timeout the answer may still come; a new session is the only clean state.
        crashed = matches!(outcome, Outcome::Crash | Outcome::Timeout);
        outcomes.push((id, outcome));
    }
    session.close();
    Ok(SessionRun {
        tools_list: capture.tools_list_bytes(),
        outcomes,
        answers,
    })
}

/// The JSON lines of a log file that pass `filter`, by their numeric `id`.
pub(crate) fn log_by_id(path: &Path, filter: impl Fn(&Value) -> bool) -> HashMap<u64, Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| filter(entry))
        .filter_map(|entry| Some((entry.get("id")?.as_u64()?, entry)))
        .collect()
}

/// A fresh, empty folder for one session under `root`.
pub fn fresh_dir(root: &Path, name: &str) -> Result<PathBuf, SessionError> {
    let dir = root.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| SessionError::file(&dir, e))?;
    Ok(dir)
}
