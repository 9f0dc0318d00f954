//! The contract as read: files, server text, the raw `tools/list` view, payloads, schemas and
//! digests.
//!
//! Bounded file reading and atomic writes, server text made safe, the raw view that never
//! coerces, payloads read from whatever produced them, the JSON Schema validator, canonical
//! digests (floors 0-2 of docs/architecture.md).

#![deny(missing_docs)]

pub mod cleanup;
pub mod contract;
pub mod digest;
pub mod fs;
pub mod json_scan;
pub mod jsonrpc;
pub mod lookup;
pub mod pattern_language;
pub mod payload;
pub mod pointer;
pub mod rng;
pub mod surface;
pub mod text;

/// `kebab-case`: lowercase ASCII words of letters and digits joined by single hyphens.
pub fn is_kebab_case(id: &str) -> bool {
    !id.is_empty()
        && id.split('-').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// Why a spec's `id` cannot name its results folder (`results/<id>`), or `None` when it can.
/// Every spec whose id becomes a path checks it here.
pub fn id_problem(id: &str) -> Option<String> {
    (!is_safe_id(id)).then(|| {
        format!(
            "{id:?} must be 1-100 characters of a-z, 0-9, '-', '_', '.', '+' and not start with '.'"
        )
    })
}

/// Safe as a folder name: 1–100 of `a-z 0-9 - _ . +`, not starting with a dot.
pub fn is_safe_id(id: &str) -> bool {
    (1..=100).contains(&id.len())
        && !id.starts_with('.')
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_.+".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kebab_case() {
        assert!(is_kebab_case("input-schema-null"));
        assert!(is_kebab_case("structural"));
        for bad in ["", "-a", "a-", "a--b", "A", "a_b"] {
            assert!(!is_kebab_case(bad), "{bad}");
        }
    }

    #[test]
    fn safe_ids() {
        assert!(is_safe_id("mcp-contract-drift-2026-08-22"));
        for bad in ["", ".", "..", "../x", "a/b", "A"] {
            assert!(!is_safe_id(bad), "{bad}");
        }
    }
}
