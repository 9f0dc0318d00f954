//! Nothing driftlab starts outlives it. A server runs in a process group of its own, which
//! closing the server kills; two things escape that kill, and this module catches them:
//!
//! - **driftlab itself killed** (SIGKILL, an abort): no cleanup of ours runs, and a server that
//!   ignores end of input would run on. A [`Sentinel`], a forked process that does nothing but
//!   wait on a pipe only driftlab holds open, sees the pipe close when driftlab dies, however
//!   it dies, and kills the server's group.
//! - **a helper in a session of its own** (`setsid`): it leaves the group. Its place in the
//!   process tree is kept, so the server's [`descendants`] are listed before the server is
//!   closed and each is killed after, unless its process id was reused meanwhile.

use std::os::fd::{FromRawFd, OwnedFd};

/// A process that kills a process group once driftlab is gone.
pub(crate) struct Sentinel {
    pid: libc::pid_t,
    /// The pipe's write end: driftlab's death (or [`Sentinel::dismiss`]) closes it.
    _alive: OwnedFd,
}

impl Sentinel {
    /// Starts a sentinel for process group `group`; `None` if the system refuses a pipe or a
    /// process (the group is then ended only by driftlab's own cleanup).
    pub(crate) fn watch(group: u32) -> Option<Sentinel> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: pipe writes two fds into the array it is given.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
            return None;
        }
        let [read_end, write_end] = fds;
        // Servers started later must not hold the write end open (it would keep the sentinel
        // waiting after driftlab died): it closes on exec.
        // SAFETY: fcntl on fds we own.
        unsafe {
            libc::fcntl(write_end, libc::F_SETFD, libc::FD_CLOEXEC);
            libc::fcntl(read_end, libc::F_SETFD, libc::FD_CLOEXEC);
        }
        // SAFETY: the child calls only async-signal-safe functions before _exit (see `wait`).
        match unsafe { libc::fork() } {
            -1 => {
                // SAFETY: closing the fds we just made.
                unsafe {
                    libc::close(read_end);
                    libc::close(write_end);
                }
                None
            }
            0 => unsafe { wait_then_kill(read_end, group as libc::pid_t) },
            pid => {
                // SAFETY: the read end is the child's now; the write end is ours to own.
                unsafe { libc::close(read_end) };
                let alive = unsafe { OwnedFd::from_raw_fd(write_end) };
                Some(Sentinel { pid, _alive: alive })
            }
        }
    }

    /// Ends the sentinel before driftlab ends the group itself.
    pub(crate) fn dismiss(self) {
        // SAFETY: kill and waitpid on our own child.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            libc::waitpid(self.pid, std::ptr::null_mut(), 0);
        }
    }
}

/// The sentinel's whole life, in the forked child: only async-signal-safe calls (the parent
/// has other threads, whose locks a forked child must never touch).
unsafe fn wait_then_kill(read_end: libc::c_int, group: libc::pid_t) -> ! {
    // Its own group, so a terminal's Ctrl-C (which driftlab handles) or a kill of driftlab's
    // group does not end it first; default signal actions, whatever driftlab installed.
    libc::setpgid(0, 0);
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGPIPE] {
        libc::signal(signal, libc::SIG_DFL);
    }
    // Hold nothing of driftlab's open (its stdout, other servers' pipes): only the read end.
    libc::dup2(read_end, 0);
    close_from(1);
    let mut byte = 0u8;
    loop {
        let n = libc::read(0, (&raw mut byte).cast(), 1);
        if n > 0 || (n < 0 && *errno() == libc::EINTR) {
            continue;
        }
        break; // end of file: driftlab is gone (or dismissed us)
    }
    libc::kill(-group, libc::SIGKILL);
    libc::_exit(0)
}

/// Closes every file descriptor from `first` on.
unsafe fn close_from(first: libc::c_int) {
    #[cfg(target_os = "linux")]
    if libc::syscall(libc::SYS_close_range, first, libc::c_uint::MAX, 0) == 0 {
        return;
    }
    for fd in first..65_536 {
        libc::close(fd);
    }
}

#[cfg(target_os = "linux")]
unsafe fn errno() -> *mut libc::c_int {
    libc::__errno_location()
}

#[cfg(not(target_os = "linux"))]
unsafe fn errno() -> *mut libc::c_int {
    libc::__error()
}

/// A process as found in the tree: its id and its start time (clock ticks after boot), which
/// together name one process even after the id is reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// The process id.
    pub pid: u32,
    /// The start time, in clock ticks after boot.
    pub started: u64,
}

/// Every process below `root` (children, their children, …), read from `/proc`; empty where
/// there is no `/proc`.
pub(crate) fn descendants(root: u32) -> Vec<Found> {
    let mut found = Vec::new();
    let mut queue = vec![root];
    while let Some(pid) = queue.pop() {
        for child in children(pid) {
            if let Some(started) = start_time(child) {
                found.push(Found {
                    pid: child,
                    started,
                });
                queue.push(child);
            }
        }
    }
    found
}

/// Kills each process still running as found (same id and start time).
pub(crate) fn kill_found(found: &[Found]) {
    for process in found {
        if start_time(process.pid) == Some(process.started) {
            // SAFETY: kill(2) has no memory-safety preconditions.
            unsafe { libc::kill(process.pid as libc::pid_t, libc::SIGKILL) };
        }
    }
}

/// The children of `pid`, from `/proc/PID/task/*/children`.
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|text| {
            text.split_whitespace()
                .filter_map(|id| id.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

/// Field 22 of `/proc/PID/stat`, read after the command name (which may hold spaces and `)`).
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    // Fields from 3 (state) on; the start time is field 22.
    rest.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn descendants_are_found_through_a_session_of_their_own() {
        // sh starts `setsid sleep` (a new session, out of sh's group) and waits.
        let mut shell = Command::new("sh")
            .args(["-c", "setsid sleep 30 & wait"])
            .spawn()
            .unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut found = Vec::new();
        while found.is_empty() && std::time::Instant::now() < until {
            found = descendants(shell.id());
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(found.len(), 1, "{found:?}");
        kill_found(&found);
        let status = shell.wait().unwrap();
        assert!(status.success());
        assert_eq!(start_time(found[0].pid), None, "the helper still runs");
    }
}
