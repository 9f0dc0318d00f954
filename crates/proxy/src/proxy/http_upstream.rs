//! A Streamable HTTP server as the proxy's upstream: the proxy writes lines and reads lines, as
//! it does with a stdio server, and a bridge turns each line into a POST and each message of
//! the answer (a JSON body or an SSE stream) into a line.
//!
//! Both eras: until 2025-11-25 the bridge keeps the `Mcp-Session-Id` the server gives with its
//! answer to `initialize` and sends the negotiated `MCP-Protocol-Version` after it; a 2026-07-28
//! request carries its version in `params._meta`, and the bridge sends that as the header. A
//! request is posted on a thread of its own (a long `tools/call` holds no one else up, and a
//! server may ask the client something while a stream is open); `initialize`, notifications
//! and responses are posted in order. After `initialize`, the server's own stream (a GET) is
//! opened where the server offers one, so its notifications reach the client too.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use driftlab_live::live::http::{self, read_event_stream, StreamError};
use driftlab_live::live::redact;

/// Where the server is and what every request to it carries.
#[derive(Debug, Clone)]
pub struct HttpUpstream {
    /// The endpoint's URL.
    pub url: String,
    /// Sent with every request (e.g. authorization), as given.
    pub headers: Vec<(String, String)>,
    /// Bounds each POST, its answer included.
    pub timeout: Duration,
}

/// The running bridge.
pub struct Bridge {
    shared: Arc<Shared>,
}

struct Shared {
    upstream: HttpUpstream,
    agent: ureq::Agent,
    max_message: usize,
    session_id: Mutex<Option<String>>,
    negotiated: Mutex<Option<String>>,
    /// The server's "stdout", one message a line; taken (closed) when the bridge ends.
    out: Mutex<Option<mpsc::SyncSender<Vec<u8>>>>,
    in_flight: Mutex<usize>,
    settled: Condvar,
    stopped: AtomicBool,
}

/// Lines held for the proxy before the bridge waits for it to read (each at most a message).
const HELD_LINES: usize = 16;

/// Starts the bridge: the proxy writes the client's lines to the returned writer and reads the
/// server's from the returned reader, which ends when the writer is closed and every request
/// in flight is answered (or timed out).
pub fn spawn(upstream: HttpUpstream, max_message: usize) -> (Bridge, LineSource, LineSink) {
    let (writer, reader) = mpsc::sync_channel(HELD_LINES);
    let shared = Arc::new(Shared {
        agent: http::agent(Some(upstream.timeout)),
        upstream,
        max_message,
        session_id: Mutex::new(None),
        negotiated: Mutex::new(None),
        out: Mutex::new(Some(writer)),
        in_flight: Mutex::new(0),
        settled: Condvar::new(),
        stopped: AtomicBool::new(false),
    });
    let (tx, lines) = mpsc::channel::<Vec<u8>>();
    let bridge = Arc::clone(&shared);
    std::thread::spawn(move || {
        for line in lines {
            if bridge.stopped.load(Ordering::SeqCst) {
                break;
            }
            bridge.forward(line);
        }
        bridge.finish();
    });
    (
        Bridge { shared },
        LineSource {
            lines: reader,
            line: Vec::new(),
            at: 0,
        },
        LineSink {
            tx,
            partial: Vec::new(),
        },
    )
}

impl Bridge {
    /// Stops posting and ends the server's side at once.
    pub fn stop(&self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        self.shared
            .out
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
    }

    /// How the session ended, for the proxy's report.
    pub(crate) fn describe_end(&self) -> String {
        format!(
            "the HTTP session with {} ended",
            redact::shown_url(&self.shared.upstream.url)
        )
    }
}

/// The bridge's input as a `Write`: each newline-terminated line is handed to the bridge.
pub struct LineSink {
    tx: mpsc::Sender<Vec<u8>>,
    partial: Vec<u8>,
}

impl Write for LineSink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.partial.extend_from_slice(bytes);
        while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
            let mut line: Vec<u8> = self.partial.drain(..=end).collect();
            line.pop();
            self.tx
                .send(line)
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the bridge ended"))?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The bridge's output as a `Read`: the server's messages, a line each; it ends when the
/// bridge does.
pub struct LineSource {
    lines: mpsc::Receiver<Vec<u8>>,
    line: Vec<u8>,
    at: usize,
}

