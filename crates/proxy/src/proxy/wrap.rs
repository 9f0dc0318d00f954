//! `driftlab wrap`'s hooks: seeded faults on chosen methods' responses, and contract drift on
//! `tools/list` results through the study's mutation registry. Every decision is logged.

use std::io::Write;
use std::time::Duration;

use serde_json::{json, Value};

use super::drifted_server::{DriftedServer, Handled};
use super::{id_json, Action, Hooks, Message};
use driftlab_contract::contract::values::corrupt_value;
use driftlab_contract::rng::Stream;
use driftlab_mutate::mutate::MutationClass;

/// What `wrap` can do to a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Fault {
    /// Deliver the response after --latency-ms.
    Latency,
    /// Never deliver the response.
    Timeout,
    /// Cut the response line at a drawn point in its middle half (invalid JSON).
    Truncate,
    /// Corrupt every leaf of `structuredContent` and every text of `content`, keeping types.
    Corrupt,
    /// Replace the response with a line of invalid JSON.
    Malformed,
    /// Replace the response with a JSON-RPC error (-32603) or an `isError: true` result (drawn).
    Error,
    /// Kill the server instead of delivering the response.
    Crash,
}

impl Fault {
    /// How `--fault` and the log spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Fault::Latency => "latency",
            Fault::Timeout => "timeout",
            Fault::Truncate => "truncate",
            Fault::Corrupt => "corrupt",
            Fault::Malformed => "malformed",
            Fault::Error => "error",
            Fault::Crash => "crash",
        }
    }
}

/// What `driftlab wrap` does to the traffic (its flags).
pub struct WrapOptions {
    /// The faults a response in scope may get, drawn per response.
    pub faults: Vec<Fault>,
    /// The mutation classes applied to tools/list responses.
    pub drift: Vec<&'static dyn MutationClass>,
    /// Methods whose responses may get a fault.
    pub only: Vec<String>,
    /// Probability of a fault per response in scope, in millionths.
    pub per_million: u64,
    /// The seed of every draw.
    pub seed: u64,
    /// The stream index of the first tools/list response's drift: the k-th response draws from
    /// `mutate::stream(seed, class, drift_index + k)`, the stream a study uses for surface
    /// `drift_index + k`.
    pub drift_index: u64,
    /// Behave as a server that implements the drifted contract (see [`DriftedServer`]): every
    /// listing gets the drift of stream `drift_index`, and calls are handled by that contract.
    pub enforce_drift: bool,
    /// Drift only the tool of this name (the classes see a list of it alone); `None`: the
    /// classes draw the tool themselves.
    pub drift_tool: Option<String>,
    /// The delay of the `latency` fault.
    pub latency: Duration,
}

/// The proxy hooks of `driftlab wrap`: seeded faults and drift, each decision logged.
pub struct WrapHooks {
    options: WrapOptions,
    log: Option<Box<dyn Write>>,
    /// Responses seen so far per method: the k in every decision's stream.
    counts: std::collections::HashMap<String, u64>,
    /// With `enforce_drift`: the contract the last listing announced.
    drifted: Option<DriftedServer>,
}

impl WrapHooks {
    /// Hooks doing what `options` say, logging each decision as a JSON line to `log`.
    pub fn new(options: WrapOptions, log: Option<Box<dyn Write>>) -> WrapHooks {
        WrapHooks {
            options,
            log,
            counts: Default::default(),
            drifted: None,
        }
    }

    fn record(&mut self, entry: Value) {
        if let Some(log) = &mut self.log {
            let _ = writeln!(log, "{entry}");
            let _ = log.flush();
        }
    }

