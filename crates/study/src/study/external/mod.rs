//! Checkers outside driftlab, in any language, as gates of a study.
//!
//! Two ways to run one (see `docs/checker-protocol.md`):
//! - **JSON Lines** (`mode = "jsonl"`, the default): the checker starts once and reads one
//!   request per line on stdin, `{"protocol": 1, "id": N, "approved": "<bytes>", "candidate":
//!   "<bytes>"}`, answering each with one line on stdout, `{"id": N, "detected": true|false,
//!   "findings": [...]}`, in order. Requests are pipelined.
//! - **Exit code** (`mode = "exit-code"`): the checker runs once per comparison with the two
//!   payloads in files (`{approved}` and `{candidate}` in its argv), and its exit code decides.
//!
//! Either way a study's results depend only on the checker's answers, in surface order, at any
//! thread count and any number of checker processes.

mod error;
mod exit_code;
mod jsonl;

pub use error::{CheckerError, Fault, RequestFault};

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The protocol version every request line carries.
pub(crate) const PROTOCOL: u32 = 1;

/// The longest answer line accepted (a checker printing without end is cut off, not buffered).
pub(crate) const MAX_ANSWER_LINE: usize = 1 << 20;

/// How a study runs an external checker, resolved from its `[[gates]]` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckerSpec {
    /// The gate's id, named in every error.
    pub gate: String,
    /// argv: no shell. In exit-code mode `{approved}` and `{candidate}` are replaced by paths.
    pub command: Vec<String>,
    /// How it is asked.
    pub mode: Mode,
    /// Checker processes run side by side (each takes a contiguous slice of a batch).
    pub processes: usize,
    /// The longest wait for one answer (JSONL) or one run (exit code).
    pub timeout: Duration,
    /// The folder the command runs in (the spec file's).
    pub dir: PathBuf,
    /// Exit codes that mean detected and not detected (exit-code mode).
    pub detected_codes: Vec<i32>,
    /// Exit codes that mean not detected (exit-code mode).
    pub not_detected_codes: Vec<i32>,
}

/// How a checker is asked (docs/checker-protocol.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Requests and answers as JSON Lines on stdin and stdout, pipelined.
    Jsonl,
    /// One run per comparison, its exit code the verdict.
    ExitCode,
}

/// One comparison to judge: the bytes a client would receive, approved and candidate.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The request's id, echoed by the answer.
    pub id: u64,
    /// The approved payload's bytes.
    pub approved: &'a [u8],
    /// The candidate payload's bytes.
    pub candidate: &'a [u8],
}

/// What the checker answered for one comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Judged: detected or not, with the rules of its findings (if it named any), how many
    /// findings it gave and the first finding's pointer.
    Judged {
        /// Whether it detected a change.
        detected: bool,
        /// The rules of its findings.
        rules: Vec<String>,
        /// How many findings it gave.
        findings: usize,
        /// The first finding's pointer.
        first_pointer: String,
    },
    /// The checker failed on this comparison (JSON Lines: an answer with `error`; exit code:
    /// a code outside the mapping, or a signal). Never counted as detected.
    Crashed(String),
}

impl Answer {
    /// Whether the answer counts as detected (a crash never does).
    pub fn detected(&self) -> bool {
        matches!(self, Answer::Judged { detected: true, .. })
    }
}

/// The request line for one comparison (no trailing newline). The payloads travel as JSON
/// strings, so the checker receives the exact bytes, formatting included. Payloads are UTF-8
/// (the reader refuses anything else), so no byte is lost.
pub(crate) fn request_line(request: &Request<'_>) -> Vec<u8> {
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    let line = serde_json::json!({
        "protocol": PROTOCOL,
        "id": request.id,
        "approved": text(request.approved),
        "candidate": text(request.candidate),
    });
    serde_json::to_vec(&line).unwrap_or_default()
}

/// Parses one answer line; `expected` is the id it must carry (answers come in order).
fn parse_answer(line: &[u8], expected: u64) -> Result<Answer, RequestFault> {
    #[derive(Deserialize)]
    struct Line {
        id: u64,
        detected: Option<bool>,
        #[serde(default)]
        findings: Vec<Value>,
        /// The checker failed on this comparison (e.g. an exception): a crash, not a verdict.
        error: Option<String>,
    }
    let line: Line = serde_json::from_slice(line).map_err(|error| RequestFault::NotAnAnswer {
        error,
        line: driftlab_contract::text::shorten(&String::from_utf8_lossy(line), 80),
    })?;
    if line.id != expected {
        return Err(RequestFault::OutOfOrder {
            got: line.id,
            due: expected,
        });
    }
    if let Some(error) = line.error {
        return Ok(Answer::Crashed(driftlab_contract::text::shorten(
            &error, 200,
        )));
    }
    let Some(detected) = line.detected else {
        return Err(RequestFault::NoVerdict);
    };
    let text = |f: &Value, key: &str| f.get(key).and_then(Value::as_str).map(String::from);
    let mut rules: Vec<String> = Vec::new();
    for rule in line.findings.iter().filter_map(|f| text(f, "rule")) {
        if !rules.contains(&rule) {
            rules.push(rule);
        }
    }
    Ok(Answer::Judged {
        detected,
        rules,
        findings: line.findings.len(),
        first_pointer: line
            .findings
            .first()
            .and_then(|f| text(f, "pointer"))
            .unwrap_or_default(),
    })
}

