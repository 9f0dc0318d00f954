//! Release versions and what a bump between two says. npm versions are SemVer 2.0 (the
//! `semver` crate's precedence); PyPI versions are PEP 440 ([`super::pep440`]). Releases are
//! ordered by version, never by publish date: a backported patch published after a newer
//! minor sits below it. A bump's kind follows Cargo: the leftmost non-zero component is the
//! major one, so a 0.x minor (and a 0.0.x patch) counts as major.

use std::cmp::Ordering;
use std::fmt;

use serde::Serialize;

use super::pep440::Pep440;

/// A release's version, parsed for its registry's ordering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Version {
    /// An npm version.
    Semver(semver::Version),
    /// A PyPI version.
    Pep440(Pep440),
}

/// Which registry's rules a version follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    /// npm: SemVer.
    Npm,
    /// PyPI: PEP 440.
    Pypi,
}

impl Version {
    /// Parses `text` by `scheme`'s rules.
    pub fn parse(scheme: Scheme, text: &str) -> Result<Version, String> {
        match scheme {
            Scheme::Npm => semver::Version::parse(text)
                .map(Version::Semver)
                .map_err(|e| format!("{text:?} is not a SemVer version: {e}")),
            Scheme::Pypi => Pep440::parse(text).map(Version::Pep440),
        }
    }

    /// The release's first three numeric components (missing ones are 0).
    fn triple(&self) -> (u64, u64, u64) {
        match self {
            Version::Semver(v) => (v.major, v.minor, v.patch),
            Version::Pep440(v) => v.triple(),
        }
    }

    /// How the release numbers itself: a major component that is a year (1990 or later) is
    /// calendar versioning, which promises no SemVer; else SemVer, 0.x apart.
    pub(crate) fn numbering(&self) -> Numbering {
        match self.triple().0 {
            0 => Numbering::SemverZero,
            year if year >= 1990 => Numbering::Calendar,
            _ => Numbering::Semver,
        }
    }

    /// A pre-release or development release.
    pub(crate) fn is_pre_release(&self) -> bool {
        match self {
            Version::Semver(v) => !v.pre.is_empty(),
            Version::Pep440(v) => v.is_pre_release(),
        }
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Version) -> Ordering {
        match (self, other) {
            // SemVer precedence ignores build metadata; the crate orders by it last, so two
            // versions differing only there stay distinct and ordered.
            (Version::Semver(a), Version::Semver(b)) => a.cmp(b),
            (Version::Pep440(a), Version::Pep440(b)) => a.cmp(b),
            // One package has one scheme; this keeps the order total anyway.
            (Version::Semver(_), Version::Pep440(_)) => Ordering::Less,
            (Version::Pep440(_), Version::Semver(_)) => Ordering::Greater,
        }
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Version) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// How a release numbers itself, for what its bump promises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Numbering {
    /// SemVer at 1.0 or later.
    Semver,
    /// SemVer below 1.0, where only a patch promises compatibility (Cargo's rule).
    SemverZero,
    /// A year as the major component (`2025.11.25`): no SemVer promise.
    Calendar,
}

impl Numbering {
    /// How the tables spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Numbering::Semver => "semver",
            Numbering::SemverZero => "semver-0.x",
            Numbering::Calendar => "calendar",
        }
    }
}

/// What a version bump promises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bump {
    /// The epoch, or a part up to the old version's leftmost non-zero one, changed (Cargo's rule).
    Major,
    /// The second part changed, past the major one.
    Minor,
    /// A later part, or a post-release only, changed.
    Patch,
    /// Either side is a pre-release (or a development release): no promise at all.
    PreRelease,
}

impl Bump {
    /// Every bump, in table order.
    pub const ALL: [Bump; 4] = [Bump::Major, Bump::Minor, Bump::Patch, Bump::PreRelease];

