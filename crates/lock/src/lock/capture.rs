//! Capturing a configured server's whole contract, for `lock` and `check --lock`: started as
//! the client config says (or connected to), in whichever protocol era it speaks.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use thiserror::Error;

use super::LockedProtocol;
use crate::config::{Start, Written};
use driftlab_contract::payload::Limits;
use driftlab_contract::surface::Surface;
use driftlab_live::live::http::HttpTransport;
use driftlab_live::live::stdio::{Launch, StdioTransport};
use driftlab_live::live::{self, CaptureOptions, LiveError, ProtocolMode, Target, Transport};

/// What capturing a configured server gave.
pub struct Captured {
    /// Its contract.
    pub surface: Surface,
    /// The protocol it was spoken in.
    pub protocol: LockedProtocol,
}

/// Why a configured server gave no contract.
#[derive(Debug, Error)]
pub enum NotCaptured {
    /// It needs authorization a person grants (HTTP 401): skipped, with the reason.
    #[error("{0}")]
    NeedsAuthorization(String),
    /// It failed (could not start, crashed, broke the protocol): one line.
    #[error("{0}")]
    Failed(String),
}

/// Starts the server as the config says (or connects to it) and captures its whole contract.
/// Why it failed is said with the argv or URL as `written` (see [`Start::as_written`]): the
/// reason is printed, and a skipped server's is recorded in the lockfile.
pub fn capture(
    start: &Start,
    written: &Written,
    timeout: Duration,
    max_bytes: usize,
) -> Result<Captured, NotCaptured> {
    capture_expanded(start, timeout, max_bytes).map_err(|not| match not {
        NotCaptured::NeedsAuthorization(why) => {
            NotCaptured::NeedsAuthorization(start.as_written(written, &why))
        }
        NotCaptured::Failed(why) => NotCaptured::Failed(start.as_written(written, &why)),
    })
}

fn capture_expanded(
    start: &Start,
    timeout: Duration,
    max_bytes: usize,
) -> Result<Captured, NotCaptured> {
    let options = CaptureOptions {
        protocol_version: live::DEFAULT_PROTOCOL_VERSION.into(),
        client_capabilities: serde_json::json!({}),
        timeout,
        max_pages: live::DEFAULT_MAX_PAGES,
        max_bytes,
        whole_contract: true,
        protocol: ProtocolMode::Auto,
    };
    let failed =
        |e: &dyn std::error::Error| NotCaptured::Failed(driftlab_contract::text::with_causes(e));
    let (target, transport): (Target, Box<dyn Transport>) = match start {
        Start::Stdio { argv, env, cwd } => {
            let launch = Launch {
                dir: cwd.clone(),
                env: env.clone(),
            };
            let transport =
                StdioTransport::spawn_in(argv, max_bytes, None, &launch).map_err(|e| failed(&e))?;
            (Target::Command(argv.clone()), Box::new(transport))
        }
        Start::Http { url, headers } => (
            Target::Url {
                url: url.clone(),
                headers: headers.clone(),
            },
            Box::new(HttpTransport::new(url, headers.clone(), timeout, max_bytes)),
        ),
    };
    let capture = match live::capture(transport, &options) {
        Ok(capture) => capture,
        Err(e @ LiveError::Unauthorized { .. }) => {
            return Err(NotCaptured::NeedsAuthorization(format!(
                "{e}; driftlab cannot sign in on a user's behalf"
            )))
        }
        Err(e) => return Err(failed(&e)),
    };
    let limits = Limits {
        max_bytes: usize::MAX,
    };
    let surface =
        live::capture_file::surface_of(&capture, &target, limits, true).map_err(|e| failed(&e))?;
    let era = serde_json::to_value(capture.negotiation.era)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    Ok(Captured {
        surface,
        protocol: LockedProtocol {
            version: capture.protocol_version.clone(),
            era,
        },
    })
}

/// A server to capture: how it starts, as the config expands it and as the config writes it.
pub(crate) struct ToCapture<'a> {
    /// As the config expands it.
    pub start: &'a Start,
    /// As the config writes it.
    pub written: &'a Written,
}

/// Captures every server, at most `jobs` at once (each waits mostly on its own start-up), and
/// hands each result with its own time to `done` in input order, as soon as it and every server
/// before it are done: what is printed and recorded never depends on which finished first.
pub(crate) fn capture_each(
    servers: &[ToCapture<'_>],
    timeout: Duration,
    max_bytes: usize,
    jobs: usize,
    done: &(dyn Fn(usize, Result<Captured, NotCaptured>, Duration) + Sync),
) {
    let next = AtomicUsize::new(0);
    // Results waiting for the servers before them, and the index handed on next.
    let pending: Mutex<(Vec<Option<Outcome>>, usize)> =
        Mutex::new(((0..servers.len()).map(|_| None).collect(), 0));
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(server) = servers.get(i) else {
            return;
        };
        let started = Instant::now();
        let result = capture(server.start, server.written, timeout, max_bytes);
        let mut guard = pending.lock().unwrap_or_else(|e| e.into_inner());
        let (results, handed) = &mut *guard;
        results[i] = Some((result, started.elapsed()));
        while let Some((result, took)) = results.get_mut(*handed).and_then(Option::take) {
            done(*handed, result, took);
            *handed += 1;
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..jobs.clamp(1, servers.len().max(1)) {
            // Room for deep payloads, as the main thread has.
            let _ = std::thread::Builder::new()
                .stack_size(16 << 20)
                .spawn_scoped(scope, work);
        }
        work();
    });
}

type Outcome = (Result<Captured, NotCaptured>, Duration);
