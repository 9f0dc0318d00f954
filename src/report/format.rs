//! The output formats of `check` and `diff` (`--format`), and their dispatch: one gate's report
//! or one report per server of a lockfile, each as text.

use super::servers::{self, LockReport};
use super::{github, json, junit, markdown, sarif, text, GateReport};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// readable in a terminal; coloured on a TTY unless NO_COLOR is set
    Text,
    /// the documented JSON contract
    Json,
    /// a table for pull-request comments and job summaries
    Markdown,
    /// SARIF 2.1.0 for code scanning
    Sarif,
    /// GitHub Actions workflow annotations
    Github,
    /// JUnit XML for GitLab, Jenkins and other CI test reports (a test case per finding)
    Junit,
}

impl Format {
    /// Whether findings must be placed on lines of a repository file (SARIF, annotations).
    pub fn places_findings(self) -> bool {
        matches!(self, Format::Sarif | Format::Github)
    }

    /// One gate's report; `colour` only matters for text.
    pub fn gate(self, report: &GateReport<'_>, colour: bool) -> String {
        match self {
            Format::Text => text::render(report, colour),
            Format::Json => json::render(report),
            Format::Markdown => markdown::render(report),
            Format::Sarif => sarif::render(report),
            Format::Github => github::render(report),
            Format::Junit => junit::render(report),
        }
    }

    /// The report of every server of a lockfile.
    pub fn servers(self, report: &LockReport<'_>, colour: bool) -> String {
        match self {
            Format::Text => servers::text(report, colour),
            Format::Json => servers::json(report),
            Format::Markdown => servers::markdown(report),
            Format::Sarif => servers::sarif(report),
            Format::Github => servers::github(report),
            Format::Junit => servers::junit(report),
        }
    }
}
