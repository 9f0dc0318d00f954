//! `driftlab guard`: a runtime admission guard on the pinned contract, as hooks on the proxy.
//!
//! - **Pinned contract.** After the client's `notifications/initialized` (and on every
//!   `notifications/tools/list_changed`) the guard lists the server's tools itself and diffs them
//!   against the pin with the gate's engine; breaking drift refuses the affected tools (or the
//!   whole server) in `refuse` mode, and is only logged in `warn` mode. A client's `tools/list`
//!   always gets the pinned list (beside the other members of the server's own answer).
//! - **Admission** of every `tools/call`: pinned and live, no unknown argument names, valid for
//!   the pinned and the live inputSchema. A refusal is an `isError: true` result with a
//!   model-readable correction; the server never sees the call.
//! - **Circuit.** More than `max_retries` refusals for one tool within the window opens its
//!   circuit until a human updates the pin.
//! - **Output assertions.** `structuredContent` is validated against the pinned outputSchema.
//! - **Fail closed.** Every line is read once, strictly ([`driftlab_contract::jsonrpc`]); a client line that
//!   fails that reading is refused with a JSON-RPC error and never reaches the server, whatever
//!   the mode. A server line that fails it is dropped (the client gets an error for the request
//!   it answered). A call is decided on a live listing: until one has succeeded calls wait for
//!   it, and after a failed or unreadable listing they are refused.

mod admission;
mod answers;
pub mod calls;
mod decided;
mod drift;
mod fixes;
mod hooks;
mod listing;
pub mod repair;
mod repair_fix;
mod repair_formats;
#[cfg(test)]
mod repair_tests;
pub mod study;
mod translate;
mod words;

use std::collections::HashMap;
use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub use admission::Admission;
use driftlab_contract::contract::Contract;
pub use words::ServerWords;

use crate::proxy::Side;
use driftlab_contract::surface::Surface;

/// What breaking drift between the pin and the live server does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnDrift {
    /// Refuse calls to the affected tools (or every tool, with --refuse-scope server).
    Refuse,
    /// Log the drift and keep admitting calls that are valid.
    Warn,
}

/// How far a refusal for drift reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scope {
    /// Only the tools the drift touches.
    Tool,
    /// Every tool of the server.
    Server,
}

/// What an answer that breaks the pinned outputSchema becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOutput {
    /// Pass it on, with a warning in the result's `_meta`.
    Warn,
    /// Replace it with an `isError: true` result that names the violation.
    Error,
}

/// How the guard decides (`driftlab guard`'s flags).
#[derive(Debug, Clone)]
pub struct GuardOptions {
    /// What breaking drift between the pin and the live server does.
    pub on_drift: OnDrift,
    /// With `OnDrift::Refuse`: the drifted tools only, or every tool of the server.
    pub scope: Scope,
    /// Refusals allowed per tool within `window` before its circuit opens.
    pub max_retries: u32,
    /// The window `max_retries` counts in.
    pub window: Duration,
    /// What an answer that breaks the pinned outputSchema becomes.
    pub on_output: OnOutput,
    /// What happens when the audit log cannot be written.
    pub on_audit_failure: OnAuditFailure,
    /// How long the guard waits for each page of its own listing before it counts as failed.
    pub list_timeout: Duration,
    /// `Trust`: a tool whose change lowers a trusting client's guard (`TRUST_RULES`) is refused
    /// too, in refuse mode, by the kinds of change only. Any other: breaking drift alone.
    pub fail_on: driftlab_check::verdict::FailOn,
    /// What a refusal may say of the live server: by kind only, or quoting it.
    pub server_words: ServerWords,
    /// `--translate renames`: a call in the approved form to a tool or parameter the server
    /// renamed (proven: nothing else changed) is sent in the server's new names.
    pub translate_renames: bool,
}

