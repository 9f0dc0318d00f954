//! The hand-written checker rules.
//!
//! The study rules (the published study's composites and the emulated strategies of published
//! tools), then the payload rules. The registry of `driftlab-check` gathers [`HAND_WRITTEN`] at
//! link time (a program that names this crate, `use driftlab_rules as _;`, has them; no call at
//! start-up), so a change here rebuilds only this crate and the binary's. Its whole public
//! surface is [`HAND_WRITTEN`]: a rule is reached through the registry, by id, never by its type.

#![deny(missing_docs)]

/// Declares each hand-written rule's module, imports its rule types, and lists them in
/// [`HAND_WRITTEN`]: a new rule is one line here.
macro_rules! hand_written {
    ($($module:ident::{$($rule:ident),+ $(,)?}),* $(,)?) => {
        $(mod $module; use $module::{$($rule),+};)*
        /// Rules with logic of their own: the study rules (the published study's composites and
        /// the emulated strategies of published tools), then the payload rules.
        pub const HAND_WRITTEN: &[&dyn Rule] = &[$($(&$rule),+),*];
    };
}

hand_written! {
    structural::{Structural},
    ordered_snapshot::{OrderedSnapshot},
    sorted_hash::{SortedHash},
    description_hash::{DescriptionHash},
    name_set::{NameSet},
    required_and_types::{RequiredAndTypes},
    tool_name_invalid::{ToolNameInvalid},
    input_schema_missing::{InputSchemaMissing},
    input_schema_null::{InputSchemaNull},
    input_schema_not_object::{InputSchemaNotObject},
    duplicate_tool_name::{DuplicateToolName},
    output_schema_not_object::{OutputSchemaNotObject},
    schema_invalid::{SchemaInvalid},
    mcp_header::{McpHeaderInvalid, McpHeaderNewlyInvalid},
    task_support_required::{TaskSupportRequired},
    cache_hints_missing::{CacheHintsMissing},
}

// The registry of `driftlab-check` gathers this table at link time.
#[linkme::distributed_slice(driftlab_check::check::rules::HAND_WRITTEN)]
static LINKED: &'static [&'static dyn Rule] = HAND_WRITTEN;

/// The approved surface's tools by name (the first of each name), for rules that compare a
/// candidate tool with its namesake. Built on the first lookup: those rules look up only the few
/// tools that have what they look for, so most comparisons never build it.
pub(crate) struct ApprovedByName<'a> {
    approved: &'a Surface,
    map: std::cell::OnceCell<std::collections::HashMap<&'a str, Tool<'a>>>,
}

impl<'a> ApprovedByName<'a> {
    pub(crate) fn new(comparison: &Comparison<'a>) -> ApprovedByName<'a> {
        ApprovedByName {
            approved: comparison.approved,
            map: std::cell::OnceCell::new(),
        }
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Tool<'a>> {
        let map = self.map.get_or_init(|| {
            let mut out = std::collections::HashMap::new();
            for tool in self.approved.tools() {
                if let Some(name) = tool.name_str() {
                    out.entry(name).or_insert(tool);
                }
            }
            out
        });
        map.get(name)
    }
}

/// A tool's description as the emulated hashing rules hash it: `""` when absent or not a string.
pub(crate) fn hashed_description<'a>(tool: &Tool<'a>) -> &'a str {
    tool.get("description")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
}

/// Whether two tools' descriptions hash alike ([`hashed_description`]): equal texts hold equal
/// descriptions, so they are parsed only when their texts differ.
pub(crate) fn same_hashed_description(a: &Tool<'_>, b: &Tool<'_>) -> bool {
    a.raw_field("description") == b.raw_field("description")
        || hashed_description(a) == hashed_description(b)
}

/// A surface's tools by label, the last of a repeated label winning (what collecting them into
/// a map by label finds): searched in place when there are few (a study's surfaces, where
/// building a map per candidate cost more than the rule), through a map otherwise.
pub(crate) enum ByLabel<'a> {
    Few(&'a Surface),
    Many(
        std::collections::HashMap<std::borrow::Cow<'a, str>, Tool<'a>, foldhash::fast::RandomState>,
    ),
}

impl<'a> ByLabel<'a> {
    pub(crate) fn new(surface: &'a Surface) -> ByLabel<'a> {
        match surface.len() <= 16 {
            true => ByLabel::Few(surface),
            false => ByLabel::Many(surface.tools().map(|t| (t.label_ref(), t)).collect()),
        }
    }

    pub(crate) fn get(&self, label: &str) -> Option<Tool<'a>> {
        match self {
            ByLabel::Few(surface) => (0..surface.len())
                .rev()
                .filter_map(|i| surface.tool(i))
                .find(|t| t.label_ref() == label),
            ByLabel::Many(map) => map.get(label).copied(),
        }
    }
}

use driftlab_check::check::{Comparison, Rule};
use driftlab_contract::surface::{Surface, Tool};

mod meta_validity;

#[cfg(test)]
mod fixture_tests;
#[cfg(test)]
mod mutated_pairs;
#[cfg(test)]
mod run_tests;
#[cfg(test)]
mod sets_tests;
#[cfg(test)]
mod tests;
