//! Test material for the rules that stand in for slower code: each base surface (the drift
//! taxonomy's real bases and generated ones) beside itself changed by every mutation class that
//! applies to it, so a shortcut is held to the code it replaces on every kind of change.

use serde_json::Value;

use driftlab_mutate::{generate, mutate};

/// (base, changed) for every real base and `generated` generated ones, every class that
/// applies, drawn with `seed`.
pub(crate) fn mutated_pairs(seed: u64, generated: u64) -> Vec<(Value, Value)> {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let dir = dir.join("research/2026-11-30-mcp-drift-taxonomy/bases");
    let mut bases: Vec<Value> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| serde_json::from_slice(&std::fs::read(entry.unwrap().path()).unwrap()))
        .map(Result::unwrap)
        .collect();
    (0..generated).for_each(|index| bases.push(generate::surface(seed, index, 3)));
    let mut pairs = Vec::new();
    for (index, base) in bases.iter().enumerate() {
        for class in mutate::REGISTRY {
            let mut changed = base.clone();
            let mut stream = mutate::stream(seed, *class, index as u64);
            if class.apply(&mut changed, &mut stream).is_ok() {
                pairs.push((base.clone(), changed));
            }
        }
    }
    pairs
}