impl GuardOptions {
    /// Options that decide every call on its own (no circuit ever opens), for the fuzz target
    /// and the tests that drive a guard directly.
    pub fn deciding_every_call(on_drift: OnDrift) -> GuardOptions {
        GuardOptions {
            on_drift,
            scope: Scope::Tool,
            max_retries: u32::MAX,
            window: Duration::from_secs(1),
            on_output: OnOutput::Warn,
            on_audit_failure: OnAuditFailure::Refuse,
            list_timeout: Duration::from_secs(30),
            fail_on: driftlab_check::verdict::FailOn::Breaking,
            server_words: ServerWords::Kinds,
            translate_renames: false,
        }
    }
}

/// What a guard that cannot write its audit log does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnAuditFailure {
    /// Refuse every call from then on: no decision goes unrecorded.
    Refuse,
    /// Say so once on stderr and keep deciding.
    Continue,
}

/// The guard's view of the live server, once listed.
struct Live {
    contracts: HashMap<String, Contract>,
    /// Pinned tool name → its breaking (or unjudged) drift.
    drift: HashMap<String, drift::ToolDrift>,
    /// Pinned tool name → the trust rules its change fired (under `--fail-on trust` only).
    lowered_trust: HashMap<String, Vec<&'static str>>,
    /// Pinned tool name → every change the diff found in it, whatever its severity (rule,
    /// severity, fingerprint): the audit log's "changed, then used".
    changed: HashMap<String, Vec<Value>>,
    /// The protocol version the listing was asked in (`None`: the handshake's).
    era: Option<String>,
    /// Pinned tool name → its proven rename (`--translate renames` sends calls by it).
    renames: HashMap<String, translate::ProvenRename>,
}

/// An answer the guard waits for, to check it against a pinned tool's outputSchema.
struct Awaited {
    tool: String,
    /// A task-augmented call: its answer may be a `CreateTaskResult`, whose final result comes
    /// with `tasks/result`.
    task: bool,
}

/// What the guard knows of the live server.
enum LiveView {
    /// Not listed yet: calls wait for a listing.
    NotListed,
    Listed(Box<Live>),
    /// The last listing failed or could not be read (why): calls are refused.
    Failed(String),
}

/// The admission guard over one server: the pinned contract, the live one, each tool's circuit,
/// and the audit log; the proxy's hooks call it for every message.
pub struct Guard {
    options: GuardOptions,
    pinned: Surface,
    pinned_list: Vec<u8>,
    contracts: HashMap<String, Contract>,
    live: LiveView,
    refusals: HashMap<String, Vec<Instant>>,
    open_circuits: HashMap<String, usize>,
    audit: Option<Box<dyn Write>>,
    /// Why the audit log could not be written, once it could not.
    audit_failed: Option<String>,
    /// Admitted calls (and `tasks/result` requests for their tasks) waiting for their answer.
    calls: HashMap<String, Awaited>,
    /// The tasks that admitted task-augmented calls created: task id → tool.
    tasks: HashMap<String, String>,
    inject: Vec<(Side, Vec<u8>)>,
    listing: Option<listing::Listing>,
    requests: u64,
    /// Whether a listing of the server is under way: calls wait for it (id, request bytes).
    relisting: bool,
    /// When the page asked for last must have been answered.
    listing_due: Option<Instant>,
    /// A new listing was asked for while one was under way: start it when that one ends.
    relist_again: bool,
    /// Calls waiting for a listing: canonical id, the line, its strict reading.
    held: Vec<(String, Vec<u8>, Value)>,
    /// The `_meta` protocol envelope of the client's latest 2026-07-28 request, which the
    /// guard's own requests carry too (`None`: the handshake era).
    protocol_meta: Option<Value>,
    /// The server accepted an `initialize`: the session's era is the handshake's, whatever
    /// `_meta` a client message carries later.
    handshake: bool,
    /// The id (canonical JSON) of the page of the guard's own listing it waits for.
    listing_id: Option<String>,
    /// The protocol version the listing under way was asked in.
    listing_era: Option<String>,
}

const GUARD_ID: &str = "driftlab-guard-";

/// Whether a canonical id (`"driftlab-guard-3"`, quotes included) is one of the guard's own.
fn is_guard_id(id: &str) -> bool {
    id.strip_prefix('"')
        .is_some_and(|rest| rest.starts_with(GUARD_ID))
}

