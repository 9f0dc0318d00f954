//! Streamable HTTP: every client message is a POST; the answer is a JSON body or an SSE stream.
//!
//! Requests carry `Accept: application/json, text/event-stream`, the `Mcp-Session-Id` the server
//! assigned at `initialize`, and after it the negotiated `MCP-Protocol-Version`. An SSE stream is
//! read until the response to the request arrives (the server may send its own requests and
//! notifications first); the messages are queued and handed to the session one by one, like the
//! lines of a stdio server.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{LiveError, Transport};
use driftlab_contract::text::excerpt;

/// Streamable HTTP to one MCP endpoint, in either era: JSON or SSE answers, the session id and
/// the protocol version header carried over.
pub struct HttpTransport {
    agent: ureq::Agent,
    url: String,
    headers: Vec<(String, String)>,
    session_id: Option<String>,
    protocol_version: Option<String>,
    max_message: usize,
    timeout: Duration,
    queue: VecDeque<Vec<u8>>,
}

impl HttpTransport {
    /// A transport to `url`; `headers` go on every request (e.g. authorization). `timeout` bounds
    /// each HTTP exchange, `max_message` each message.
    pub fn new(
        url: &str,
        headers: Vec<(String, String)>,
        timeout: Duration,
        max_message: usize,
    ) -> HttpTransport {
        HttpTransport {
            agent: agent(Some(timeout)),
            url: url.to_string(),
            headers,
            session_id: None,
            protocol_version: None,
            max_message,
            timeout,
            queue: VecDeque::new(),
        }
    }

    fn map_error(&self, error: ureq::Error, phase: &str) -> LiveError {
        match error {
            ureq::Error::Timeout(_) => LiveError::Timeout {
                phase: phase.into(),
                seconds: self.timeout.as_secs_f64(),
            },
            other => LiveError::Http(format!("{}: {other}", self.url)),
        }
    }

    /// Reads an SSE stream, queueing each event's data, until a response arrives or it ends.
    fn read_events(&mut self, body: impl Read) -> Result<(), LiveError> {
        let queue = &mut self.queue;
        read_event_stream(body, self.max_message, |message| {
            let done = is_response(&message);
            queue.push_back(message);
            !done
        })
        .map_err(|e| match e {
            StreamError::TooLarge => LiveError::TooLarge {
                limit: self.max_message,
            },
            StreamError::Read(e) => {
                LiveError::Http(format!("{}: reading the event stream: {e}", self.url))
            }
        })
    }
}

/// Why an event stream could not be read to its end.
#[derive(Debug)]
pub enum StreamError {
    /// A line or an event over the message limit.
    TooLarge,
    /// The stream failed.
    Read(std::io::Error),
}

/// Reads an SSE stream, handing each event's data (its `data:` lines joined by newlines) to
/// `message`, until `message` returns false or the stream ends.
pub fn read_event_stream(
    body: impl Read,
    max_message: usize,
    mut message: impl FnMut(Vec<u8>) -> bool,
) -> Result<(), StreamError> {
    let mut reader = BufReader::new(body);
    let mut data: Vec<u8> = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut reader)
            .take((max_message as u64).saturating_add(1))
            .read_until(b'\n', &mut line)
            .map_err(StreamError::Read)?;
        if line.len() > max_message || data.len() > max_message {
            return Err(StreamError::TooLarge);
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if read == 0 || text.is_empty() {
            // End of an event (or of the stream): dispatch what it carried.
            if !data.is_empty() && !message(std::mem::take(&mut data)) {
                return Ok(());
            }
            if read == 0 {
                return Ok(());
            }
            continue;
        }
        if let Some(value) = text.strip_prefix(b"data:") {
            if !data.is_empty() {
                data.push(b'\n');
            }
            data.extend_from_slice(value.strip_prefix(b" ").unwrap_or(value));
        }
        // `event:`, `id:`, `retry:` and `:` comments carry nothing a session needs.
    }
}

/// A POST of one message to `url` as Streamable HTTP wants it: both media types accepted, the
/// caller's `headers`, and the session id and protocol version when there are any.
pub fn post(
    agent: &ureq::Agent,
    url: &str,
    headers: &[(String, String)],
    session_id: Option<&str>,
    protocol_version: Option<&str>,
) -> ureq::RequestBuilder<ureq::typestate::WithBody> {
    let request = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    with_session(request, headers, session_id, protocol_version)
}

/// `request` with the caller's `headers`, and the session id and protocol version when there
/// are any: what every request of a Streamable HTTP session carries.
pub fn with_session<B>(
    mut request: ureq::RequestBuilder<B>,
    headers: &[(String, String)],
    session_id: Option<&str>,
    protocol_version: Option<&str>,
) -> ureq::RequestBuilder<B> {
    for (name, value) in headers {
        request = request.header(name, value);
    }
    if let Some(id) = session_id {
        request = request.header("Mcp-Session-Id", id);
    }
    if let Some(version) = protocol_version {
        request = request.header("MCP-Protocol-Version", version);
    }
    request
}

/// An agent that follows no redirect (one could carry credentials to another origin) and
/// leaves HTTP error statuses to the caller; `timeout` bounds each whole exchange, if given.
pub fn agent(timeout: Option<Duration>) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(timeout)
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into()
}

