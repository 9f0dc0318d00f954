//! Why a release gave no contract, in named buckets the report counts. A bucket is read from
//! the recorded stage and reason alone (so `--offline` derives it), first match wins; the
//! reason itself stays in `releases.csv` beside it.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::derive::{Census, Failure, Record, Release};

/// Why a release gave no contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FailureKind {
    /// The registry does not have the package (or could not list its versions).
    NotOnRegistry,
    /// The registry has the package, but no release this census's Python can install.
    NoInstallableVersion,
    /// The release needed a host the sandbox or the machine could not reach.
    NeedsNetwork,
    /// No answer within the capture or install timeout.
    Timeout,
    /// The release runs against an MCP SDK newer than the one it was written for, which
    /// removed or renamed what it imports (`mcp.server.fastmcp`, `Server.list_tools`, …).
    SdkIncompatible,
    /// A dependency (or a version of one) it needs is missing.
    MissingDependency,
    /// The installer failed for another reason.
    InstallFailed,
    /// The server exited before answering, for another reason.
    ExitedAtStart,
    /// The server answered, but not with a contract.
    CaptureFailed,
}

impl FailureKind {
    /// Every bucket, in table order.
    pub const ALL: [FailureKind; 9] = [
        FailureKind::NotOnRegistry,
        FailureKind::NoInstallableVersion,
        FailureKind::NeedsNetwork,
        FailureKind::Timeout,
        FailureKind::SdkIncompatible,
        FailureKind::MissingDependency,
        FailureKind::InstallFailed,
        FailureKind::ExitedAtStart,
        FailureKind::CaptureFailed,
    ];

    /// How the tables spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::NotOnRegistry => "not-on-registry",
            FailureKind::NoInstallableVersion => "no-installable-version",
            FailureKind::NeedsNetwork => "needs-network",
            FailureKind::Timeout => "timeout",
            FailureKind::SdkIncompatible => "sdk-incompatible",
            FailureKind::MissingDependency => "missing-dependency",
            FailureKind::InstallFailed => "install-failed",
            FailureKind::ExitedAtStart => "exited-at-start",
            FailureKind::CaptureFailed => "capture-failed",
        }
    }

    /// What the bucket means, for the report.
    pub fn meaning(self) -> &'static str {
        match self {
            FailureKind::NotOnRegistry => "the registry does not have the package: not counted as a release",
            FailureKind::NoInstallableVersion => "the registry has the package, but pip lists no release this census's Python can install (Requires-Python, platform): not counted as a release",
            FailureKind::NeedsNetwork => "it needed a host that could not be reached (`ENOTFOUND`, `fetch failed`)",
            FailureKind::Timeout => "no answer within the timeout",
            FailureKind::SdkIncompatible => "the MCP SDK it was installed with lacks what the release imports (`mcp.server.fastmcp`, `Server.list_tools`, …): today's SDK where `installed_as_of` is empty",
            FailureKind::MissingDependency => "a dependency, or a version of one, it needs is missing (`ETARGET`, `Cannot find module`, `No module named`)",
            FailureKind::InstallFailed => "the installer failed for another reason",
            FailureKind::ExitedAtStart => "the server exited before answering, for another reason",
            FailureKind::CaptureFailed => "the server answered, but not with a contract",
        }
    }
}

const NETWORK: &[&str] = &[
    "ENOTFOUND",
    "EAI_AGAIN",
    "getaddrinfo",
    "fetch failed",
    "ECONNREFUSED",
];
const SDK: &[&str] = &[
    "No module named 'mcp.",
    "from 'mcp.",
    "'Server' object has no attribute",
    "@modelcontextprotocol/sdk",
];
const DEPENDENCY: &[&str] = &[
    "ETARGET",
    "No matching version",
    "Cannot find module",
    "ERR_MODULE_NOT_FOUND",
    "No module named",
    "ImportError",
    "No matching distribution",
    // uv's word for a dependency no version of which may be taken (as of the release's date).
    "No solution found",
];

/// How a PyPI package's listing failure says that the index has the package (its PEP 691
/// page lists releases) but pip lists none it may install.
pub(crate) const NONE_INSTALLABLE: &str = "none that this census's Python can install";

