//! `driftlab capture` and the live gate against the scripted fixture server: every failure mode
//! a real server shows only by accident, reproduced on demand.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::live::{fixture, gone_soon, http_fixture};
use common::{read_json, repo, run, stderr, stdout};
use sha2::{Digest, Sha256};

const TIME: &str = "corpus/mcp-server-time@2026.10.19.json";
const TIME_OLD: &str = "corpus/mcp-server-time@2025.7.1.json";

/// `driftlab ARGS -- SERVER…`.
fn live(args: &[&str], server: &[String]) -> std::process::Output {
    let mut all: Vec<&str> = args.to_vec();
    all.push("--");
    all.extend(server.iter().map(String::as_str));
    run(&all)
}

fn capture_to(
    dir: &Path,
    flags: &[&str],
    server: &[String],
) -> (std::process::Output, serde_json::Value) {
    let out = dir.join("capture.json");
    let mut args = vec!["capture", "-o", out.to_str().unwrap()];
    args.extend(flags);
    let output = live(&args, server);
    let value = if out.exists() {
        read_json(&out)
    } else {
        serde_json::Value::Null
    };
    (output, value)
}

fn failure(flags: &[&str], server: &[String]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let (output, _) = capture_to(dir.path(), flags, server);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        !dir.path().join("capture.json").exists(),
        "no capture on failure"
    );
    let message = stderr(&output);
    assert_eq!(message.lines().count(), 1, "one line: {message}");
    message
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn a_capture_keeps_the_servers_bytes_exactly_malformed_tools_included() {
    let dir = tempfile::tempdir().unwrap();
    let (output, capture) = capture_to(dir.path(), &[], &fixture("live/malformed-tools.json", &[]));
    assert!(output.status.success(), "{}", stderr(&output));
    // The fixture sends {"tools":[<each tool's bytes from the file, joined by commas>]}.
    let file =
        std::fs::read_to_string(repo().join("tests/data/live/malformed-tools.json")).unwrap();
    let tools: Vec<&str> = file
        .lines()
        .filter(|l| l.starts_with("  {"))
        .map(|l| l.trim().trim_end_matches(','))
        .collect();
    let expected = format!(r#"{{"tools":[{}]}}"#, tools.join(","));
    assert_eq!(
        capture["capture"]["toolsListRawSha256"][0],
        sha256_hex(expected.as_bytes())
    );
    let written = std::fs::read_to_string(dir.path().join("capture.json")).unwrap();
    assert!(written.contains(&expected), "raw bytes embedded verbatim");
    assert!(
        written.contains("-1e2") && written.contains("1.50"),
        "numbers keep their spelling"
    );
    assert_eq!(capture["format"], "driftlab-capture/1");
    assert_eq!(capture["protocolVersionRequested"], "2025-11-25");
    assert_eq!(capture["protocolVersion"], "2025-11-25");
    assert_eq!(capture["clientCapabilities"], serde_json::json!({}));
    assert_eq!(
        capture["initializeResult"]["serverInfo"]["name"],
        "driftlab-fixture"
    );
    assert!(
        stderr(&output).contains("captured 5 tools in 1 page(s)"),
        "{}",
        stderr(&output)
    );
    // The reader sees the same five tools, null and missing schemas still different.
    let diff = run(&[
        "diff",
        repo()
            .join("tests/data/live/malformed-tools.json")
            .to_str()
            .unwrap(),
        dir.path().join("capture.json").to_str().unwrap(),
    ]);
    assert_eq!(diff.status.code(), Some(0), "{}", stdout(&diff));
    let check = run(&[
        "check",
        dir.path().join("capture.json").to_str().unwrap(),
        "--format",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    for rule in [
        "input-schema-null",
        "input-schema-missing",
        "input-schema-not-object",
    ] {
        assert!(rules.contains(&rule), "{rule} in {rules:?}");
    }
}

#[test]
fn pages_are_followed_in_order_and_the_capture_reads_like_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let (output, capture) = capture_to(dir.path(), &[], &fixture(TIME, &["--page-size", "1"]));
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(capture["capture"]["pages"], 2);
    assert_eq!(capture["toolsList"].as_array().unwrap().len(), 2);
    assert_eq!(capture["toolsList"][0]["nextCursor"], "page-1");
    // The fixture serves the real server's tools, not its capabilities: compare tools.
    let diff = run(&[
        "diff",
        "--scope",
        "tools",
        repo().join("tests/data").join(TIME).to_str().unwrap(),
        dir.path().join("capture.json").to_str().unwrap(),
    ]);
    assert_eq!(diff.status.code(), Some(0), "{}", stdout(&diff));
    assert!(stdout(&diff).contains("PASS"), "{}", stdout(&diff));
}

#[test]
fn a_repeated_cursor_and_too_many_pages_are_refused() {
    let e = failure(
        &[],
        &fixture(TIME, &["--page-size", "1", "--repeat-cursor"]),
    );
    assert!(
        e.contains("tools/list repeated the cursor \"again\" after 2 pages"),
        "{e}"
    );
    let e = failure(&["--max-pages", "1"], &fixture(TIME, &["--page-size", "1"]));
    assert!(
        e.contains("tools/list has more than 1 pages (raise it with --max-pages)"),
        "{e}"
    );
}

#[test]
fn slow_servers_time_out_per_phase_and_patient_ones_pass() {
    let started = Instant::now();
    let e = failure(
        &["--timeout", "0.5"],
        &fixture(TIME, &["--delay-ms", "5000"]),
    );
    // The first phase is the 2026-07-28 probe (`--protocol auto`), and it says how to skip it.
    assert!(
        e.contains(
            "no answer to server/discover (probing 2026-07-28; --protocol legacy skips the \
             probe) within 0.5 s (raise it with --timeout)"
        ),
        "{e}"
    );
    // Killed, not waited for: well under the server's 5 s delay plus the 2 s grace period.
    assert!(started.elapsed() < Duration::from_secs(20));
    let e = failure(
        &["--timeout", "1"],
        &fixture(TIME, &["--hang-on", "tools/list"]),
    );
    assert!(e.contains("no answer to tools/list within 1 s"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let (ok, _) = capture_to(
        dir.path(),
        &["--timeout", "10"],
        &fixture(TIME, &["--delay-ms", "200"]),
    );
    assert!(ok.status.success(), "{}", stderr(&ok));
}

#[test]
fn a_crash_names_the_phase_the_exit_code_and_the_servers_last_words() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("server.log");
    let e = failure(
        &["--server-stderr", log.to_str().unwrap()],
        &fixture(TIME, &["--crash-on", "tools/list"]),
    );
    assert!(
        e.ends_with(
            "the server exited (exit code 1); its stderr ends: fixture: crashing on tools/list as asked; it had not answered tools/list\n"
        ),
        "{e}"
    );
    assert!(e.starts_with("driftlab: live:"), "{e}");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert_eq!(logged, "fixture: crashing on tools/list as asked\n");
}

#[test]
fn protocol_failures_are_one_line_errors() {
    let e = failure(&[], &fixture(TIME, &["--malformed-on", "tools/list"]));
    assert!(
        e.contains(
            "malformed JSON from the server while waiting for tools/list: EOF while parsing"
        ),
        "{e}"
    );
    let e = failure(&[], &fixture(TIME, &["--error-on", "initialize"]));
    assert!(
        e.contains("initialize failed: JSON-RPC error -32603: fixture error as asked"),
        "{e}"
    );
    let e = failure(&[], &fixture(TIME, &["--error-on", "tools/list"]));
    assert!(
        e.contains("tools/list failed: JSON-RPC error -32603"),
        "{e}"
    );
    let e = failure(&[], &["driftlab-no-such-server".to_string()]);
    assert!(
        e.contains("command not found: driftlab-no-such-server"),
        "{e}"
    );
    let e = failure(&["--max-bytes", "100"], &fixture(TIME, &[]));
    assert!(e.contains("over the 100-byte limit"), "{e}");
}

#[test]
fn non_json_stdout_and_server_requests_are_handled_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let (output, capture) = capture_to(
        dir.path(),
        &[],
        &fixture(TIME, &["--garbage", "--server-requests"]),
    );
    // The fixture exits 3 (and stalls the capture) if any answer is wrong.
    assert!(output.status.success(), "{}", stderr(&output));
    let facts = &capture["capture"];
    // The fixture speaks only the handshake: the 2026-07-28 probe comes first, then initialize.
    assert_eq!(
        facts["stdoutNonJsonLines"][0],
        "fixture log: answering \"server/discover\""
    );
    assert_eq!(
        facts["stdoutNonJsonLines"][1],
        "fixture log: answering \"initialize\""
    );
    let messages = facts["serverMessagesDuringCapture"].as_array().unwrap();
    let summary: Vec<String> = messages
        .iter()
        .map(|m| format!("{} {} {}", m["kind"], m["method"], m["answered"]))
        .collect();
    assert_eq!(
        summary,
        [
            r#""notification" "notifications/message" null"#,
            r#""request" "ping" "result""#,
            r#""request" "roots/list" "result""#,
            r#""request" "sampling/createMessage" "-32601""#,
        ]
    );
}

#[test]
fn no_process_outlives_a_capture_even_one_that_ignores_stdin_closing() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let (output, _) = capture_to(
        dir.path(),
        &[],
        &fixture(
            TIME,
            &[
                "--spawn-grandchild",
                pidfile.to_str().unwrap(),
                "--ignore-stdin-close",
            ],
        ),
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let gone = gone_soon(pid);
    assert!(gone, "the server's child {pid} is still running");
}

#[test]
fn repeated_runs_report_whether_the_list_is_stable() {
    let dir = tempfile::tempdir().unwrap();
    let (output, capture) = capture_to(dir.path(), &["--runs", "2"], &fixture(TIME, &[]));
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("byte-identical in all 2 runs"),
        "{}",
        stderr(&output)
    );
    assert_eq!(capture["capture"]["runs"]["bytesIdentical"], true);

    let (output, capture) = capture_to(dir.path(), &["--runs", "3"], &fixture(TIME, &["--vary"]));
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("warning: tools/list differs between runs (run(s) 2, 3 differ from run 1; tool order the same)"), "{}", stderr(&output));
    let runs = &capture["capture"]["runs"];
    assert_eq!(runs["count"], 3);
    assert_eq!(runs["bytesIdentical"], false);
    assert_eq!(runs["sameToolOrder"], true);
    assert_eq!(runs["differingRuns"], serde_json::json!([2, 3]));
}

