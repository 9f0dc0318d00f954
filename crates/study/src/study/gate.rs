//! A study's gates: the `[[gates]]` entry as written (`GateSpec`), the resolved `Gate` (rules
//! and a threshold, or an external checker), and the checks of a checker entry.

use crate::study::external::{CheckerSpec, Mode};
use driftlab_check::check::{FailOn, Rule};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Duration;

/// One `[[gates]]` entry of a study spec, as written.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GateSpec {
    /// The gate's id.
    pub id: String,
    /// Rule ids; `@payload` and `@diff` stand for every rule of that kind. Empty for an
    /// external checker.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<String>,
    /// `any` (default: any finding detects), `warning` or `breaking` (see `--fail-on`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_on: Option<String>,
    /// An external checker's argv (no shell), instead of `rules`; see docs/checker-protocol.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// `jsonl` (default) or `exit-code`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Checker processes run side by side (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processes: Option<usize>,
    /// Whole seconds to wait for one answer or one run (default 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// Exit codes meaning "detected" (exit-code mode; default [1]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detected_exit_codes: Option<Vec<i32>>,
    /// Exit codes meaning "not detected" (exit-code mode; default [0]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_detected_exit_codes: Option<Vec<i32>>,
}

/// A named set of rules; it detects a candidate when any of its rules reports a finding at or
/// above its threshold.
#[derive(Clone)]
pub struct Gate {
    /// The gate's id.
    pub id: String,
    /// Its rules (empty for an external checker).
    pub rules: Vec<&'static dyn Rule>,
    /// The severity at which a finding detects.
    pub fail_on: FailOn,
    /// Set for a gate judged by an external checker instead of `rules`.
    pub checker: Option<CheckerSpec>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<_> = self.rules.iter().map(|r| r.id()).collect();
        f.debug_struct("Gate")
            .field("id", &self.id)
            .field("rules", &ids)
            .field("fail_on", &self.fail_on)
            .finish()
    }
}

/// A `[[gates]]` entry with a `command`: its external checker, checked and resolved.
/// The checker of `gate`, or `None` for a gate of rules. Errors name the key (under the gate)
/// and what is wrong with it.
pub(crate) fn resolve_checker(
    gate: &GateSpec,
    dir: &Path,
) -> Result<Option<CheckerSpec>, (String, String)> {
    let err = |key: &str, message: String| Err((key.to_string(), message));
    let Some(command) = &gate.command else {
        for (key, set) in [
            ("mode", gate.mode.is_some()),
            ("processes", gate.processes.is_some()),
            ("timeout", gate.timeout.is_some()),
            ("detected_exit_codes", gate.detected_exit_codes.is_some()),
            (
                "not_detected_exit_codes",
                gate.not_detected_exit_codes.is_some(),
            ),
        ] {
            if set {
                return err(
                    key,
                    "applies to an external checker only: give its `command`".into(),
                );
            }
        }
        return Ok(None);
    };
    if !gate.rules.is_empty() {
        return err(
            "rules",
            "a gate runs either rules or an external `command`, not both".into(),
        );
    }
    if gate.fail_on.is_some() {
        return err(
            "fail_on",
            "an external checker decides detection itself; remove `fail_on`".into(),
        );
    }
    if command.is_empty() || command[0].is_empty() {
        return err(
            "command",
            "give the checker's argv, e.g. [\"python3\", \"checker.py\"]".into(),
        );
    }
    let mode = match gate.mode.as_deref() {
        None | Some("jsonl") => Mode::Jsonl,
        Some("exit-code") => Mode::ExitCode,
        Some(other) => return err("mode", format!("{other:?} is not one of jsonl, exit-code")),
    };
    if mode == Mode::ExitCode {
        for placeholder in ["{approved}", "{candidate}"] {
            if !command.iter().any(|a| a.contains(placeholder)) {
                return err("command", format!("exit-code mode needs {placeholder} in the argv (replaced by the payload's path)"));
            }
        }
    } else if gate.detected_exit_codes.is_some() || gate.not_detected_exit_codes.is_some() {
        return err(
            "mode",
            "exit codes are mapped in mode = \"exit-code\" only".into(),
        );
    }
    let processes = gate.processes.unwrap_or(1);
    if !(1..=64).contains(&processes) {
        return err("processes", format!("{processes}: expected 1 to 64"));
    }
    let seconds = gate.timeout.unwrap_or(30);
    if !(1..=86_400).contains(&seconds) {
        return err(
            "timeout",
            format!("{seconds}: expected whole seconds from 1 to 86400"),
        );
    }
    let timeout = Duration::from_secs(seconds);
    let detected_codes = gate.detected_exit_codes.clone().unwrap_or_else(|| vec![1]);
    let not_detected_codes = gate
        .not_detected_exit_codes
        .clone()
        .unwrap_or_else(|| vec![0]);
    if let Some(code) = detected_codes
        .iter()
        .find(|c| not_detected_codes.contains(c))
    {
        return err(
            "detected_exit_codes",
            format!("exit code {code} cannot mean both detected and not detected"),
        );
    }
    Ok(Some(CheckerSpec {
        gate: gate.id.clone(),
        command: driftlab_live::live::stdio::resolve_argv(dir, command),
        mode,
        processes,
        timeout,
        dir: dir.to_path_buf(),
        detected_codes,
        not_detected_codes,
    }))
}
