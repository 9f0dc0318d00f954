//! Client profiles: opt-in rules for what particular clients refuse beyond the specification
//! (`driftlab check --profile NAME`). Each profile has two rules: `profile-NAME` (the candidate
//! has tools the client rejects) and `profile-NAME-newly-broken` (a tool the client accepted in
//! the approved surface is rejected now: for that client, a tool removal).

use std::collections::HashMap;

use serde_json::Value;

use crate::check::{Comparison, Finding, Rule, RuleKind, Severity, ToolRef};
use driftlab_contract::pointer;
use driftlab_contract::surface::Tool;

/// A rule on tool names: whether a name is accepted, and the rule as a pattern for messages.
type NameRule = (fn(&str) -> bool, &'static str);

/// What one client rejects.
pub struct ClientProfile {
    /// The profile's name (`--profile NAME`).
    pub name: &'static str,
    ids: [&'static str; 2],
    /// The rule set both of its rules joined (see [`crate::check::Rule::added_in`]).
    added_in: &'static str,
    /// Tool names the client accepts, described.
    names: Option<NameRule>,
    /// Schema keywords the client refuses anywhere in an inputSchema.
    rejected_keywords: &'static [&'static str],
    source: &'static str,
}

fn charset(name: &str, max: usize, dot: bool) -> bool {
    (1..=max).contains(&name.chars().count())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (dot && b == b'.'))
}

/// Every profile, in the order `--profile` lists them.
pub static PROFILES: &[ClientProfile] = &[
    ClientProfile {
        name: "spec",
        added_in: "2026-12-03",
        ids: ["profile-spec", "profile-spec-newly-broken"],
        names: Some((|n| charset(n, 128, true), "^[A-Za-z0-9_.-]{1,128}$")),
        rejected_keywords: &[],
        source: "MCP 2025-11-25 server/tools: tool names SHOULD be 1-128 characters of A-Z a-z 0-9 _ - .",
    },
    ClientProfile {
        name: "strict-64",
        added_in: "2026-12-03",
        ids: ["profile-strict-64", "profile-strict-64-newly-broken"],
        names: Some((|n| charset(n, 64, true), "^[A-Za-z0-9_.-]{1,64}$")),
        rejected_keywords: &[],
        source: "the MCP name rule cut to 64 characters, the limit the official conformance suite and most function-calling APIs use",
    },
    ClientProfile {
        name: "copilot",
        added_in: "2026-12-03",
        ids: ["profile-copilot", "profile-copilot-newly-broken"],
        names: Some((|n| charset(n, 64, false), "^[A-Za-z0-9_-]{1,64}$ (no `.`)")),
        rejected_keywords: &[],
        source: "GitHub Copilot (VS Code): tool names without `.`, at most 64 characters (the OpenAI function-name rule)",
    },
    ClientProfile {
        name: "gemini",
        added_in: "2026-12-03",
        ids: ["profile-gemini", "profile-gemini-newly-broken"],
        names: None,
        rejected_keywords: &["$ref", "$defs", "additionalProperties"],
        source: "Gemini API function declarations: parameters are an OpenAPI 3.0 schema subset without $ref/$defs or additionalProperties",
    },
];

impl ClientProfile {
    /// The profile named `name`.
    pub fn by_name(name: &str) -> Option<&'static ClientProfile> {
        PROFILES.iter().find(|p| p.name == name)
    }

    /// Why the client rejects the tool (its pointer and a message), if it does.
    fn rejects(&self, tool: &Tool<'_>) -> Option<(String, String)> {
        if let Some((accepts, rule)) = self.names {
            match tool.name_str() {
                Some(name) if !accepts(name) => {
                    return Some((
                        tool.pointer("name"),
                        format!("name {name:?} does not match {rule}"),
                    ))
                }
                _ => {}
            }
        }
        if self.rejected_keywords.is_empty() {
            return None;
        }
        let raw = tool.raw_field("inputSchema")?;
        if !self.rejected_keywords.iter().any(|k| raw.contains(k)) {
            return None;
        }
        let at = tool.pointer("inputSchema");
        find_keyword(tool.input_schema()?, &at, self.rejected_keywords)
            .map(|(at, keyword)| (at, format!("inputSchema uses {keyword}")))
    }

    /// The rule reporting tools the client rejects (`newly`: only those it accepted before).
    pub fn rule(&'static self, newly: bool) -> &'static dyn Rule {
        let index = PROFILES
            .iter()
            .position(|p| std::ptr::eq(p, self))
            .unwrap_or(0);
        &PROFILE_RULES[index * 2 + usize::from(newly)]
    }
}

