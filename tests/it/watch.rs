//! `driftlab watch`: real HTTP endpoints on 127.0.0.1 whose contracts change on a schedule a
//! fake clock drives (the test sets the time; the poll records it with `--now`; nothing
//! sleeps): drift, a flap, a byte-only change, a family, an auth failure, a timeout, a server
//! that answers garbage; the record re-derives offline, and survives a kill mid-write. And
//! `watch import` reads a watcher's git history in the algomaster99/mcp-drift layout.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::common;

/// What an endpoint does when asked for its tools.
#[derive(Clone, Copy)]
enum Behaviour {
    /// Serves the contract the clock's tick schedules.
    Scheduled,
    /// Answers every request with HTTP 401 and a challenge.
    Unauthorized,
    /// Never answers `tools/list`.
    Silent,
    /// Answers `tools/list` with bytes that are not JSON.
    Garbage,
}

const A: &str = r#"{"tools":[{"name":"search","description":"Search the index.","inputSchema":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}}]}"#;
/// A with a required parameter added: breaking for a caller of A.
const B: &str = r#"{"tools":[{"name":"search","description":"Search the index.","inputSchema":{"type":"object","properties":{"query":{"type":"string"},"index":{"type":"string"}},"required":["query","index"]}}]}"#;
/// A respelled: keys in another order, spaces and a newline. The same value.
const A_RESPELLED: &str = "{ \"tools\": [ {\"inputSchema\": {\"required\": [\"query\"], \"properties\": {\"query\": {\"type\": \"string\"}}, \"type\": \"object\"},\n \"description\": \"Search the index.\", \"name\": \"search\"} ] }";
/// A with another description: text only.
const C: &str = r#"{"tools":[{"name":"search","description":"Search the whole index.","inputSchema":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}}]}"#;

/// The contract each tick of the fake clock serves, and the time it is at (one day apart).
const SCHEDULE: [(&str, &str); 6] = [
    ("2026-06-01T00:00:00Z", A),
    ("2026-06-02T00:00:00Z", A),
    ("2026-06-03T00:00:00Z", B),
    ("2026-06-04T00:00:00Z", A),
    ("2026-06-05T00:00:00Z", A_RESPELLED),
    ("2026-06-20T00:00:00Z", C),
];

/// A Streamable HTTP endpoint on 127.0.0.1 answering in the legacy handshake, behaving as
/// told; a scheduled one serves `SCHEDULE[clock]`. Returns its URL.
fn endpoint(behaviour: Behaviour, clock: Arc<AtomicUsize>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://127.0.0.1:{}/mcp",
        listener.local_addr().unwrap().port()
    );
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let clock = clock.clone();
            std::thread::spawn(move || answer(stream, behaviour, &clock));
        }
    });
    url
}

/// An endpoint of the older HTTP+SSE transport (2024-11-05) on 127.0.0.1: `GET /sse` opens the
/// event stream, whose first event names `/messages` as the endpoint; each message POSTed there
/// is accepted with 202 and answered on the stream. Serves `SCHEDULE[clock]`. Returns its URL.
fn sse_endpoint(clock: Arc<AtomicUsize>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://127.0.0.1:{}/sse",
        listener.local_addr().unwrap().port()
    );
    let stream_slot: Arc<std::sync::Mutex<Option<TcpStream>>> = Arc::default();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let (line, body) = read_request(&stream);
            if line.starts_with("GET /sse") {
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n\
                     event: endpoint\ndata: /messages?sessionId=1\n\n"
                );
                *stream_slot.lock().unwrap() = Some(stream);
                continue;
            }
            let _ = write!(
                stream,
                "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            drop(stream);
            let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            let id = request["id"].to_string();
            let result = match request["method"].as_str() {
                Some("initialize") => {
                    r#"{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"legacy","version":"1"}}"#
                }
                Some("tools/list") => SCHEDULE[clock.load(Ordering::SeqCst)].1,
                _ => continue,
            };
            if let Some(events) = stream_slot.lock().unwrap().as_mut() {
                let _ = write!(
                    events,
                    "event: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{}}}\n\n",
                    // A newline in the data goes on a `data:` line of its own, as SSE joins them.
                    result.replace('\n', "\ndata: ")
                );
            }
        }
    });
    url
}