#[test]
fn the_live_gate_snapshots_and_checks_in_one_step() {
    let dir = tempfile::tempdir().unwrap();
    let approved = dir.path().join("approved.json");
    let snap = live(
        &["snapshot", "-o", approved.to_str().unwrap()],
        &fixture(TIME, &["--page-size", "1"]),
    );
    assert!(snap.status.success(), "{}", stderr(&snap));
    assert!(
        stderr(&snap).contains("recorded 2 tools"),
        "{}",
        stderr(&snap)
    );

    let same = live(
        &["check", "--approved", approved.to_str().unwrap()],
        &fixture(TIME, &[]),
    );
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}{}",
        stdout(&same),
        stderr(&same)
    );

    let old = live(
        &[
            "check",
            "--approved",
            approved.to_str().unwrap(),
            "--format",
            "json",
        ],
        &fixture(TIME_OLD, &[]),
    );
    assert_eq!(old.status.code(), Some(1), "{}", stderr(&old));
    let report: serde_json::Value = serde_json::from_slice(&old.stdout).unwrap();
    assert_eq!(report["verdict"], "drift");
    assert!(
        report["candidate"].as_str().unwrap().starts_with("live:"),
        "{report}"
    );

    let both = live(
        &[
            "check",
            "--approved",
            approved.to_str().unwrap(),
            approved.to_str().unwrap(),
        ],
        &fixture(TIME, &[]),
    );
    assert_eq!(both.status.code(), Some(2));
    assert!(stderr(&both).contains("not both"), "{}", stderr(&both));
    let neither = run(&["check", "--approved", approved.to_str().unwrap()]);
    assert_eq!(neither.status.code(), Some(2));
    assert!(
        stderr(&neither).contains("no candidate"),
        "{}",
        stderr(&neither)
    );
}

