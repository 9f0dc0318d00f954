//! A JSON-RPC 2.0 client session over any [`Transport`].
//!
//! It numbers requests, waits for the matching response, and meanwhile answers what the server
//! asks (`ping` → `{}`, `roots/list` → no roots, anything else → −32601) so a server never stalls
//! waiting for its client. Notifications and lines that are not JSON (some servers log to stdout)
//! are recorded, a bounded number of them, never mixed into results. A result is returned as the
//! exact bytes the server sent ([`RawValue`]).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::{LiveError, Transport};
use driftlab_contract::text::{excerpt, shorten};

/// At most this many notifications, server requests and non-JSON lines are recorded (each kind).
const MAX_RECORDED: usize = 100;

/// What the server said besides the responses we waited for.
#[derive(Debug, Default, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Observed {
    /// Notifications and requests the server sent, in order: `{kind, method}`.
    #[serde(rename = "serverMessagesDuringCapture")]
    pub server_messages: Vec<ServerMessage>,
    /// Lines on stdout that were not JSON (each cut to 200 characters).
    pub stdout_non_json_lines: Vec<String>,
    /// Messages and lines seen but not recorded because a list was full.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_recorded: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
/// A message the server sent on its own (not an answer): a notification or a request.
pub struct ServerMessage {
    /// `notification` or `request`.
    pub kind: &'static str,
    /// Its method.
    pub method: String,
    /// For requests: what we answered (`result` or the error code).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered: Option<String>,
}

/// One incoming message; only the fields the session routes on are parsed.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    result: Option<Box<RawValue>>,
    #[serde(default)]
    error: Option<Value>,
}

/// A JSON-RPC session with one server over a transport: numbered requests, answers matched by
/// id, the server's own messages answered and recorded.
pub struct Session<T: Transport> {
    transport: T,
    next_id: u64,
    /// What the server did besides answering.
    pub observed: Observed,
    /// Members every request's `params._meta` carries (2026-07-28: the protocol version and the
    /// client capabilities travel with each request).
    request_meta: Option<serde_json::Map<String, Value>>,
}

impl<T: Transport> Session<T> {
    /// A session over `transport`, before `initialize`.
    pub fn new(transport: T) -> Session<T> {
        Session {
            transport,
            next_id: 1,
            observed: Observed::default(),
            request_meta: None,
        }
    }

    /// From now on every request's `params._meta` carries these members (a member the caller
    /// set itself is kept); `None` stops it.
    pub(crate) fn set_request_meta(&mut self, meta: Option<serde_json::Map<String, Value>>) {
        self.request_meta = meta;
    }

    /// The transport underneath.
    pub fn transport(&mut self) -> &mut T {
        &mut self.transport
    }

