//! The guard as hooks on the proxy: each line as read strictly, refused when it fails that
//! reading; calls held while a listing is under way; answers to the guard's listing taken in.

use std::time::Instant;

use serde_json::json;

use super::words::{self, ServerWords};
use super::{is_guard_id, Guard, LiveView, GUARD_ID};
use crate::proxy::{id_json, Action, Hooks, Message, Side};
use driftlab_contract::jsonrpc::{self, Refusal};

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

    /// Why a client request may not use `id`: the guard's own ids, or one still in flight
    /// (sent to the server and not answered, or a call waiting for a listing), whatever the
    /// methods: the answer could not be told from the other request's, nor checked as its.
    fn id_taken(&self, id: &str, in_flight: bool) -> Option<Refusal> {
        if is_guard_id(id) {
            return Some(Refusal {
                code: jsonrpc::INVALID_REQUEST,
                rule: "reserved-id",
                reason: format!("ids starting with {GUARD_ID:?} are the guard's own"),
            });
        }
        let held = self.held.iter().any(|(held, ..)| held == id);
        (in_flight || held || self.calls.contains_key(id)).then(|| Refusal {
            code: jsonrpc::INVALID_REQUEST,
            rule: "id-in-flight",
            reason: format!("the id {id} is already used by a request in flight"),
        })
    }

    /// A server line that failed the strict reading: never passed on. The client call it
    /// answers (by a lenient reading of its id, or the one id of a call in flight that the line
    /// names) gets an error; otherwise, during the guard's own listing, the listing fails.
    fn unreadable_answer(&mut self, message: &Message<'_>, refusal: &Refusal) -> Action {
        self.record(
            json!({"event": "server-message-unreadable", "id": id_json(message.id.as_deref()),
            "rule": refusal.rule, "reason": refusal.reason}),
        );
        let call = message
            .id
            .clone()
            .filter(|id| message.is_response && message.pending && !is_guard_id(id))
            .or_else(|| self.call_named_in(message.bytes));
        // The reason may quote the line (a duplicate key, say): by kind, only the rule is said.
        let why = match self.options.server_words {
            ServerWords::Kinds => format!("({})", refusal.rule),
            ServerWords::Quoted => words::quoted(&refusal.to_string()),
        };
        if let Some(id) = call {
            self.calls.remove(&id);
            let error = json!({"code": -32603, "message": format!(
                "driftlab guard: the server's answer could not be read strictly: {why}"),
                "data": {"rule": refusal.rule}});
            return Action::Replace(
                format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#).into_bytes(),
            );
        }
        if self.relisting && message.id.as_deref().is_none_or(is_guard_id) {
            self.listing_failed(format!(
                "the server's tools/list answer is unreadable: {why}"
            ));
        }
        Action::Drop
    }

    /// The id of the one admitted call in flight whose `"id":` member `bytes` spells, if the
    /// bytes spell exactly one (a line cut short still names its id near the start).
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
        if let (Some(id), false) = (message.id.as_deref(), message.is_response) {
            if let Some(refusal) = self.id_taken(id, message.pending) {
                return self.refuse_message(message, &refusal);
            }
            self.remember_protocol_meta(request);
        }
        match message.method.as_deref() {
            Some("notifications/initialized") => {
                // Forward first (the proxy writes hooks' injections after the message).
                self.list_tools(None);
                Action::Forward
            }
            Some("tasks/result") if !message.is_response => {
                if let Some(id) = &message.id {
                    self.task_result_asked(id, request);
                }
                Action::Forward
            }
            Some("tools/call") if !message.is_response => {
                // The strict reading guarantees a request method has an id.
                let Some(id) = &message.id else {
                    return Action::Drop;
                };
                if self.needs_listing(request) && !self.relisting {
                    // Not listed yet (e.g. a call before notifications/initialized), or listed
                    // in another era than this call's: list now and decide when the answer is in.
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
        if message.is_response && !message.pending {
            // No request with this id is in flight: an answer to a call the guard refused (or
            // never saw) must not reach the client as if the server had run it.
            self.record(json!({"event": "unasked-answer-dropped",
                "id": id_json(message.id.as_deref())}));
            return Action::Drop;
        }
        if let Some(id) = &message.id {
            if is_guard_id(id) {
                if self.listing_id.as_deref() == Some(id.as_str()) {
                    self.listed(response);
                } else {
                    // The page of a listing that already ended (it timed out): not this one's.
                    self.record(json!({"event": "stale-listing-answer-dropped",
                        "id": id_json(Some(id))}));
                }
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
        if let Some(awaited) = self.calls.remove(&id) {
            return self.answered(&id, awaited, response);
        }
        match message.method.as_deref() {
            Some("tools/list") => Action::Replace(self.pinned_answer(&id, response)),
            Some("initialize") if response.get("result").is_some() => {
                // The era is the handshake's from now on, whatever `_meta` a message carries.
                self.handshake = true;
                self.protocol_meta = None;
                Action::Forward
            }
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
