//! `driftlab guard`: a runtime admission guard on the pinned contract, as hooks on the proxy.
//!
//! - **Pinned contract.** After the client's `notifications/initialized` (and on every
//!   `notifications/tools/list_changed`) the guard lists the server's tools itself and diffs them
//!   against the pin with the gate's engine; breaking drift refuses the affected tools (or the
//!   whole server) in `refuse` mode, and is only logged in `warn` mode. A client's `tools/list`
//!   always gets the pinned list.
//! - **Admission** of every `tools/call`: pinned and live, no unknown argument names, valid for
//!   the pinned and the live inputSchema. A refusal is an `isError: true` result with a
//!   model-readable correction; the server never sees the call.
//! - **Circuit.** More than `max_retries` refusals for one tool within the window opens its
//!   circuit until a human updates the pin.
//! - **Output assertions.** `structuredContent` is validated against the pinned outputSchema.
//! - **Fail closed.** Every line is read once, strictly ([`crate::jsonrpc`]); a client line that
//!   fails that reading is refused with a JSON-RPC error and never reaches the server, whatever
//!   the mode. A server line that fails it is dropped (the client gets an error for the request
//!   it answered). A call is decided on a live listing: until one has succeeded calls wait for
//!   it, and after a failed or unreadable listing they are refused.

mod admission;
pub mod calls;
pub mod study;

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub use admission::{Admission, Contract};

use crate::check::rules::of_kind;
use crate::check::RuleKind;
use crate::jsonrpc::{self, Refusal};
use crate::live::DEFAULT_MAX_PAGES;
use crate::payload::{self, Limits, DEFAULT_MAX_BYTES};
use crate::proxy::{id_json, Action, Hooks, Message, Side};
use crate::surface::Surface;
use crate::verdict::{evaluate, FailOn, ResolvedPolicy};

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

#[derive(Debug, Clone)]
pub struct GuardOptions {
    pub on_drift: OnDrift,
    pub scope: Scope,
    pub max_retries: u32,
    pub window: Duration,
    pub on_output: OnOutput,
    pub on_audit_failure: OnAuditFailure,
    /// How long the guard waits for each page of its own listing before it counts as failed.
    pub list_timeout: Duration,
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
    /// Pinned tool name → the messages of the breaking findings about it.
    drift: HashMap<String, Vec<String>>,
}

/// What the guard knows of the live server.
enum LiveView {
    /// Not listed yet: calls wait for a listing.
    NotListed,
    Listed(Live),
    /// The last listing failed or could not be read (why): calls are refused.
    Failed(String),
}

/// A tools/list the guard is paging through.
struct Listing {
    tools: Vec<Value>,
    /// Pages so far, their cursors (a repeated one is a loop) and their bytes.
    pages: usize,
    cursors: HashSet<String>,
    bytes: usize,
}

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
    /// Admitted calls waiting for their answer: id → tool.
    calls: HashMap<String, String>,
    inject: Vec<(Side, Vec<u8>)>,
    listing: Option<Listing>,
    requests: u64,
    /// Whether a listing of the server is under way: calls wait for it (id, request bytes).
    relisting: bool,
    /// When the page asked for last must have been answered.
    listing_due: Option<Instant>,
    /// A new listing was asked for while one was under way: start it when that one ends.
    relist_again: bool,
    /// Calls waiting for a listing: canonical id, the line, its strict reading.
    held: Vec<(String, Vec<u8>, Value)>,
}

const GUARD_ID: &str = "driftlab-guard-";

