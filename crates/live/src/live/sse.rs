//! The HTTP+SSE transport of protocol 2024-11-05, which many remote servers still speak: the
//! client opens an event stream with a GET, the server's first event names the endpoint to POST
//! messages to, and every answer arrives on the stream, not in the POST's response.
//!
//! The stream is read on a thread of its own into a channel, so that [`Transport::recv`] can
//! wait with a timeout. The endpoint must be on the stream's origin: the caller's headers (its
//! credentials) go nowhere else.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use super::http::{agent, body_excerpt, header, read_event_stream, StreamError};
use super::{LiveError, Transport};
use driftlab_contract::text::excerpt;

/// A session over the 2024-11-05 HTTP+SSE transport.
pub struct SseTransport {
    post_agent: ureq::Agent,
    stream_url: String,
    endpoint: String,
    headers: Vec<(String, String)>,
    events: Receiver<Result<Vec<u8>, String>>,
    timeout: Duration,
}

/// How long the stream may stay open, in phases: a capture is a handful of exchanges, each
/// bounded by the timeout, so a stream open longer than this is a server that never lets go.
const STREAM_PHASES: u32 = 16;

impl SseTransport {
    /// Opens the event stream at `url` and waits (at most `timeout`) for the endpoint event.
    pub fn connect(
        url: &str,
        headers: Vec<(String, String)>,
        timeout: Duration,
        max_message: usize,
    ) -> Result<SseTransport, LiveError> {
        let stream_agent = agent(Some(timeout * STREAM_PHASES));
        let mut request = stream_agent.get(url).header("Accept", "text/event-stream");
        for (name, value) in &headers {
            request = request.header(name, value);
        }
        let phase = "the event stream";
        let mut response = request.call().map_err(|e| match e {
            ureq::Error::Timeout(_) => LiveError::Timeout {
                phase: phase.into(),
                seconds: timeout.as_secs_f64(),
            },
            other => LiveError::Http(format!("{url}: {other}")),
        })?;
        let status = response.status().as_u16();
        if status == 401 {
            return Err(LiveError::Unauthorized {
                url: url.to_string(),
                phase: phase.to_string(),
                challenge: header(&response, "www-authenticate")
                    .map(|c| format!(" ({})", excerpt(c.as_bytes(), 120)))
                    .unwrap_or_default(),
            });
        }
        if !(200..300).contains(&status) {
            return Err(LiveError::Http(format!(
                "{url} answered the GET of its event stream with HTTP {status}: {}",
                body_excerpt(&mut response)
            )));
        }
        let content_type = header(&response, "content-type")
            .unwrap_or_default()
            .to_ascii_lowercase();
        if !content_type.starts_with("text/event-stream") {
            return Err(LiveError::Protocol(format!(
                "{url} answered the GET of its event stream with `{}`, not text/event-stream: \
                 is it a Streamable HTTP endpoint?",
                excerpt(content_type.as_bytes(), 80)
            )));
        }
        let (sender, events) = mpsc::channel();
        let body = response.into_body();
        std::thread::spawn(move || {
            let mut reader = body.into_with_config().limit(u64::MAX).reader();
            let ended = read_event_stream(&mut reader, max_message, |data| {
                sender.send(Ok(data)).is_ok()
            });
            let why = match ended {
                Ok(()) => "the server ended its event stream".to_string(),
                Err(StreamError::TooLarge) => {
                    format!("an event over the {max_message}-byte limit")
                }
                Err(StreamError::Read(e)) => format!("reading the event stream: {e}"),
            };
            let _ = sender.send(Err(why));
        });
        let first = match events.recv_timeout(timeout) {
            Ok(Ok(data)) => data,
            Ok(Err(why)) => return Err(LiveError::Protocol(format!("{url}: {why}"))),
            Err(_) => {
                return Err(LiveError::Timeout {
                    phase: "the endpoint event".into(),
                    seconds: timeout.as_secs_f64(),
                })
            }
        };
        let endpoint = resolve(url, std::str::from_utf8(&first).unwrap_or("").trim())?;
        Ok(SseTransport {
            post_agent: agent(Some(timeout)),
            stream_url: url.to_string(),
            endpoint,
            headers,
            events,
            timeout,
        })
    }
}

