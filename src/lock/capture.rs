//! Capturing a configured server's whole contract, for `lock` and `check --lock`: started as
//! the client config says (or connected to), in whichever protocol era it speaks.

use std::time::Duration;

use thiserror::Error;

use super::LockedProtocol;
use crate::config::{Start, Written};
use crate::live::http::HttpTransport;
use crate::live::stdio::{Launch, StdioTransport};
use crate::live::{self, CaptureOptions, LiveError, ProtocolMode, Target, Transport};
use crate::payload::Limits;
use crate::surface::Surface;

/// What capturing a configured server gave.
pub struct Captured {
    pub surface: Surface,
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
    let failed = |e: &dyn std::error::Error| NotCaptured::Failed(crate::text::with_causes(e));
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
