//! What an interrupted run must undo. Staging folders, temporary files and the process groups of
//! live servers register here while they exist; on SIGINT, SIGTERM or SIGHUP (Ctrl-C, a
//! cancelled CI job, a closed terminal) the groups are killed, the paths removed, and driftlab
//! exits with 128 + the signal number. `kill -9` cannot be caught: the next run into the same
//! results folder clears what it left (see `results::folder`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, Once};

enum Item {
    /// A file or folder to remove.
    Path(PathBuf),
    /// A process group to kill.
    Group(i32),
}

struct Registry {
    next: u64,
    items: BTreeMap<u64, Item>,
}

/// The signal that interrupted this run, once one did (0: none).
static INTERRUPTED: AtomicI32 = AtomicI32::new(0);

/// The signal that interrupted this run, if one did: an error that follows it (a server killed
/// by the clean-up) is reported as the interruption, with its exit code.
pub fn interrupted() -> Option<i32> {
    match INTERRUPTED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Says once, on stderr, which signal interrupted the run; returns its exit code (128 + it).
pub fn report_interruption(signal: i32) -> i32 {
    static SAID: AtomicBool = AtomicBool::new(false);
    if !SAID.swap(true, Ordering::SeqCst) {
        eprintln!("driftlab: interrupted by signal {signal}: cancelled");
    }
    128 + signal
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    next: 0,
    items: BTreeMap::new(),
});

fn registry() -> MutexGuard<'static, Registry> {
    // A panic elsewhere while holding the lock leaves the map intact: keep using it.
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Keeps an item registered; dropping it unregisters (the item was committed or cleaned up).
#[must_use = "the item is unregistered when this is dropped"]
pub struct Registration(u64);

impl Drop for Registration {
    fn drop(&mut self) {
        registry().items.remove(&self.0);
    }
}

fn register(item: Item) -> Registration {
    install();
    let mut registry = registry();
    let id = registry.next;
    registry.next += 1;
    registry.items.insert(id, item);
    Registration(id)
}

/// Removes `path` (a file or a whole folder) if driftlab is interrupted while this lives.
pub fn remove_on_signal(path: PathBuf) -> Registration {
    register(Item::Path(path))
}

/// Kills process group `group` if driftlab is interrupted while this lives.
pub fn kill_on_signal(group: i32) -> Registration {
    register(Item::Group(group))
}

/// Starts the thread that waits for the signals (once per process). If the handlers cannot be
/// installed the signals keep their default action: the next run still clears leftovers.
fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("driftlab-signals".into())
            .spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    INTERRUPTED.store(signal, Ordering::SeqCst);
                    clean_up();
                    std::process::exit(report_interruption(signal));
                }
            });
    });
}

/// Ends every registered process group, then removes every registered path. Servers go first:
/// they may still be writing into a registered folder. They get SIGTERM and a moment before
/// SIGKILL, so a child driftlab (a `wrap` or `guard` of a study) ends its own servers too.
fn clean_up() {
    let items = std::mem::take(&mut registry().items);
    let groups: Vec<i32> = items
        .values()
        .filter_map(|item| match item {
            Item::Group(group) => Some(*group),
            Item::Path(_) => None,
        })
        .collect();
    for signal in [libc::SIGTERM, libc::SIGKILL] {
        for group in &groups {
            // SAFETY: kill(2) on a process group this process created; no memory is shared.
            unsafe {
                libc::kill(-group, signal);
            }
        }
        if !groups.is_empty() && signal == libc::SIGTERM {
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }
    for item in items.values() {
        if let Item::Path(path) = item {
            remove(path);
        }
    }
}

/// Removes a file or folder. Worker threads may still add files to a folder being removed, so
/// a failed removal is retried a few times.
pub fn remove(path: &std::path::Path) {
    for _ in 0..5 {
        let result = match std::fs::symlink_metadata(path) {
            Err(_) => return,
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
            Ok(_) => std::fs::remove_file(path),
        };
        if result.is_ok() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registrations_come_and_go() {
        let registered = |r: &Registration| registry().items.contains_key(&r.0);
        let a = remove_on_signal(PathBuf::from("/nonexistent/a"));
        let b = kill_on_signal(i32::MAX);
        assert!(registered(&a) && registered(&b));
        let id = a.0;
        drop(a);
        assert!(!registry().items.contains_key(&id));
        assert!(registered(&b));
    }
}
