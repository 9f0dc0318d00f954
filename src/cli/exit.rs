//! Exit codes, documented in docs/gate.md, and the error that means a defect.

/// Pass (or a command that succeeded).
pub const PASS: u8 = 0;
/// Drift at or above the chosen severity.
pub const DRIFT: u8 = 1;
/// Usage error, unreadable or invalid input, unwritable output.
pub const USAGE: u8 = 2;
/// A defect in driftlab.
pub const INTERNAL: u8 = 70;

/// A defect, not a problem with the input: exit code 70.
#[derive(Debug, thiserror::Error)]
#[error("internal error (please report): {0}")]
pub struct Internal(pub String);
