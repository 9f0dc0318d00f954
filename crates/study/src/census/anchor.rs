//! The census set beside its anchor, cargo-semver-checks' study of crates.io, which counts
//! minor and patch releases only: the pairs whose version promised compatibility (Cargo's rule:
//! a minor or patch bump of a 1.x+ release, a patch of a 0.x one), split from the pairs of
//! calendar-versioned packages (which promise no SemVer) and from those that promised nothing.
//! A breaking pair is told by what it breaks ([`BreakKind`]).

use std::fmt::Write;

use serde::Serialize;

use super::break_kind::BreakKind;
use super::derive::{Census, Pair, PairVerdict};
use super::version::{Bump, Numbering};

/// How many pairs of one kind there are and how many break, by what they break.
#[derive(Default, Serialize)]
pub struct Row {
    /// Pairs.
    pub pairs: usize,
    /// Of them, breaking.
    pub breaking: usize,
    /// Breaking pairs by [`BreakKind`], keyed by its spelling.
    pub by_kind: std::collections::BTreeMap<&'static str, usize>,
}

impl Row {
    fn add(&mut self, pair: &Pair) {
        self.pairs += 1;
        if pair.verdict == PairVerdict::Breaking {
            self.breaking += 1;
            let kind = pair.break_kind.unwrap_or(BreakKind::Other);
            *self.by_kind.entry(kind.as_str()).or_default() += 1;
        }
    }
}

/// The census's pairs as cargo-semver-checks would count them.
#[derive(Default, Serialize)]
pub struct Anchor {
    /// Minor and patch pairs of 1.x+ SemVer releases.
    pub semver_minor_or_patch: Row,
    /// Patch pairs of 0.x releases (a 0.x minor counts as major, by Cargo's rule).
    pub semver_zero_patch: Row,
    /// Minor and patch pairs of calendar-versioned packages: no SemVer promise.
    pub calendar_minor_or_patch: Row,
    /// Pairs whose bump promised nothing: major, or a pre-release on either side.
    pub major_or_pre_release: Row,
    /// Pairs with a release its registry deprecated or yanked: left out of the rows above.
    pub withdrawn: Row,
    /// Pairs whose two captures spoke different protocol versions.
    pub pairs_mixed_protocol: usize,
}

impl Anchor {
    /// Counts `census`'s pairs.
    pub fn of(census: &Census) -> Anchor {
        let mut anchor = Anchor::default();
        for pair in &census.pairs {
            let promised = matches!(pair.bump, Bump::Minor | Bump::Patch);
            let row = match (promised, pair.numbering) {
                _ if pair.withdrawn => &mut anchor.withdrawn,
                (false, _) => &mut anchor.major_or_pre_release,
                (true, Numbering::Calendar) => &mut anchor.calendar_minor_or_patch,
                (true, Numbering::SemverZero) => &mut anchor.semver_zero_patch,
                (true, Numbering::Semver) => &mut anchor.semver_minor_or_patch,
            };
            row.add(pair);
            anchor.pairs_mixed_protocol += usize::from(pair.mixed_protocol());
        }
        anchor
    }

    /// The pairs SemVer promised compatible: 1.x+ minor and patch, 0.x patch.
    fn promised(&self) -> (usize, usize) {
        let (a, b) = (&self.semver_minor_or_patch, &self.semver_zero_patch);
        (a.pairs + b.pairs, a.breaking + b.breaking)
    }

    /// The headline: the promised pairs first, with what their breaks are.
    pub fn headline(&self) -> String {
        let (pairs, breaking) = self.promised();
        let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
        for row in [&self.semver_minor_or_patch, &self.semver_zero_patch] {
            for (kind, n) in &row.by_kind {
                *kinds.entry(kind).or_default() += n;
            }
        }
        let count = |kind: BreakKind| kinds.get(kind.as_str()).copied().unwrap_or(0);
        let calendar = &self.calendar_minor_or_patch;
        let withdrawn = match self.withdrawn.pairs {
            0 => String::new(),
            n => format!(
                ", {} of {n} pairs with a release its registry deprecated or yanked",
                self.withdrawn.breaking
            ),
        };
        format!(
            "{breaking} of {pairs} release pairs whose SemVer version promised compatibility (a minor or patch bump; a patch for 0.x) break at least one caller: {} remove or rename a tool or a parameter every call carries, {} narrow values some calls send, {} change an output, {} another part of the contract. Apart: {} of {} minor or patch pairs of calendar-versioned packages, {} of {} pairs whose bump promised nothing (major or pre-release){withdrawn}.",
            count(BreakKind::Removed),
            count(BreakKind::Narrowed),
            count(BreakKind::Output),
            count(BreakKind::Other),
            calendar.breaking,
            calendar.pairs,
            self.major_or_pre_release.breaking,
            self.major_or_pre_release.pairs,
        )
    }

    /// The report's table, one row per kind of promise.
    pub fn table(&self) -> String {
        let mut md = String::from(
            "| what the version promised | pairs | breaking | removed or renamed | values narrowed | output | other |\n|---|---:|---:|---:|---:|---:|---:|\n",
        );
        let rows = [
            ("SemVer 1.x+, minor or patch", &self.semver_minor_or_patch),
            ("SemVer 0.x, patch", &self.semver_zero_patch),
            (
                "calendar-versioned, minor or patch",
                &self.calendar_minor_or_patch,
            ),
            ("major or pre-release", &self.major_or_pre_release),
            (
                "a release its registry deprecated or yanked",
                &self.withdrawn,
            ),
        ];
        for (label, row) in rows {
            let n = |k: BreakKind| row.by_kind.get(k.as_str()).copied().unwrap_or(0);
            let _ = writeln!(
                md,
                "| {label} | {} | {} | {} | {} | {} | {} |",
                row.pairs,
                row.breaking,
                n(BreakKind::Removed),
                n(BreakKind::Narrowed),
                n(BreakKind::Output),
                n(BreakKind::Other)
            );
        }
        md
    }
}