impl Guard {
    pub fn new(pinned: Surface, options: GuardOptions, audit: Option<Box<dyn Write>>) -> Guard {
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
            inject: Vec::new(),
            listing: None,
            requests: 0,
            relisting: false,
            listing_due: None,
            relist_again: false,
            held: Vec::new(),
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

    /// Asks the server for its tools (a page after `cursor`), on the guard's own ids.
    fn list_tools(&mut self, cursor: Option<&Value>) {
        if cursor.is_none() && self.relisting {
            // One listing at a time, so pages of two listings never mix.
            self.relist_again = true;
            return;
        }
        self.requests += 1;
        let params = match cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let request = json!({"jsonrpc": "2.0", "id": format!("{GUARD_ID}{}", self.requests), "method": "tools/list", "params": params});
        self.relisting = true;
        self.listing_due = Some(Instant::now() + self.options.list_timeout);
        self.inject
            .push((Side::Server, request.to_string().into_bytes()));
    }

    /// One page of the guard's own listing; diffs against the pin after the last.
    fn listed(&mut self, response: &Value) {
        let Some(result) = response.get("result") else {
            self.record(json!({"event": "live-list-failed", "error": response.get("error")}));
            let why = format!(
                "the server's tools/list failed: {}",
                response.get("error").unwrap_or(&Value::Null)
            );
            self.listing_failed(why);
            return;
        };
        let listing = self.listing.get_or_insert(Listing {
            tools: Vec::new(),
            pages: 0,
            cursors: HashSet::new(),
            bytes: 0,
        });
        listing.pages += 1;
        listing.bytes += result.to_string().len();
        if let Some(Value::Array(tools)) = result.get("tools") {
            listing.tools.extend(tools.iter().cloned());
        }
        let cursor = result
            .get("nextCursor")
            .filter(|c| c.as_str().is_some_and(|s| !s.is_empty()));
        // The capture's bounds: an endless, looping or huge listing is a failed one.
        let over = if listing.pages >= DEFAULT_MAX_PAGES && cursor.is_some() {
            Some(format!("more than {DEFAULT_MAX_PAGES} pages"))
        } else if listing.bytes > DEFAULT_MAX_BYTES {
            Some(format!("more than {DEFAULT_MAX_BYTES} bytes"))
        } else if cursor.is_some_and(|c| !listing.cursors.insert(c.to_string())) {
            Some("a cursor it had already given (a loop)".to_string())
        } else {
            None
        };
        if let Some(over) = over {
            self.record(json!({"event": "live-list-failed", "error": over}));
            self.listing_failed(format!("the server's tools/list has {over}"));
            return;
        }
        match cursor {
            Some(cursor) => {
                let cursor = cursor.clone();
                self.list_tools(Some(&cursor));
            }
            None => {
                let tools = self.listing.take().map(|l| l.tools).unwrap_or_default();
                self.pin_against(json!({ "tools": tools }));
                self.release_held();
            }
        }
    }

    /// A listing that failed or could not be read: calls are refused until one succeeds.
    fn listing_failed(&mut self, why: String) {
        self.listing = None;
        self.live = LiveView::Failed(why);
        self.release_held();
    }

    /// Diffs the live tools against the pin with the gate's engine.
    fn pin_against(&mut self, live: Value) {
        let bytes = serde_json::to_vec(&live).unwrap_or_default();
        let surface = match payload::read(&bytes, "live tools/list", Limits::default()) {
            Ok(s) => s,
            Err(e) => {
                self.record(json!({"event": "live-list-unreadable", "error": e.to_string()}));
                self.live = LiveView::Failed(format!("the server's tools/list is unreadable: {e}"));
                return;
            }
        };
        let rules = of_kind(RuleKind::Diff);
        let outcome = evaluate(
            &rules,
            &self.pinned,
            &surface,
            None,
            &ResolvedPolicy::default(),
            FailOn::Breaking,
        );
        let mut drift: HashMap<String, Vec<String>> = HashMap::new();
        for finding in &outcome.findings {
            let breaking = FailOn::Breaking.fails(finding.severity);
            let tool = finding
                .tool
                .as_ref()
                .map(|t| t.name.split(" -> ").next().unwrap_or("").to_string())
                .unwrap_or_default();
            self.record(json!({"event": "pin-diff", "tool": tool, "rule": finding.rule,
                "severity": finding.severity.as_str(), "message": finding.message, "fingerprint": finding.fingerprint()}));
            if breaking {
                drift.entry(tool).or_default().push(finding.message.clone());
            }
        }
        let contracts = surface
            .tools()
            .filter_map(|t| Some((t.name_str()?.to_string(), Contract::of(&t))))
            .collect();
        self.record(
            json!({"event": "live-listed", "tools": surface.len(), "breaking_tools": drift.len()}),
        );
        self.live = LiveView::Listed(Live { contracts, drift });
    }

    /// Decides the calls that waited for the listing, in arrival order.
    fn release_held(&mut self) {
        self.relisting = false;
        self.listing_due = None;
        if std::mem::take(&mut self.relist_again) {
            // The server changed again meanwhile: decide held calls on the newer list.
            self.list_tools(None);
            return;
        }
        for (id, bytes, request) in std::mem::take(&mut self.held) {
            let (side, out) = match self.call(&id, &request) {
                Action::Answer(answer) => (Side::Client, answer),
                _ => (Side::Server, bytes),
            };
            self.inject.push((side, out));
        }
    }

    /// Admission of one tools/call request (as read strictly): `Forward` or `Answer` with the
    /// refusal.
    fn call(&mut self, id: &str, request: &Value) -> Action {
        let tool = request
            .pointer("/params/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let arguments = request
            .pointer("/params/arguments")
            .cloned()
            .unwrap_or(json!({}));
        let id_value = id_json(Some(id));
        match self.admit(&tool, &arguments, Instant::now()) {
            Admission::Admit => {
                self.record(json!({"event": "admit", "id": id_value, "tool": tool}));
                self.calls.insert(id.to_string(), tool);
                Action::Forward
            }
            Admission::Refuse { rule, problems } => {
                self.record(json!({"event": "refuse", "id": id_value, "tool": tool, "rule": rule, "problems": problems}));
                Action::Answer(self.refusal(id, &tool, rule, &problems))
            }
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
        let Some(pinned) = self.contracts.get(tool) else {
            return Admission::refuse(
                "tool-not-pinned",
                vec![format!("`{tool}` is not a tool of the pinned contract")],
            );
        };
        if let LiveView::Failed(why) = &self.live {
            return Admission::refuse("live-list-failed", vec![why.clone()]);
        }
        if let LiveView::Listed(live) = &self.live {
            if self.options.on_drift == OnDrift::Refuse {
                let drifted: Vec<String> = match self.options.scope {
                    Scope::Tool => live.drift.get(tool).cloned().unwrap_or_default(),
                    Scope::Server => live.drift.values().flatten().cloned().collect(),
                };
                if !drifted.is_empty() {
                    return Admission::refuse("contract-drift", drifted);
                }
            }
            let Some(current) = live.contracts.get(tool) else {
                let mut problems = vec![format!("`{tool}` is no longer offered by the server")];
                problems.extend(live.drift.get(tool).cloned().unwrap_or_default());
                return Admission::refuse("tool-not-live", problems);
            };
            let hints = live.drift.get(tool).map(Vec::as_slice).unwrap_or_default();
            if let Some(refusal) = admission::check(pinned, Some(current), arguments, hints) {
                return refusal;
            }
            return Admission::Admit;
        }
        admission::check(pinned, None, arguments, &[]).unwrap_or(Admission::Admit)
    }

    /// The refusal as a tools/call result for the client.
    fn refusal(&self, id: &str, tool: &str, rule: &str, problems: &[String]) -> Vec<u8> {
        let left = self
            .options
            .max_retries
            .saturating_sub(self.refusals.get(tool).map_or(0, |t| t.len() as u32));
        let text = format!(
            "driftlab guard refused this call to `{tool}` ({rule}): {}. Correct the call from this \
             message, or tell the user the tool's contract changed.",
            problems.join("; ")
        );
        let result = json!({
            "content": [{"type": "text", "text": text}],
            "isError": true,
            "structuredContent": {"driftlabGuard": {"refused": true, "tool": tool, "rule": rule,
                "problems": problems, "retriesLeft": left}},
        });
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#).into_bytes()
    }

    /// Checks an answer to an admitted call against the pinned outputSchema.
    fn assert_output(&mut self, id: &str, tool: &str, response: &Value) -> Action {
        let Some(validator) = self.contracts.get(tool).and_then(|c| c.output.as_ref()) else {
            return Action::Forward;
        };
        let result = response.get("result");
        if result.and_then(|r| r.get("isError")) == Some(&Value::Bool(true)) {
            return Action::Forward;
        }
        let problems: Vec<String> = match result.and_then(|r| r.get("structuredContent")) {
            Some(structured) => validator
                .iter_errors(structured)
                .take(5)
                .map(|e| {
                    format!(
                        "{} at {}",
                        e,
                        if e.instance_path().as_str().is_empty() {
                            "/"
                        } else {
                            e.instance_path().as_str()
                        }
                    )
                })
                .collect(),
            None => vec![
                "the result has no structuredContent, but the pinned tool declares an outputSchema"
                    .into(),
            ],
        };
        if problems.is_empty() {
            return Action::Forward;
        }
        self.record(json!({"event": "output-violation", "id": id_json(Some(id)),
            "tool": tool, "problems": problems}));
        // Output drift: look at the server's list again.
        self.list_tools(None);
        let mut response = response.clone();
        match self.options.on_output {
            OnOutput::Warn => {
                if let Some(Value::Object(result)) = response.get_mut("result") {
                    let meta = result.entry("_meta").or_insert_with(|| json!({}));
                    if let Value::Object(meta) = meta {
                        meta.insert(
                            "driftlab/guard".into(),
                            json!({"outputViolation": problems}),
                        );
                    }
                }
                Action::Replace(response.to_string().into_bytes())
            }
            OnOutput::Error => {
                let text = format!(
                    "driftlab guard: the answer of `{tool}` breaks its pinned outputSchema: {}",
                    problems.join("; ")
                );
                let result = json!({"content": [{"type": "text", "text": text}], "isError": true});
                Action::Replace(
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#).into_bytes(),
                )
            }
        }
    }
}

impl Guard {
    /// A client line that failed the strict reading, or one the guard will not forward: a
    /// JSON-RPC error to the client and an audit line; the server never sees it.
    fn refuse_message(&mut self, message: &Message<'_>, refusal: &Refusal) -> Action {
        self.record(
            json!({"event": "refuse-message", "id": id_json(message.id.as_deref()),
            "method": message.method, "rule": refusal.rule, "reason": refusal.reason}),
        );
        Action::Answer(jsonrpc::refusal_line(
            message.id.as_deref(),
            refusal,
            "driftlab guard",
        ))
    }

    /// A server line that failed the strict reading: never passed on. The request it answers
    /// (by a lenient reading of its id) gets an error; the guard's own listing fails.
    fn unreadable_answer(&mut self, message: &Message<'_>, refusal: &Refusal) -> Action {
        self.record(
            json!({"event": "server-message-unreadable", "id": id_json(message.id.as_deref()),
            "rule": refusal.rule, "reason": refusal.reason}),
        );
        let ours = message
            .id
            .as_deref()
            .is_none_or(|id| id.starts_with(&format!("\"{GUARD_ID}")));
        if self.relisting && ours {
            self.listing_failed(format!(
                "the server's tools/list answer is unreadable: {refusal}"
            ));
            return Action::Drop;
        }
        // A line no parser reads (cut short, say) still names its id near the start: when it
        // names exactly one, and that is a call in flight, that call gets the error.
        let id = message
            .id
            .clone()
            .or_else(|| self.call_named_in(message.bytes));
        let is_response = message.is_response || id.is_some() && message.id.is_none();
        match (&id, is_response) {
            (Some(id), true) => {
                self.calls.remove(id);
                let error = json!({"code": -32603, "message": format!(
                    "driftlab guard: the server's answer could not be read strictly: {refusal}"),
                    "data": {"rule": refusal.rule}});
                Action::Replace(
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#).into_bytes(),
                )
            }
            _ => Action::Drop,
        }
    }
}

impl Guard {
    /// The id of the one admitted call in flight whose `"id":` member `bytes` spells, if the
    /// bytes spell exactly one.
    fn call_named_in(&self, bytes: &[u8]) -> Option<String> {
        let text = String::from_utf8_lossy(bytes);
        let mut named = text.match_indices("\"id\":").filter_map(|(at, key)| {
            let rest = text[at + key.len()..].trim_start();
            let end = rest.find([',', '}']).unwrap_or(rest.len());
            Some(rest[..end].trim().to_string()).filter(|id| self.calls.contains_key(id))
        });
        let first = named.next()?;
        named.next().is_none().then_some(first)
    }
}

impl Hooks for Guard {
    fn on_client(&mut self, message: &Message<'_>) -> Action {
        // Fail closed: in every mode, what cannot be read exactly as the server will read it is
        // refused, never forwarded.
        let request = match &message.reading {
            Ok(value) => value,
            Err(refusal) => return self.refuse_message(message, refusal),
        };
        if let Some(id) = message.id.as_deref() {
            if id.starts_with(&format!("\"{GUARD_ID}")) && !message.is_response {
                let refusal = Refusal {
                    code: jsonrpc::INVALID_REQUEST,
                    rule: "reserved-id",
                    reason: format!("ids starting with {GUARD_ID:?} are the guard's own"),
                };
                return self.refuse_message(message, &refusal);
            }
        }
        match message.method.as_deref() {
            Some("notifications/initialized") => {
                // Forward first (the proxy writes hooks' injections after the message).
                self.list_tools(None);
                Action::Forward
            }
            Some("tools/call") if !message.is_response => {
                // The strict reading guarantees a request method has an id.
                let Some(id) = &message.id else {
                    return Action::Drop;
                };
                if self.calls.contains_key(id) || self.held.iter().any(|(held, ..)| held == id) {
                    // Its answer could not be told from the other call's, nor checked against
                    // the right tool.
                    let refusal = Refusal {
                        code: jsonrpc::INVALID_REQUEST,
                        rule: "id-in-flight",
                        reason: format!("the id {id} is already used by a call in flight"),
                    };
                    return self.refuse_message(message, &refusal);
                }
                if matches!(self.live, LiveView::NotListed) && !self.relisting {
                    // A call before any listing (e.g. before notifications/initialized): list
                    // now and decide when the answer is in.
                    self.list_tools(None);
                }
                if self.relisting {
                    // Decide against the server's current list, not a stale one.
                    self.held
                        .push((id.clone(), message.bytes.to_vec(), request.clone()));
                    return Action::Drop;
                }
                let action = self.call(id, request);
                if matches!(self.live, LiveView::Failed(_)) && !self.relisting {
                    // Try again, so a server that recovers is admitted again.
                    self.list_tools(None);
                }
                action
            }
            _ => Action::Forward,
        }
    }

    fn on_server(&mut self, message: &Message<'_>) -> Action {
        let response = match &message.reading {
            Ok(value) => value,
            Err(refusal) => return self.unreadable_answer(message, refusal),
        };
        if let Some(id) = &message.id {
            if id.starts_with(&format!("\"{GUARD_ID}")) {
                self.listed(response);
                return Action::Drop;
            }
        }
        if message.method.as_deref() == Some("notifications/tools/list_changed")
            && !message.is_response
        {
            self.record(json!({"event": "list-changed"}));
            self.list_tools(None);
            return Action::Forward;
        }
        if !message.is_response {
            return Action::Forward;
        }
        let id = message.id.clone().unwrap_or_default();
        match message.method.as_deref() {
            Some("tools/list") => {
                // The client sees the pinned list, whatever the server lists now.
                let mut line = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"#).into_bytes();
                line.extend_from_slice(&self.pinned_list);
                line.push(b'}');
                Action::Replace(line)
            }
            Some("tools/call") => match self.calls.remove(&id) {
                Some(tool) => self.assert_output(&id, &tool, response),
                None => Action::Forward,
            },
            _ => Action::Forward,
        }
    }

    fn injections(&mut self) -> Vec<(Side, Vec<u8>)> {
        std::mem::take(&mut self.inject)
    }

    fn next_deadline(&self) -> Option<Instant> {
        self.listing_due
    }

    fn on_time(&mut self, now: Instant) {
        if self.relisting && self.listing_due.is_some_and(|due| due <= now) {
            let seconds = self.options.list_timeout.as_secs_f64();
            self.record(json!({"event": "live-list-failed", "error": format!("no answer within {seconds} s")}));
            self.listing_failed(format!(
                "the server did not answer tools/list within {seconds} s"
            ));
        }
    }
}
