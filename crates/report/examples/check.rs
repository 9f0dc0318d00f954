//! `driftlab check --approved APPROVED CANDIDATE`, built from the gate's crates alone
//! (contract, diff, check, rules, report): no study, no live servers, no plots. It prints what
//! the binary prints in `--format text` (no colour) and exits as it does: 0 pass, 1 drift,
//! 2 unreadable input. `.ci/run` builds it with `cargo build -p driftlab-report --example
//! check`, and `tests/it/gate_crates.rs` holds its output to the binary's.

use std::process::ExitCode;

use driftlab_check::check::rules::gate_rules;
use driftlab_check::verdict::{evaluate, FailOn, ResolvedPolicy, Verdict};
use driftlab_contract::payload::input::read_surface;
use driftlab_contract::payload::Limits;
use driftlab_report::report::{Format, GateReport};
// Naming the crate links the hand-written rules into the registry.
use driftlab_rules as _;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [approved_path, candidate_path] = args.as_slice() else {
        eprintln!("usage: check APPROVED CANDIDATE");
        return ExitCode::from(2);
    };
    let read = |path: &str| {
        read_surface(path, Limits::default()).map_err(|e| eprintln!("error: {path}: {e}"))
    };
    let (Ok(approved), Ok(candidate)) = (read(approved_path), read(candidate_path)) else {
        return ExitCode::from(2);
    };
    let rules = gate_rules([], true);
    let outcome = evaluate(
        &rules,
        &approved,
        &candidate,
        Some(&approved),
        &ResolvedPolicy::default(),
        FailOn::Breaking,
    );
    let report = GateReport {
        command: "check",
        approved: Some(approved_path),
        candidate: candidate_path,
        outcome: &outcome,
        anchor: None,
        category: None,
    };
    print!("{}", Format::Text.gate(&report, false));
    match outcome.verdict {
        Verdict::Pass => ExitCode::SUCCESS,
        Verdict::Drift => ExitCode::from(1),
    }
}
