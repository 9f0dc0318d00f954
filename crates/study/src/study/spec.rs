//! `StudySpec`: what a study runs, read from TOML and checked against the registries.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::gate::{Gate, GateSpec};
use driftlab_check::check::rules;
use driftlab_check::check::FailOn;
use driftlab_mutate::mutate::{self, MutationClass};

/// The published study, embedded so `driftlab study` needs no files.
pub const DEFAULT_SPEC: &str =
    include_str!("../../../../research/mcp-contract-drift-2026-08-22/study.toml");
/// Where the published study's spec lives in the repository.
pub const DEFAULT_SPEC_PATH: &str = "research/mcp-contract-drift-2026-08-22/study.toml";

/// Most tools one generated surface may have (keeps a typo from exhausting memory).
pub const MAX_TOOLS: usize = 10_000;

/// A study as written in its `study.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct StudySpec {
    /// Folder-safe id; results go to `results/<id>/` by default.
    pub id: String,
    /// The title of the report and figures; empty: the id.
    #[serde(default)]
    pub title: String,
    /// The seed every draw derives from.
    pub seed: u64,
    /// How many surfaces.
    pub surfaces: u64,
    /// Tools per generated surface.
    #[serde(default = "default_tools")]
    pub tools: usize,
    /// Mutation class ids; the identity control always runs as well. `@tools` stands for every
    /// registered class that changes tools ([`mutate::tool_classes`]) and is spelled out on
    /// parsing, so the manifest records the classes that ran.
    pub mutations: Vec<String>,
    /// The gates, in order.
    pub gates: Vec<GateSpec>,
    /// Pins what `@payload` and `@diff` mean: the rules of that kind added up to this rule set
    /// (`driftlab rules --format json` lists each rule's set). Without it they mean every rule
    /// of this build, and a rule added later changes the study's results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_set: Option<String>,
    /// A folder of real tools/list payloads (relative to the spec file) to draw base surfaces
    /// from instead of the generator; `tools` is then ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bases: Option<String>,
    /// Configurations for `driftlab sweep`; `driftlab study` ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepSpec>,
    /// Live servers to take the surfaces from instead of the generator or `bases`: surface `i`
    /// is server `i mod n`, captured directly (approved) and through `driftlab wrap --drift
    /// CLASS` (each candidate).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub live: Vec<LiveServerSpec>,
}

/// A live server of a study: its name and how to start it. The command runs in the spec file's
/// folder, directly (never through a shell), with `env` added to driftlab's environment.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LiveServerSpec {
    /// The server's name.
    pub name: String,
    /// Its argv.
    pub command: Vec<String>,
    /// Variables added to its environment.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub env: std::collections::BTreeMap<String, String>,
}

/// Every combination of these seeds and surface counts is one configuration of a sweep.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// The seeds.
    pub seeds: Vec<u64>,
    /// The surface counts.
    pub surfaces: Vec<u64>,
}

/// The folder of the spec file: live servers and checkers run there.
fn spec_dir(path: &str) -> std::path::PathBuf {
    match std::path::Path::new(path).parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    }
}

fn default_tools() -> usize {
    3
}

/// A spec that could not be used: names the file, and the key or line.
#[derive(Debug, Error, PartialEq)]
pub enum SpecError {
    /// The file is not TOML.
    #[error("{path}:{line}:{column}: {message}")]
    Syntax {
        /// The file.
        path: String,
        /// The line, from 1.
        line: usize,
        /// The column, from 1.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A key has a value the study cannot use.
    #[error("{path}: `{key}`: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// The key, as a dotted path.
        key: String,
        /// What is wrong.
        message: String,
    },
}

/// A spec resolved against the registries, ready to run.
#[derive(Debug, Clone)]
pub struct Study {
    /// The spec as written.
    pub spec: StudySpec,
    /// Its classes, looked up (the identity control included).
    pub mutations: Vec<&'static dyn MutationClass>,
    /// Its gates, resolved.
    pub gates: Vec<Gate>,
    /// Every distinct rule any gate uses, each run once per candidate.
    pub rules: Vec<&'static dyn driftlab_check::check::Rule>,
    /// The rule set `@payload` and `@diff` were read as: the spec's `rule_set`, else the newest.
    pub rule_set: &'static str,
    /// Real base surfaces (file stem, `{"tools":[…]}`), sorted by file name; empty when the
    /// generator makes the bases.
    pub bases: Vec<(String, serde_json::Value)>,
    /// The folder live servers' commands run in (the spec file's).
    pub live_dir: std::path::PathBuf,
}