    /// How the census's tables spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Bump::Major => "major",
            Bump::Minor => "minor",
            Bump::Patch => "patch",
            Bump::PreRelease => "pre-release",
        }
    }

    /// The bump from `old` to `new` (`old` < `new`).
    pub fn between(old: &Version, new: &Version) -> Bump {
        if old.is_pre_release() || new.is_pre_release() {
            return Bump::PreRelease;
        }
        let epoch = |v: &Version| match v {
            Version::Semver(_) => 0,
            Version::Pep440(v) => v.epoch(),
        };
        if epoch(old) != epoch(new) {
            return Bump::Major;
        }
        let (a, b) = (old.triple(), new.triple());
        let (a, b) = ([a.0, a.1, a.2], [b.0, b.1, b.2]);
        // Cargo's rule: the leftmost non-zero component of the old version is its major one.
        let major_at = a.iter().position(|&c| c != 0).unwrap_or(2);
        match a.iter().zip(&b).position(|(x, y)| x != y) {
            Some(changed) if changed <= major_at => Bump::Major,
            Some(1) => Bump::Minor,
            // A patch, or a change past the third component or in a post-release only.
            _ => Bump::Patch,
        }
    }
}

impl fmt::Display for Bump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bump(scheme: Scheme, old: &str, new: &str) -> Bump {
        let old = Version::parse(scheme, old).unwrap();
        let new = Version::parse(scheme, new).unwrap();
        assert!(old < new, "{old:?} < {new:?}");
        Bump::between(&old, &new)
    }

    #[test]
    fn a_year_as_major_is_calendar_versioning_and_0_x_is_apart() {
        let numbering = |scheme, text| Version::parse(scheme, text).unwrap().numbering();
        assert_eq!(numbering(Scheme::Npm, "2025.11.25"), Numbering::Calendar);
        assert_eq!(numbering(Scheme::Pypi, "2026.7.10"), Numbering::Calendar);
        assert_eq!(numbering(Scheme::Npm, "0.6.2"), Numbering::SemverZero);
        assert_eq!(numbering(Scheme::Pypi, "1.9.4"), Numbering::Semver);
        assert_eq!(numbering(Scheme::Npm, "1989.1.0"), Numbering::Semver);
    }

    #[test]
    fn bumps_follow_cargo() {
        use Scheme::{Npm, Pypi};
        assert_eq!(bump(Npm, "1.2.3", "2.0.0"), Bump::Major);
        assert_eq!(bump(Npm, "1.2.3", "1.3.0"), Bump::Minor);
        assert_eq!(bump(Npm, "1.2.3", "1.2.4"), Bump::Patch);
        assert_eq!(
            bump(Npm, "0.6.2", "0.7.0"),
            Bump::Major,
            "a 0.x minor is major"
        );
        assert_eq!(bump(Npm, "0.6.2", "0.6.3"), Bump::Patch);
        assert_eq!(
            bump(Npm, "0.0.3", "0.0.4"),
            Bump::Major,
            "a 0.0.x patch is major"
        );
        assert_eq!(bump(Npm, "1.0.0-rc.1", "1.0.0"), Bump::PreRelease);
        assert_eq!(bump(Npm, "2025.4.8", "2025.4.25"), Bump::Patch);
        assert_eq!(bump(Pypi, "1.2", "1.2.1"), Bump::Patch);
        assert_eq!(bump(Pypi, "1.2", "1.3"), Bump::Minor);
        assert_eq!(bump(Pypi, "1.2.post1", "1.2.post2"), Bump::Patch);
        assert_eq!(bump(Pypi, "0.1.0", "0.2.0"), Bump::Major);
        assert_eq!(
            bump(Pypi, "1.0", "1!0.1"),
            Bump::Major,
            "an epoch is the top component"
        );
        assert_eq!(bump(Pypi, "1.0a1", "1.0"), Bump::PreRelease);
    }

    #[test]
    fn versions_order_by_precedence_not_text() {
        let mut npm: Vec<Version> = ["1.10.0", "1.2.0", "1.2.0-beta.2", "1.2.0-beta.10"]
            .iter()
            .map(|v| Version::parse(Scheme::Npm, v).unwrap())
            .collect();
        npm.sort();
        let text: Vec<String> = npm
            .iter()
            .map(|v| match v {
                Version::Semver(v) => v.to_string(),
                Version::Pep440(_) => unreachable!(),
            })
            .collect();
        assert_eq!(text, ["1.2.0-beta.2", "1.2.0-beta.10", "1.2.0", "1.10.0"]);
        assert!(Version::parse(Scheme::Npm, "v1").is_err());
    }
}
