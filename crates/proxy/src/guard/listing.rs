//! The guard's own listing of the server: paged, bounded like a capture (pages, bytes, cursor
//! loops, a deadline per page), diffed against the pin with the gate's engine. Calls wait for
//! it; a listing that fails leaves them refused, never admitted on the pin alone.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use serde_json::{json, Value};

use super::words::{self, ServerWords};
use super::{Guard, Live, LiveView, GUARD_ID};
use crate::proxy::{Action, Side};
use driftlab_check::check::rules::of_kind;
use driftlab_check::check::RuleKind;
use driftlab_check::verdict::{evaluate, FailOn, ResolvedPolicy};
use driftlab_contract::contract::Contract;
use driftlab_contract::payload::{self, Limits, DEFAULT_MAX_BYTES};
use driftlab_live::live::DEFAULT_MAX_PAGES;

/// A tools/list the guard is paging through.
pub(super) struct Listing {
    tools: Vec<Value>,
    /// Pages so far, their cursors (a repeated one is a loop) and their bytes.
    pages: usize,
    cursors: HashSet<String>,
    bytes: usize,
}

impl Guard {
    /// Asks the server for its tools (a page after `cursor`), on the guard's own ids.
    pub(super) fn list_tools(&mut self, cursor: Option<&Value>) {
        if cursor.is_none() && self.relisting {
            // One listing at a time, so pages of two listings never mix.
            self.relist_again = true;
            return;
        }
        self.requests += 1;
        let mut params = match cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        if let Some(meta) = &self.protocol_meta {
            // 2026-07-28: the guard's own request speaks the era the client speaks.
            params["_meta"] = meta.clone();
        }
        let id = format!("{GUARD_ID}{}", self.requests);
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params});
        if cursor.is_none() {
            self.listing_era = self.era();
        }
        self.listing_id = Some(Value::String(id).to_string());
        self.relisting = true;
        self.listing_due = Some(Instant::now() + self.options.list_timeout);
        self.inject
            .push((Side::Server, request.to_string().into_bytes()));
    }

    /// The answer a client's `tools/list` gets: the pinned list, whatever the server lists now,
    /// whole (no `nextCursor`). The other members of the server's own result are kept beside
    /// it (2026-07-28's required `resultType`, `ttlMs` and `cacheScope`, and `_meta`), so a
    /// client of either era reads an answer of its era.
    pub(super) fn pinned_answer(&self, id: &str, response: &Value) -> Vec<u8> {
        let mut line = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"#).into_bytes();
        // `pinned_list` is a compact `{"tools":[…]}`: the members go before its closing brace.
        let body = self.pinned_list.strip_suffix(b"}").unwrap_or_default();
        line.extend_from_slice(body);
        let members = response.get("result").and_then(Value::as_object);
        for (key, value) in members.into_iter().flatten() {
            if key != "tools" && key != "nextCursor" {
                line.push(b',');
                // Serializing a key and a `Value` cannot fail.
                line.extend_from_slice(&serde_json::to_vec(key).unwrap_or_default());
                line.push(b':');
                line.extend_from_slice(&serde_json::to_vec(value).unwrap_or_default());
            }
        }
        line.extend_from_slice(b"}}");
        line
    }

    /// Keeps the protocol envelope of a client's 2026-07-28 request (`params._meta` members named
    /// `io.modelcontextprotocol/…`: protocol version, client capabilities, client info), which
    /// every request of that era must carry, for the guard's own listings.
    pub(super) fn remember_protocol_meta(&mut self, request: &Value) {
        if self.handshake {
            return;
        }
        let Some(meta) = request.pointer("/params/_meta").and_then(Value::as_object) else {
            return;
        };
        if !meta.contains_key("io.modelcontextprotocol/protocolVersion") {
            return;
        }
        let envelope: serde_json::Map<String, Value> = meta
            .iter()
            .filter(|(k, _)| k.starts_with("io.modelcontextprotocol/"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        self.protocol_meta = Some(Value::Object(envelope));
    }

    /// The protocol version the guard's own requests speak now (`None`: the handshake's).
    fn era(&self) -> Option<String> {
        let version = self
            .protocol_meta
            .as_ref()?
            .get("io.modelcontextprotocol/protocolVersion")?;
        Some(
            version
                .as_str()
                .map_or_else(|| version.to_string(), str::to_string),
        )
    }

    /// The protocol version a client request is in: the handshake's (`None`) once there was
    /// one, else the version its `_meta` names.
    pub(super) fn era_of(&self, request: &Value) -> Option<String> {
        if self.handshake {
            return None;
        }
        let version = request.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")?;
        Some(
            version
                .as_str()
                .map_or_else(|| version.to_string(), str::to_string),
        )
    }

    /// Whether a call must wait for a listing: none yet (e.g. a call before
    /// notifications/initialized), or the last was asked in another era than the call's.
    pub(super) fn needs_listing(&self, call: &Value) -> bool {
        match &self.live {
            LiveView::NotListed => true,
            LiveView::Listed(live) => live.era != self.era_of(call),
            LiveView::Failed(_) => false,
        }
    }

    /// One page of the guard's own listing; diffs against the pin after the last.
    pub(super) fn listed(&mut self, response: &Value) {
        self.listing_id = None;
        let Some(result) = response.get("result") else {
            self.record(json!({"event": "live-list-failed", "error": response.get("error")}));
            let error = response.get("error").unwrap_or(&Value::Null);
            let why = match self.options.server_words {
                ServerWords::Kinds => match error.get("code").and_then(Value::as_i64) {
                    Some(code) => format!("the server's tools/list failed (JSON-RPC error {code})"),
                    None => "the server's tools/list failed".into(),
                },
                ServerWords::Quoted => format!(
                    "the server's tools/list failed: {}",
                    words::quoted(&error.to_string())
                ),
            };
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
        // An empty cursor ends a listing before 2026-07-28 and is one to follow from then on.
        let modern = self.listing_era.as_deref() == Some(driftlab_live::live::era::MODERN);
        let cursor = result
            .get("nextCursor")
            .filter(|c| c.as_str().is_some_and(|s| modern || !s.is_empty()));
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
    pub(super) fn listing_failed(&mut self, why: String) {
        self.listing = None;
        self.listing_id = None;
        self.live = LiveView::Failed(why);
        self.release_held();
    }

    /// Diffs the live tools against the pin with the gate's engine.
    pub(super) fn pin_against(&mut self, live: Value) {
        let bytes = serde_json::to_vec(&live).unwrap_or_default();
        let surface = match payload::read(&bytes, "live tools/list", Limits::default()) {
            Ok(s) => s,
            Err(e) => {
                self.record(json!({"event": "live-list-unreadable", "error": e.to_string()}));
                let why = match self.options.server_words {
                    ServerWords::Kinds => {
                        "the server's tools/list is unreadable (the audit log says where)".into()
                    }
                    ServerWords::Quoted => format!(
                        "the server's tools/list is unreadable: {}",
                        words::quoted(&e.to_string())
                    ),
                };
                self.live = LiveView::Failed(why);
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
        let mut changed: HashMap<String, Vec<Value>> = HashMap::new();
        for finding in &outcome.findings {
            let tool = finding
                .tool
                .as_ref()
                .map(|t| t.name.split(" -> ").next().unwrap_or("").to_string())
                .unwrap_or_default();
            let (rule, severity) = (finding.rule, finding.severity.as_str());
            let fingerprint = finding.fingerprint();
            self.record(json!({"event": "pin-diff", "tool": tool, "rule": rule,
                "severity": severity, "message": finding.message, "fingerprint": fingerprint}));
            if !tool.is_empty() {
                changed
                    .entry(tool)
                    .or_default()
                    .push(json!({"rule": rule, "severity": severity, "fingerprint": fingerprint}));
            }
        }
        let drift = super::drift::by_tool(&outcome.findings, &self.contracts);
        let lowered_trust = match self.options.fail_on {
            FailOn::Trust => super::drift::lowered_trust(&outcome.findings),
            _ => Default::default(),
        };
        let contracts = surface
            .tools()
            .filter_map(|t| Some((t.name_str()?.to_string(), Contract::of(&t))))
            .collect();
        self.record(
            json!({"event": "live-listed", "tools": surface.len(), "breaking_tools": drift.len()}),
        );
        let era = self.listing_era.clone();
        let renames = super::translate::proven_renames(&self.contracts, &contracts, &drift);
        self.live = LiveView::Listed(Box::new(Live {
            contracts,
            drift,
            lowered_trust,
            changed,
            era,
            renames,
        }));
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
        let mut held = std::mem::take(&mut self.held).into_iter();
        while let Some((id, bytes, request)) = held.next() {
            if self.needs_listing(&request) && !matches!(self.live, LiveView::Failed(_)) {
                // A call of another era: it and the calls after it wait for a listing in its.
                self.remember_protocol_meta(&request);
                self.held.push((id, bytes, request));
                self.held.extend(held);
                self.list_tools(None);
                return;
            }
            let (side, out) = match self.call(&id, &request) {
                Action::Answer(answer) => (Side::Client, answer),
                // A call the guard rewrote (a translated rename) goes on as rewritten.
                Action::Replace(rewritten) => (Side::Server, rewritten),
                _ => (Side::Server, bytes),
            };
            self.inject.push((side, out));
        }
    }
}