/// The origin of an http(s) URL: `scheme://host[:port]`.
fn origin(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some(&url[..url.len() - rest.len() + end])
}

/// The endpoint event's URI, resolved against the stream's URL and held to its origin.
fn resolve(stream: &str, endpoint: &str) -> Result<String, LiveError> {
    let refused = |why: &str| {
        LiveError::Protocol(format!(
            "{stream}: the endpoint event `{}` {why}",
            excerpt(endpoint.as_bytes(), 120)
        ))
    };
    let base = origin(stream).ok_or_else(|| refused("cannot be resolved"))?;
    let resolved = if endpoint.starts_with("http://") || endpoint.starts_with("https://") {
        endpoint.to_string()
    } else if endpoint.starts_with('/') && !endpoint.starts_with("//") {
        format!("{base}{endpoint}")
    } else if !endpoint.is_empty() && !endpoint.contains("://") && !endpoint.starts_with("//") {
        let path_end = stream[base.len()..]
            .find(['?', '#'])
            .map_or(stream.len(), |i| base.len() + i);
        let directory = stream[..path_end]
            .rfind('/')
            .filter(|i| *i >= base.len())
            .map_or(format!("{base}/"), |i| stream[..=i].to_string());
        format!("{directory}{endpoint}")
    } else {
        return Err(refused("is not a URI driftlab resolves"));
    };
    if origin(&resolved) != Some(base) {
        return Err(refused(
            "is on another origin; driftlab sends the headers to the stream's origin only",
        ));
    }
    Ok(resolved)
}

impl Transport for SseTransport {
    fn send(&mut self, message: &[u8], phase: &str) -> Result<(), LiveError> {
        let mut request = self
            .post_agent
            .post(&self.endpoint)
            .header("Content-Type", "application/json");
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let mut response = request.send(message).map_err(|e| match e {
            ureq::Error::Timeout(_) => LiveError::Timeout {
                phase: phase.into(),
                seconds: self.timeout.as_secs_f64(),
            },
            other => LiveError::Http(format!("{}: {other}", self.endpoint)),
        })?;
        let status = response.status().as_u16();
        if status == 401 {
            return Err(LiveError::Unauthorized {
                url: self.endpoint.clone(),
                phase: phase.to_string(),
                challenge: String::new(),
            });
        }
        if !(200..300).contains(&status) {
            return Err(LiveError::Http(format!(
                "{} answered {phase} with HTTP {status}: {}",
                self.endpoint,
                body_excerpt(&mut response)
            )));
        }
        Ok(())
    }

    fn recv(&mut self, timeout: Duration, phase: &str) -> Result<Vec<u8>, LiveError> {
        match self.events.recv_timeout(timeout) {
            Ok(Ok(data)) => Ok(data),
            Ok(Err(why)) => Err(LiveError::Protocol(format!(
                "{}: {why} before it answered {phase}",
                self.stream_url
            ))),
            Err(RecvTimeoutError::Timeout) => Err(LiveError::Timeout {
                phase: phase.into(),
                seconds: timeout.as_secs_f64(),
            }),
            Err(RecvTimeoutError::Disconnected) => Err(LiveError::Protocol(format!(
                "{}: the event stream ended before it answered {phase}",
                self.stream_url
            ))),
        }
    }

    fn close(&mut self) {
        // The reader thread ends when the server closes the stream, or at the stream's time
        // limit; nothing waits for it.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_resolve_on_the_streams_origin_only() {
        let stream = "https://mcp.example.com/v1/sse?x=1";
        assert_eq!(
            resolve(stream, "/messages?sessionId=7").unwrap(),
            "https://mcp.example.com/messages?sessionId=7"
        );
        assert_eq!(
            resolve(stream, "messages").unwrap(),
            "https://mcp.example.com/v1/messages"
        );
        assert_eq!(
            resolve(stream, "https://mcp.example.com/m").unwrap(),
            "https://mcp.example.com/m"
        );
        for elsewhere in [
            "https://evil.example/m",
            "//evil.example/m",
            "http://mcp.example.com/m",
        ] {
            assert!(resolve(stream, elsewhere).is_err(), "{elsewhere}");
        }
        assert!(resolve(stream, "").is_err());
    }
}
