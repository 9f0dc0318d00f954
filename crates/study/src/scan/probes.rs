//! Error-conformance probes against a live server: three calls a correct server must refuse.
//! No tool is ever called with valid arguments, so a scan has no side effects.

use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

use driftlab_contract::surface::Surface;
use driftlab_live::live::{LiveError, Session, Transport};

/// The method no server implements, and the tool no server has.
pub(crate) const UNKNOWN_METHOD: &str = "driftlab/probe-unknown-method";
/// The tool no server has.
pub(crate) const UNKNOWN_TOOL: &str = "driftlab-probe-no-such-tool";

/// How a server answered one probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeVerdict {
    /// A JSON-RPC error (with the expected code, where one is expected).
    JsonrpcError,
    /// A result with `isError: true`.
    ToolError,
    /// A JSON-RPC error with another code than the specification's.
    WrongErrorCode,
    /// A normal result: the bad call was accepted.
    Accepted,
    /// No answer within the timeout.
    Timeout,
    /// The server exited.
    Crash,
    /// An answer that is not valid JSON-RPC.
    InvalidAnswer,
    /// Not applicable (no tool with required parameters) or not run (the server had crashed).
    Skipped,
}

impl ProbeVerdict {
    /// `Some(true)` for a correct refusal, `None` when the probe did not run.
    pub fn good(self) -> Option<bool> {
        match self {
            ProbeVerdict::JsonrpcError | ProbeVerdict::ToolError => Some(true),
            ProbeVerdict::Skipped => None,
            _ => Some(false),
        }
    }
}

/// One probe of a live server and its answer.
#[derive(Debug, Clone, Serialize)]
pub struct Probe {
    /// The probe's name.
    pub probe: &'static str,
    /// How the server answered.
    pub verdict: ProbeVerdict,
    /// The JSON-RPC error code of the answer, if it was an error.
    pub code: Option<i64>,
    /// What the answer was, in one line.
    pub detail: String,
}

/// Runs the three probes on an initialized session.
pub fn run<T: Transport>(
    session: &mut Session<T>,
    surface: &Surface,
    timeout: Duration,
) -> Vec<Probe> {
    let mut probes = Vec::new();
    let mut crashed = false;
    let mut probe = |name: &'static str,
                     method: &str,
                     params: Value,
                     expect: Option<i64>,
                     crashed: &mut bool| {
        if *crashed {
            return Probe {
                probe: name,
                verdict: ProbeVerdict::Skipped,
                code: None,
                detail: "not run: the server had exited".into(),
            };
        }
        let answer = session.request(method, &params, timeout, name);
        let probe = classify(name, answer, expect);
        *crashed = probe.verdict == ProbeVerdict::Crash;
        probe
    };
    probes.push(probe(
        "unknown-method",
        UNKNOWN_METHOD,
        json!({}),
        Some(-32601),
        &mut crashed,
    ));
    probes.push(probe(
        "unknown-tool",
        "tools/call",
        json!({"name": UNKNOWN_TOOL, "arguments": {}}),
        None,
        &mut crashed,
    ));
    let with_required = surface.tools().find(|t| {
        t.name_str().is_some()
            && t.input_schema()
                .and_then(|s| s.get("required"))
                .and_then(Value::as_array)
                .is_some_and(|r| !r.is_empty())
    });
    probes.push(match with_required {
        Some(tool) => {
            let name = tool.name_str().unwrap_or_default().to_string();
            let mut p = probe(
                "missing-arguments",
                "tools/call",
                json!({"name": name, "arguments": {}}),
                None,
                &mut crashed,
            );
            p.detail = format!("tool {name:?}: {}", p.detail);
            p
        }
        None => Probe {
            probe: "missing-arguments",
            verdict: ProbeVerdict::Skipped,
            code: None,
            detail: "no tool has a required parameter".into(),
        },
    });
    probes
}

fn classify(
    name: &'static str,
    answer: Result<Box<serde_json::value::RawValue>, LiveError>,
    expect: Option<i64>,
) -> Probe {
    let (verdict, code, detail) = match answer {
        Ok(result) => {
            let value: Value = serde_json::from_str(result.get()).unwrap_or(Value::Null);
            if value.get("isError") == Some(&Value::Bool(true)) {
                (
                    ProbeVerdict::ToolError,
                    None,
                    "result with isError: true".to_string(),
                )
            } else {
                (
                    ProbeVerdict::Accepted,
                    None,
                    "answered with a normal result".to_string(),
                )
            }
        }
        Err(LiveError::Rpc { code, message, .. }) => match expect {
            Some(want) if want != code => (
                ProbeVerdict::WrongErrorCode,
                Some(code),
                format!("JSON-RPC error {code} (expected {want}): {message}"),
            ),
            _ => (
                ProbeVerdict::JsonrpcError,
                Some(code),
                format!("JSON-RPC error {code}: {message}"),
            ),
        },
        Err(LiveError::Timeout { seconds, .. }) => (
            ProbeVerdict::Timeout,
            None,
            format!("no answer within {seconds} s"),
        ),
        Err(e @ LiveError::Exited { .. }) => (ProbeVerdict::Crash, None, e.to_string()),
        Err(e) => (ProbeVerdict::InvalidAnswer, None, e.to_string()),
    };
    Probe {
        probe: name,
        verdict,
        code,
        detail,
    }
}
