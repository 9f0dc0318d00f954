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

#[test]
fn a_server_that_exits_is_reported_with_its_status_and_stderr() {
    let argv: Vec<String> = ["sh", "-c", "echo 'boom: no config' >&2; exit 3"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut t = StdioTransport::spawn(&argv, 100, None).unwrap();
    let e = t.recv(Duration::from_secs(10), "initialize").unwrap_err();
    assert_eq!(
        e.to_string(),
        "the server exited before answering initialize (exit code 3); stderr: boom: no config"
    );
}