impl Guard {
    /// A guard holding the server to `pinned`, writing each decision as a JSON line to `audit`.
    /// Only the pin's tools are kept: the guard lists tools only, so it compares exactly what it
    /// lists (a pin that records prompts or resources too would otherwise differ from every
    /// listing of the unchanged server).
    pub fn new(pinned: Surface, options: GuardOptions, audit: Option<Box<dyn Write>>) -> Guard {
        let pinned = pinned.with_contract(None);
        let contracts = pinned
            .tools()
            .filter_map(|t| Some((t.name_str()?.to_string(), Contract::of(&t))))
            .collect();
        let mut pinned_list = serde_json::to_vec(&pinned.to_value()).unwrap_or_default();
        pinned_list.retain(|b| *b != b'\n');
        Guard {
            options,
            pinned,
            pinned_list,
            contracts,
            live: LiveView::NotListed,
            refusals: HashMap::new(),
            open_circuits: HashMap::new(),
            audit,
            audit_failed: None,
            calls: HashMap::new(),
            tasks: HashMap::new(),
            inject: Vec::new(),
            listing: None,
            requests: 0,
            relisting: false,
            listing_due: None,
            relist_again: false,
            held: Vec::new(),
            protocol_meta: None,
            handshake: false,
            listing_id: None,
            listing_era: None,
        }
    }

    /// Why the audit log could not be written, if it could not.
    pub fn audit_failure(&self) -> Option<&str> {
        self.audit_failed.as_deref()
    }

    /// The pinned tools whose schemas do not compile, with why: a guard must not start on them.
    pub fn broken_pins(&self) -> Vec<(String, String)> {
        let mut broken: Vec<(String, String)> = self
            .contracts
            .iter()
            .filter_map(|(name, c)| Some((name.clone(), c.broken.clone()?)))
            .collect();
        broken.sort();
        broken
    }

    fn record(&mut self, entry: Value) {
        let Some(audit) = &mut self.audit else {
            return;
        };
        if self.audit_failed.is_some() {
            return;
        }
        if let Err(e) = writeln!(audit, "{entry}").and_then(|()| audit.flush()) {
            let then = match self.options.on_audit_failure {
                OnAuditFailure::Refuse => "refusing every call from now on",
                OnAuditFailure::Continue => "deciding on without it (--on-audit-failure continue)",
            };
            eprintln!("driftlab guard: cannot write the audit log ({e}): {then}");
            self.audit_failed = Some(e.to_string());
        }
    }

    /// The admission decision for one call (and the circuit bookkeeping of a refusal).
    pub fn admit(&mut self, tool: &str, arguments: &Value, now: Instant) -> Admission {
        if let Some(&refused) = self.open_circuits.get(tool) {
            return Admission::refuse(
                "circuit-open",
                vec![format!(
                    "the circuit for `{tool}` is open after {refused} refused calls: do not retry; a human must review the drift and update the pinned contract"
                )],
            );
        }
        let decision = self.decide(tool, arguments);
        if let Admission::Refuse { .. } = decision {
            let window = self.options.window;
            let times = self.refusals.entry(tool.to_string()).or_default();
            times.retain(|t| now.duration_since(*t) <= window);
            times.push(now);
            // Only the last max_retries + 1 refusals can open the circuit: keep no more.
            let keep = self.options.max_retries as usize + 1;
            if times.len() > keep {
                times.drain(..times.len() - keep);
            }
            if times.len() > self.options.max_retries as usize {
                let count = times.len();
                self.open_circuits.insert(tool.to_string(), count);
                self.record(json!({"event": "circuit-open", "tool": tool, "refusals": count}));
            }
        }
        decision
    }

    /// The pinned tool a call to `tool` is for: a call to a pinned tool's new name (as its
    /// refusal told the caller) is that tool's, its answer checked against that tool's pin.
    fn pinned_name<'a>(&'a self, tool: &'a str) -> &'a str {
        match (&self.live, self.contracts.contains_key(tool)) {
            (LiveView::Listed(live), false) => live
                .drift
                .iter()
                .find(|(_, d)| d.renamed_to.as_deref() == Some(tool))
                .map_or(tool, |(name, _)| name.as_str()),
            _ => tool,
        }
    }