/// In `mutations`: every registered class that changes tools.
pub(crate) const TOOL_CLASSES: &str = "@tools";

impl StudySpec {
    /// Parses TOML text; `path` is used in error messages only.
    /// `{classes}` and `{gates}` in the title read as the spec's counts, so a class added to
    /// the list needs no edit of the title.
    pub fn parse(text: &str, path: &str) -> Result<StudySpec, SpecError> {
        let mut spec: StudySpec = toml::from_str(text).map_err(|e| {
            let (line, column, message) = driftlab_contract::text::toml_error(text, &e);
            SpecError::Syntax {
                path: path.to_string(),
                line,
                column,
                message,
            }
        })?;
        spec.mutations = spec
            .mutations
            .iter()
            .flat_map(|id| match id.as_str() {
                TOOL_CLASSES => mutate::tool_classes()
                    .iter()
                    .map(|c| c.id().to_string())
                    .collect(),
                _ => vec![id.clone()],
            })
            .collect();
        spec.title = spec
            .title
            .replace("{classes}", &spec.mutations.len().to_string())
            .replace("{gates}", &spec.gates.len().to_string());
        Ok(spec)
    }

    /// Checks the spec against the registries and returns a runnable study.
    pub fn resolve(self, path: &str) -> Result<Study, SpecError> {
        let invalid = |key: String, message: String| SpecError::Invalid {
            path: path.to_string(),
            key,
            message,
        };
        if let Some(problem) = driftlab_contract::id_problem(&self.id) {
            return Err(invalid("id".into(), problem));
        }
        if self.surfaces == 0 {
            return Err(invalid("surfaces".into(), "must be at least 1".into()));
        }
        if self.tools == 0 || self.tools > MAX_TOOLS {
            return Err(invalid(
                "tools".into(),
                format!("must be between 1 and {MAX_TOOLS}"),
            ));
        }
        if self.mutations.is_empty() {
            return Err(invalid(
                "mutations".into(),
                "list at least one mutation class".into(),
            ));
        }
        let mut mutations = Vec::new();
        for (i, id) in self.mutations.iter().enumerate() {
            let key = format!("mutations[{i}]");
            let class = mutate::by_id(id).ok_or_else(|| {
                invalid(
                    key.clone(),
                    format!(
                        "unknown mutation class {id:?} (known: {TOOL_CLASSES} for every class \
                         that changes tools, {})",
                        mutate::ids().join(", ")
                    ),
                )
            })?;
            if class.id() == mutate::CONTROL.id() {
                return Err(invalid(
                    key,
                    "identity always runs as the control; do not list it".into(),
                ));
            }
            if self.mutations[..i].contains(id) {
                return Err(invalid(key, format!("{id:?} is listed twice")));
            }
            mutations.push(class);
        }
        if self.gates.is_empty() {
            return Err(invalid("gates".into(), "list at least one gate".into()));
        }
        if let Some(sweep) = &self.sweep {
            if sweep.seeds.is_empty() {
                return Err(invalid(
                    "sweep.seeds".into(),
                    "list at least one seed".into(),
                ));
            }
            if sweep.surfaces.is_empty() || sweep.surfaces.contains(&0) {
                return Err(invalid(
                    "sweep.surfaces".into(),
                    "list at least one surface count, each at least 1".into(),
                ));
            }
        }
        let rule_set = match &self.rule_set {
            None => rules::sets::latest(),
            Some(id) => rules::sets::ids()
                .into_iter()
                .find(|known| known == id)
                .ok_or_else(|| {
                    invalid(
                        "rule_set".into(),
                        format!(
                            "unknown rule set {id:?} (known: {})",
                            rules::sets::ids().join(", ")
                        ),
                    )
                })?,
        };
        let mut gates = Vec::new();
        let mut all_rules: Vec<&'static dyn driftlab_check::check::Rule> = Vec::new();
        for (g, gate) in self.gates.iter().enumerate() {
            if gate.id.is_empty() || gate.id.contains([',', '\n', '"']) {
                return Err(invalid(
                    format!("gates[{g}].id"),
                    "must be non-empty, without commas, quotes or newlines".into(),
                ));
            }
            if self.gates[..g].iter().any(|other| other.id == gate.id) {
                return Err(invalid(
                    format!("gates[{g}].id"),
                    format!("{:?} is used twice", gate.id),
                ));
            }
            let live_dir = spec_dir(path);
            let checker = super::gate::resolve_checker(gate, &live_dir)
                .map_err(|(key, message)| invalid(format!("gates[{g}].{key}"), message))?;
            if checker.is_none() && gate.rules.is_empty() {
                return Err(invalid(
                    format!("gates[{g}].rules"),
                    "list at least one rule, or give an external checker's `command`".into(),
                ));
            }
            let mut gate_rules: Vec<&'static dyn driftlab_check::check::Rule> = Vec::new();
            for (r, id) in gate.rules.iter().enumerate() {
                let key = || format!("gates[{g}].rules[{r}]");
                let found = match rules::sets::group(id, rule_set) {
                    Some(rules) => rules,
                    None => {
                        let rule = rules::by_id(id).ok_or_else(|| {
                            invalid(
                                key(),
                                format!(
                                    "unknown rule {id:?} (known: @payload, @diff, @tools, {})",
                                    rules::ids().join(", ")
                                ),
                            )
                        })?;
                        if !rules::sets::existed(id, rule_set) {
                            return Err(invalid(
                                key(),
                                format!(
                                    "rule {id:?} was added in rule set {}, after this spec's rule_set {rule_set:?}",
                                    rules::sets::added_in(id).unwrap_or("?")
                                ),
                            ));
                        }
                        vec![rule]
                    }
                };
                for rule in found {
                    if !gate_rules.iter().any(|known| known.id() == rule.id()) {
                        gate_rules.push(rule);
                    }
                    if !all_rules.iter().any(|known| known.id() == rule.id()) {
                        all_rules.push(rule);
                    }
                }
            }
            let fail_on = match gate.fail_on.as_deref() {
                None | Some("any") => FailOn::Any,
                Some("warning") => FailOn::Warning,
                Some("breaking") => FailOn::Breaking,
                Some(other) => {
                    return Err(invalid(
                        format!("gates[{g}].fail_on"),
                        format!("{other:?} is not one of any, warning, breaking"),
                    ))
                }
            };
            gates.push(Gate {
                id: gate.id.clone(),
                rules: gate_rules,
                fail_on,
                checker,
            });
        }
        for (i, server) in self.live.iter().enumerate() {
            if !driftlab_contract::is_safe_id(&server.name)
                || self.live[..i].iter().any(|s| s.name == server.name)
            {
                return Err(invalid(
                    format!("live[{i}].name"),
                    "must be a unique id of a-z, 0-9, '-', '_', '.', '+'".into(),
                ));
            }
            if server.command.is_empty() {
                return Err(invalid(
                    format!("live[{i}].command"),
                    "give the server's command".into(),
                ));
            }
        }
        if !self.live.is_empty() && self.bases.is_some() {
            return Err(invalid(
                "live".into(),
                "a study takes its surfaces from `bases` or `live`, not both".into(),
            ));
        }
        if let Some(class) = mutations.iter().find(|c| c.part() != "tools") {
            if self.bases.is_some() || !self.live.is_empty() {
                return Err(invalid(
                    "mutations".into(),
                    format!(
                        "{:?} changes the {} of a whole contract, which only generated surfaces record (drop `bases`/`live`)",
                        class.id(),
                        class.part()
                    ),
                ));
            }
        }
        let live_dir = spec_dir(path);
        let bases = match &self.bases {
            Some(folder) => {
                bases::load(path, folder).map_err(|e| invalid("bases".into(), e.to_string()))?
            }
            None => Vec::new(),
        };
        Ok(Study {
            spec: self,
            mutations,
            gates,
            rules: all_rules,
            rule_set,
            bases,
            live_dir,
        })
    }
}

impl Study {
    /// The published study embedded in the binary.
    pub fn default_study() -> Study {
        // The embedded spec is checked by a test; failing here would be a build defect.
        StudySpec::parse(DEFAULT_SPEC, DEFAULT_SPEC_PATH)
            .and_then(|spec| spec.resolve(DEFAULT_SPEC_PATH))
            .expect("the embedded default study spec is valid")
    }

    /// Whether a generated surface carries a whole contract (prompts, resources, instructions,
    /// capabilities beside its tools): when a class changes one of those parts.
    pub fn whole_contract(&self) -> bool {
        self.mutations.iter().any(|c| c.part() != "tools")
    }

    /// The classes every surface runs: the control first, then the spec's classes in order.
    pub fn classes(&self) -> impl Iterator<Item = &'static dyn MutationClass> + '_ {
        std::iter::once(mutate::CONTROL).chain(self.mutations.iter().copied())
    }
}

mod bases;
#[cfg(test)]
mod tests;