    /// Applies every drift class, in order, to a tools/list response.
    fn drift(&mut self, message: &Message<'_>, page: u64) -> Option<Vec<u8>> {
        let mut response: Value = serde_json::from_slice(message.bytes).ok()?;
        let result = response.get_mut("result")?;
        let original = self.options.enforce_drift.then(|| result.clone());
        // A server implements one contract: with enforce_drift every listing shows the same one.
        let index = if self.options.enforce_drift {
            self.options.drift_index
        } else {
            self.options.drift_index + page
        };
        let mut last: Option<&dyn MutationClass> = None;
        for class in self.options.drift.clone() {
            let mut rng = driftlab_mutate::mutate::stream(self.options.seed, class, index);
            let outcome = match &self.options.drift_tool {
                Some(name) => apply_to_tool(class, result, name, &mut rng),
                None => class.apply(result, &mut rng),
            };
            let entry = match &outcome {
                Ok(applied) => {
                    json!({"id": id_json(message.id.as_deref()), "method": "tools/list", "page": page,
                    "action": "drift", "class": class.id(), "tool_index": applied.tool_index, "detail": applied.detail})
                }
                Err(na) => {
                    json!({"id": id_json(message.id.as_deref()), "method": "tools/list", "page": page,
                    "action": "drift-not-applicable", "class": class.id(), "reason": na.0})
                }
            };
            self.record(entry);
            last = Some(class);
        }
        if let Some(original) = original {
            self.drifted = Some(DriftedServer::new(&original, result));
        }
        // The last class decides the serialisation (only `payload-reformatted` changes it).
        let class = last?;
        let mut out = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
        out.extend_from_slice(message.id.as_deref().unwrap_or("null").as_bytes());
        out.extend_from_slice(b",\"result\":");
        out.extend_from_slice(&wire_bytes(class, result));
        out.push(b'}');
        Some(out)
    }

    fn fault(&mut self, fault: Fault, message: &Message<'_>, rng: &mut Stream) -> (Action, Value) {
        let bytes = message.bytes;
        let id = message.id.as_deref().unwrap_or("null");
        match fault {
            Fault::Latency => (
                Action::Delay(self.options.latency, None),
                json!({"latency_ms": self.options.latency.as_millis() as u64}),
            ),
            Fault::Timeout => (Action::Drop, json!({})),
            Fault::Truncate => {
                let quarter = bytes.len() / 4;
                let cut = quarter + rng.below((bytes.len() / 2).max(1) as u64) as usize;
                (
                    Action::Replace(bytes[..cut.min(bytes.len())].to_vec()),
                    json!({"cut_at": cut, "length": bytes.len()}),
                )
            }
            Fault::Corrupt => {
                let Ok(mut response) = serde_json::from_slice::<Value>(bytes) else {
                    return (Action::Forward, json!({"skipped": "not JSON"}));
                };
                let mut leaves = 0;
                if let Some(structured) = response.pointer_mut("/result/structuredContent") {
                    leaves += corrupt_value(structured, rng);
                }
                if let Some(Value::Array(content)) = response.pointer_mut("/result/content") {
                    for item in content {
                        if let Some(text) = item.get_mut("text") {
                            leaves += corrupt_value(text, rng);
                        }
                    }
                }
                (
                    Action::Replace(response.to_string().into_bytes()),
                    json!({"leaves": leaves}),
                )
            }
            Fault::Malformed => (
                Action::Replace(
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[}}}}"#)
                        .into_bytes(),
                ),
                json!({}),
            ),
            Fault::Error => {
                if rng.chance(1, 2) {
                    let line = format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32603,"message":"driftlab wrap: injected error"}}}}"#
                    );
                    (
                        Action::Replace(line.into_bytes()),
                        json!({"kind": "jsonrpc", "code": -32603}),
                    )
                } else {
                    let line = format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"driftlab wrap: injected tool error"}}],"isError":true}}}}"#
                    );
                    (Action::Replace(line.into_bytes()), json!({"kind": "tool"}))
                }
            }
            Fault::Crash => (Action::CrashServer, json!({})),
        }
    }
}

/// What `wrap` puts on the wire for a mutated result: the class's serialisation with its
/// newlines turned into spaces (one message is one line on stdio).
pub(crate) fn wire_bytes(class: &dyn MutationClass, mutated: &Value) -> Vec<u8> {
    let mut bytes = class.serialize(mutated);
    to_one_line(&mut bytes);
    bytes
}

