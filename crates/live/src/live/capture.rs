//! One capture: `initialize`, `notifications/initialized`, then `tools/list` page by page and,
//! for the whole contract, `prompts/list`, `resources/list` and `resources/templates/list` where
//! the server declares them.

use std::collections::HashSet;
use std::time::Instant;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::era::{self, Era};
use super::options::{CaptureOptions, ProtocolMode};
use super::session::{Observed, Session};
use super::{LiveError, Transport};
use driftlab_contract::surface::contract::ListKind;
use driftlab_contract::text::shorten;

/// What was asked for, what was spoken, and why.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Negotiation {
    /// The protocol the caller asked for (`--protocol`).
    pub mode: ProtocolMode,
    /// The era the session was spoken in.
    pub era: Era,
    /// How the era was chosen, in one line.
    pub how: String,
}

/// How one of the other lists went.
#[derive(Debug)]
pub enum ListOutcome {
    /// The raw results, one per page, in order, and how long the listing took.
    Listed {
        /// The raw results, one per page.
        pages: Vec<Box<RawValue>>,
        /// Milliseconds the listing took.
        ms: u64,
    },
    /// The server does not declare the capability behind it: it offers none.
    NotDeclared,
    /// The server answered with an error (or broke pagination): the others are still captured.
    Failed(String),
}

/// One of the lists besides tools.
#[derive(Debug)]
pub struct OtherList {
    /// Which list (prompts, resources, resource templates).
    pub kind: ListKind,
    /// How it went.
    pub outcome: ListOutcome,
}

/// What a server answered, with the result bytes exactly as sent.
#[derive(Debug)]
pub struct Capture {
    /// The protocol version driftlab asked for.
    pub protocol_version_requested: String,
    /// The capabilities driftlab declared as a client.
    pub client_capabilities: Value,
    /// The raw `initialize` result, or the `server/discover` result in the 2026-07-28 era.
    pub initialize_result: Box<RawValue>,
    /// The protocol version in use: the one the server picked in `initialize` (when it named
    /// one), or 2026-07-28.
    pub protocol_version: Option<String>,
    /// What was asked for, what was spoken, and why.
    pub negotiation: Negotiation,
    /// The raw `tools/list` results, one per page, in order.
    pub pages: Vec<Box<RawValue>>,
    /// Prompts, resources and templates, when the whole contract was captured.
    pub other_lists: Vec<OtherList>,
    /// What the server did besides answering: its own messages, stdout lines that were not JSON.
    pub observed: Observed,
    /// How long the exchanges took.
    pub timings: Timings,
    /// Bytes the server wrote to stderr.
    pub stderr_bytes: u64,
}

/// How long the capture's exchanges took, in milliseconds.
#[derive(Debug, Clone, Copy, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Timings {
    /// `initialize` (or `server/discover`), from request to answer.
    pub initialize_ms: u64,
    /// Every `tools/list` page, from the first request to the last answer.
    pub tools_list_ms: u64,
}

impl Capture {
    /// The tools/list result as a payload [`driftlab_contract::payload`] reads: the one page's bytes, or an
    /// array of the pages' bytes.
    pub fn tools_list_bytes(&self) -> Vec<u8> {
        match self.pages.as_slice() {
            [one] => one.get().as_bytes().to_vec(),
            pages => {
                let mut out = b"[".to_vec();
                for (i, page) in pages.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(page.get().as_bytes());
                }
                out.push(b']');
                out
            }
        }
    }

    /// Total bytes of the tools/list results.
    pub fn tools_list_len(&self) -> usize {
        self.pages.iter().map(|p| p.get().len()).sum()
    }
}

/// Only what pagination needs from a page.
#[derive(Deserialize)]
struct PageHead {
    #[serde(default, rename = "nextCursor")]
    next_cursor: Option<Value>,
}

/// Runs the handshake and lists every tool. The transport is closed before returning, on success
/// and on failure alike.
pub fn capture<T: Transport>(transport: T, options: &CaptureOptions) -> Result<Capture, LiveError> {
    let mut session = Session::new(transport);
    let result = capture_on(&mut session, options);
    session.close();
    result.map(|mut capture| {
        capture.observed = std::mem::take(&mut session.observed);
        capture.stderr_bytes = session.transport().stderr_bytes();
        capture
    })
}

