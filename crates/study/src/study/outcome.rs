//! What one surface came to: each gate's decision on each candidate, the rows kept, and what
//! waits for an external checker. Made by the runner, completed by the checkers, counted by the
//! tally.

use driftlab_record::Row;

/// Which rows of `rows.csv` to keep; the summary always counts every row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RowsMode {
    /// every surface × class × gate row
    All,
    /// only rows where a gate failed to detect an applied change (controls excluded)
    Missed,
    /// no rows.csv
    None,
}

impl RowsMode {
    /// How `--rows` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            RowsMode::All => "all",
            RowsMode::Missed => "missed",
            RowsMode::None => "none",
        }
    }

    /// The mode a manifest names (`all`, `missed`, `none`; anything else reads as `none`).
    pub fn parse(text: &str) -> RowsMode {
        match text {
            "all" => RowsMode::All,
            "missed" => RowsMode::Missed,
            _ => RowsMode::None,
        }
    }

    /// How much evidence the mode keeps: every row ⊃ missed rows ⊃ none.
    pub fn evidence(self) -> u8 {
        match self {
            RowsMode::All => 2,
            RowsMode::Missed => 1,
            RowsMode::None => 0,
        }
    }

    pub(super) fn keeps(self, class: usize, applicable: bool, detected: bool) -> bool {
        match self {
            RowsMode::All => true,
            // Class 0 is the identity control, where "not detected" is the right answer.
            RowsMode::Missed => class != 0 && applicable && !detected,
            RowsMode::None => false,
        }
    }
}

/// What one gate decided on one candidate.
#[derive(Debug, Clone, Copy)]
pub(super) struct Decision {
    pub class: usize,
    pub gate: usize,
    pub applicable: bool,
    pub detected: bool,
    /// An external checker crashed on this candidate (counted apart, never as detected).
    pub crashed: bool,
}

pub(super) struct SurfaceResult {
    pub decisions: Vec<Decision>,
    /// The rows `RowsMode` keeps (and, until their checker answers, every row of an external
    /// gate: see [`super::checkers`]).
    pub rows: Vec<Row>,
    /// The approved bytes and each candidate's bytes, kept only for external checkers.
    pub approved: Vec<u8>,
    pub candidates: Vec<Vec<u8>>,
    /// Decisions waiting for an external checker's answer.
    pub pending: Vec<Pending>,
}

/// A decision (and maybe a row) waiting for an external checker's answer.
pub(super) struct Pending {
    /// The request id: surface × (classes + control) + class, the same in every shard.
    pub id: u64,
    pub gate: usize,
    pub class: usize,
    /// Positions in the surface's decisions and rows.
    pub decision: usize,
    pub row: Option<usize>,
    /// Position in the surface's candidates.
    pub candidate: usize,
}