    /// The admission rules for one call, without the circuit and its bookkeeping.
    pub fn decide(&self, tool: &str, arguments: &Value) -> Admission {
        if let (Some(why), OnAuditFailure::Refuse) =
            (&self.audit_failed, self.options.on_audit_failure)
        {
            return Admission::refuse(
                "audit-log-failed",
                vec![format!(
                    "the guard cannot write its audit log ({why}), so it admits nothing"
                )],
            );
        }
        let pinned_name = self.pinned_name(tool);
        let Some(pinned) = self.contracts.get(pinned_name) else {
            return Admission::refuse(
                "tool-not-pinned",
                vec![format!("`{tool}` is not a tool of the pinned contract")],
            );
        };
        if let LiveView::Failed(why) = &self.live {
            return Admission::refuse("live-list-failed", vec![why.clone()]);
        }
        let words = self.options.server_words;
        if let LiveView::Listed(live) = &self.live {
            let drift = live.drift.get(pinned_name);
            let refuse = self.options.on_drift == OnDrift::Refuse;
            if refuse && self.options.scope == Scope::Server {
                // Tool by tool in name order, so the refusal reads the same every time.
                let mut tools: Vec<&String> = live.drift.keys().collect();
                tools.sort();
                let mut drifted: Vec<String> = Vec::new();
                for line in tools.into_iter().flat_map(|t| live.drift[t].said(words)) {
                    if !drifted.contains(&line) {
                        drifted.push(line);
                    }
                }
                if !drifted.is_empty() {
                    return Admission::refuse("contract-drift", drifted);
                }
            }
            // A tool listed more than once, on any page: which copy a client keeps is not
            // defined, so no copy is admitted on.
            if let (true, Some(drift)) = (refuse, drift.filter(|d| d.duplicated)) {
                return Admission::refuse("contract-drift", drift.said(words));
            }
            // A tool whose change lowers trust is refused by the kinds of that change, never by
            // the server's new words.
            if let (true, Some(rules)) = (refuse, live.lowered_trust.get(pinned_name)) {
                return Admission::refuse(
                    "trust-changed",
                    vec![format!(
                        "`{pinned_name}` changed since it was pinned in a way that lowers trust ({}): \
                         the pin must be reviewed and renewed before it is called",
                        rules.join(", ")
                    )],
                );
            }
            let Some(current) = live.contracts.get(tool) else {
                let mut problems = vec![format!("`{tool}` is no longer offered by the server")];
                problems.extend(drift.map(|d| d.said(words)).unwrap_or_default());
                problems.extend(fixes::for_tool(tool, drift, words));
                return Admission::refuse("tool-not-live", problems);
            };
            if let Some(refusal) = admission::check(pinned, Some(current), arguments, drift, words)
            {
                return refusal;
            }
            // Refuse mode admits what the drift does not touch, and fails closed on what it
            // touches but could not judge. An argument that sends no value (null) touches
            // nothing; a call only the live contract accepts was written for it (a caller
            // following a refusal), so the change is no longer unjudged for it.
            let sends = arguments.as_object();
            if let (true, Some(drift), Some(sends)) = (refuse, drift, sends) {
                let touches = |name: &str| {
                    sends.get(name).is_some_and(|value| {
                        !admission::sends_no_value(pinned, Some(current), Some(drift), name, value)
                    })
                };
                let written_for_live = || {
                    pinned
                        .input
                        .as_ref()
                        .is_some_and(|v| !v.is_valid(arguments))
                };
                if drift.unjudged_for(touches) && !written_for_live() {
                    let mut problems = drift.said(words);
                    problems.push(
                        "the change to what this call sends could not be judged, so refuse mode does not admit it".into(),
                    );
                    return Admission::refuse("contract-drift", problems);
                }
            }
            return Admission::Admit;
        }
        admission::check(pinned, None, arguments, None, words).unwrap_or(Admission::Admit)
    }
}