/// A request's first line and its body.
fn read_request(stream: &TcpStream) -> (String, Vec<u8>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap_or(0);
    let mut length = 0;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    (line, body)
}

fn answer(mut stream: TcpStream, behaviour: Behaviour, clock: &AtomicUsize) {
    let (_, body) = read_request(&stream);
    let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let method = request["method"].as_str().unwrap_or("");
    let id = request["id"].to_string();
    let mut respond = |status: &str, extra: &str, body: &str| {
        let _ = write!(
            stream,
            "HTTP/1.1 {status}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    };
    if let Behaviour::Unauthorized = behaviour {
        return respond(
            "401 Unauthorized",
            "WWW-Authenticate: Bearer realm=\"test\"\r\n",
            "",
        );
    }
    let json = "Content-Type: application/json\r\n";
    match method {
        "initialize" => respond(
            "200 OK",
            json,
            &format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"2025-06-18","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"scheduled","version":"1"}}}}}}"#
            ),
        ),
        "tools/list" => match behaviour {
            Behaviour::Silent => {
                // Hold the connection open, unanswered, until the client gives up.
                let _ = stream.read_to_end(&mut Vec::new());
            }
            Behaviour::Garbage => respond("200 OK", json, "this is not JSON"),
            _ => {
                let contract = SCHEDULE[clock.load(Ordering::SeqCst)].1;
                respond(
                    "200 OK",
                    json,
                    &format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{contract}}}"#),
                )
            }
        },
        _ => respond("202 Accepted", "", ""),
    }
}

