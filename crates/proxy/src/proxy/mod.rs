//! A stdio MCP proxy: the client talks to driftlab on stdin/stdout, driftlab runs the server and
//! talks to it. Every message passes through [`Hooks`], which may forward it (byte for byte, the
//! default), replace, delay or drop it, answer the client itself, or crash the server. `wrap`
//! (faults and drift) and `guard` (admission) are sets of hooks on this one loop.
//!
//! One thread reads each side into lines and one writes to each side; the loop handles one
//! message at a time, reading it strictly once ([`driftlab_contract::jsonrpc`]), so hooks see the messages in
//! the order they arrived and their decisions depend only on that order.

pub(crate) mod drifted_server;
pub mod http_upstream;
mod upstream;
pub mod wrap;

pub use upstream::Upstream;

use std::collections::HashMap;
use std::io;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use driftlab_contract::jsonrpc::{self, Profile, Refusal};
use driftlab_live::live::flow::{Budget, Credit, Writer};
use driftlab_live::live::stdio::{read_lines_with, StdoutEvent};
use driftlab_live::live::{LiveError, GRACE_PERIOD};

/// What to do with one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Send the original bytes on.
    Forward,
    /// Send these bytes instead (one line, without the newline).
    Replace(Vec<u8>),
    /// Send nothing.
    Drop,
    /// Send these bytes (or the original, for `None`) after a delay; later messages are not held.
    Delay(Duration, Option<Vec<u8>>),
    /// From the client only: do not forward; send these bytes to the client instead.
    Answer(Vec<u8>),
    /// Kill the server's process group; the message is dropped.
    CrashServer,
}

/// One message as the hooks see it.
#[derive(Debug)]
pub struct Message<'a> {
    /// The exact line, without its newline.
    pub bytes: &'a [u8],
    /// The JSON-RPC id, if any: in canonical JSON (`7`, `"a"`) when the line passed the strict
    /// reading, else as a lenient parser spelled it.
    pub id: Option<String>,
    /// A request's or notification's method; for a response, the method of the request it
    /// answers (from the client's request with the same id).
    pub method: Option<String>,
    /// Whether this is a response (an id and no method).
    pub is_response: bool,
    /// Whether its id is one of a request in flight at the server (sent on, not yet answered):
    /// for a client request, its id is already taken; for a server response, it answers that
    /// request (otherwise it answers nothing anyone asked).
    pub pending: bool,
    /// The strict reading ([`jsonrpc::read`]): the value every parser reads from the line, or
    /// why the line failed it. Hooks act on this value, never on a reading of their own.
    pub reading: Result<Value, Refusal>,
}

/// A raw JSON-RPC id (as in [`Message::id`]) as a JSON value, for logs; `null` when absent.
pub(crate) fn id_json(raw: Option<&str>) -> Value {
    raw.and_then(|id| serde_json::from_str(id).ok())
        .unwrap_or(Value::Null)
}

/// What the proxy loop asks about each message; every method has a default that forwards.
pub trait Hooks {
    /// What to do with a message from the client.
    fn on_client(&mut self, _message: &Message<'_>) -> Action {
        Action::Forward
    }
    /// What to do with a message from the server.
    fn on_server(&mut self, _message: &Message<'_>) -> Action {
        Action::Forward
    }
    /// Messages the hooks want sent (after the message being handled), e.g. the guard's own
    /// `tools/list` to the server, or its answer to a call it held.
    fn injections(&mut self) -> Vec<(Side, Vec<u8>)> {
        Vec::new()
    }
    /// When the hooks next want [`on_time`](Hooks::on_time) called, if ever (e.g. the guard's
    /// deadline for its own listing).
    fn next_deadline(&self) -> Option<Instant> {
        None
    }
    /// Called once a deadline from [`next_deadline`](Hooks::next_deadline) has passed; may
    /// leave injections.
    fn on_time(&mut self, _now: Instant) {}
}

/// Which way an injected message goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// To the server.
    Server,
    /// To the client.
    Client,
}