/// The bucket of a recorded failure.
pub fn classify(failure: &Failure) -> FailureKind {
    let reason = failure.reason.as_str();
    let any = |needles: &[&str]| needles.iter().any(|n| reason.contains(n));
    match failure.stage.as_str() {
        "versions" if reason.contains(NONE_INSTALLABLE) => FailureKind::NoInstallableVersion,
        "versions" => FailureKind::NotOnRegistry,
        _ if any(NETWORK) => FailureKind::NeedsNetwork,
        _ if reason.contains("timed out") || reason.contains("no answer to") => {
            FailureKind::Timeout
        }
        _ if any(SDK) => FailureKind::SdkIncompatible,
        _ if any(DEPENDENCY) => FailureKind::MissingDependency,
        "install" => FailureKind::InstallFailed,
        _ if reason.contains("exited") => FailureKind::ExitedAtStart,
        _ => FailureKind::CaptureFailed,
    }
}

/// A release's bucket, or `None` when it gave a contract.
pub(crate) fn failure_of(release: &Release) -> Option<FailureKind> {
    match &release.record {
        Record::Failed(f) => Some(classify(f)),
        Record::Captured(_) => None,
    }
}

/// Whether the row is a release: a package the registry lacks, or whose releases this census
/// cannot install at all, has none.
pub(crate) fn is_release(release: &Release) -> bool {
    !matches!(
        failure_of(release),
        Some(FailureKind::NotOnRegistry | FailureKind::NoInstallableVersion)
    )
}

/// Releases without a contract per bucket (every bucket listed, in table order).
pub(crate) fn counts(census: &Census) -> BTreeMap<&'static str, usize> {
    let mut counts: BTreeMap<&'static str, usize> =
        FailureKind::ALL.iter().map(|k| (k.as_str(), 0)).collect();
    for kind in census.releases.iter().filter_map(failure_of) {
        *counts.entry(kind.as_str()).or_default() += 1;
    }
    counts
}

/// The report's table of why releases gave no contract.
pub(crate) fn table(census: &Census) -> String {
    let counts = counts(census);
    let mut md = String::from("| why | releases | what it means |\n|---|---:|---|\n");
    for kind in FailureKind::ALL {
        let _ = writeln!(
            md,
            "| `{}` | {} | {} |",
            kind.as_str(),
            counts[kind.as_str()],
            kind.meaning()
        );
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(stage: &str, reason: &str) -> &'static str {
        let failure = Failure {
            stage: stage.into(),
            reason: reason.into(),
            sandboxed: false,
        };
        classify(&failure).as_str()
    }

    /// Reasons as the committed census recorded them.
    #[test]
    fn recorded_reasons_fall_into_their_buckets() {
        assert_eq!(
            kind("versions", "npm error code E404 / npm error 404 Not Found"),
            "not-on-registry"
        );
        let unlisted = format!(
            "ERROR: No matching distribution found for x / the index lists 3 releases of it, {NONE_INSTALLABLE} (Requires-Python or platform)"
        );
        assert_eq!(kind("versions", &unlisted), "no-installable-version");
        assert_eq!(
            kind(
                "install",
                "npm error code ENOTFOUND / npm error syscall getaddrinfo"
            ),
            "needs-network"
        );
        assert_eq!(
            kind(
                "capture",
                "tools/list failed: JSON-RPC error -32603: fetch failed"
            ),
            "needs-network"
        );
        assert_eq!(
            kind(
                "capture",
                "no answer to server/discover within 30 s (raise it with --timeout)"
            ),
            "timeout"
        );
        assert_eq!(kind("capture", "the server exited (exit code 1); stderr: ModuleNotFoundError: No module named 'mcp.server.fastmcp'"), "sdk-incompatible");
        assert_eq!(
            kind(
                "capture",
                "stderr: AttributeError: 'Server' object has no attribute 'list_tools'"
            ),
            "sdk-incompatible"
        );
        assert_eq!(kind("install", "npm error code ETARGET / npm error notarget No matching version found for @mongodb-js/mcp-metrics@2.1.0."), "missing-dependency");
        assert_eq!(kind("capture", "the server exited (exit code 1); stderr: Fatal error in main(): Cannot find module 'x'"), "missing-dependency");
        assert_eq!(
            kind(
                "install",
                "pip exited with exit status: 1: error: subprocess-exited-with-error"
            ),
            "install-failed"
        );
        assert_eq!(
            kind(
                "capture",
                "the server exited before answering (exit code 1); stderr: Node.js v20.20.2"
            ),
            "exited-at-start"
        );
        assert_eq!(
            kind(
                "capture",
                "tools/list answered with a result that is not a list"
            ),
            "capture-failed"
        );
    }
}
