//! Fuzzes the payload reader and the whole gate: the input is split at its first NUL byte into an
//! approved and a candidate payload; both are read, every payload and diff rule runs, and every
//! report format renders, with every finding placed in the candidate's bytes. Nothing may panic, overflow the stack or loop. The reader's fast paths
//! must agree with the general reader on every input: the same surface or the same error, and so
//! must reading the candidate beside the approved surface.
//! The body is `driftlab::fuzz::payload_and_diff`, so CI builds, lints and runs it on the seeds.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| driftlab::fuzz::payload_and_diff(data));