/// The start of an error answer's body (at most 4 KiB read), on one line, for a message.
pub fn body_excerpt(response: &mut ureq::http::Response<ureq::Body>) -> String {
    let body = response
        .body_mut()
        .with_config()
        .limit(4096)
        .read_to_vec()
        .unwrap_or_default();
    excerpt(&body, 200)
}

/// A response header's value, when it is text.
pub fn header<B>(response: &ureq::http::Response<B>, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// Whether a message is a response (it has an id and no method).
pub fn is_response(message: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(default, borrow)]
        id: Option<&'a RawValue>,
        #[serde(default)]
        method: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Head>(message).is_ok_and(|h| h.id.is_some() && h.method.is_none())
}

impl Transport for HttpTransport {
    fn send(&mut self, message: &[u8], phase: &str) -> Result<(), LiveError> {
        let mut response = post(
            &self.agent,
            &self.url,
            &self.headers,
            self.session_id.as_deref(),
            self.protocol_version.as_deref(),
        )
        .send(message)
        .map_err(|e| self.map_error(e, phase))?;
        let status = response.status().as_u16();
        let header = |name: &str| header(&response, name);
        if let Some(id) = header("mcp-session-id") {
            self.session_id = Some(id);
        }
        // Media types are case-insensitive (`Text/Event-Stream`).
        let content_type = header("content-type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        if (300..400).contains(&status) {
            return Err(LiveError::Http(format!(
                "{} answered {phase} with a redirect (HTTP {status}) to {}; driftlab follows no \
                 redirect, so that no header reaches another origin: give the final URL",
                self.url,
                excerpt(header("location").unwrap_or_default().as_bytes(), 200)
            )));
        }
        let limit = self.max_message as u64;
        if status == 401 {
            // The server wants authorization (MCP's is OAuth 2.1): a person has to grant it.
            return Err(LiveError::Unauthorized {
                url: self.url.clone(),
                phase: phase.to_string(),
                challenge: header("www-authenticate")
                    .map(|c| format!(" ({})", excerpt(c.as_bytes(), 120)))
                    .unwrap_or_default(),
            });
        }
        if !(200..300).contains(&status) {
            return Err(LiveError::Http(format!(
                "{} answered {phase} with HTTP {status}: {}",
                self.url,
                body_excerpt(&mut response)
            )));
        }
        if status == 202 || status == 204 {
            return Ok(());
        }
        if content_type.starts_with("text/event-stream") {
            let reader = response.body_mut().with_config().limit(limit).reader();
            self.read_events(reader)
        } else {
            let body = response
                .body_mut()
                .with_config()
                .limit(limit)
                .read_to_vec()
                .map_err(|e| match e {
                    ureq::Error::BodyExceedsLimit(_) => LiveError::TooLarge {
                        limit: self.max_message,
                    },
                    other => self.map_error(other, phase),
                })?;
            if !body.trim_ascii().is_empty() {
                self.queue.push_back(body);
            }
            Ok(())
        }
    }

    fn recv(&mut self, _timeout: Duration, phase: &str) -> Result<Vec<u8>, LiveError> {
        // Every answer arrives inside the POST that asked for it; an empty queue means none came.
        self.queue.pop_front().ok_or_else(|| {
            LiveError::Protocol(format!(
                "{} sent no answer to {phase} in its HTTP response",
                self.url
            ))
        })
    }

    fn negotiated(&mut self, protocol_version: &str) {
        self.protocol_version = Some(protocol_version.to_string());
    }

    fn forget_negotiated(&mut self) {
        self.protocol_version = None;
        self.session_id = None;
    }

    fn close(&mut self) {
        // Politely end the server's session; a server that does not support it answers 405.
        if let Some(id) = self.session_id.take() {
            let _ = self
                .agent
                .delete(&self.url)
                .header("Mcp-Session-Id", &id)
                .call();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(stream: &str) -> Vec<String> {
        let mut t = HttpTransport::new("http://x", Vec::new(), Duration::from_secs(1), 1 << 20);
        t.read_events(stream.as_bytes()).unwrap();
        t.queue
            .into_iter()
            .map(|m| String::from_utf8(m).unwrap())
            .collect()
    }

    #[test]
    fn sse_events_are_queued_until_the_response() {
        let stream = ": keep-alive\n\
                      event: message\n\
                      data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n\
                      id: 7\r\n\
                      data: {\"jsonrpc\":\"2.0\",\r\n\
                      data: \"id\":1,\"result\":{}}\r\n\r\n\
                      data: {\"never\":\"read\"}\n\n";
        assert_eq!(
            events(stream),
            [
                r#"{"jsonrpc":"2.0","method":"notifications/message"}"#,
                "{\"jsonrpc\":\"2.0\",\n\"id\":1,\"result\":{}}",
            ]
        );
    }

    #[test]
    fn a_stream_that_ends_without_a_blank_line_still_dispatches() {
        assert_eq!(
            events("data: {\"id\":1,\"result\":{}}"),
            [r#"{"id":1,"result":{}}"#]
        );
    }

    #[test]
    fn responses_are_told_from_requests() {
        assert!(is_response(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        assert!(!is_response(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#));
        assert!(!is_response(br#"{"jsonrpc":"2.0","method":"x"}"#));
    }
}
