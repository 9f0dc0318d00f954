//! A server process speaking line-delimited JSON-RPC on its stdin and stdout.
//!
//! The process runs in its own process group, spawned directly (never through a shell). A thread
//! reads stdout into bounded lines; another drains stderr into an optional file and a small tail
//! kept for error messages, so a chatty server never blocks on a full pipe. Closing: stdin is
//! closed, the server gets a grace period to exit, then its whole group is killed and the child
//! reaped, so neither zombies nor orphaned grandchildren outlive a capture.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::flow::{Budget, Credit, Writer};
use super::{LiveError, Transport};
use driftlab_contract::text::excerpt;

/// How much of the server's stderr is kept in memory for error messages.
const STDERR_TAIL: usize = 4096;

/// At most this much of the server's stderr is written to a `--server-stderr` file.
const STDERR_FILE_LIMIT: u64 = 64 * 1024 * 1024;

/// What a line reader thread reports.
pub enum StdoutEvent {
    /// A line, without its newline.
    Line(Vec<u8>),
    /// A line over the message limit (its bytes are dropped).
    TooLong,
    /// The server closed its stdout.
    Eof,
    /// Reading failed (why).
    Failed(String),
}

mod process;
pub use process::{resolve_argv, Launch, ServerProcess};

/// A running server process spoken to as a transport.
pub struct StdioTransport {
    process: ServerProcess,
    lines: Receiver<(StdoutEvent, Credit)>,
    /// The bytes of the line the session is handling, given back when it asks for the next.
    handled: Option<Credit>,
    max_line: usize,
    stderr: Arc<Mutex<StderrLog>>,
    readers: Vec<JoinHandle<()>>,
    /// Writes to the server's stdin on a thread of its own, at most `max_line` bytes queued: a
    /// server that sends requests without reading our answers cannot block the session.
    to_server: Writer,
    queued: Arc<Budget>,
    /// Why writing to the server failed, once it did.
    write_failed: Arc<Mutex<Option<io::ErrorKind>>>,
    /// How long a write may wait for room: the timeout of the phase under way.
    send_timeout: Duration,
}

#[derive(Default)]
struct StderrLog {
    tail: Vec<u8>,
    total: u64,
}

impl StdioTransport {
    /// Starts `argv[0]` with `argv[1..]`. `max_line` bounds one stdout line; `stderr_file`, when
    /// given, receives the server's stderr.
    pub fn spawn(
        argv: &[String],
        max_line: usize,
        stderr_file: Option<&Path>,
    ) -> Result<StdioTransport, LiveError> {
        Self::spawn_in(argv, max_line, stderr_file, &Launch::default())
    }

