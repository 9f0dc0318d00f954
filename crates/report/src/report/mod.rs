//! Output formats. Each function returns text and does no I/O.

pub mod anchor;
pub mod escape;
mod format;
pub mod github;
pub mod json;
pub mod junit;
pub mod listing;
pub mod markdown;
pub mod region;
pub mod sarif;
pub mod servers;
pub mod text;
mod waivers;

pub use format::Format;

use driftlab_check::verdict::Outcome;

/// One output format, as one type: it renders a gate's report and a lockfile's report (one
/// gate per server) alike. Each lives in its format's file; [`Format`] lists them.
pub trait Render: Sync {
    /// One gate's report; `colour` only matters for text.
    fn gate(&self, report: &GateReport<'_>, colour: bool) -> String;
    /// The report of every server of a lockfile.
    fn servers(&self, report: &servers::LockReport<'_>, colour: bool) -> String;
}

/// What a gate run compared, for the report formats.
pub struct GateReport<'a> {
    /// `check` or `diff`.
    pub command: &'a str,
    /// The approved payload's path, if any (`check` without `--approved` has none).
    pub approved: Option<&'a str>,
    /// The candidate payload's path.
    pub candidate: &'a str,
    /// What the rules found and what the policy made of it.
    pub outcome: &'a Outcome,
    /// The repository file findings are shown in, with each finding's place (SARIF, GitHub).
    pub anchor: Option<&'a anchor::Anchor>,
    /// Names this gate's alert set in SARIF (`automationDetails.id` is `driftlab/<category>/`).
    pub category: Option<&'a str>,
}

impl GateReport<'_> {
    /// e.g. `3 breaking, 1 warning` (non-zero counts only) or `no findings`.
    pub(crate) fn count_line(&self) -> String {
        let parts: Vec<String> = self
            .outcome
            .counts()
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .map(|(s, n)| format!("{n} {}", s.as_str()))
            .collect();
        let existing = self
            .outcome
            .findings
            .iter()
            .filter(|f| f.baseline == Some(driftlab_check::check::Baseline::Unchanged))
            .count();
        match (parts.is_empty(), existing) {
            (true, _) => "no findings".into(),
            (false, 0) => parts.join(", "),
            (false, n) => format!("{} ({n} pre-existing)", parts.join(", ")),
        }
    }
}