/// The first rejected keyword used as a schema keyword (not as a property name), depth first.
fn find_keyword(
    schema: &Value,
    at: &str,
    rejected: &'static [&'static str],
) -> Option<(String, &'static str)> {
    let Value::Object(map) = schema else {
        return None;
    };
    for (key, value) in map {
        if let Some(keyword) = rejected.iter().find(|k| **k == key) {
            return Some((pointer::push(at, key), keyword));
        }
        let here = pointer::push(at, key);
        let found = match (key.as_str(), value) {
            // Children of these are named schemas; their names are not keywords.
            (
                "properties" | "patternProperties" | "$defs" | "definitions",
                Value::Object(named),
            ) => named
                .iter()
                .find_map(|(name, s)| find_keyword(s, &pointer::push(&here, name), rejected)),
            (_, Value::Array(items)) => items
                .iter()
                .enumerate()
                .find_map(|(i, s)| find_keyword(s, &pointer::push_index(&here, i), rejected)),
            (_, v @ Value::Object(_)) => find_keyword(v, &here, rejected),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// One of a profile's two rules: what the client rejects in the candidate, or only what it
/// newly rejects against the approved surface.
pub(crate) struct ProfileRule {
    profile: &'static ClientProfile,
    newly: bool,
}

/// Two rules per profile, in [`PROFILES`] order: the candidate alone, then newly broken.
pub(crate) static PROFILE_RULES: [ProfileRule; 8] = [
    ProfileRule {
        profile: &PROFILES[0],
        newly: false,
    },
    ProfileRule {
        profile: &PROFILES[0],
        newly: true,
    },
    ProfileRule {
        profile: &PROFILES[1],
        newly: false,
    },
    ProfileRule {
        profile: &PROFILES[1],
        newly: true,
    },
    ProfileRule {
        profile: &PROFILES[2],
        newly: false,
    },
    ProfileRule {
        profile: &PROFILES[2],
        newly: true,
    },
    ProfileRule {
        profile: &PROFILES[3],
        newly: false,
    },
    ProfileRule {
        profile: &PROFILES[3],
        newly: true,
    },
];

impl Rule for ProfileRule {
    fn id(&self) -> &'static str {
        self.profile.ids[usize::from(self.newly)]
    }
    fn severity(&self) -> Severity {
        match self.newly {
            true => Severity::Breaking,
            false => Severity::Warning,
        }
    }
    fn kind(&self) -> RuleKind {
        match self.newly {
            true => RuleKind::Diff,
            false => RuleKind::Payload,
        }
    }
    fn summary(&self) -> &'static str {
        match (self.profile.name, self.newly) {
            ("spec", false) => "opt-in (--profile spec): a tool name breaks the specification's name rule",
            ("spec", true) => "opt-in (--profile spec): a tool whose name kept the specification's rule breaks it now",
            ("strict-64", false) => "opt-in (--profile strict-64): a tool name is not 1-64 characters of A-Z a-z 0-9 _ - .",
            ("strict-64", true) => "opt-in (--profile strict-64): a tool name that kept the 64-character rule breaks it now",
            ("copilot", false) => "opt-in (--profile copilot): a tool Copilot rejects (a `.` in its name, or over 64 characters)",
            ("copilot", true) => "opt-in (--profile copilot): a tool Copilot accepted is rejected now: for Copilot users, a removal",
            ("gemini", false) => "opt-in (--profile gemini): an inputSchema uses $ref, $defs or additionalProperties, which Gemini rejects",
            _ => "opt-in (--profile gemini): a tool Gemini accepted now uses $ref, $defs or additionalProperties: for Gemini users, a removal",
        }
    }
    fn source(&self) -> &'static str {
        self.profile.source
    }
    fn added_in(&self) -> &'static str {
        self.profile.added_in
    }
    fn profile(&self) -> Option<&'static str> {
        Some(self.profile.name)
    }
    fn check(&self, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        // Each candidate tool's approved counterpart, renames included (a name the client
        // rejects is most often a rename).
        let before: HashMap<usize, usize> = match self.newly {
            true => driftlab_diff::diff::pair(comparison.approved, comparison.candidate)
                .pairs
                .iter()
                .map(|p| (p.new, p.old))
                .collect(),
            false => HashMap::new(),
        };
        let client = self.profile.name;
        for tool in comparison.candidate.tools() {
            let Some((at, why)) = self.profile.rejects(&tool) else {
                continue;
            };
            if self.newly {
                let accepted_before = before
                    .get(&tool.index)
                    .and_then(|&i| comparison.approved.tool(i))
                    .is_some_and(|old| self.profile.rejects(&old).is_none());
                if !accepted_before {
                    continue;
                }
            }
            let message = match self.newly {
                true => format!("profile {client}: {why}: the client accepted this tool before and rejects it now"),
                false => format!("profile {client}: {why}: the client rejects this tool"),
            };
            out.push(Finding::at(self, Some(ToolRef::of(&tool)), at, message));
        }
    }
}
