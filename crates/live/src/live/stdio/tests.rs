//! Unit tests of `stdio`.

use super::*;

fn lines_of(input: &[u8], max_line: usize) -> Vec<String> {
    let (tx, rx) = mpsc::sync_channel(1024);
    read_lines(input, max_line, false, tx);
    rx.iter()
        .map(|event| match event {
            StdoutEvent::Line(l) => String::from_utf8(l).unwrap(),
            StdoutEvent::TooLong => "<too long>".into(),
            StdoutEvent::Eof => "<eof>".into(),
            StdoutEvent::Failed(e) => format!("<failed {e}>"),
        })
        .collect()
}

#[test]
fn splits_lines_strips_crlf_and_keeps_a_last_unterminated_line() {
    assert_eq!(lines_of(b"a\r\n\nbc\nd", 10), ["a", "", "bc", "d", "<eof>"]);
}

#[test]
fn a_line_over_the_limit_stops_the_reader() {
    assert_eq!(
        lines_of(b"ok\n0123456789ab\nlater\n", 10),
        ["ok", "<too long>"]
    );
    assert_eq!(lines_of(b"0123456789\n", 10), ["0123456789", "<eof>"]);
}

#[test]
fn command_not_found_is_named() {
    let e = StdioTransport::spawn(&["driftlab-no-such-command".into()], 100, None)
        .err()
        .unwrap();
    assert_eq!(e.to_string(), "command not found: driftlab-no-such-command");
}

/// What waiting for `initialize` from a server that runs `script` and exits says.
fn exit_message(script: &str) -> String {
    let argv: Vec<String> = ["sh", "-c", script].iter().map(|s| s.to_string()).collect();
    let mut t = StdioTransport::spawn(&argv, 100, None).unwrap();
    t.recv(Duration::from_secs(10), "initialize")
        .unwrap_err()
        .to_string()
}

#[test]
fn a_server_that_exits_is_reported_with_its_status_and_stderr() {
    assert_eq!(
        exit_message("echo 'boom: no config' >&2; exit 3"),
        "the server exited (exit code 3); its stderr ends: boom: no config; it had not answered initialize"
    );
}

#[test]
fn a_crash_is_reported_by_its_error_not_its_stack_frames() {
    let node_crash = "printf '/x/index.js:1\\nthrow err;\\n^\\n\\nError: dep is broken\\n    at Object.<anonymous> (/x/index.js:1:7)\\n    at Module._compile (node:internal/modules/cjs/loader:1521:14)\\n\\nNode.js v20.20.2\\n' >&2; exit 1";
    assert_eq!(
        exit_message(node_crash),
        "the server exited (exit code 1); its stderr ends: throw err; / ^ / Error: dep is broken; it had not answered initialize"
    );
}

#[test]
fn a_line_being_read_is_counted_against_the_budget_until_its_credit_is_given_back() {
    use std::sync::mpsc::TryRecvError;
    let budget = Budget::new(10);
    let held = budget.take(8);
    let (tx, rx) = mpsc::channel();
    let reader_budget = Arc::clone(&budget);
    thread::spawn(move || {
        read_lines_with(
            &b"0123456789\nab\n"[..],
            100,
            false,
            Some(reader_budget),
            |e, c| tx.send((e, c)).is_ok(),
        )
    });
    // 8 bytes held elsewhere: the 11-byte line may not be read on.
    thread::sleep(Duration::from_millis(100));
    assert!(matches!(rx.try_recv(), Err(TryRecvError::Empty)));
    drop(held);
    let (first, credit) = rx.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(matches!(first, StdoutEvent::Line(ref l) if l == b"0123456789"));
    // The first line's 11 bytes are still held (by us): the next line waits for them.
    thread::sleep(Duration::from_millis(100));
    assert!(matches!(rx.try_recv(), Err(TryRecvError::Empty)));
    drop(credit);
    let (second, _) = rx.recv_timeout(Duration::from_secs(5)).unwrap();
    assert!(matches!(second, StdoutEvent::Line(ref l) if l == b"ab"));
}