fn spec(dir: &Path, servers: &[(&str, &str)]) -> std::path::PathBuf {
    let mut text = String::new();
    for (name, url) in servers {
        // An endpoint at /sse speaks the older HTTP+SSE transport.
        let transport = if url.ends_with("/sse") {
            "sse"
        } else {
            "streamable-http"
        };
        text.push_str(&format!(
            "[[server]]\nname = \"{name}\"\nurl = \"{url}\"\ntransport = \"{transport}\"\n\
             protocol = \"legacy\"\ntimeout_seconds = 0.5\n\
             headers = {{ Authorization = \"Bearer ${{WATCH_TEST_TOKEN}}\" }}\n\n"
        ));
    }
    let path = dir.join("watch.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// `driftlab watch poll SPEC --record RECORD --now NOW`, with the test token set.
fn poll(spec: &Path, record: &Path, now: &str) -> Command {
    let mut command = common::driftlab();
    command
        .args(["watch", "poll"])
        .arg(spec)
        .arg("--record")
        .arg(record)
        .args(["--now", now])
        .env("WATCH_TEST_TOKEN", "not-a-real-secret");
    command
}

/// `driftlab watch verify RECORD`.
fn verify(record: &Path) -> std::process::Output {
    common::run(&["watch", "verify", record.to_str().unwrap()])
}

/// `watch verify` passes on `record`; `when` says at which step of the test.
fn assert_verifies(record: &Path, when: &str) {
    let verified = verify(record);
    assert_eq!(
        verified.status.code(),
        Some(0),
        "{when}: {}",
        common::stderr(&verified)
    );
}

/// `driftlab watch report RECORD --out OUT` and `more`.
fn report(record: &Path, out: &Path, more: &[&str]) -> std::process::Output {
    let args = [
        "watch",
        "report",
        record.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    common::run(&[&args[..], more].concat())
}

/// `driftlab watch import --from mcp-drift REPO --record RECORD`.
fn import(repo: &Path, record: &Path) -> std::process::Output {
    common::run(&[
        "watch",
        "import",
        "--from",
        "mcp-drift",
        repo.to_str().unwrap(),
        "--record",
        record.to_str().unwrap(),
    ])
}

/// Each line's change kind, `-` for a line without a change.
fn kinds(log: &[serde_json::Value]) -> Vec<&str> {
    log.iter()
        .map(|l| l["change"]["kind"].as_str().unwrap_or("-"))
        .collect()
}

fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_scheduled_history_is_recorded_judged_folded_and_rederived() {
    let clock = Arc::new(AtomicUsize::new(0));
    let drifting = endpoint(Behaviour::Scheduled, clock.clone());
    let mirror = endpoint(Behaviour::Scheduled, clock.clone());
    let locked = endpoint(Behaviour::Unauthorized, clock.clone());
    let silent = endpoint(Behaviour::Silent, clock.clone());
    let garbage = endpoint(Behaviour::Garbage, clock.clone());
    let legacy = sse_endpoint(clock.clone());
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(
        dir.path(),
        &[
            ("drifting", &drifting),
            ("legacy", &legacy),
            ("mirror", &mirror),
            ("locked", &locked),
            ("silent", &silent),
            ("garbage", &garbage),
        ],
    );
    let record = dir.path().join("record");
    for (tick, (now, _)) in SCHEDULE.iter().enumerate() {
        clock.store(tick, Ordering::SeqCst);
        let output = poll(&spec, &record, now).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    }

    // One line per poll; the changes judged by direction.
    let drifting_log = lines(&record.join("servers/drifting.jsonl"));
    assert_eq!(drifting_log.len(), 6);
    // B→A drops a parameter A's open schema still accepts: unproven, so `unknown`.
    assert_eq!(
        kinds(&drifting_log),
        ["-", "-", "breaking", "unknown", "bytes", "text"]
    );
    // The same history over the older HTTP+SSE transport.
    let legacy_log = lines(&record.join("servers/legacy.jsonl"));
    let contracts = |log: &[serde_json::Value]| -> Vec<serde_json::Value> {
        log.iter().map(|l| l["contract"].clone()).collect()
    };
    assert_eq!(
        contracts(&legacy_log),
        contracts(&drifting_log),
        "{legacy_log:?}"
    );
    let added = &drifting_log[2]["change"]["findings"];
    assert!(
        added
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "required-parameter-added"),
        "{added}"
    );
    // Failures are lines with their reason, never changes.
    for (server, kind) in [
        ("locked", "auth"),
        ("silent", "timeout"),
        ("garbage", "protocol"),
    ] {
        let log = lines(&record.join(format!("servers/{server}.jsonl")));
        assert_eq!(log.len(), 6, "{server}");
        assert!(log.iter().all(|l| l["failed"] == kind), "{server}: {log:?}");
    }
    // Secrets are never written out.
    for entry in walk(&record) {
        let text = std::fs::read_to_string(&entry).unwrap_or_default();
        assert!(!text.contains("not-a-real-secret"), "{}", entry.display());
    }
    // Contracts are stored once: A, B, A respelled, C.
    assert_eq!(
        std::fs::read_dir(record.join("contracts")).unwrap().count(),
        4
    );

    // The record re-derives offline.
    assert_verifies(&record, "after the scheduled polls");

    // The report folds the flap (A→B→A within 7 days), leaves the bytes out, counts the
    // family once, and lists the failures.
    let out = dir.path().join("report");
    let made = report(&record, &out, &[]);
    assert_eq!(made.status.code(), Some(0), "{}", common::stderr(&made));
    let summary = common::read_json(&out.join("summary.json"));
    assert_eq!(summary["changes"], 9, "{summary}");
    assert_eq!(summary["byte_only_changes"], 3);
    assert_eq!(summary["events"], 6);
    assert_eq!(summary["flaps"], 3);
    assert_eq!(summary["families"], 1);
    assert_eq!(
        summary["families_of_several"][0],
        serde_json::json!(["drifting", "legacy", "mirror"])
    );
    assert_eq!(summary["counted_events"], 2);
    assert_eq!(summary["counted_events_by_kind"]["breaking"], 1);
    assert_eq!(summary["counted_events_by_kind"]["text"], 1);
    assert_eq!(summary["failed_polls"], 18);
    assert!(summary["headline"]
        .as_str()
        .unwrap()
        .starts_with("1 of 2 observed changes break a caller"));
    let events = std::fs::read_to_string(out.join("events.csv")).unwrap();
    assert!(events.contains(",drifting,drifting legacy mirror,2026-06-03T00:00:00Z,2026-06-04T00:00:00Z,2,breaking,true,true"), "{events}");
    // A narrower window leaves A→B and B→A two events.
    let narrow = dir.path().join("narrow");
    let made = report(&record, &narrow, &["--window", "12h"]);
    assert_eq!(made.status.code(), Some(0));
    assert_eq!(
        common::read_json(&narrow.join("summary.json"))["counted_events"],
        3
    );
    // The report is derived from the record alone: --check holds it.
    let check = report(&record, &out, &["--check"]);
    assert_eq!(check.status.code(), Some(0), "{}", common::stderr(&check));

    // An edited line is caught.
    let log = record.join("servers/drifting.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    std::fs::write(&log, text.replacen("\"breaking\"", "\"compatible\"", 1)).unwrap();
    let verified = verify(&record);
    assert_eq!(verified.status.code(), Some(1));
    assert!(
        common::stderr(&verified).contains("servers/drifting.jsonl:3"),
        "{}",
        common::stderr(&verified)
    );
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn a_poll_killed_mid_write_leaves_a_record_that_verifies() {
    let clock = Arc::new(AtomicUsize::new(2));
    let servers: Vec<(String, String)> = (0..24)
        .map(|i| {
            (
                format!("s{i:02}"),
                endpoint(Behaviour::Scheduled, clock.clone()),
            )
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let named: Vec<(&str, &str)> = servers
        .iter()
        .map(|(n, u)| (n.as_str(), u.as_str()))
        .collect();
    let spec = spec(dir.path(), &named);
    let record = dir.path().join("record");
    // Kill polls at growing delays, alternating contracts, then check the record each time.
    for attempt in 0..12u64 {
        clock.store(if attempt % 2 == 0 { 0 } else { 2 }, Ordering::SeqCst);
        let mut child = poll(
            &spec,
            &record,
            &format!("2026-06-{:02}T00:00:00Z", attempt + 1),
        )
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2 + attempt * 3));
        let _ = child.kill();
        let _ = child.wait();
        if !record.join("watch.json").exists() {
            continue;
        }
        assert_verifies(&record, &format!("after a kill at attempt {attempt}"));
    }
}

/// A repository in the mcp-drift layout: `snapshots/tools/<server>.json`, one commit per change,
/// at the times given.
fn mcp_drift_repository(dir: &Path, commits: &[(&str, &[(&str, &str)])]) {
    let git = |args: &[&str], date: &str| {
        let status = Command::new("git")
            .args([
                "-c",
                "user.name=watcher",
                "-c",
                "user.email=watcher@example.invalid",
            ])
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_DATE", date)
            .env("GIT_COMMITTER_DATE", date)
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "git {args:?}: {}",
            common::stderr(&status)
        );
    };
    git(&["init", "-q"], "2026-05-01T00:00:00Z");
    std::fs::create_dir_all(dir.join("snapshots/tools")).unwrap();
    for (date, files) in commits {
        for (server, tools) in *files {
            std::fs::write(dir.join(format!("snapshots/tools/{server}.json")), tools).unwrap();
        }
        git(&["add", "-A"], date);
        git(&["commit", "-q", "-m", "drift"], date);
    }
}

#[test]
fn a_watchers_git_history_is_imported_and_judged() {
    let tools = |contract: &str| {
        let value: serde_json::Value = serde_json::from_str(contract).unwrap();
        serde_json::to_string_pretty(&value["tools"]).unwrap()
    };
    let (a, b, c) = (tools(A), tools(B), tools(C));
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("mcp-drift");
    std::fs::create_dir_all(&repo).unwrap();
    mcp_drift_repository(
        &repo,
        &[
            (
                "2026-05-10T10:00:00+02:00",
                &[("alpha", &a), ("gated", "null")],
            ),
            ("2026-05-11T10:00:00+02:00", &[("alpha", &b)]),
            ("2026-05-12T10:00:00+02:00", &[("alpha", &a)]),
            ("2026-05-30T10:00:00+02:00", &[("alpha", &c)]),
        ],
    );
    let record = dir.path().join("record");
    let imported = import(&repo, &record);
    assert_eq!(
        imported.status.code(),
        Some(0),
        "{}",
        common::stderr(&imported)
    );
    let alpha = lines(&record.join("servers/alpha.jsonl"));
    assert_eq!(kinds(&alpha), ["-", "breaking", "unknown", "text"]);
    // At the commit's time, in UTC.
    assert_eq!(alpha[1]["at"], "2026-05-11T08:00:00Z");
    let gated = lines(&record.join("servers/gated.jsonl"));
    assert_eq!(gated[0]["failed"], "no-listing");
    assert_verifies(&record, "after the import");
    // A second import into the same record is refused: an import is a whole history.
    let again = import(&repo, &record);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        common::stderr(&again).contains("alpha"),
        "{}",
        common::stderr(&again)
    );
}