#[test]
fn streamable_http_with_json_bodies_and_event_streams() {
    for mode in [&[][..], &["--sse"][..], &["--sse", "--page-size", "1"][..]] {
        let (mut server, port) = http_fixture(TIME, mode);
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("capture.json");
        let url = format!("http://127.0.0.1:{port}/mcp");
        let output = run(&[
            "capture",
            "-o",
            out.to_str().unwrap(),
            "--url",
            &url,
            "--header",
            "X-Test: 1",
        ]);
        server.kill().unwrap();
        server.wait().unwrap();
        assert!(output.status.success(), "{mode:?}: {}", stderr(&output));
        let capture = read_json(&out);
        assert_eq!(capture["server"]["url"], url);
        let diff = run(&[
            "diff",
            "--scope",
            "tools",
            repo().join("tests/data").join(TIME).to_str().unwrap(),
            out.to_str().unwrap(),
        ]);
        assert_eq!(diff.status.code(), Some(0), "{mode:?}: {}", stdout(&diff));
        if mode.contains(&"--sse") {
            let first = &capture["capture"]["serverMessagesDuringCapture"][0];
            assert_eq!(first["method"], "notifications/message", "{capture}");
        }
    }
}

#[test]
fn http_errors_are_one_line() {
    // Nothing listens on port 9 of loopback.
    let output = run(&[
        "capture",
        "--url",
        "http://127.0.0.1:9/mcp",
        "--timeout",
        "5",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("live:http://127.0.0.1:9/mcp: HTTP:"),
        "{}",
        stderr(&output)
    );
    let output = run(&["capture", "--url", "ftp://x"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("expected an http:// or https:// URL"));
    let output = run(&["capture"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("no server"), "{}", stderr(&output));
}

#[test]
fn an_event_stream_is_recognised_whatever_the_case_of_its_media_type() {
    let (mut server, port) =
        http_fixture(TIME, &["--sse", "--sse-media-type", "Text/Event-Stream"]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("capture.json");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let output = run(&["capture", "-o", out.to_str().unwrap(), "--url", &url]);
    server.kill().unwrap();
    server.wait().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        read_json(&out)["toolsList"]["tools"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
}

#[test]
fn a_redirect_is_refused_and_no_header_reaches_the_other_origin() {
    use std::io::{Read, Write};
    use std::net::TcpListener;
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let other_port = other.local_addr().unwrap().port();
    other.set_nonblocking(true).unwrap();
    let redirecting = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = redirecting.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        // Answer every connection with a redirect to the other origin, for up to 5 s.
        redirecting.set_nonblocking(true).unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok((mut stream, _)) = redirecting.accept() {
                stream.set_nonblocking(false).unwrap();
                let mut request = [0u8; 4096];
                let _ = stream.read(&mut request);
                let answer = format!(
                    "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:{other_port}/mcp\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
                let _ = stream.write_all(answer.as_bytes());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    let url = format!("http://127.0.0.1:{port}/mcp");
    let output = run(&[
        "capture",
        "--url",
        &url,
        "--header",
        "Authorization: Bearer secret",
        "--timeout",
        "5",
    ]);
    let e = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{e}");
    assert!(
        e.contains("redirect (HTTP 307)") && e.contains(&other_port.to_string()),
        "{e}"
    );
    assert!(other.accept().is_err(), "the other origin was contacted");
    drop(server);
}

#[test]
fn a_capture_driftlab_could_not_read_is_not_written() {
    for extra in [r#""x":1e999"#, r#""x":"\ud800""#] {
        let e = failure(&[], &fixture(TIME, &["--initialize-extra", extra]));
        assert!(
            e.contains("cannot be kept as a capture") && e.contains("nothing was written"),
            "{extra}: {e}"
        );
    }
}

/// `driftlab ARGS`, killed after `limit` (a hang fails the test instead of stalling the run).
fn run_bounded(args: &[String], limit: Duration) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_driftlab"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("driftlab {args:?} still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn capture_args(dir: &Path, flags: &[&str], fixture_flags: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = vec!["capture".into(), "-o".into()];
    args.push(dir.join("capture.json").display().to_string());
    args.extend(flags.iter().map(|s| s.to_string()));
    args.push("--".into());
    args.extend(fixture(TIME, fixture_flags));
    args
}

#[test]
fn a_server_that_never_stops_writing_cannot_keep_a_failed_capture_open() {
    // The stdout reader used to block on its full channel, and closing joined it: for good.
    let dir = tempfile::tempdir().unwrap();
    let args = capture_args(
        dir.path(),
        &["--timeout", "1"],
        &["--flood-after-initialize"],
    );
    let output = run_bounded(&args, Duration::from_secs(30));
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no answer to tools/list within 1 s"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_server_that_sends_requests_before_reading_does_not_deadlock_the_session() {
    // 20,000 pings before it reads a line: our answers fill its stdin pipe long before.
    let dir = tempfile::tempdir().unwrap();
    let args = capture_args(
        dir.path(),
        &["--timeout", "10"],
        &["--requests-before-reading", "20000"],
    );
    let output = run_bounded(&args, Duration::from_secs(60));
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        read_json(&dir.path().join("capture.json"))["toolsList"]["tools"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
}

#[test]
fn a_helper_holding_the_servers_stderr_does_not_hold_the_capture() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("daemon.pid");
    let args = capture_args(
        dir.path(),
        &[],
        &["--daemon-holding-stderr", pidfile.to_str().unwrap()],
    );
    let output = run_bounded(&args, Duration::from_secs(30));
    let daemon: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The helper lives in a session of its own, out of the server's group: the capture must
    // still end it (it was below the server when the capture closed it).
    let gone = gone_soon(daemon);
    if !gone {
        let _ = std::process::Command::new("kill")
            .arg(daemon.to_string())
            .status();
    }
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(gone, "the setsid helper {daemon} outlived the capture");
}

#[test]
fn a_cancelled_capture_says_so_and_exits_with_the_signals_code() {
    for (signal, code) in [(libc_signal::TERM, 143), (libc_signal::INT, 130)] {
        let dir = tempfile::tempdir().unwrap();
        let args = capture_args(dir.path(), &[], &["--hang-on", "tools/list"]);
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_driftlab"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(500));
        let sent = std::process::Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let output = child.wait_with_output().unwrap();
        let e = stderr(&output);
        assert_eq!(output.status.code(), Some(code), "{e}");
        assert!(
            e.contains("interrupted by signal") && !e.contains("the server exited"),
            "{e}"
        );
        assert!(!dir.path().join("capture.json").exists());
    }
}

/// `kill` arguments for the signals the test sends.
mod libc_signal {
    pub const TERM: &str = "-TERM";
    pub const INT: &str = "-INT";
}

/// The peak memory (KiB) of a capture whose server floods notifications of `bytes` bytes after
/// initialize, under `--max-bytes 16 MiB`; mimalloc hands freed memory back at once.
fn flooded_capture_peak_kib(bytes: usize) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let flood = bytes.to_string();
    let args = capture_args(
        dir.path(),
        &["--timeout", "3", "--max-bytes", "16777216"],
        &["--flood-after-initialize", "--flood-bytes", &flood],
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_driftlab"))
        .args(&args)
        .env("MIMALLOC_PURGE_DELAY", "0")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut peak = 0;
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        let status = std::fs::read_to_string(format!("/proc/{}/status", child.id()));
        let hwm = status.ok().and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        });
        peak = peak.max(hwm.unwrap_or(0));
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    peak
}

#[test]
fn a_server_flooding_long_lines_holds_a_capture_to_its_max_bytes() {
    // 15 MB lines under a 16 MiB bound: the lines read, queued and being handled hold at most
    // one bound (27 MB held above the baseline here). The reader's queue was bounded to 256
    // lines whatever their size: this capture held 618 MB.
    let bound: u64 = 16 << 20;
    let baseline = flooded_capture_peak_kib(5);
    let flooded = flooded_capture_peak_kib(15_000_000);
    let held = flooded.saturating_sub(baseline) * 1024;
    eprintln!("baseline {baseline} KiB, flooded {flooded} KiB: {held} bytes held");
    assert!(
        held <= 3 * bound,
        "the capture held {held} bytes with --max-bytes {bound}"
    );
}

#[test]
fn a_server_that_exits_at_start_is_named_by_its_status_and_last_words_first() {
    let argv: Vec<String> = [
        "sh",
        "-c",
        "echo 'Error: Cannot find module x' >&2; echo '    at load (main.js:3)' >&2; exit 3",
    ]
    .map(String::from)
    .to_vec();
    let e = failure(&[], &argv);
    let said = e
        .split_once(": the server exited")
        .map(|(_, rest)| rest)
        .unwrap_or_else(|| panic!("{e}"));
    assert!(
        said.starts_with(
            " (exit code 3); its stderr ends: Error: Cannot find module x; it had not answered"
        ),
        "{e}"
    );
}

#[test]
fn a_banner_on_stdout_is_named_instead_of_a_longer_timeout() {
    let argv: Vec<String> = [
        "sh",
        "-c",
        "echo 'Weather MCP v2 ready on stdio'; cat >/dev/null",
    ]
    .map(String::from)
    .to_vec();
    let e = failure(&["--timeout", "1"], &argv);
    assert!(
        e.contains(
            "the server wrote `Weather MCP v2 ready on stdio` on stdout, which MCP reserves for messages"
        ),
        "{e}"
    );
    assert!(!e.contains("raise it with --timeout"), "{e}");
}