    /// [`StdioTransport::spawn`] with a [`Launch`] (folder and extra environment).
    pub fn spawn_in(
        argv: &[String],
        max_line: usize,
        stderr_file: Option<&Path>,
        launch: &Launch,
    ) -> Result<StdioTransport, LiveError> {
        let stderr_sink = match stderr_file {
            Some(path) => Some(File::create(path).map_err(|e| LiveError::Spawn {
                program: argv.first().cloned().unwrap_or_default(),
                message: format!("cannot create {}: {e}", path.display()),
            })?),
            None => None,
        };
        let (mut process, stdout, stderr) = ServerProcess::spawn_in(argv, Stdio::piped(), launch)?;
        let stderr = stderr.expect("stderr was requested as a pipe");
        let stdin = process.take_stdin().expect("stdin was requested as a pipe");
        let write_failed = Arc::new(Mutex::new(None));
        let failed = Arc::clone(&write_failed);
        let to_server = Writer::spawn(stdin, move |e: io::Error| {
            *failed.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.kind());
        });
        // Bounded in lines and in bytes (one `max_line` budget, a line being read included): a
        // server that floods stdout waits for us instead of filling memory.
        let (tx, lines) = mpsc::sync_channel(256);
        let read_budget = Budget::new(max_line);
        let log = Arc::new(Mutex::new(StderrLog::default()));
        let readers = vec![
            thread::spawn(move || {
                read_lines_with(
                    stdout,
                    max_line,
                    false,
                    Some(read_budget),
                    |event, credit| tx.send((event, credit)).is_ok(),
                )
            }),
            {
                let log = Arc::clone(&log);
                thread::spawn(move || drain_stderr(stderr, stderr_sink, &log))
            },
        ];
        Ok(StdioTransport {
            process,
            lines,
            handled: None,
            max_line,
            stderr: log,
            readers,
            to_server,
            queued: Budget::new(max_line),
            write_failed,
            send_timeout: Duration::from_secs(30),
        })
    }

    fn exited(&mut self, phase: &str) -> LiveError {
        let status = match self.process.exit_status(Duration::from_secs(1)) {
            Some(status) => describe_status(status),
            None => "its stdout closed".into(),
        };
        // The stderr reader may still hold the last words of a server that just exited.
        let until = Instant::now() + Duration::from_millis(500);
        while self.readers.iter().any(|r| !r.is_finished()) && Instant::now() < until {
            thread::sleep(Duration::from_millis(5));
        }
        LiveError::Exited {
            phase: phase.into(),
            status,
            stderr: self.stderr_summary(),
        }
    }

    /// The last non-empty lines of the server's stderr (three at most), as "; its stderr
    /// ends: A / B / C", or " with nothing on stderr". A stack trace's frames (`at …`) and
    /// Node's closing version line are passed over: the error itself is above them.
    fn stderr_summary(&self) -> String {
        let log = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        let text = String::from_utf8_lossy(&log.tail);
        let said = |l: &&str| {
            let l = l.trim();
            !l.is_empty() && !l.starts_with("at ") && !l.starts_with("Node.js v")
        };
        let mut last: Vec<String> = text
            .lines()
            .rev()
            .filter(said)
            .take(3)
            .map(|l| excerpt(l.trim().as_bytes(), 200))
            .collect();
        last.reverse();
        match last.is_empty() {
            true => " with nothing on stderr".into(),
            false => format!("; its stderr ends: {}", last.join(" / ")),
        }
    }
}

/// How a process exited, in words: `exit code N`, `killed by signal N`, or `exited`.
pub fn describe_status(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        _ => "exited".into(),
    }
}

impl Transport for StdioTransport {
    fn send(&mut self, message: &[u8], phase: &str) -> Result<(), LiveError> {
        let failed = *self.write_failed.lock().unwrap_or_else(|e| e.into_inner());
        match failed {
            Some(io::ErrorKind::BrokenPipe) => return Err(self.exited(phase)),
            Some(kind) => {
                return Err(LiveError::Send {
                    phase: phase.into(),
                    message: io::Error::from(kind).to_string(),
                })
            }
            None => {}
        }
        // Waits only while the server has left a whole budget of our lines unread.
        let Some(credit) = self
            .queued
            .take_within(message.len() + 1, self.send_timeout)
        else {
            return Err(LiveError::Timeout {
                phase: format!("{phase} (the server stopped reading its stdin)"),
                seconds: self.send_timeout.as_secs_f64(),
            });
        };
        self.to_server.send(message.to_vec(), credit);
        Ok(())
    }

    fn recv(&mut self, timeout: Duration, phase: &str) -> Result<Vec<u8>, LiveError> {
        self.send_timeout = timeout;
        // The line handed to the session keeps its bytes until the session asks for the next
        // one: what the session is handling counts against the budget too.
        self.handled = None;
        let received = self.lines.recv_timeout(timeout).map(|(event, credit)| {
            self.handled = Some(credit);
            event
        });
        match received {
            Ok(StdoutEvent::Line(line)) => Ok(line),
            Ok(StdoutEvent::TooLong) => Err(LiveError::TooLarge {
                limit: self.max_line,
            }),
            Ok(StdoutEvent::Eof) | Err(RecvTimeoutError::Disconnected) => Err(self.exited(phase)),
            Ok(StdoutEvent::Failed(message)) => Err(LiveError::Protocol(format!(
                "cannot read the server's stdout: {message}"
            ))),
            Err(RecvTimeoutError::Timeout) => Err(LiveError::Timeout {
                phase: phase.into(),
                seconds: timeout.as_secs_f64(),
            }),
        }
    }

