//! Mutation classes: deliberate contract changes applied to an approved surface.
//!
//! A class receives the approved `{"tools":[…]}` object (a copy it may change) and its own random
//! stream, derived from `(seed, "mutate:<id>", surface index)`, so adding or reordering classes
//! never changes another class's draws.

mod identity;
mod input_schema_array_root;
mod input_schema_missing;
mod input_schema_null;
mod name_space;
mod tools_reordered;

pub use identity::Identity;
pub use input_schema_array_root::InputSchemaArrayRoot;
pub use input_schema_missing::InputSchemaMissing;
pub use input_schema_null::InputSchemaNull;
pub use name_space::NameSpace;
pub use tools_reordered::ToolsReordered;

use serde_json::{Map, Value};

use crate::rng::Stream;

/// Where a mutation landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The tool that was changed; `None` for whole-surface changes (reorder) and the control.
    pub tool_index: Option<usize>,
    /// A short, human-readable account of the change, e.g. `get_user -> "get user"`.
    pub detail: String,
}

/// Why a class could not be applied to a surface (the row is kept and marked, never dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotApplicable(pub String);

pub type Outcome = Result<Applied, NotApplicable>;

/// A kind of contract change.
pub trait MutationClass: Sync {
    /// Stable kebab-case id.
    fn id(&self) -> &'static str;
    /// One line for `driftlab mutations`, METHOD.md and reports.
    fn summary(&self) -> &'static str;
    /// Changes `surface` in place. Must change the serialized bytes unless it is the control.
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome;
}

/// The control class, run on every surface to measure false positives.
pub const CONTROL: &dyn MutationClass = &Identity;

/// Every mutation class, in the order listings show them.
pub const REGISTRY: &[&dyn MutationClass] = &[
    &Identity,
    &NameSpace,
    &InputSchemaMissing,
    &InputSchemaNull,
    &InputSchemaArrayRoot,
    &ToolsReordered,
];

pub fn by_id(id: &str) -> Option<&'static dyn MutationClass> {
    REGISTRY.iter().copied().find(|m| m.id() == id)
}

pub fn ids() -> Vec<&'static str> {
    REGISTRY.iter().map(|m| m.id()).collect()
}

/// The random stream a class uses on one surface.
pub fn stream(seed: u64, class: &dyn MutationClass, surface_index: u64) -> Stream {
    Stream::derive(seed, &format!("mutate:{}", class.id()), surface_index)
}

/// The tools array of a result object.
fn tools_mut(surface: &mut Value) -> Result<&mut Vec<Value>, NotApplicable> {
    surface
        .get_mut("tools")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| NotApplicable("surface has no tools array".into()))
}

/// Draws one tool uniformly; not applicable on an empty surface.
fn draw_tool<'a>(
    surface: &'a mut Value,
    rng: &mut Stream,
) -> Result<(usize, &'a mut Map<String, Value>), NotApplicable> {
    let tools = tools_mut(surface)?;
    if tools.is_empty() {
        return Err(NotApplicable("surface has no tools".into()));
    }
    let index = rng.index(tools.len());
    match &mut tools[index] {
        Value::Object(tool) => Ok((index, tool)),
        _ => Err(NotApplicable(format!("tool {index} is not an object"))),
    }
}

fn label(tool: &Map<String, Value>) -> String {
    match tool.get("name") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "(no name)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;
    use std::collections::BTreeSet;

    #[test]
    fn ids_are_unique_and_kebab_case() {
        let ids = ids();
        assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), ids.len());
        assert!(ids.iter().all(|id| crate::is_kebab_case(id)));
        assert_eq!(CONTROL.id(), "identity");
    }

    #[test]
    fn every_class_but_identity_changes_the_bytes() {
        for class in REGISTRY {
            for i in 0..100 {
                let base = generate::surface(11, i, 3);
                let mut candidate = base.clone();
                let mut rng = stream(11, *class, i);
                let applied = class.apply(&mut candidate, &mut rng).unwrap();
                let changed =
                    serde_json::to_vec(&base).unwrap() != serde_json::to_vec(&candidate).unwrap();
                assert_eq!(
                    changed,
                    class.id() != "identity",
                    "{} on surface {i}",
                    class.id()
                );
                assert!(!applied.detail.is_empty());
            }
        }
    }

    #[test]
    fn sites_are_drawn_not_fixed() {
        for class in REGISTRY
            .iter()
            .filter(|c| !["identity", "tools-reordered"].contains(&c.id()))
        {
            let sites: BTreeSet<_> = (0..60)
                .map(|i| {
                    let mut s = generate::surface(5, i, 3);
                    class
                        .apply(&mut s, &mut stream(5, *class, i))
                        .unwrap()
                        .tool_index
                })
                .collect();
            assert_eq!(sites.len(), 3, "{}", class.id());
        }
    }

    #[test]
    fn empty_surfaces_are_not_applicable_not_a_panic() {
        for class in REGISTRY.iter().filter(|c| c.id() != "identity") {
            let mut s = serde_json::json!({"tools": []});
            assert!(
                class.apply(&mut s, &mut stream(1, *class, 0)).is_err(),
                "{}",
                class.id()
            );
        }
    }
}
