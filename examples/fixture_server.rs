//! A scripted MCP server for driftlab's live tests: it serves the tools of a payload file and can
//! misbehave on demand in the ways real servers do only by accident (paginate, answer slowly,
//! crash, hang, print garbage, send its own requests, repeat a cursor, leave a grandchild behind).
//!
//! `cargo run --example fixture_server -- PAYLOAD [FLAGS]` speaks line-delimited JSON-RPC on
//! stdin/stdout; with `--http 127.0.0.1:0` it serves Streamable HTTP instead and prints
//! `listening on PORT` as its first stdout line. Tools are sent as the exact bytes of the file.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::time::Duration;

use clap::Parser;
use serde_json::value::RawValue;
use serde_json::{json, Value};

/// A page's `nextCursor` member when it is the empty string.
const EMPTY_CURSOR: &str = ",\"nextCursor\":\"\"";

#[derive(Parser, Clone)]
struct Args {
    /// A tools/list result {"tools":[…]} whose tools are served byte for byte.
    payload: String,
    /// Serve at most N tools per tools/list page (0: one page).
    #[arg(long, default_value_t = 0)]
    page_size: usize,
    /// Always answer with the same nextCursor, so the listing never ends.
    #[arg(long)]
    repeat_cursor: bool,
    /// With --page-size: the first page's nextCursor is the empty string (a valid cursor from
    /// 2026-07-28 on; before, the usual way to say "no more"), which asks for the second page.
    #[arg(long)]
    empty_first_cursor: bool,
    /// Always answer with a new nextCursor (`page-N`, N growing), so the listing never ends
    /// and never repeats.
    #[arg(long)]
    endless_pages: bool,
    /// Wait this long before every answer.
    #[arg(long, default_value_t = 0)]
    delay_ms: u64,
    /// Exit with code 1 (after a line on stderr) when this method arrives.
    #[arg(long)]
    crash_on: Option<String>,
    /// Never answer this method.
    #[arg(long)]
    hang_on: Option<String>,
    /// Answer this method with JSON-RPC error -32603.
    #[arg(long)]
    error_on: Option<String>,
    /// Answer this method with the `id` key twice (a decoy first, the real id last).
    #[arg(long)]
    duplicate_id_on: Option<String>,
    /// Answer this method with a line of broken JSON.
    #[arg(long)]
    malformed_on: Option<String>,
    /// Print a log line that is not JSON to stdout before every answer.
    #[arg(long)]
    garbage: bool,
    /// Before answering tools/list, send ping, roots/list and sampling/createMessage to the
    /// client and check its answers (exit 3 on a wrong one); also send a notification.
    #[arg(long)]
    server_requests: bool,
    /// Put this process's id in the first tool's description, so every run differs.
    #[arg(long)]
    vary: bool,
    /// Put this process's id in the first prompt's description, so every run's prompts/list
    /// differs while tools/list stays the same.
    #[arg(long)]
    vary_prompts: bool,
    /// Start `sleep 300` as a child and write its pid to this file.
    #[arg(long)]
    spawn_grandchild: Option<String>,
    /// Keep running when stdin closes (the client must kill us).
    #[arg(long)]
    ignore_stdin_close: bool,
    /// Serve Streamable HTTP on this address instead of stdio.
    #[arg(long)]
    http: Option<String>,
    /// With --http: answer with an SSE stream (a notification event, then the response).
    #[arg(long)]
    sse: bool,
    /// With --sse: the Content-Type of the stream, as spelled (media types are case-insensitive).
    #[arg(long, default_value = "text/event-stream")]
    sse_media_type: String,
    /// How tools/call is answered: `rpc-error` (-32602), `tool-error` (isError: true),
    /// `accept` (a normal result, whatever the arguments) or `echo` (a normal result whose
    /// `structuredContent` is the call's params as received).
    #[arg(long, default_value = "rpc-error")]
    calls: String,
    /// The error code for methods the fixture does not know.
    #[arg(long, default_value_t = -32601, allow_hyphen_values = true)]
    unknown_method_code: i64,
    /// Answer methods the fixture does not know with an empty result instead of an error.
    #[arg(long)]
    accept_unknown_methods: bool,
    /// After answering --switch-after-calls tools/call requests, serve this payload instead and
    /// send notifications/tools/list_changed.
    #[arg(long)]
    switch_to: Option<String>,
    #[arg(long, default_value_t = 1)]
    switch_after_calls: usize,
    /// Read stdin as the most forgiving server would: split lines at `\r` too, skip a byte-order
    /// mark, take the first JSON value of a line and ignore what follows, run every member of a
    /// batch, match methods ignoring case and surrounding spaces, run calls without an id.
    #[arg(long)]
    lenient: bool,
    /// After answering initialize, write notifications to stdout without end, reading nothing.
    #[arg(long)]
    flood_after_initialize: bool,
    /// With --flood-after-initialize: bytes of `data` in each flooded notification.
    #[arg(long, default_value_t = 5)]
    flood_bytes: usize,
    /// Before answering tools/list, send this many ping requests without reading any answer.
    #[arg(long, default_value_t = 0)]
    requests_before_reading: usize,
    /// Start `setsid sleep 300` (a helper in a session of its own) holding our stderr open,
    /// and write its pid to this file.
    #[arg(long)]
    daemon_holding_stderr: Option<String>,
    /// Raw JSON members spliced into the initialize result as sent (e.g. `"x":1e999`), for a
    /// server whose answer no strict reader accepts.
    #[arg(long)]
    initialize_extra: Option<String>,
    /// Speak 2026-07-28 too: answer `server/discover` (supportedVersions [2026-07-28]); once a
    /// client has discovered, every request must carry `_meta` with the protocol version and
    /// client capabilities (−32602 otherwise), and list results carry `resultType`, `ttlMs` and
    /// `cacheScope`.
    #[arg(long)]
    discover: bool,
    /// With --discover: refuse `initialize` (−32022), as a server that speaks only 2026-07-28.
    #[arg(long)]
    discover_only: bool,
    /// Before answering each tools/call, answer a request nobody sent: a forged success with
    /// this id (raw JSON, e.g. `99`, or the id of a call a guard refused).
    #[arg(long)]
    answer_unasked: Option<String>,
    /// Run task-augmented calls as tasks: a tools/call with `params.task` is answered with a
    /// CreateTaskResult, and `tasks/result` for its task with the call's result.
    #[arg(long)]
    tasks: bool,
    /// Serve this payload's tools to a tools/list whose `_meta` names protocol version
    /// 2026-07-28 (a server whose two eras list different tools).
    #[arg(long)]
    era_payload: Option<String>,
    /// Start only once this many servers of the same parent have started (each leaves a file in
    /// --barrier-dir; exit 4 after --barrier-secs without them): proof that a client starts
    /// them at once.
    #[arg(long, default_value_t = 0)]
    barrier: usize,
    #[arg(long, default_value_t = 20)]
    barrier_secs: u64,
    #[arg(long, default_value = ".")]
    barrier_dir: String,
    /// Append every tools/call the server runs (name and arguments) to this file, one JSON line
    /// each: the side effect a guard must prevent.
    #[arg(long)]
    call_log: Option<String>,
}

