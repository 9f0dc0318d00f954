//! Fuzzes the payload reader and the whole gate: the input is split at its first NUL byte into an
//! approved and a candidate payload; both are read, every payload and diff rule runs, and every
//! report format renders, with every finding placed in the candidate's bytes. Nothing may panic, overflow the stack or loop. The reader's fast paths
//! must agree with the general reader on every input: the same surface or the same error, and so
//! must reading the candidate beside the approved surface.

use driftlab_check::check::rules::of_kind;
use driftlab_check::check::RuleKind;
use driftlab_check::verdict::{evaluate, FailOn, ResolvedPolicy};
use driftlab_contract::payload::{self, Limits};
use driftlab_report::report::{self, anchor, GateReport};

/// One fuzz input (`fuzz/fuzz_targets/payload_and_diff.rs` runs it; `tests/it/fuzz_seeds.rs` runs it on the
/// committed seeds).
pub fn payload_and_diff(data: &[u8]) {
    let limits = Limits { max_bytes: 1 << 20 };
    let (old, new) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, data),
    };
    for bytes in [old, new] {
        assert_eq!(
            payload::read(bytes, "p", limits),
            payload::read_general(bytes, "p", limits)
        );
    }
    let Ok(approved) = payload::read(old, "old", limits) else {
        return;
    };
    // Read beside the approved surface, as the study reads candidates: the same surface or error.
    let beside = payload::read_candidate(new.to_vec(), "new", limits, &approved);
    assert_eq!(beside, payload::read_general(new, "new", limits));
    let Ok(candidate) = beside else {
        return;
    };
    // The contract beyond tools: the member scan and the serde pass agree.
    let contract = |bytes: &[u8]| {
        let fast = payload::contract::read(bytes, "c", limits).ok();
        assert_eq!(
            fast,
            payload::contract::read_general(bytes, "c", limits).ok()
        );
        fast.flatten()
    };
    let approved = approved.with_contract(contract(old));
    let candidate = candidate.with_contract(contract(new));
    let mut rules = of_kind(RuleKind::Payload);
    rules.extend(of_kind(RuleKind::Diff));
    rules.extend(of_kind(RuleKind::Study));
    let outcome = evaluate(
        &rules,
        &approved,
        &candidate,
        Some(&approved),
        &ResolvedPolicy::default(),
        FailOn::Breaking,
    );
    // Every finding placed in the candidate's own bytes (SARIF regions, annotation lines): the
    // locator walks any text the reader accepted.
    let text = String::from_utf8_lossy(new);
    let places = anchor::place(
        &text,
        anchor::Side::Candidate,
        &candidate,
        &outcome.findings,
    );
    assert_eq!(places.len(), outcome.findings.len());
    let anchor = anchor::Anchor {
        uri: "new.json".into(),
        places,
    };
    let r = GateReport {
        command: "check",
        approved: Some("old"),
        candidate: "new",
        outcome: &outcome,
        anchor: Some(&anchor),
        category: Some("fuzz"),
    };
    // Every format `--format` offers, read from its registry (a new format is fuzzed unasked).
    for format in <report::Format as clap::ValueEnum>::value_variants() {
        let _ = format.gate(&r, true);
    }
}
