//! A guard study's spec as written.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A guard study's spec (`research/2026-11-30-silent-failures/study.toml`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GuardStudySpec {
    /// The results folder's name: `results/<id>` unless --out says otherwise.
    pub id: String,
    /// The study's title, for the report.
    pub title: String,
    /// The seed of every draw: the calls and the drift.
    pub seed: u64,
    /// Seeded calls per callable tool.
    pub calls_per_tool: u64,
    /// Seconds to wait for any one answer.
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// Mutation class ids (`driftlab mutations`).
    pub classes: Vec<String>,
    /// `refuse` and/or `warn`: the guard's --on-drift for the guarded runs.
    pub guard_modes: Vec<String>,
    /// The servers, as `[[server]]` tables.
    #[serde(rename = "server")]
    pub servers: Vec<StudyServer>,
}

fn default_timeout() -> u64 {
    20
}

/// A real server: how to start it (in the spec's folder, never through a shell) and which of
/// its tools the study may call (all when absent).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StudyServer {
    /// Its name in the rows.
    pub name: String,
    /// Its argv (`{session}` is the session's own empty folder).
    pub command: Vec<String>,
    /// Variables added to its environment (`{session}` likewise).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The tools the study may call; all when absent.
    #[serde(default)]
    pub tools: Option<Vec<String>>,
}