impl Read for LineSource {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.line.len() {
            match self.lines.recv() {
                Ok(line) => (self.line, self.at) = (line, 0),
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.line.len() - self.at);
        buf[..n].copy_from_slice(&self.line[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// What the bridge reads of a message to route it.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<Value>,
}

/// The id of a JSON-RPC message, parsed (so `1` and ` 1` are one id).
fn response_id(message: &[u8]) -> Option<Value> {
    let head = serde_json::from_slice::<Head>(message).ok()?;
    serde_json::from_str(head.id?.get()).ok()
}

const META_VERSION: &str = "/_meta/io.modelcontextprotocol~1protocolVersion";

impl Shared {
    fn forward(self: &Arc<Self>, line: Vec<u8>) {
        let head = serde_json::from_slice::<Head>(&line).ok();
        let (id, method, version) = match &head {
            Some(h) => (
                h.id.map(|id| id.get().to_string()),
                h.method.clone(),
                h.params
                    .as_ref()
                    .and_then(|p| p.pointer(META_VERSION))
                    .and_then(Value::as_str)
                    .map(str::to_string),
            ),
            None => (None, None, None),
        };
        match (&id, method.as_deref()) {
            (Some(_), Some("initialize")) => self.exchange(&line, id.as_deref(), version, true),
            (Some(_), Some(_)) => {
                *self.in_flight.lock().unwrap_or_else(|e| e.into_inner()) += 1;
                let shared = Arc::clone(self);
                std::thread::spawn(move || {
                    shared.exchange(&line, id.as_deref(), version, false);
                    let mut count = shared.in_flight.lock().unwrap_or_else(|e| e.into_inner());
                    *count -= 1;
                    shared.settled.notify_all();
                });
            }
            // Notifications, responses and lines that are not JSON-RPC: posted in order.
            _ => self.exchange(&line, None, version, false),
        }
    }

    /// Posts one message and hands every message of the answer to the client. A request that
    /// fails gets a JSON-RPC error with its id (the client would otherwise wait for ever); any
    /// other failure is said on stderr, as a stdio server's would be. Neither shows the URL's
    /// userinfo or query values, nor any header value.
    fn exchange(
        self: &Arc<Self>,
        line: &[u8],
        id: Option<&str>,
        version: Option<String>,
        initialize: bool,
    ) {
        if let Err(why) = self.post(line, id, version, initialize) {
            let why = redact::redact(&why, &self.upstream.url, &self.upstream.headers);
            match id {
                Some(id) => {
                    let error = serde_json::json!({
                        "code": -32603,
                        "message": format!("driftlab: {why}"),
                    });
                    self.emit(
                        format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#).as_bytes(),
                    );
                }
                None => eprintln!("driftlab: {why}"),
            }
        }
    }

    fn post(
        self: &Arc<Self>,
        line: &[u8],
        id: Option<&str>,
        version: Option<String>,
        initialize: bool,
    ) -> Result<(), String> {
        let url = &self.upstream.url;
        let session = self
            .session_id
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let version = version.or_else(|| {
            self.negotiated
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
        });
        let mut response = http::post(
            &self.agent,
            url,
            &self.upstream.headers,
            session.as_deref(),
            version.as_deref(),
        )
        .send(line)
        .map_err(|e| format!("{url}: {e}"))?;
        let status = response.status().as_u16();
        let header = |name: &str| http::header(&response, name);
        if initialize {
            if let Some(id) = header("mcp-session-id") {
                *self.session_id.lock().unwrap_or_else(|e| e.into_inner()) = Some(id);
            }
        }
        let content_type = header("content-type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        if !(200..300).contains(&status) {
            let hint = match status {
                401 => " (the server wants authorization: give it with --header)",
                300..=399 => " (driftlab follows no redirect: give the final URL)",
                _ => "",
            };
            return Err(format!(
                "{url} answered HTTP {status}{hint}: {}",
                http::body_excerpt(&mut response)
            ));
        }
        let limit = self.max_message as u64;
        let body = response.body_mut().with_config().limit(limit);
        let mut answers = Vec::new();
        if content_type.starts_with("text/event-stream") {
            // The stream ends with the answer to this request: a response to another id (a
            // server may send one on any stream) is passed on, and the read goes on.
            let ours: Option<Value> = id.and_then(|id| serde_json::from_str(id).ok());
            read_event_stream(body.reader(), self.max_message, |message| {
                let done = http::is_response(&message)
                    && (ours.is_none() || response_id(&message) == ours);
                if initialize {
                    answers.push(message);
                } else {
                    self.emit(&message);
                }
                !done
            })
            .map_err(|e| match e {
                StreamError::TooLarge => format!(
                    "{url} sent a message over the {}-byte limit",
                    self.max_message
                ),
                StreamError::Read(e) => format!("{url}: reading the event stream: {e}"),
            })?;
        } else {
            let bytes = body.read_to_vec().map_err(|e| format!("{url}: {e}"))?;
            if !bytes.trim_ascii().is_empty() {
                answers.push(bytes);
            }
        }
        for answer in answers {
            if initialize {
                self.negotiate(&answer);
            }
            self.emit(&answer);
        }
        if initialize && session.is_none() {
            self.open_server_stream();
        }
        Ok(())
    }

    /// Keeps the protocol version the server chose in its answer to `initialize`.
    fn negotiate(&self, answer: &[u8]) {
        let chosen = serde_json::from_slice::<Value>(answer).ok().and_then(|v| {
            v.pointer("/result/protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
        if let Some(version) = chosen {
            *self.negotiated.lock().unwrap_or_else(|e| e.into_inner()) = Some(version);
        }
    }

    /// Opens the server's own event stream (a GET), if it offers one, on a thread of its own:
    /// its notifications (`tools/list_changed`) and requests reach the client like the rest.
    fn open_server_stream(self: &Arc<Self>) {
        let Some(session) = self
            .session_id
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
        else {
            return;
        };
        let shared = Arc::clone(self);
        std::thread::spawn(move || {
            // The stream stays open as long as the session: no overall timeout.
            let agent = http::agent(None);
            let version = shared
                .negotiated
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
            let request = http::with_session(
                agent
                    .get(&shared.upstream.url)
                    .header("Accept", "text/event-stream"),
                &shared.upstream.headers,
                Some(&session),
                version.as_deref(),
            );
            let Ok(mut response) = request.call() else {
                return;
            };
            let streams = http::header(&response, "content-type")
                .is_some_and(|t| t.to_ascii_lowercase().starts_with("text/event-stream"));
            // 405 is how a server says it offers no stream of its own.
            if response.status().as_u16() != 200 || !streams {
                return;
            }
            let reader = response.body_mut().with_config().limit(u64::MAX).reader();
            let _ = read_event_stream(reader, shared.max_message, |message| {
                shared.emit(&message);
                !shared.stopped.load(Ordering::SeqCst)
            });
        });
    }

    /// Hands one message to the client as one line: a raw line break in JSON can only be
    /// whitespace between tokens (inside a string it must be escaped), so it becomes a space.
    fn emit(&self, message: &[u8]) {
        let mut line: Vec<u8> = message
            .iter()
            .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
            .collect();
        line.push(b'\n');
        // Sent outside the lock: a full queue waits for the proxy, not for the other senders.
        let out = self.out.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(out) = out {
            if out.send(line).is_err() {
                // The proxy stopped reading: nothing more can reach the client.
                self.out.lock().unwrap_or_else(|e| e.into_inner()).take();
            }
        }
    }

    /// The client hung up: let the requests in flight finish (each within the timeout), end
    /// the server's session, and close the server's side.
    fn finish(&self) {
        let deadline = Instant::now() + self.upstream.timeout;
        let mut count = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        while *count > 0 && !self.stopped.load(Ordering::SeqCst) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            count = self
                .settled
                .wait_timeout(count, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        drop(count);
        let session = self
            .session_id
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(id) = session {
            // With the user's headers (its authorization) like every other request. A server
            // that does not end sessions on request answers 405; either way it is done.
            let version = self
                .negotiated
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone();
            let _ = http::with_session(
                self.agent.delete(&self.upstream.url),
                &self.upstream.headers,
                Some(&id),
                version.as_deref(),
            )
            .call();
        }
        self.out.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}
