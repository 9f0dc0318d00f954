//! Fuzzes the two TOML readers a user hands driftlab: the gate policy (`--policy`) and the study
//! spec (parsed and resolved; a spec naming real bases reads them through the bounded reader).
//! The first byte picks the reader. Nothing may panic; errors must name the file.

use driftlab_check::verdict::Policy;
use driftlab_study::study::StudySpec;

/// One fuzz input (`fuzz/fuzz_targets/policy_and_spec.rs` runs it; `tests/it/fuzz_seeds.rs` runs it on the
/// committed seeds).
pub fn policy_and_spec(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    if which % 2 == 0 {
        if let Err(e) = Policy::parse(&text, "policy.toml") {
            assert!(e.to_string().starts_with("policy.toml"), "{e}");
        }
    } else {
        match StudySpec::parse(&text, "spec.toml") {
            Ok(spec) => {
                let _ = spec.resolve("spec.toml");
            }
            Err(e) => assert!(e.to_string().contains("spec.toml"), "{e}"),
        }
    }
}
