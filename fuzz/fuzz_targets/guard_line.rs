//! Fuzzes one client line into the guard's decision. Whatever the guard sends on to the server
//! must be a line every common reader reads as the value the guard checked: serde_json's and
//! JavaScript's `JSON.parse` (the last of repeated keys wins), a reader where the first wins,
//! and Python's `json` (exact integers: none beyond 2^53 may pass; floats correctly rounded, as
//! the strict reading converts them). A line that fails the strict reading must be answered by
//! the guard itself, never forwarded.
//! The body is `driftlab::fuzz::guard_line`, so CI builds, lints and runs it on the seeds.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| driftlab::fuzz::guard_line(data));