    /// Sends a request and returns the bytes of its `result`, waiting at most `timeout` for any
    /// one message. `phase` names the request in errors.
    pub fn request(
        &mut self,
        method: &str,
        params: &Value,
        timeout: Duration,
        phase: &str,
    ) -> Result<Box<RawValue>, LiveError> {
        let id = self.next_id;
        self.next_id += 1;
        let params = self.with_meta(params);
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.transport.send(message.to_string().as_bytes(), phase)?;
        let want = id.to_string();
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return Err(self.timed_out(phase, timeout));
            }
            let line = self.transport.recv(left, phase).map_err(|e| match e {
                // Name the whole phase's budget, not what was left of it.
                LiveError::Timeout { phase, .. } => self.timed_out(&phase, timeout),
                other => other,
            })?;
            if let Some(result) = self.route(&line, &want, phase)? {
                return Ok(result);
            }
        }
    }

    /// Why `phase` got no answer within `timeout`: a line on stdout that is no message, if the
    /// server wrote one (a banner makes a server look slow), else the time.
    fn timed_out(&self, phase: &str, timeout: Duration) -> LiveError {
        let seconds = timeout.as_secs_f64();
        match self.observed.stdout_non_json_lines.first() {
            Some(line) => LiveError::NotMessages {
                phase: phase.into(),
                seconds,
                line: line.clone(),
            },
            None => LiveError::Timeout {
                phase: phase.into(),
                seconds,
            },
        }
    }

    /// `params` with the session's request meta merged into its `_meta`.
    fn with_meta(&self, params: &Value) -> Value {
        let (Some(meta), Value::Object(map)) = (&self.request_meta, params) else {
            return params.clone();
        };
        let mut map = map.clone();
        let slot = map
            .entry("_meta")
            .or_insert_with(|| Value::Object(Default::default()));
        if let Value::Object(existing) = slot {
            for (k, v) in meta {
                existing.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        Value::Object(map)
    }

    /// Sends a notification (no answer expected).
    pub(crate) fn notify(&mut self, method: &str, phase: &str) -> Result<(), LiveError> {
        let message = json!({"jsonrpc": "2.0", "method": method});
        self.transport.send(message.to_string().as_bytes(), phase)
    }

    /// Handles one incoming line; returns the result when it is the response to `want`.
    fn route(
        &mut self,
        line: &[u8],
        want: &str,
        phase: &str,
    ) -> Result<Option<Box<RawValue>>, LiveError> {
        let trimmed = line.trim_ascii();
        if trimmed.is_empty() {
            return Ok(None);
        }
        if trimmed[0] != b'{' {
            if !trimmed.starts_with(b"[") {
                self.record_non_json(trimmed);
                return Ok(None);
            }
            return Err(LiveError::Malformed {
                phase: phase.into(),
                message: "expected a JSON-RPC message object, found an array (batches are not \
                          supported)"
                    .into(),
                excerpt: excerpt(trimmed, 80),
            });
        }
        let envelope: Envelope = serde_json::from_slice(trimmed).map_err(|e| {
            let message = e.to_string();
            let message = message
                .rfind(" at line ")
                .map_or(message.as_str(), |cut| &message[..cut]);
            LiveError::Malformed {
                phase: phase.into(),
                message: format!("{message} at column {}", e.column()),
                excerpt: excerpt(trimmed, 80),
            }
        })?;
        if let Some(method) = envelope.method {
            match envelope.id {
                Some(id) => self.answer(id, method, phase)?,
                None => self.record(ServerMessage {
                    kind: "notification",
                    method,
                    answered: None,
                }),
            }
            return Ok(None);
        }
        if envelope.id.map(RawValue::get) != Some(want) {
            // A response to nothing we are waiting for (e.g. a late one): nothing to do.
            return Ok(None);
        }
        if let Some(error) = envelope.error {
            return Err(LiveError::Rpc {
                phase: phase.into(),
                code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: shorten(
                    error.get("message").and_then(Value::as_str).unwrap_or(""),
                    200,
                ),
            });
        }
        match envelope.result {
            Some(result) => Ok(Some(result)),
            None => Err(LiveError::Protocol(format!(
                "the response to {phase} has neither `result` nor `error`"
            ))),
        }
    }

    /// Answers a server-to-client request so the server never waits on us.
    fn answer(&mut self, id: &RawValue, method: String, phase: &str) -> Result<(), LiveError> {
        let (body, answered) = match method.as_str() {
            "ping" => (r#""result":{}"#.to_string(), "result".to_string()),
            "roots/list" => (r#""result":{"roots":[]}"#.to_string(), "result".to_string()),
            _ => (
                r#""error":{"code":-32601,"message":"Method not found: driftlab declares no client capabilities for it"}"#
                    .to_string(),
                "-32601".to_string(),
            ),
        };
        let reply = format!(r#"{{"jsonrpc":"2.0","id":{},{body}}}"#, id.get());
        self.record(ServerMessage {
            kind: "request",
            method,
            answered: Some(answered),
        });
        self.transport.send(reply.as_bytes(), phase)
    }

    fn record(&mut self, message: ServerMessage) {
        if self.observed.server_messages.len() < MAX_RECORDED {
            self.observed.server_messages.push(message);
        } else {
            self.observed.not_recorded += 1;
        }
    }

    fn record_non_json(&mut self, line: &[u8]) {
        if self.observed.stdout_non_json_lines.len() < MAX_RECORDED {
            self.observed.stdout_non_json_lines.push(excerpt(line, 200));
        } else {
            self.observed.not_recorded += 1;
        }
    }

    /// Closes the transport.
    pub fn close(&mut self) {
        self.transport.close();
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;

    /// A transport that replays scripted lines and keeps what was sent.
    #[derive(Default)]
    struct Script {
        incoming: VecDeque<Vec<u8>>,
        sent: Vec<String>,
    }

    impl Transport for Script {
        fn send(&mut self, message: &[u8], _phase: &str) -> Result<(), LiveError> {
            self.sent.push(String::from_utf8(message.to_vec()).unwrap());
            Ok(())
        }
        fn recv(&mut self, timeout: Duration, phase: &str) -> Result<Vec<u8>, LiveError> {
            self.incoming.pop_front().ok_or(LiveError::Timeout {
                phase: phase.into(),
                seconds: timeout.as_secs_f64(),
            })
        }
        fn close(&mut self) {}
    }

    fn session(lines: &[&str]) -> Session<Script> {
        Session::new(Script {
            incoming: lines.iter().map(|l| l.as_bytes().to_vec()).collect(),
            sent: Vec::new(),
        })
    }

    const T: Duration = Duration::from_secs(1);

    #[test]
    fn result_bytes_are_kept_exactly() {
        let mut s = session(&[r#"{"jsonrpc":"2.0","id":1,"result":{"b":-1e2, "a" : [1.50]}}"#]);
        let result = s
            .request("tools/list", &json!({}), T, "tools/list")
            .unwrap();
        assert_eq!(result.get(), r#"{"b":-1e2, "a" : [1.50]}"#);
    }

    #[test]
    fn server_requests_are_answered_and_everything_else_recorded() {
        let mut s = session(&[
            "Server running on stdio",
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":"s1","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"roots/list"}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"sampling/createMessage","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"ok":true}}"#,
        ]);
        let result = s
            .request("initialize", &json!({}), T, "initialize")
            .unwrap();
        assert_eq!(result.get(), r#"{"ok":true}"#);
        let sent = &s.transport().sent;
        assert_eq!(sent[1], r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#);
        assert_eq!(sent[2], r#"{"jsonrpc":"2.0","id":7,"result":{"roots":[]}}"#);
        assert!(sent[3].starts_with(r#"{"jsonrpc":"2.0","id":8,"error":{"code":-32601"#));
        assert_eq!(
            s.observed.stdout_non_json_lines,
            ["Server running on stdio"]
        );
        let methods: Vec<_> = s
            .observed
            .server_messages
            .iter()
            .map(|m| m.method.as_str())
            .collect();
        assert_eq!(
            methods,
            [
                "notifications/message",
                "ping",
                "roots/list",
                "sampling/createMessage"
            ]
        );
    }

    #[test]
    fn errors_are_one_line_and_name_the_phase() {
        let mut s = session(&[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad\nversion"}}"#,
        ]);
        let e = s
            .request("initialize", &json!({}), T, "initialize")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "initialize failed: JSON-RPC error -32602: bad\\u{a}version"
        );
        let mut s = session(&[r#"{"jsonrpc":"2.0","id":1,"result":{"#]);
        let e = s
            .request("tools/list", &json!({}), T, "tools/list")
            .unwrap_err();
        assert!(
            e.to_string().starts_with(
                "malformed JSON from the server while waiting for tools/list: EOF while parsing"
            ),
            "{e}"
        );
        let mut s = session(&[r#"{"jsonrpc":"2.0","id":1}"#]);
        let e = s
            .request("tools/list", &json!({}), T, "tools/list")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the response to tools/list has neither `result` nor `error`"
        );
        let mut s = session(&[]);
        let e = s
            .request("tools/list", &json!({}), T, "tools/list")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "no answer to tools/list within 1 s (raise it with --timeout)"
        );
    }
}