    fn close(&mut self) {
        // The server sees end of input once what was queued is written.
        self.process.remember_descendants();
        self.to_server.close();
        self.process.close();
        // A stdout reader blocked on a full channel ends when the channel does.
        let (_, disconnected) = mpsc::sync_channel(0);
        drop(std::mem::replace(&mut self.lines, disconnected));
        // A helper in a session of its own may hold stderr open for good: wait a moment, then
        // leave its reader behind rather than hang.
        let until = Instant::now() + Duration::from_millis(500);
        while self.readers.iter().any(|r| !r.is_finished()) && Instant::now() < until {
            thread::sleep(Duration::from_millis(5));
        }
        for reader in self.readers.drain(..) {
            if reader.is_finished() {
                let _ = reader.join();
            }
        }
    }

    fn stderr_bytes(&self) -> u64 {
        self.stderr.lock().map_or(0, |log| log.total)
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.close();
    }
}

/// Splits a stream into lines of at most `max_line` bytes, without the `\n` (and, unless `raw`,
/// without a trailing `\r`).
pub fn read_lines(stream: impl Read, max_line: usize, raw: bool, tx: SyncSender<StdoutEvent>) {
    read_lines_with(stream, max_line, raw, None, |event, _| {
        tx.send(event).is_ok()
    });
}

/// [`read_lines`] handing each event to `emit`; stops when `emit` returns false. With a
/// `budget`, each line's bytes are taken from it as they are read (the reader waits while it is
/// spent) and handed on with the line as its [`Credit`].
pub fn read_lines_with(
    stream: impl Read,
    max_line: usize,
    raw: bool,
    budget: Option<Arc<Budget>>,
    mut emit: impl FnMut(StdoutEvent, Credit) -> bool,
) {
    let fresh = || budget.as_ref().map_or_else(Credit::none, Credit::empty);
    let mut reader = BufReader::with_capacity(1 << 16, stream);
    let mut line = Vec::new();
    let mut credit = fresh();
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                emit(StdoutEvent::Failed(e.to_string()), Credit::none());
                return;
            }
        };
        if buf.is_empty() {
            if !line.is_empty() {
                emit(StdoutEvent::Line(std::mem::take(&mut line)), credit);
            }
            emit(StdoutEvent::Eof, Credit::none());
            return;
        }
        let (taken, complete) = match buf.iter().position(|&b| b == b'\n') {
            Some(end) => (end, true),
            None => (buf.len(), false),
        };
        line.extend_from_slice(&buf[..taken]);
        reader.consume(taken + usize::from(complete));
        if line.len() > max_line {
            emit(StdoutEvent::TooLong, Credit::none());
            return;
        }
        // Counted before the next read: a line being read holds its bytes like a queued one.
        credit.grow(taken + usize::from(complete));
        if complete {
            if !raw && line.last() == Some(&b'\r') {
                line.pop();
            }
            let whole = std::mem::replace(&mut credit, fresh());
            if !emit(StdoutEvent::Line(std::mem::take(&mut line)), whole) {
                return;
            }
        }
    }
}

/// Copies stderr to `sink` (up to a limit) and keeps its tail; never blocks the server.
fn drain_stderr(mut stderr: impl Read, mut sink: Option<File>, log: &Mutex<StderrLog>) {
    let mut chunk = [0u8; 8192];
    let mut written = 0u64;
    loop {
        let n = match stderr.read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        if let Some(file) = &mut sink {
            let room = STDERR_FILE_LIMIT.saturating_sub(written).min(n as u64) as usize;
            if room == 0 || file.write_all(&chunk[..room]).is_err() {
                sink = None;
            }
            written += room as u64;
        }
        let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
        log.total += n as u64;
        log.tail.extend_from_slice(&chunk[..n]);
        if log.tail.len() > STDERR_TAIL {
            let cut = log.tail.len() - STDERR_TAIL;
            log.tail.drain(..cut);
        }
    }
}

#[cfg(test)]
mod tests;
