//! `driftlab guard --url` against a scripted Streamable HTTP server the test runs on 127.0.0.1
//! (issue 71): no URL query value, userinfo or header value in anything the agent or the
//! terminal sees; the `--header`s on every request, the session-ending `DELETE` included; and a
//! call's answer found by its id when its event stream first carries a response to another id.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::common::live::stepwise;
use crate::common::read_json;
use crate::guard::{call, pin, INIT, INITIALIZED, PING};

/// One request the scripted server received.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn rpc_method(&self) -> &str {
        self.body["method"].as_str().unwrap_or_default()
    }
}

/// Serves HTTP on a free loopback port, each request answered by `answer` (a whole HTTP
/// response), each recorded.
fn serve(answer: impl Fn(&Seen) -> String + Send + 'static) -> (u16, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                continue;
            }
            let method = line.split(' ').next().unwrap_or_default().to_string();
            let mut headers = Vec::new();
            loop {
                let mut header = String::new();
                reader.read_line(&mut header).unwrap();
                let header = header.trim_end();
                if header.is_empty() {
                    break;
                }
                if let Some((k, v)) = header.split_once(':') {
                    headers.push((k.trim().to_string(), v.trim().to_string()));
                }
            }
            let length: usize = headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
                .and_then(|(_, v)| v.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let seen = Seen {
                method,
                headers,
                body: serde_json::from_slice(&body).unwrap_or(Value::Null),
            };
            let response = answer(&seen);
            record.lock().unwrap().push(seen);
            let _ = stream.write_all(response.as_bytes());
        }
    });
    (port, seen)
}

fn http(status: &str, extra: &str, content_type: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\n{extra}Content-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The answers of a well-behaved server: a session, the pinned time tools, 202 for
/// notifications, 405 for its own stream; `call` answers tools/call.
fn server(seen: &Seen, call: &dyn Fn(&Seen) -> String) -> String {
    let id = seen.body["id"].clone();
    let json = |result: Value| {
        http(
            "200 OK",
            "Mcp-Session-Id: session-1\r\n",
            "application/json",
            &json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
        )
    };
    match (seen.method.as_str(), seen.rpc_method()) {
        ("GET", _) => http("405 Method Not Allowed", "", "text/plain", ""),
        ("DELETE", _) => http("200 OK", "", "text/plain", ""),
        (_, "initialize") => json(json!({"protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}}, "serverInfo": {"name": "scripted", "version": "1"}})),
        (_, "tools/list") => json(read_json(&pin())["toolsList"].clone()),
        (_, "tools/call") => call(seen),
        (_, "ping") => json(json!({})),
        _ => http("202 Accepted", "", "text/plain", ""),
    }
}

fn guard(port: u16, url_tail: &str, headers: &[&str], lines: &[&str]) -> (Vec<Value>, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = vec!["guard".into(), "--approved".into()];
    args.push(pin().display().to_string());
    args.extend([
        "--audit".into(),
        dir.path().join("audit.jsonl").display().to_string(),
    ]);
    args.extend([
        "--url".into(),
        format!("http://127.0.0.1:{port}/mcp{url_tail}"),
    ]);
    for header in headers {
        args.extend(["--header".into(), header.to_string()]);
    }
    let (out, _, err) = stepwise(env!("CARGO_BIN_EXE_driftlab"), &args, lines);
    let out = out
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
        .collect();
    (out, err)
}

const KEY: &str = "api-key-do-not-print-1234";
const TOKEN: &str = "token-do-not-print-5678";

#[test]
fn a_refused_request_shows_neither_the_urls_key_nor_a_header_value() {
    // Every request after initialize is refused, with a body that echoes what it was sent.
    let (port, _) = serve(|seen| {
        if seen.rpc_method() == "initialize" || seen.method != "POST" {
            return server(seen, &|_| String::new());
        }
        let echo = format!(
            "no access for /mcp?api_key={KEY} with {}",
            seen.header("authorization").unwrap_or_default()
        );
        http("401 Unauthorized", "", "text/plain", &echo)
    });
    let auth = format!("Authorization: Bearer {TOKEN}");
    let get_time = call(3, "get_current_time", r#"{"timezone":"UTC"}"#);
    let (out, err) = guard(
        port,
        &format!("?api_key={KEY}"),
        &[&auth],
        &[INIT, INITIALIZED, &get_time, PING],
    );
    let ping = out.iter().find(|v| v["id"] == 99).unwrap();
    let message = ping["error"]["message"].as_str().unwrap();
    assert!(message.contains("answered HTTP 401"), "{ping}");
    assert!(message.contains("/mcp?api_key=…"), "{ping}");
    let refused = out.iter().find(|v| v["id"] == 3).unwrap();
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    for secret in [KEY, TOKEN] {
        for line in &out {
            assert!(
                !line.to_string().contains(secret),
                "the agent saw {secret}: {line}"
            );
        }
        assert!(!err.contains(secret), "the terminal saw {secret}: {err}");
    }
}

#[test]
fn the_headers_go_with_every_request_the_session_ending_delete_included() {
    let (port, seen) = serve(|seen| {
        server(seen, &|s| {
            http(
                "200 OK",
                "",
                "application/json",
                &json!({"jsonrpc": "2.0", "id": s.body["id"], "result": {"content": []}})
                    .to_string(),
            )
        })
    });
    let auth = format!("Authorization: Bearer {TOKEN}");
    let get_time = call(3, "get_current_time", r#"{"timezone":"UTC"}"#);
    let (out, err) = guard(port, "", &[&auth], &[INIT, INITIALIZED, &get_time, PING]);
    assert!(
        out.iter().any(|v| v["id"] == 3 && v["result"].is_object()),
        "{out:?} {err}"
    );
    // The DELETE is sent as the guard ends: wait for it a moment.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !seen.lock().unwrap().iter().any(|s| s.method == "DELETE") {
        assert!(std::time::Instant::now() < deadline, "no DELETE was sent");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let seen = seen.lock().unwrap();
    for request in seen.iter().filter(|s| s.method != "GET") {
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {TOKEN}").as_str()),
            "{} {} without the header",
            request.method,
            request.rpc_method()
        );
    }
    let delete = seen.iter().find(|s| s.method == "DELETE").unwrap();
    assert_eq!(delete.header("mcp-session-id"), Some("session-1"));
}

#[test]
fn a_calls_answer_is_found_by_its_id_after_a_response_to_another_id_on_its_stream() {
    let (port, _) = serve(|seen| {
        server(seen, &|s| {
            let stray = json!({"jsonrpc": "2.0", "id": 424242, "result": {}});
            let own = json!({"jsonrpc": "2.0", "id": s.body["id"],
                "result": {"content": [{"type": "text", "text": "the call's own answer"}]}});
            let body = format!("event: message\ndata: {stray}\n\nevent: message\ndata: {own}\n\n");
            http("200 OK", "", "text/event-stream", &body)
        })
    });
    let get_time = call(3, "get_current_time", r#"{"timezone":"UTC"}"#);
    let (out, err) = guard(port, "", &[], &[INIT, INITIALIZED, &get_time, PING]);
    let answer = out
        .iter()
        .find(|v| v["id"] == 3)
        .unwrap_or_else(|| panic!("{out:?} {err}"));
    assert_eq!(
        answer["result"]["content"][0]["text"], "the call's own answer",
        "{answer}"
    );
}
