//! Fuzzes the study's candidates. The input, read as a payload, is the base (as a study reads a
//! real base: `payload::read`, then `to_value`); for every mutation class, the candidate the
//! runner builds (editing the base's bytes where the class can, else changing a working copy and
//! splicing) must have the outcome of `apply` on a clone and the bytes of serializing that clone,
//! and the working copy must be the base again afterwards. Both with and without the approved
//! reading of the base that the edits use.
//! The body is `driftlab::fuzz::splice`, so CI builds, lints and runs it on the seeds.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| driftlab::fuzz::splice(data));