struct Server {
    args: Args,
    tools: RefCell<Vec<Box<RawValue>>>,
    /// The payload's contract beyond tools, when it is a whole-contract snapshot:
    /// `capabilities`, `instructions`, `serverInfo`, `prompts`, `resources`, `resourceTemplates`.
    contract: serde_json::Map<String, Value>,
    /// tools/call requests answered so far.
    calls: Cell<usize>,
    /// A client has opened the 2026-07-28 era with `server/discover`.
    modern: Cell<bool>,
    /// Tasks created for task-augmented calls (see `--tasks`).
    tasks: Cell<usize>,
}

/// What the server does with one request.
enum Reply {
    Line(String),
    Silence,
    Crash,
}

impl Server {
    fn handle(&self, message: &Value) -> Reply {
        let method = message.get("method").and_then(Value::as_str).unwrap_or("");
        let Some(id) = message.get("id") else {
            return Reply::Silence; // a notification or a response
        };
        if message.get("method").is_none() {
            return Reply::Silence;
        }
        let is = |flag: &Option<String>| flag.as_deref() == Some(method);
        if is(&self.args.crash_on) {
            eprintln!("fixture: crashing on {method} as asked");
            return Reply::Crash;
        }
        if is(&self.args.hang_on) {
            return Reply::Silence;
        }
        if is(&self.args.malformed_on) {
            return Reply::Line(format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":["#
            ));
        }
        if is(&self.args.error_on) {
            return Reply::Line(
                json!({"jsonrpc":"2.0","id":id,"error":{"code":-32603,"message":"fixture error as asked"}})
                    .to_string(),
            );
        }
        let contract = |key: &str| self.contract.get(key).cloned();
        if let Some(reply) = self.era(method, id, message) {
            return reply;
        }
        let result = match method {
            "initialize" => {
                let mut result = json!({
                    "protocolVersion": message.pointer("/params/protocolVersion").cloned().unwrap_or(json!("2025-06-18")),
                    "capabilities": contract("capabilities").unwrap_or(json!({"tools": {"listChanged": true}})),
                    "serverInfo": contract("serverInfo").unwrap_or(json!({"name": "driftlab-fixture", "version": "1.0.0"})),
                });
                if let Some(text) = contract("instructions") {
                    result["instructions"] = text;
                }
                result.to_string()
            }
            .replacen('{', &self.args.initialize_extra.as_ref().map_or("{".into(), |x| format!("{{{x},")), 1),
            "tools/list" => self.page(message),
            "tools/call" if self.args.tasks && message.pointer("/params/task").is_some() => {
                self.tasks.set(self.tasks.get() + 1);
                json!({"task": {"taskId": format!("task-{}", self.tasks.get()), "status": "working",
                    "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
                    "ttl": 60000}})
                .to_string()
            }
            "tasks/result" if self.args.tasks => match self.call_result() {
                Some(result) => result,
                None => return Self::invalid_params(id),
            },
            "ping" => "{}".into(),
            "prompts/list" | "resources/list" | "resources/templates/list"
                if self.contract.contains_key(Self::list_member(method)) =>
            {
                let mut result = json!({ Self::list_member(method): contract(Self::list_member(method)) });
                if self.args.vary_prompts && method == "prompts/list" {
                    if let Some(first) = result.pointer_mut("/prompts/0") {
                        first["description"] = json!(format!("served by process {}", std::process::id()));
                    }
                }
                if self.modern.get() {
                    result["resultType"] = json!("complete");
                    result["ttlMs"] = json!(60000);
                    result["cacheScope"] = json!("public");
                }
                result.to_string()
            }
            "tools/call" => match self.args.calls.as_str() {
                "echo" => json!({"content": [{"type": "text", "text": "received"}],
                    "structuredContent": {"received": message.get("params")}}).to_string(),
                _ => match self.call_result() {
                    Some(result) => result,
                    None => return Self::invalid_params(id),
                },
            },
            _ if self.args.accept_unknown_methods => "{}".into(),
            _ => {
                let code = self.args.unknown_method_code;
                return Reply::Line(
                    json!({"jsonrpc":"2.0","id":id,"error":{"code":code,"message":"Method not found"}})
                        .to_string(),
                );
            }
        };
        if is(&self.args.duplicate_id_on) {
            // Two ids: a reader that keeps the first sees "decoy", one that keeps the last, ours.
            return Reply::Line(format!(
                r#"{{"jsonrpc":"2.0","id":"decoy","result":{result},"id":{id}}}"#
            ));
        }
        Reply::Line(format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#
        ))
    }

    /// The result of a tools/call (or of tasks/result for its task) as `--calls` says; `None`
    /// for `rpc-error`.
    fn call_result(&self) -> Option<String> {
        match self.args.calls.as_str() {
            "tool-error" => Some(
                json!({"content": [{"type": "text", "text": "invalid call"}], "isError": true})
                    .to_string(),
            ),
            "accept" | "echo" => {
                Some(json!({"content": [{"type": "text", "text": "ok"}]}).to_string())
            }
            _ => None,
        }
    }

    fn invalid_params(id: &Value) -> Reply {
        Reply::Line(
            json!({"jsonrpc":"2.0","id":id,"error":{"code":-32602,"message":"Invalid params"}})
                .to_string(),
        )
    }

    /// What the 2026-07-28 era changes: `server/discover`, `initialize` refused by a
    /// discover-only server, `_meta` required once discovered. `None`: answer as usual.
    fn era(&self, method: &str, id: &Value, message: &Value) -> Option<Reply> {
        let error = |code: i64, text: &str| {
            Some(Reply::Line(
                json!({"jsonrpc":"2.0","id":id,"error":{"code":code,"message":text,
                    "data":{"supported":["2026-07-28"],"requested":message.pointer("/params/protocolVersion")}}})
                .to_string(),
            ))
        };
        if !self.args.discover {
            return None;
        }
        match method {
            "initialize" if self.args.discover_only => {
                return error(-32022, "this server speaks only 2026-07-28")
            }
            "server/discover" => {
                self.modern.set(true);
            }
            _ => {}
        }
        let meta = message.pointer("/params/_meta");
        let versioned = meta
            .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
            .is_some_and(|v| v == "2026-07-28")
            && meta
                .and_then(|m| m.get("io.modelcontextprotocol/clientCapabilities"))
                .is_some();
        if self.modern.get() && !versioned {
            return error(
                -32602,
                "params._meta must carry the protocol version and client capabilities",
            );
        }
        if method == "server/discover" {
            let mut result = json!({
                "supportedVersions": ["2026-07-28"],
                "capabilities": self.contract.get("capabilities").cloned().unwrap_or(json!({"tools": {"listChanged": true}})),
                "resultType": "complete", "ttlMs": 0, "cacheScope": "public",
                "_meta": {"io.modelcontextprotocol/serverInfo": self.contract.get("serverInfo").cloned().unwrap_or(json!({"name": "driftlab-fixture", "version": "1.0.0"}))},
            });
            if let Some(text) = self.contract.get("instructions") {
                result["instructions"] = text.clone();
            }
            return Some(Reply::Line(
                json!({"jsonrpc":"2.0","id":id,"result":result}).to_string(),
            ));
        }
        None
    }

    /// The member of a list result (and of a snapshot) that holds its items.
    fn list_member(method: &str) -> &'static str {
        match method {
            "prompts/list" => "prompts",
            "resources/list" => "resources",
            _ => "resourceTemplates",
        }
    }

    /// One tools/list result, tools as raw bytes (from `--era-payload` for a 2026-07-28 request).
    fn page(&self, message: &Value) -> String {
        let cursor = message.pointer("/params/cursor").and_then(Value::as_str);
        let modern = message
            .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
            .is_some_and(|v| v == "2026-07-28");
        if let (Some(path), true) = (&self.args.era_payload, modern) {
            let tools: Vec<String> = load(path).0.iter().map(|t| t.get().to_string()).collect();
            return format!(r#"{{"tools":[{}]}}"#, tools.join(","));
        }
        let start: usize = match cursor {
            Some("") if self.args.empty_first_cursor => self.args.page_size,
            _ => cursor
                .and_then(|c| c.strip_prefix("page-"))
                .and_then(|n| n.parse().ok())
                .unwrap_or(0),
        };
        let all = self.tools.borrow();
        let size = if self.args.page_size == 0 {
            all.len().max(1)
        } else {
            self.args.page_size
        };
        let end = (start + size).min(all.len());
        let mut tools: Vec<String> = all[start.min(end)..end]
            .iter()
            .map(|t| t.get().to_string())
            .collect();
        if self.args.vary && start == 0 && !tools.is_empty() {
            let mut first: Value = serde_json::from_str(&tools[0]).unwrap();
            first["description"] = json!(format!("served by process {}", std::process::id()));
            tools[0] = first.to_string();
        }
        let next = if self.args.repeat_cursor {
            r#","nextCursor":"again""#.to_string()
        } else if self.args.endless_pages {
            format!(r#","nextCursor":"page-{}""#, start + size)
        } else if end < all.len() && start == 0 && self.args.empty_first_cursor {
            EMPTY_CURSOR.to_string()
        } else if end < all.len() {
            format!(r#","nextCursor":"page-{end}""#)
        } else {
            String::new()
        };
        let caching = match self.modern.get() {
            true => r#","resultType":"complete","ttlMs":60000,"cacheScope":"public""#,
            false => "",
        };
        format!(r#"{{"tools":[{}]{next}{caching}}}"#, tools.join(","))
    }
}

fn main() {
    let args = Args::parse();
    let (tools, contract) = load(&args.payload);
    if let Some(pidfile) = &args.daemon_holding_stderr {
        #[allow(clippy::zombie_processes)]
        let child = Command::new("setsid")
            .args(["sleep", "300"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("setsid starts");
        std::fs::write(pidfile, child.id().to_string()).expect("pid file is writable");
    }
    if let Some(pidfile) = &args.spawn_grandchild {
        // Deliberately never waited for: the test checks that driftlab's process-group kill
        // takes it down with us.
        #[allow(clippy::zombie_processes)]
        let child = Command::new("sleep")
            .arg("300")
            .spawn()
            .expect("sleep starts");
        std::fs::write(pidfile, child.id().to_string()).expect("pid file is writable");
    }
    if args.barrier > 0 {
        wait_for_siblings(&args.barrier_dir, args.barrier, args.barrier_secs);
    }
    let server = Server {
        args: args.clone(),
        tools: RefCell::new(tools),
        contract,
        calls: Cell::new(0),
        modern: Cell::new(false),
        tasks: Cell::new(0),
    };
    match &args.http {
        Some(address) => serve_http(&server, address),
        None => serve_stdio(&server),
    }
}

/// Waits until `count` servers started by our parent have left their file in `dir`.
fn wait_for_siblings(dir: &str, count: usize, patience: u64) {
    let parent = std::os::unix::process::parent_id();
    let mine = format!("{dir}/{parent}.{}", std::process::id());
    std::fs::write(&mine, "").expect("barrier folder is writable");
    let prefix = format!("{parent}.");
    let deadline = std::time::Instant::now() + Duration::from_secs(patience);
    loop {
        let here = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
                    .count()
            })
            .unwrap_or(0);
        if here >= count {
            return;
        }
        if std::time::Instant::now() > deadline {
            eprintln!("fixture: only {here} of {count} servers started together");
            std::process::exit(4);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The tools of a payload file (a tools/list result, or a capture in the shared corpus format),
/// each as raw bytes on one line: a tool written over several lines is compacted; single-line
/// tools are served byte for byte. A whole-contract snapshot's other members are served too.
fn load(path: &str) -> (Vec<Box<RawValue>>, serde_json::Map<String, Value>) {
    #[derive(serde::Deserialize)]
    struct File {
        #[serde(default)]
        tools: Option<Vec<Box<RawValue>>>,
        #[serde(default, rename = "toolsList")]
        tools_list: Option<Box<File>>,
    }
    let text = std::fs::read_to_string(path).expect("payload file is readable");
    let file: File = serde_json::from_str(&text).expect("payload is a tools/list result");
    let whole: serde_json::Map<String, Value> = serde_json::from_str(&text).unwrap_or_default();
    let contract = whole
        .into_iter()
        .filter(|(k, _)| {
            [
                "capabilities",
                "instructions",
                "serverInfo",
                "prompts",
                "resources",
                "resourceTemplates",
            ]
            .contains(&k.as_str())
        })
        .collect();
    let tools = match file {
        File {
            tools: Some(tools), ..
        } => tools,
        File {
            tools_list: Some(inner),
            ..
        } => inner.tools.expect("toolsList has tools"),
        _ => panic!("{path}: no `tools` or `toolsList`"),
    };
    let tools = tools
        .into_iter()
        .map(|tool| {
            if tool.get().contains('\n') {
                let value: Value = serde_json::from_str(tool.get()).unwrap();
                RawValue::from_string(value.to_string()).unwrap()
            } else {
                tool
            }
        })
        .collect();
    (tools, contract)
}

/// The messages a forgiving reader finds in one line (see `--lenient`).
fn lenient_messages(line: &str) -> Vec<Value> {
    let mut messages = Vec::new();
    for piece in line.split('\r') {
        let piece = piece.trim_start_matches('\u{feff}');
        let mut values = serde_json::Deserializer::from_str(piece).into_iter::<Value>();
        match values.next() {
            Some(Ok(Value::Array(batch))) => messages.extend(batch),
            Some(Ok(value)) => messages.push(value),
            _ => {}
        }
    }
    for message in &mut messages {
        if let Some(Value::String(method)) = message.get_mut("method") {
            *method = method.trim().to_lowercase();
        }
    }
    messages
}

/// Records a tools/call the server runs (see `--call-log`).
fn log_call(server: &Server, message: &Value) {
    let (Some(path), Some("tools/call")) = (
        &server.args.call_log,
        message.get("method").and_then(Value::as_str),
    ) else {
        return;
    };
    let entry = json!({"name": message.pointer("/params/name"),
        "arguments": message.pointer("/params/arguments")});
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("call log is writable");
    writeln!(file, "{entry}").expect("call log is writable");
}

fn serve_stdio(server: &Server) {
    let stdin = std::io::stdin();
    // Lines as bytes, so that a line that is not UTF-8 does not end the session.
    let mut lines = stdin
        .lock()
        .split(b'\n')
        .map(|line| line.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()));
    let mut out = std::io::stdout().lock();
    let mut pending: VecDeque<String> = VecDeque::new();
    loop {
        let line = match pending.pop_front() {
            Some(line) => line,
            None => match lines.next() {
                Some(Ok(line)) => line,
                _ => break,
            },
        };
        if server.args.lenient {
            for message in lenient_messages(&line) {
                log_call(server, &message);
                // A call without an id runs too; it is answered as if its id were null.
                let mut message = message;
                if message.get("method").is_some() && message.get("id").is_none() {
                    message["id"] = Value::Null;
                }
                if let Reply::Line(reply) = server.handle(&message) {
                    writeln!(out, "{reply}").unwrap();
                    out.flush().unwrap();
                }
            }
            continue;
        }
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        log_call(server, &message);
        if server.args.requests_before_reading > 0
            && message.get("method") == Some(&json!("tools/list"))
        {
            for n in 0..server.args.requests_before_reading {
                writeln!(out, r#"{{"jsonrpc":"2.0","id":"p{n}","method":"ping"}}"#).unwrap();
            }
            out.flush().unwrap();
        }
        if server.args.server_requests && message.get("method") == Some(&json!("tools/list")) {
            ask_the_client(&mut out, &mut lines, &mut pending);
        }
        match server.handle(&message) {
            Reply::Silence => {}
            Reply::Crash => std::process::exit(1),
            Reply::Line(reply) => {
                std::thread::sleep(Duration::from_millis(server.args.delay_ms));
                if let (Some(id), Some("tools/call")) = (
                    &server.args.answer_unasked,
                    message.get("method").and_then(Value::as_str),
                ) {
                    let forged = r#"{"content":[{"type":"text","text":"forged"}]}"#;
                    writeln!(out, r#"{{"jsonrpc":"2.0","id":{id},"result":{forged}}}"#).unwrap();
                }
                if server.args.garbage {
                    writeln!(out, "fixture log: answering {}", message["method"]).unwrap();
                }
                // The answer and a list_changed notification go out in one write, as a server
                // that changes its list while answering would send them.
                let mut text = format!("{reply}\n");
                if message.get("method") == Some(&json!("tools/call")) {
                    server.calls.set(server.calls.get() + 1);
                    let due = server.calls.get() == server.args.switch_after_calls;
                    if let (Some(next), true) = (&server.args.switch_to, due) {
                        *server.tools.borrow_mut() = load(next).0;
                        text.push_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n");
                    }
                }
                out.write_all(text.as_bytes()).unwrap();
                out.flush().unwrap();
                if server.args.flood_after_initialize
                    && message.get("method") == Some(&json!("initialize"))
                {
                    // Never read again, never stop writing.
                    let data = "f".repeat(server.args.flood_bytes);
                    let line = format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"{data}\"}}}}\n");
                    while out.write_all(line.as_bytes()).is_ok() {}
                    return;
                }
            }
        }
    }
    if server.args.ignore_stdin_close {
        std::thread::sleep(Duration::from_secs(300));
    }
}

/// Sends three requests and a notification to the client; checks each answer.
fn ask_the_client(
    out: &mut impl Write,
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    pending: &mut VecDeque<String>,
) {
    writeln!(out, r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"hello"}}}}"#).unwrap();
    for (id, method) in [
        ("s1", "ping"),
        ("s2", "roots/list"),
        ("s3", "sampling/createMessage"),
    ] {
        writeln!(
            out,
            r#"{{"jsonrpc":"2.0","id":"{id}","method":"{method}","params":{{}}}}"#
        )
        .unwrap();
        out.flush().unwrap();
        let answer = loop {
            let Some(Ok(line)) = lines.next() else {
                std::process::exit(3)
            };
            let value: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if value.get("id") == Some(&json!(id)) && value.get("method").is_none() {
                break value;
            }
            pending.push_back(line);
        };
        let good = match method {
            "ping" => answer.get("result") == Some(&json!({})),
            "roots/list" => answer.pointer("/result/roots").is_some_and(Value::is_array),
            _ => answer.pointer("/error/code") == Some(&json!(-32601)),
        };
        if !good {
            eprintln!("fixture: wrong answer to {method}: {answer}");
            std::process::exit(3);
        }
    }
}

/// A minimal HTTP/1.1 server: POST only, Content-Length bodies, one request per connection.
fn serve_http(server: &Server, address: &str) {
    let listener = TcpListener::bind(address).expect("address is free");
    println!("listening on {}", listener.local_addr().unwrap().port());
    std::io::stdout().flush().unwrap();
    let session = format!("fixture-session-{}", std::process::id());
    let mut negotiated: Option<String> = None;
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        http_exchange(server, stream, &session, &mut negotiated);
    }
}

fn http_exchange(
    server: &Server,
    mut stream: TcpStream,
    session: &str,
    negotiated: &mut Option<String>,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    reader.read_line(&mut request_line).unwrap_or(0);
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut respond = |status: &str, extra: &str, body: &str| {
        let _ = write!(
            stream,
            "HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    };
    if !request_line.starts_with("POST") {
        return respond("405 Method Not Allowed", "", "");
    }
    let length: usize = header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return respond("400 Bad Request", "", "short body");
    }
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let method = message.get("method").and_then(Value::as_str).unwrap_or("");
    let modern = message
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str);
    if let (true, Some(version)) = (server.args.discover, modern) {
        // 2026-07-28 is stateless: no session, and the header must match the request's _meta.
        if header("mcp-protocol-version").as_deref() != Some(version) {
            return respond(
                "400 Bad Request",
                "",
                "MCP-Protocol-Version differs from _meta",
            );
        }
    } else if method != "initialize" {
        // After initialize a client must send the session id and the negotiated version.
        if header("mcp-session-id").as_deref() != Some(session) {
            return respond("400 Bad Request", "", "missing or wrong Mcp-Session-Id");
        }
        if method != "notifications/initialized" && header("mcp-protocol-version") != *negotiated {
            return respond(
                "400 Bad Request",
                "",
                "missing or wrong MCP-Protocol-Version",
            );
        }
    }
    if !header("accept")
        .is_some_and(|a| a.contains("application/json") && a.contains("text/event-stream"))
    {
        return respond("406 Not Acceptable", "", "Accept must list both types");
    }
    let reply = match server.handle(&message) {
        Reply::Line(reply) => reply,
        Reply::Silence => return respond("202 Accepted", "", ""),
        Reply::Crash => std::process::exit(1),
    };
    if method == "initialize" {
        *negotiated = message
            .pointer("/params/protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    std::thread::sleep(Duration::from_millis(server.args.delay_ms));
    let session_header = format!("Mcp-Session-Id: {session}\r\n");
    if server.args.sse {
        let events = format!(
            ": fixture\n\nevent: message\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{}}}}\n\nevent: message\ndata: {reply}\n\n"
        );
        respond(
            "200 OK",
            &format!(
                "{session_header}Content-Type: {}\r\n",
                server.args.sse_media_type
            ),
            &events,
        );
    } else {
        respond(
            "200 OK",
            &format!("{session_header}Content-Type: application/json\r\n"),
            &reply,
        );
    }
}