/// A running checker: judges batches of comparisons.
pub enum Checker {
    /// Its processes, asked in JSON Lines.
    Jsonl(jsonl::Pool),
    /// Its runner, one run per comparison.
    ExitCode(exit_code::Runner),
}

impl Checker {
    /// Starts the checker (JSONL: its processes; exit code: a scratch folder).
    pub fn start(spec: &CheckerSpec) -> Result<Checker, CheckerError> {
        match spec.mode {
            Mode::Jsonl => jsonl::Pool::start(spec).map(Checker::Jsonl),
            Mode::ExitCode => exit_code::Runner::new(spec).map(Checker::ExitCode),
        }
    }

    /// `fault` as an error of this checker.
    pub fn fault(&self, fault: Fault) -> CheckerError {
        let spec = match self {
            Checker::Jsonl(pool) => pool.spec(),
            Checker::ExitCode(runner) => runner.spec(),
        };
        CheckerError::new(spec, fault)
    }

    /// One answer per request, in request order.
    pub fn judge(&mut self, requests: &[Request<'_>]) -> Result<Vec<Answer>, CheckerError> {
        match self {
            Checker::Jsonl(pool) => pool.judge(requests),
            Checker::ExitCode(runner) => runner.judge(requests),
        }
    }
}

/// The answers of per-slice workers, joined in slice order (the first error wins; the scope
/// joins the rest).
fn join_in_order(
    spec: &CheckerSpec,
    handles: Vec<std::thread::ScopedJoinHandle<'_, Result<Vec<Answer>, CheckerError>>>,
    capacity: usize,
) -> Result<Vec<Answer>, CheckerError> {
    let mut answers = Vec::with_capacity(capacity);
    for handle in handles {
        let part = handle
            .join()
            .unwrap_or_else(|_| Err(CheckerError::new(spec, Fault::Panicked)))?;
        answers.extend(part);
    }
    Ok(answers)
}

/// `requests` cut into `parts` contiguous slices (the first ones one longer), for parallel
/// checker processes; the answers are joined back in order.
fn slices<'r, 'a>(requests: &'r [Request<'a>], parts: usize) -> Vec<&'r [Request<'a>]> {
    let parts = parts.max(1);
    let (size, extra) = (requests.len() / parts, requests.len() % parts);
    let mut out = Vec::with_capacity(parts);
    let mut start = 0;
    for i in 0..parts {
        let end = start + size + usize::from(i < extra);
        out.push(&requests[start..end]);
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_parsed_strictly_and_in_order() {
        let answer = parse_answer(
            br#"{"id": 7, "detected": true, "findings": [{"rule": "x", "pointer": "/tools/1"}, {"rule": "x"}, {"rule": "y"}], "extra": 1}"#,
            7,
        )
        .unwrap();
        assert_eq!(
            answer,
            Answer::Judged {
                detected: true,
                rules: vec!["x".into(), "y".into()],
                findings: 3,
                first_pointer: "/tools/1".into()
            }
        );
        let late = parse_answer(br#"{"id": 8, "detected": false}"#, 7).unwrap_err();
        assert!(
            matches!(late, RequestFault::OutOfOrder { got: 8, due: 7 }),
            "{late}"
        );
        let garbage = parse_answer(b"Traceback (most recent call last):", 7).unwrap_err();
        assert!(
            garbage.to_string().starts_with("not an answer"),
            "{garbage}"
        );
        let no_verdict = parse_answer(br#"{"id": 7}"#, 7).unwrap_err();
        assert!(
            matches!(no_verdict, RequestFault::NoVerdict),
            "{no_verdict}"
        );
        let failed = parse_answer(br#"{"id": 7, "error": "KeyError: 'name'"}"#, 7).unwrap();
        assert_eq!(failed, Answer::Crashed("KeyError: 'name'".into()));
    }

    #[test]
    fn request_lines_carry_the_exact_bytes() {
        let line = request_line(&Request {
            id: 3,
            approved: b"{\"tools\": []}\n",
            candidate: b"{\"tools\":[]}",
        });
        let value: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(value["protocol"], 1);
        assert_eq!(value["approved"], "{\"tools\": []}\n");
        assert_eq!(value["candidate"], "{\"tools\":[]}");
    }

    #[test]
    fn slices_cover_every_request_once_in_order() {
        let requests: Vec<Request> = (0..10)
            .map(|id| Request {
                id,
                approved: b"",
                candidate: b"",
            })
            .collect();
        for parts in 1..=12 {
            let ids: Vec<u64> = slices(&requests, parts)
                .iter()
                .flat_map(|s| s.iter().map(|r| r.id))
                .collect();
            assert_eq!(ids, (0..10).collect::<Vec<_>>(), "{parts}");
        }
    }
}