/// How the proxy ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyEnd {
    /// The server's exit, e.g. `exit code 0` or `killed by signal 9`.
    pub server: String,
    /// Whether the client closed its side first.
    pub client_hung_up: bool,
    /// Whether the proxy killed the server (a crash fault). The client may then hang up before
    /// the server's end is read, so this, not `client_hung_up`, says the server ended.
    pub crashed: bool,
    /// Why the session could not go on, when something broke it (a line over the limit, a read
    /// that failed); the client was told.
    pub failure: Option<String>,
}

impl ProxyEnd {
    /// Whether the server's end is news for the user: it ended while the client was still
    /// there, or the proxy killed it.
    pub fn server_ended(&self) -> bool {
        !self.client_hung_up || self.crashed
    }
}

enum Event {
    Client(StdoutEvent, Credit),
    Server(StdoutEvent, Credit),
    /// Writing to the client failed: it stopped reading for good.
    ClientGone,
}

/// Starts `upstream` (runs its command, or opens the bridge to its URL) and proxies between it
/// and this process's stdin/stdout until the server's side closes (after the client hung up, or
/// on its own). A command's stderr passes through to ours. Each direction is written by a thread of its own and bounded to about
/// `max_line` bytes in flight ([`driftlab_live::live::flow`]), so neither peer can block the other
/// through the proxy or grow its memory.
pub fn run(
    upstream: &Upstream,
    hooks: &mut dyn Hooks,
    max_line: usize,
) -> Result<ProxyEnd, LiveError> {
    let (mut server, (server_out, server_in)) = upstream::start(upstream, max_line)?;
    let (tx, events) = mpsc::channel::<Event>();
    spawn_reader(
        io::stdin(),
        max_line,
        Budget::new(max_line),
        tx.clone(),
        Event::Client,
    );
    spawn_reader(
        server_out,
        max_line,
        Budget::new(max_line),
        tx.clone(),
        Event::Server,
    );
    // A server that stopped reading has exited or is about to: its stdout closing ends the loop.
    let mut to_server = Writer::spawn(server_in, |_| {});
    let to_client = Writer::spawn(io::stdout(), move |_| {
        let _ = tx.send(Event::ClientGone);
    });
    // The requests sent on to the server and not yet answered: id → method. An entry is made
    // when a request is sent, never replaced by a later request with the same id, and removed
    // by the answer to it: a message the hooks answer or drop never touches another's entry.
    let mut pending: HashMap<String, String> = HashMap::new();
    let mut delayed: Vec<(Instant, Vec<u8>, Credit)> = Vec::new();
    let mut client_hung_up = false;
    let mut crashed = false;
    let mut failure: Option<String> = None;
    // After the client hangs up the server has the grace period to finish and exit.
    let mut grace_until: Option<Instant> = None;
    let too_long = |who: &str| {
        format!("{who} sent a line over the {max_line}-byte limit, so the session ends")
    };
    let tell_client = |to_client: &Writer, why: &str| {
        let error = serde_json::json!({"code": -32603, "message": format!("driftlab: {why}")});
        to_client.send(
            format!(r#"{{"jsonrpc":"2.0","id":null,"error":{error}}}"#).into_bytes(),
            Credit::none(),
        );
    };
    loop {
        if grace_until.is_some_and(|until| Instant::now() >= until) {
            break;
        }
        // Deliver what is due, then wait for the next message or the next due time.
        let now = Instant::now();
        delayed.sort_by_key(|(due, ..)| *due);
        while delayed.first().is_some_and(|(due, ..)| *due <= now) {
            let (_, bytes, credit) = delayed.remove(0);
            to_client.send(bytes, credit);
        }
        if hooks.next_deadline().is_some_and(|due| due <= now) {
            hooks.on_time(now);
            deliver(hooks.injections(), &to_server, &to_client, &mut pending);
        }
        let next = delayed
            .first()
            .map(|(due, ..)| *due)
            .into_iter()
            .chain(grace_until)
            .chain(hooks.next_deadline())
            .min();
        let wait = next.map_or(Duration::from_secs(3600), |due| {
            due.saturating_duration_since(now)
        });
        let event = match events.recv_timeout(wait) {
            Ok(event) => event,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        match event {
            Event::Client(StdoutEvent::Line(line), credit) => {
                let message = parse(&line, &pending, false, jsonrpc::CLIENT);
                let request = match (&message.id, &message.method, message.is_response) {
                    (Some(id), Some(method), false) => Some((id.clone(), method.clone())),
                    _ => None,
                };
                let action = hooks.on_client(&message);
                // The line moves on (no copy) once its reading is gone.
                drop(message);
                match action {
                    Action::Forward => {
                        sent(&mut pending, request);
                        to_server.send(line, credit);
                    }
                    Action::Replace(bytes) => {
                        sent(&mut pending, request);
                        to_server.send(bytes, credit);
                    }
                    Action::Answer(bytes) => to_client.send(bytes, credit),
                    Action::CrashServer => {
                        server.kill();
                        crashed = true;
                    }
                    Action::Drop | Action::Delay(..) => {}
                }
                deliver(hooks.injections(), &to_server, &to_client, &mut pending);
            }
            Event::Client(end, _) => {
                // The client hung up (or broke the limit): the server sees end of input.
                if let StdoutEvent::TooLong = end {
                    let why = too_long("the client");
                    tell_client(&to_client, &why);
                    failure.get_or_insert(why);
                }
                client_hung_up = true;
                server.remember_descendants();
                to_server.close();
                grace_until.get_or_insert(Instant::now() + GRACE_PERIOD);
            }
            Event::Server(StdoutEvent::Line(line), credit) => {
                let message = parse(&line, &pending, true, jsonrpc::SERVER);
                if let (Some(id), true) = (&message.id, message.is_response) {
                    pending.remove(id);
                }
                let action = hooks.on_server(&message);
                drop(message);
                match action {
                    Action::Forward => to_client.send(line, credit),
                    Action::Replace(bytes) | Action::Answer(bytes) => to_client.send(bytes, credit),
                    Action::Delay(by, bytes) => {
                        delayed.push((Instant::now() + by, bytes.unwrap_or(line), credit));
                    }
                    Action::Drop => {}
                    Action::CrashServer => {
                        server.kill();
                        crashed = true;
                    }
                }
                deliver(hooks.injections(), &to_server, &to_client, &mut pending);
            }
            Event::Server(end, _) => {
                let why = match end {
                    StdoutEvent::TooLong => Some(too_long("the server")),
                    StdoutEvent::Failed(e) => Some(format!("reading the server failed: {e}")),
                    _ => None,
                };
                if let Some(why) = why {
                    tell_client(&to_client, &why);
                    failure = Some(why);
                }
                break;
            }
            Event::ClientGone => {
                // The client stopped reading: nothing more can reach it.
                client_hung_up = true;
                break;
            }
        }
    }
    for (_, bytes, credit) in std::mem::take(&mut delayed) {
        to_client.send(bytes, credit);
    }
    server.remember_descendants();
    to_server.close();
    let status = server.close();
    to_server.finish();
    finish_within(to_client, GRACE_PERIOD);
    Ok(ProxyEnd {
        server: status,
        client_hung_up,
        crashed,
        failure,
    })
}

/// Reads `stream` into lines on a thread of its own; each line takes its bytes from `budget`
/// before the loop gets it as `event(line, credit)`.
fn spawn_reader(
    stream: impl io::Read + Send + 'static,
    max_line: usize,
    budget: std::sync::Arc<Budget>,
    tx: mpsc::Sender<Event>,
    event: fn(StdoutEvent, Credit) -> Event,
) {
    std::thread::spawn(move || {
        read_lines_with(stream, max_line, true, Some(budget), |e, credit| {
            tx.send(event(e, credit)).is_ok()
        })
    });
}

/// Records a request sent on to the server, unless a request with its id is still in flight.
fn sent(pending: &mut HashMap<String, String>, request: Option<(String, String)>) {
    if let Some((id, method)) = request {
        pending.entry(id).or_insert(method);
    }
}

/// Hands the hooks' own messages to the writer of their side; requests sent to the server are
/// pending like the client's.
fn deliver(
    injections: Vec<(Side, Vec<u8>)>,
    to_server: &Writer,
    to_client: &Writer,
    pending: &mut HashMap<String, String>,
) {
    for (side, bytes) in injections {
        match side {
            Side::Server => {
                if let Ok(jsonrpc::Envelope {
                    id: Some(id),
                    method: Some(method),
                    ..
                }) = jsonrpc::read(&bytes, jsonrpc::CLIENT)
                {
                    sent(pending, Some((id, method)));
                }
                to_server.send(bytes, Credit::none());
            }
            Side::Client => to_client.send(bytes, Credit::none()),
        }
    }
}

/// Lets the client's writer finish what it holds, but not wait forever on a client that stopped
/// reading without closing.
fn finish_within(writer: Writer, patience: Duration) {
    let (done_tx, done) = mpsc::channel();
    std::thread::spawn(move || {
        writer.finish();
        let _ = done_tx.send(());
    });
    let _ = done.recv_timeout(patience);
}

/// The routing facts of one line: from the strict reading when it passes; otherwise from a
/// lenient one (for logs and for hooks that pass such lines on), with the refusal kept.
/// `pending` maps the ids of the client's requests in flight to their methods.
pub fn parse<'a>(
    line: &'a [u8],
    pending: &HashMap<String, String>,
    from_server: bool,
    profile: Profile,
) -> Message<'a> {
    let (id, own_method, is_response, reading) = match jsonrpc::read(line, profile) {
        Ok(envelope) => {
            let is_response = envelope.is_response();
            (
                envelope.id,
                envelope.method,
                is_response,
                Ok(envelope.value),
            )
        }
        Err(refusal) => {
            // serde_json keeps the last of repeated keys, as most servers' parsers do.
            let head: Option<Value> = serde_json::from_slice(line).ok();
            let field = |key: &str| head.as_ref().and_then(|h| h.get(key));
            let id = field("id").filter(|id| !id.is_null()).map(Value::to_string);
            let own_method = field("method").and_then(Value::as_str).map(str::to_string);
            let is_response = id.is_some() && own_method.is_none();
            (id, own_method, is_response, Err(refusal))
        }
    };
    // A client's request or a server's response: the other kinds are of the server's id space.
    let in_flight =
        from_server == is_response && id.as_ref().is_some_and(|id| pending.contains_key(id));
    let method = match (&own_method, is_response && from_server) {
        (Some(m), _) => Some(m.clone()),
        (None, true) => id.as_ref().and_then(|id| pending.get(id).cloned()),
        _ => None,
    };
    Message {
        bytes: line,
        id,
        method,
        is_response,
        pending: in_flight,
        reading,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_are_matched_to_the_method_of_their_request() {
        let mut pending = HashMap::new();
        let request = parse(
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#,
            &pending,
            false,
            jsonrpc::CLIENT,
        );
        assert_eq!(
            (
                request.id.as_deref(),
                request.method.as_deref(),
                request.is_response
            ),
            (Some("7"), Some("tools/call"), false)
        );
        pending.insert("7".to_string(), "tools/call".to_string());
        let response = parse(
            br#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
            &pending,
            true,
            jsonrpc::SERVER,
        );
        assert_eq!(
            (response.method.as_deref(), response.is_response),
            (Some("tools/call"), true)
        );
        let garbage = parse(b"not json", &pending, true, jsonrpc::SERVER);
        assert_eq!(garbage.reading.unwrap_err().code, jsonrpc::PARSE_ERROR);
        let garbage = parse(b"not json", &pending, true, jsonrpc::SERVER);
        assert_eq!(
            (garbage.id, garbage.method, garbage.is_response),
            (None, None, false)
        );
        let notification = parse(
            br#"{"jsonrpc":"2.0","method":"notifications/x"}"#,
            &pending,
            true,
            jsonrpc::SERVER,
        );
        assert_eq!(
            (notification.method.as_deref(), notification.is_response),
            (Some("notifications/x"), false)
        );
    }
}