/// Runs the handshake and lists every tool on an open session, leaving it open (so a scan can
/// probe the same server afterwards). What the server said besides is in `session.observed`.
pub fn capture_on<T: Transport>(
    session: &mut Session<T>,
    options: &CaptureOptions,
) -> Result<Capture, LiveError> {
    let started = Instant::now();
    let opened = era::open(session, options)?;
    let initialize_ms = started.elapsed().as_millis() as u64;
    let initialize_result = opened.result;

    let listing = Instant::now();
    let pages = list_pages(session, "tools/list", opened.era, options)?;
    let tools_list_ms = listing.elapsed().as_millis() as u64;
    let other_lists = match options.whole_contract {
        true => other_lists(session, &initialize_result, opened.era, options)?,
        false => Vec::new(),
    };
    Ok(Capture {
        protocol_version_requested: match opened.era {
            Era::Handshake => options.protocol_version.clone(),
            Era::Modern => era::MODERN.into(),
        },
        client_capabilities: options.client_capabilities.clone(),
        initialize_result,
        protocol_version: opened.protocol_version,
        negotiation: Negotiation {
            mode: options.protocol,
            era: opened.era,
            how: opened.how,
        },
        pages,
        other_lists,
        observed: Observed::default(),
        timings: Timings {
            initialize_ms,
            tools_list_ms,
        },
        stderr_bytes: 0,
    })
}

/// Every page of one list (`tools/list`, `prompts/list`, …), following `nextCursor`, within the
/// page and byte limits.
fn list_pages<T: Transport>(
    session: &mut Session<T>,
    method: &str,
    era: Era,
    options: &CaptureOptions,
) -> Result<Vec<Box<RawValue>>, LiveError> {
    let mut pages = Vec::new();
    let mut total = 0usize;
    let mut seen = HashSet::new();
    let mut cursor: Option<String> = None;
    loop {
        if pages.len() == options.max_pages {
            return Err(LiveError::Protocol(format!(
                "{method} has more than {} pages (raise it with --max-pages)",
                options.max_pages
            )));
        }
        let phase = match pages.len() {
            0 => method.to_string(),
            n => format!("{method} (page {})", n + 1),
        };
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = session.request(method, &params, options.timeout, &phase)?;
        total += page.get().len();
        if total > options.max_bytes {
            return Err(LiveError::TooLarge {
                limit: options.max_bytes,
            });
        }
        cursor = next_cursor(&page, &phase, era)?;
        pages.push(page);
        match &cursor {
            None => return Ok(pages),
            Some(c) if !seen.insert(c.clone()) => {
                return Err(LiveError::Protocol(format!(
                "{method} repeated the cursor \"{}\" after {} pages: the listing would never end",
                shorten(c, 60),
                pages.len()
            )))
            }
            Some(_) => {}
        }
    }
}

/// Prompts, resources and templates, each listed only when its capability is declared. A list
/// the server refuses (an error, a broken cursor, too many pages or bytes, no answer in time) is
/// recorded as failed and the others are still listed; a server that dies or garbles its stream
/// fails the capture.
fn other_lists<T: Transport>(
    session: &mut Session<T>,
    initialize_result: &RawValue,
    era: Era,
    options: &CaptureOptions,
) -> Result<Vec<OtherList>, LiveError> {
    let declared = declared_capabilities(initialize_result);
    let mut out = Vec::new();
    for kind in ListKind::ALL {
        if !declared.iter().any(|c| c == kind.capability()) {
            out.push(OtherList {
                kind,
                outcome: ListOutcome::NotDeclared,
            });
            continue;
        }
        let started = Instant::now();
        let outcome = match list_pages(session, kind.method(), era, options) {
            Ok(pages) => ListOutcome::Listed {
                pages,
                ms: started.elapsed().as_millis() as u64,
            },
            Err(
                e @ (LiveError::Rpc { .. }
                | LiveError::Protocol(_)
                | LiveError::TooLarge { .. }
                | LiveError::Timeout { .. }
                | LiveError::NotMessages { .. }),
            ) => ListOutcome::Failed(e.to_string()),
            Err(fatal) => return Err(fatal),
        };
        out.push(OtherList { kind, outcome });
    }
    Ok(out)
}

/// The names of the capabilities an initialize (or discover) result declares.
fn declared_capabilities(result: &RawValue) -> Vec<String> {
    #[derive(Deserialize)]
    struct Head {
        #[serde(default)]
        capabilities: Option<Value>,
    }
    serde_json::from_str::<Head>(result.get())
        .ok()
        .and_then(|h| h.capabilities)
        .and_then(|c| c.as_object().map(|m| m.keys().cloned().collect()))
        .unwrap_or_default()
}

/// The page's `nextCursor`: absent or `null` end the listing. An empty string ends it too before
/// 2026-07-28 (it was the usual way to say "no more"); from 2026-07-28 it is a valid cursor to
/// follow, as the specification says (a server that repeats it is caught as a loop). Anything but
/// a string is an error.
fn next_cursor(page: &RawValue, phase: &str, era: Era) -> Result<Option<String>, LiveError> {
    let head: PageHead = serde_json::from_str(page.get())
        .map_err(|_| LiveError::Protocol(format!("the {phase} result is not an object")))?;
    match head.next_cursor {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() && era == Era::Handshake => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(LiveError::Protocol(format!(
            "the {phase} result has a nextCursor that is not a string: {}",
            driftlab_contract::payload::short(&other)
        ))),
    }
}