/// `class` applied to the tool named `name` alone (a list of it only), spliced back in place.
fn apply_to_tool(
    class: &dyn MutationClass,
    result: &mut Value,
    name: &str,
    rng: &mut driftlab_contract::rng::Stream,
) -> driftlab_mutate::mutate::Outcome {
    let not_here = || {
        driftlab_mutate::mutate::NotApplicable(format!("the listing has no tool named {name:?}"))
    };
    let tools = result
        .get_mut("tools")
        .and_then(Value::as_array_mut)
        .ok_or_else(not_here)?;
    let at = tools
        .iter()
        .position(|t| t.get("name").and_then(Value::as_str) == Some(name))
        .ok_or_else(not_here)?;
    let mut alone = json!({"tools": [tools[at].clone()]});
    let mut outcome = class.apply(&mut alone, rng);
    if let Ok(applied) = &mut outcome {
        applied.tool_index = applied.tool_index.map(|i| i + at);
        let changed = alone["tools"].as_array().cloned().unwrap_or_default();
        tools.splice(at..=at, changed);
    }
    outcome
}

/// Makes serialized JSON one line (a newline-delimited transport's framing): newlines only ever
/// occur between tokens, where a space means the same.
pub fn to_one_line(bytes: &mut [u8]) {
    for b in bytes.iter_mut().filter(|b| **b == b'\n') {
        *b = b' ';
    }
}

impl WrapHooks {
    /// A tools/call as the drifted server handles it: refused, or run on the real server.
    fn drifted_call(&mut self, message: &Message<'_>) -> Action {
        // A line that fails the strict reading passes on untouched: wrap rehearses faults, it
        // does not gate (the guard refuses such lines).
        let Ok(request) = &message.reading else {
            return Action::Forward;
        };
        let id = id_json(message.id.as_deref());
        let tool = request
            .pointer("/params/name")
            .cloned()
            .unwrap_or(Value::Null);
        let Some(server) = &self.drifted else {
            self.record(json!({"id": id, "method": "tools/call", "tool": tool, "action": "drifted-server-unlisted"}));
            return Action::Forward;
        };
        match server.handle(request) {
            Handled::Refused { reason } => {
                let raw_id = message.id.as_deref().unwrap_or("null");
                let error = json!({"code": -32602, "message": reason});
                self.record(json!({"id": id, "method": "tools/call", "tool": tool,
                    "action": "drifted-server-refused", "reason": reason}));
                Action::Answer(
                    format!(r#"{{"jsonrpc":"2.0","id":{raw_id},"error":{error}}}"#).into_bytes(),
                )
            }
            Handled::Runs {
                request,
                dropped,
                server_tool,
                mapped,
                received,
            } => {
                self.record(json!({"id": id, "method": "tools/call", "tool": tool,
                    "action": "drifted-server-ran", "dropped": dropped,
                    "server_tool": server_tool, "mapped": mapped, "received": received}));
                match request {
                    Some(request) => Action::Replace(request.to_string().into_bytes()),
                    None => Action::Forward,
                }
            }
        }
    }
}

impl Hooks for WrapHooks {
    fn on_client(&mut self, message: &Message<'_>) -> Action {
        if self.options.enforce_drift
            && !message.is_response
            && message.method.as_deref() == Some("tools/call")
        {
            return self.drifted_call(message);
        }
        Action::Forward
    }

    fn on_server(&mut self, message: &Message<'_>) -> Action {
        let (Some(method), true) = (message.method.clone(), message.is_response) else {
            return Action::Forward;
        };
        let k = {
            let count = self.counts.entry(method.clone()).or_insert(0);
            *count += 1;
            *count - 1
        };
        let mut action = Action::Forward;
        if method == "tools/list" && !self.options.drift.is_empty() {
            if let Some(bytes) = self.drift(message, k) {
                action = Action::Replace(bytes);
            }
        }
        if self.options.only.contains(&method) && !self.options.faults.is_empty() {
            let mut rng = Stream::derive(self.options.seed, &format!("fault:{method}"), k);
            let hit = rng.below(1_000_000) < self.options.per_million;
            if hit {
                let fault = self.options.faults[rng.index(self.options.faults.len())];
                let (faulted, params) = self.fault(fault, message, &mut rng);
                self.record(
                    json!({"id": id_json(message.id.as_deref()), "method": method, "k": k, "action": "fault",
                    "fault": fault.as_str(), "params": params}),
                );
                return faulted;
            }
            self.record(
                json!({"id": id_json(message.id.as_deref()), "method": method, "k": k, "action": "pass"}),
            );
        }
        action
    }
}