#[test]
fn a_bad_spec_is_named_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("watch.toml");
    std::fs::write(
        &spec,
        "[[server]]\nname = \"a\"\nurl = \"https://x.example\"\nport = 3\n",
    )
    .unwrap();
    let output = common::run(&[
        "watch",
        "poll",
        spec.to_str().unwrap(),
        "--record",
        dir.path().join("r").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = common::stderr(&output);
    assert!(stderr.contains("watch.toml:4"), "{stderr}");
    assert!(
        !dir.path().join("r").exists(),
        "nothing is made from a bad spec"
    );
}

/// The committed re-judgement of mcp-drift's record (docs/watch.md) is what its logs derive,
/// byte for byte, and its headline is the one the pages quote.
#[test]
fn the_committed_re_judgement_of_mcp_drift_derives_from_its_logs() {
    let folder = "results/watch-mcp-drift-2026-06-14";
    let record = format!("{folder}/record");
    let output = common::run_in(
        &common::repo(),
        &[
            "watch",
            "report",
            &record,
            "--out",
            folder,
            "--title",
            "mcp-drift's record, re-judged",
            "--check",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    let summary = common::read_json(&common::repo().join(folder).join("summary.json"));
    // 32 changes recorded there: 4 bytes only, 28 judged, 2 flaps of 2 steps folded.
    assert_eq!(
        summary["changes"].as_u64().unwrap() + summary["byte_only_changes"].as_u64().unwrap(),
        32
    );
    assert_eq!(summary["flaps"], 2);
    assert_eq!(summary["changes_in_flaps"], 4);
    assert_eq!(summary["counted_events"], 26);
    // The logs hold no contract: each line's digests, kind and findings only.
    let servers = common::repo().join(&record).join("servers");
    for entry in std::fs::read_dir(servers).unwrap() {
        for line in lines(&entry.unwrap().path()) {
            let keys: Vec<&String> = line.as_object().unwrap().keys().collect();
            for key in keys {
                assert!(
                    ["at", "contract", "value", "previous", "change", "failed", "reason"]
                        .contains(&key.as_str()),
                    "{key}"
                );
            }
        }
    }
    assert!(!common::repo().join(&record).join("contracts").exists());
}

/// A stdio server is watched as a command: two polls of the scripted fixture server give two
/// lines naming one contract, no change.
#[test]
fn a_command_is_watched_over_stdio() {
    let argv = common::live::fixture("contract/whole.json", &[]);
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("watch.toml");
    let command: Vec<String> = argv.iter().map(|a| format!("{a:?}")).collect();
    std::fs::write(
        &spec,
        format!(
            "[[server]]\nname = \"local\"\ncommand = [{}]\n",
            command.join(", ")
        ),
    )
    .unwrap();
    let record = dir.path().join("record");
    for now in ["2026-06-01T00:00:00Z", "2026-06-02T00:00:00Z"] {
        let output = poll(&spec, &record, now).output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    }
    let log = lines(&record.join("servers/local.jsonl"));
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(log[0]["contract"].as_str().unwrap().starts_with("sha256:"));
    assert_eq!(log[0]["contract"], log[1]["contract"]);
    assert!(log[1].get("change").is_none());
}
