//! Flow control for talking to peers (the proxy's two directions, a transport's writes to its
//! server): a writer thread per direction, so no loop blocks on a peer that is not reading, and
//! a byte budget, so a peer that is not reading slows down the side that sends to it instead of
//! growing driftlab's memory.
//!
//! A line read from one side takes its bytes from that side's [`Budget`] as they are read (the
//! reader waits while the budget is spent, so a line being read is counted too) and gives them
//! back once whatever it became has been written, or once it was dropped. So at most one budget
//! of line bytes per direction is held, whatever the peers do (a single line larger than the
//! budget is let through alone), and the two directions never wait on each other.

use std::io::{self, Write};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// Bytes in flight from one side.
pub struct Budget {
    used: Mutex<usize>,
    freed: Condvar,
    limit: usize,
}

impl Budget {
    /// A budget of `limit` bytes in flight.
    pub fn new(limit: usize) -> Arc<Budget> {
        Arc::new(Budget {
            used: Mutex::new(0),
            freed: Condvar::new(),
            limit,
        })
    }

    /// Takes `n` bytes, waiting while they would exceed the limit (a line larger than the whole
    /// budget still passes when nothing else is in flight).
    pub fn take(self: &Arc<Budget>, n: usize) -> Credit {
        let mut credit = Credit::empty(self);
        credit.grow(n);
        credit
    }

    /// [`take`](Self::take), waiting at most `patience`; `None` when the bytes could not be
    /// taken in time (the peer has not been reading for that long).
    pub(crate) fn take_within(
        self: &Arc<Budget>,
        n: usize,
        patience: std::time::Duration,
    ) -> Option<Credit> {
        let deadline = std::time::Instant::now() + patience;
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        while *used > 0 && *used + n > self.limit {
            let left = deadline.checked_duration_since(std::time::Instant::now())?;
            used = self
                .freed
                .wait_timeout(used, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *used += n;
        Some(Credit {
            budget: Some(Arc::clone(self)),
            n,
        })
    }

    #[cfg(test)]
    fn used(&self) -> usize {
        *self.used.lock().unwrap()
    }
}

/// Bytes taken from a [`Budget`]; given back when dropped.
pub struct Credit {
    budget: Option<Arc<Budget>>,
    n: usize,
}

impl Credit {
    /// Credit for bytes no peer sent (the hooks' own messages).
    pub fn none() -> Credit {
        Credit { budget: None, n: 0 }
    }

    /// Credit of no bytes yet from `budget`, grown as a line is read.
    pub fn empty(budget: &Arc<Budget>) -> Credit {
        Credit {
            budget: Some(Arc::clone(budget)),
            n: 0,
        }
    }

    /// Takes `n` more bytes for the same holder, waiting while they would exceed the limit and
    /// others hold bytes (a line larger than the whole budget still grows once it is alone).
    pub fn grow(&mut self, n: usize) {
        let Some(budget) = &self.budget else {
            return;
        };
        let mut used = budget.used.lock().unwrap_or_else(|e| e.into_inner());
        while *used > self.n && *used + n > budget.limit {
            used = budget.freed.wait(used).unwrap_or_else(|e| e.into_inner());
        }
        *used += n;
        self.n += n;
    }
}

impl Drop for Credit {
    fn drop(&mut self) {
        if let Some(budget) = &self.budget {
            let mut used = budget.used.lock().unwrap_or_else(|e| e.into_inner());
            *used -= self.n;
            budget.freed.notify_all();
        }
    }
}

impl std::fmt::Debug for Credit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Credit({})", self.n)
    }
}

/// A thread that writes lines to one peer in order; the loop hands lines over without waiting.
pub struct Writer {
    lines: Option<mpsc::Sender<(Vec<u8>, Credit)>>,
    thread: Option<JoinHandle<()>>,
}

impl Writer {
    /// Writes each line and a newline to `sink`, flushing after each; `failed` runs once when a
    /// write fails (the peer stopped reading for good), after which lines are discarded.
    pub fn spawn(
        mut sink: impl Write + Send + 'static,
        failed: impl FnOnce(io::Error) + Send + 'static,
    ) -> Writer {
        let (tx, rx) = mpsc::channel::<(Vec<u8>, Credit)>();
        let thread = std::thread::spawn(move || {
            let mut failed = Some(failed);
            for (line, credit) in rx {
                if failed.is_some() {
                    let written = sink
                        .write_all(&line)
                        .and_then(|()| sink.write_all(b"\n"))
                        .and_then(|()| sink.flush());
                    if let Err(e) = written {
                        if let Some(report) = failed.take() {
                            report(e);
                        }
                    }
                }
                drop(credit);
            }
        });
        Writer {
            lines: Some(tx),
            thread: Some(thread),
        }
    }

    /// Queues `line` for the writer thread; its `credit` returns to the budget once written.
    pub fn send(&self, line: Vec<u8>, credit: Credit) {
        if let Some(lines) = &self.lines {
            // A writer that ended has already reported why.
            let _ = lines.send((line, credit));
        }
    }

    /// No more lines: the writer writes what it has, then closes the sink.
    pub fn close(&mut self) {
        self.lines = None;
    }

    /// Closes and waits until everything handed over has been written (or failed).
    pub fn finish(mut self) {
        self.close();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_budget_holds_back_what_exceeds_it_until_credit_is_given_back() {
        let budget = Budget::new(10);
        let first = budget.take(6);
        let waiting = {
            let budget = Arc::clone(&budget);
            std::thread::spawn(move || budget.take(6))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(budget.used(), 6, "the second take waits");
        drop(first);
        let second = waiting.join().unwrap();
        assert_eq!(budget.used(), 6);
        drop(second);
        assert_eq!(budget.used(), 0);
        // One line larger than the whole budget passes when nothing else is in flight.
        let big = budget.take(100);
        assert_eq!(budget.used(), 100);
        drop(big);
        let held = budget.take(8);
        assert!(budget.take_within(8, Duration::from_millis(20)).is_none());
        drop(held);
        assert!(budget.take_within(8, Duration::from_millis(20)).is_some());
    }

    #[test]
    fn a_writer_writes_in_order_and_gives_credit_back_after_writing() {
        let budget = Budget::new(1000);
        let shared = Arc::new(Mutex::new(Vec::new()));
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let writer = Writer::spawn(Shared(Arc::clone(&shared)), |_| {});
        writer.send(b"a".to_vec(), budget.take(2));
        writer.send(b"bc".to_vec(), budget.take(3));
        writer.finish();
        assert_eq!(&*shared.lock().unwrap(), b"a\nbc\n");
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn a_failed_write_is_reported_once_and_later_lines_still_give_credit_back() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let budget = Budget::new(100);
        let reports = Arc::new(Mutex::new(0));
        let counter = Arc::clone(&reports);
        let writer = Writer::spawn(Full, move |_| *counter.lock().unwrap() += 1);
        for _ in 0..3 {
            writer.send(b"x".to_vec(), budget.take(2));
        }
        writer.finish();
        assert_eq!(*reports.lock().unwrap(), 1);
        assert_eq!(budget.used(), 0);
    }
}
