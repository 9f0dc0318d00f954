//! Fuzzes one client line into the guard's decision. Whatever the guard sends on to the server
//! must be a line every common reader reads as the value the guard checked: serde_json's and
//! JavaScript's `JSON.parse` (the last of repeated keys wins), a reader where the first wins,
//! and Python's `json` (exact integers: none beyond 2^53 may pass; floats correctly rounded, as
//! the strict reading converts them). A line that fails the strict reading must be answered by
//! the guard itself, never forwarded.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

use driftlab_contract::jsonrpc::{self, strict::MAX_SAFE_INTEGER};
use driftlab_proxy::guard::{Guard, GuardOptions, OnDrift};
use driftlab_proxy::proxy::{self, Action, Hooks, Side};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

const PIN: &[u8] = br#"{"tools":[{"name":"read","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"integer","maximum":10}},"additionalProperties":false}}]}"#;

thread_local! {
    static GUARD: RefCell<Guard> = RefCell::new(primed_guard());
}

/// A guard on PIN that has listed the server once (so calls are decided, not held).
fn primed_guard() -> Guard {
    {
        let pinned = driftlab_contract::payload::read(PIN, "pin", Default::default()).unwrap();
        // Never open a circuit, so every input is decided on its own.
        let options = GuardOptions::deciding_every_call(OnDrift::Refuse);
        let mut guard = Guard::new(pinned, options, None);
        let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        guard.on_client(&proxy::parse(
            initialized,
            &HashMap::new(),
            false,
            jsonrpc::CLIENT,
        ));
        settle(&mut guard);
        guard
    }
}

/// Answers the guard's own listings with the pinned tools (a server that has not drifted);
/// returns the other lines the guard sends to the server (calls it held, then released).
fn settle(guard: &mut Guard) -> Vec<Vec<u8>> {
    let mut to_server = Vec::new();
    loop {
        let injected = guard.injections();
        if injected.is_empty() {
            return to_server;
        }
        for (side, bytes) in injected {
            let request: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            if side == Side::Server && request["method"] == "tools/list" {
                let pin = std::str::from_utf8(PIN).unwrap();
                let answer = format!(
                    r#"{{"jsonrpc":"2.0","id":{},"result":{pin}}}"#,
                    request["id"]
                );
                // The proxy would have the guard's request in flight.
                let in_flight = HashMap::from([(request["id"].to_string(), "tools/list".into())]);
                guard.on_server(&proxy::parse(
                    answer.as_bytes(),
                    &in_flight,
                    true,
                    jsonrpc::SERVER,
                ));
            } else if side == Side::Server {
                to_server.push(bytes);
            }
        }
    }
}

/// A value read with the first of repeated keys winning.
struct FirstWins(Value);

impl<'de> Deserialize<'de> for FirstWins {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FirstWinsVisitor).map(FirstWins)
    }
}

struct FirstWinsVisitor;

impl<'de> Visitor<'de> for FirstWinsVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(FirstWins(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some((k, FirstWins(v))) = map.next_entry::<String, FirstWins>()? {
            out.entry(k).or_insert(v);
        }
        Ok(Value::Object(out))
    }
}

/// Equal as JSON values; floats within serde_json's default (not always correctly rounded)
/// conversion of the same literal.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i128(), y.as_i128()) {
            (Some(i), Some(j)) => i == j,
            _ => {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                x == y || (x - y).abs() <= f64::EPSILON * x.abs().max(y.abs())
            }
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// No integer JavaScript would round (Python keeps them exact).
fn safe_integers(v: &Value) -> bool {
    match v {
        Value::Number(n) => n
            .as_i128()
            .is_none_or(|i| i.unsigned_abs() <= MAX_SAFE_INTEGER as u128),
        Value::Array(items) => items.iter().all(safe_integers),
        Value::Object(map) => map.values().all(safe_integers),
        _ => true,
    }
}

/// One fuzz input (`fuzz/fuzz_targets/guard_line.rs` runs it; `tests/it/fuzz_seeds.rs` runs it on the
/// committed seeds).
pub fn guard_line(line: &[u8]) {
    if line.contains(&b'\n') {
        return; // the transport splits lines there
    }
    let message = proxy::parse(line, &HashMap::new(), false, jsonrpc::CLIENT);
    let (action, mut forwarded) = GUARD.with_borrow_mut(|guard| {
        let action = guard.on_client(&message);
        (action, settle(guard))
    });
    match action {
        Action::Forward => forwarded.push(line.to_vec()),
        Action::Replace(bytes) => forwarded.push(bytes),
        Action::Answer(answer) => {
            let answer: Value =
                serde_json::from_slice(&answer).expect("the guard's answer is JSON");
            assert!(
                answer.get("error").is_some()
                    || answer.pointer("/result/isError") == Some(&Value::Bool(true))
            );
        }
        Action::Drop | Action::Delay(..) | Action::CrashServer => {}
    }
    for bytes in forwarded {
        let checked = message
            .reading
            .as_ref()
            .expect("only a strictly read line is forwarded");
        let body = bytes.strip_suffix(b"\r").unwrap_or(&bytes);
        assert!(
            !body.contains(&b'\r'),
            "a carriage return inside a forwarded line"
        );
        let last: Value = serde_json::from_slice(body).expect("serde_json reads a forwarded line");
        let FirstWins(first) = serde_json::from_slice(body).expect("a first-wins reader reads it");
        assert!(same(checked, &last), "last-wins reading differs");
        assert!(same(checked, &first), "first-wins reading differs");
        assert!(
            safe_integers(checked),
            "an integer JavaScript rounds was forwarded"
        );
    }
}
