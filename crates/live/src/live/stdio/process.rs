//! A server's process: started in a process group of its own, directly (never through a
//! shell), with a sentinel that ends the group if driftlab dies; closed by closing stdin, a
//! grace period, then killing the group and the processes noted below the server.

use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::super::process_tree::{self, descendants, Sentinel};
use super::super::{LiveError, GRACE_PERIOD};

/// Where and with what environment a server starts (default: here, driftlab's environment).
#[derive(Debug, Clone, Default)]
pub struct Launch {
    /// The working folder, when not driftlab's.
    pub dir: Option<std::path::PathBuf>,
    /// Variables set on top of driftlab's environment.
    pub env: Vec<(String, String)>,
}

/// argv with a relative program path (`./server.py`, `bin/x`) resolved against `dir`: a child's
/// relative program is otherwise looked up from driftlab's folder, not the one it runs in.
pub fn resolve_argv(dir: &std::path::Path, argv: &[String]) -> Vec<String> {
    let mut argv = argv.to_vec();
    if let Some(program) = argv.first_mut() {
        if program.contains('/') && !program.starts_with('/') {
            // Absolute, but symlinks kept: a venv's `bin/python` is a link that must stay one.
            let path: std::path::PathBuf = dir.join(&*program);
            *program = std::path::absolute(&path)
                .unwrap_or(path)
                .display()
                .to_string();
        }
    }
    argv
}

/// A server process in its own process group; closing it (or dropping it) closes stdin, waits
/// [`GRACE_PERIOD`], kills the group and reaps the child.
pub struct ServerProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    closed: bool,
    _cleanup: driftlab_contract::cleanup::Registration,
    /// Kills the group if driftlab dies without closing it (SIGKILL).
    sentinel: Option<Sentinel>,
    /// The processes found below the server before it was told to end: once it exits, its
    /// children lose their place in the tree, and one in a session of its own would be missed.
    below: Vec<process_tree::Found>,
}

impl ServerProcess {
    /// Starts `argv[0]` with `argv[1..]`, stdin and stdout piped, stderr as given.
    pub fn spawn(
        argv: &[String],
        stderr: Stdio,
    ) -> Result<(ServerProcess, ChildStdout, Option<ChildStderr>), LiveError> {
        Self::spawn_in(argv, stderr, &Launch::default())
    }

    /// [`ServerProcess::spawn`] in a folder and with extra environment variables.
    pub fn spawn_in(
        argv: &[String],
        stderr: Stdio,
        launch: &Launch,
    ) -> Result<(ServerProcess, ChildStdout, Option<ChildStderr>), LiveError> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| LiveError::Protocol("no server command given".into()))?;
        let mut command = Command::new(program);
        if let Some(dir) = &launch.dir {
            command.current_dir(dir);
        }
        command.envs(launch.env.iter().map(|(k, v)| (k, v)));
        let mut child = command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .process_group(0)
            .spawn()
            .map_err(|e| match e.kind() {
                io::ErrorKind::NotFound => LiveError::NotFound(program.clone()),
                _ => LiveError::Spawn {
                    program: program.clone(),
                    message: e.to_string(),
                },
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            unreachable!("stdin and stdout were requested as pipes")
        };
        let stderr = child.stderr.take();
        // On Ctrl-C or SIGTERM the group goes too: it does not share our process group.
        let cleanup = driftlab_contract::cleanup::kill_on_signal(child.id() as i32);
        let sentinel = Sentinel::watch(child.id());
        let process = ServerProcess {
            child,
            stdin: Some(stdin),
            closed: false,
            _cleanup: cleanup,
            sentinel,
            below: Vec::new(),
        };
        Ok((process, stdout, stderr))
    }

    /// Writes one line (the bytes, then `\n`) to the server's stdin.
    pub fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        match &mut self.stdin {
            Some(stdin) => stdin
                .write_all(line)
                .and_then(|()| stdin.write_all(b"\n"))
                .and_then(|()| stdin.flush()),
            None => Err(io::Error::other("stdin is closed")),
        }
    }

    /// The server's stdin, for a writer of the caller's own (e.g. a thread); later
    /// [`write_line`](Self::write_line) calls fail and closing is then the caller's.
    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.stdin.take()
    }

    /// Closes the server's stdin (it sees end of input).
    pub(crate) fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// The exit status, waiting at most `patience` for it.
    pub fn exit_status(&mut self, patience: Duration) -> Option<ExitStatus> {
        let until = Instant::now() + patience;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(10)),
                _ => return None,
            }
        }
    }

    /// The process id, which is also its process group's id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Kills process group `group` (a [`ServerProcess::id`]) without waiting: usable while
    /// another thread holds the process.
    pub fn kill_group(group: u32) {
        // SAFETY: kill(2) with a negative pid signals the process group we created; it has no
        // memory-safety preconditions.
        unsafe {
            libc::kill(-(group as libc::pid_t), libc::SIGKILL);
        }
    }

    /// Notes the processes below the server now; call it before the server sees end of input
    /// by a way of the caller's own (a writer thread), so they are ended with it.
    pub fn remember_descendants(&mut self) {
        if self.closed {
            return;
        }
        for found in descendants(self.child.id()) {
            if !self.below.contains(&found) {
                self.below.push(found);
            }
        }
    }

    /// Kills the whole process group now, and every process below the server (a helper in a
    /// session of its own left the group), and reaps the child.
    pub fn kill(&mut self) {
        self.remember_descendants();
        if std::mem::replace(&mut self.closed, true) {
            return;
        }
        self.end();
    }

    /// Closes stdin, waits the grace period, then kills the group (its children may live on
    /// after the leader exits) and the processes found below the server, and reaps the child.
    /// Safe to call twice.
    pub fn close(&mut self) {
        self.remember_descendants();
        if std::mem::replace(&mut self.closed, true) {
            return;
        }
        self.close_stdin();
        self.exit_status(GRACE_PERIOD);
        self.end();
    }

    /// Kills the group and the processes found below, then reaps the child; the sentinel goes
    /// first, so no process id is signalled after it was reaped.
    fn end(&mut self) {
        if let Some(sentinel) = self.sentinel.take() {
            sentinel.dismiss();
        }
        Self::kill_group(self.child.id());
        process_tree::kill_found(&std::mem::take(&mut self.below));
        let _ = self.child.wait();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.close();
    }
}
