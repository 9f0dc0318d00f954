//! Mutation classes: deliberate contract changes applied to an approved surface.
//!
//! A class receives the approved `{"tools":[…]}` object (a copy it may change) and its own random
//! stream, derived from `(seed, "mutate:<id>", surface index)`, so adding or reordering classes
//! never changes another class's draws.

mod edit;
mod read_draws;

pub use edit::Edit;
use read_draws::{draw_read_named_tool, draw_read_tool, fresh_read_tool_name, read_tool_sites};

use serde_json::{Map, Value};

use driftlab_contract::lookup::Lookup;
use driftlab_contract::rng::Stream;
use driftlab_contract::surface::{Surface, Tool};

/// Where a mutation landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The tool that was changed; `None` for whole-surface changes (reorder) and the control.
    pub tool_index: Option<usize>,
    /// A short, human-readable account of the change, e.g. `get_user -> "get user"`.
    pub detail: String,
}

impl Applied {
    /// A change to tool `index`, named `name`: "<name>: <change>".
    fn on_tool(index: usize, name: &str, change: &str) -> Applied {
        Applied {
            tool_index: Some(index),
            detail: concat(&[name, ": ", change]),
        }
    }

    /// Tool `index` renamed: "<old> -> <new>".
    fn renamed(index: usize, old: &str, new: &str) -> Applied {
        Applied {
            tool_index: Some(index),
            detail: concat(&[old, " -> ", new]),
        }
    }
}

/// The parts joined, built directly: a study makes a detail for every candidate, and `format!`
/// costs more than the rest of a simple class's edit.
fn concat(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    parts.iter().for_each(|p| out.push_str(p));
    out
}

/// Why a class could not be applied to a surface (the row is kept and marked, never dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotApplicable(pub String);

/// What applying a class did to a surface: the change, or why it did not apply.
pub type Outcome = Result<Applied, NotApplicable>;

/// What `apply` changed in the `{"tools":[…]}` object, so the study runner can build the
/// candidate's bytes from the base's bytes instead of serializing the whole surface again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// Only the tool at this index; the list keeps its length and order.
    Tool(usize),
    /// Only the order: position `i` now holds the tool that was at `order[i]`.
    Order(Vec<usize>),
    /// Anything else (tools added or removed, formatting): serialize the whole surface.
    Surface,
}

/// What a change means for an agent that calls the tool, decided before any checker runs.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Label {
    /// Existing calls or consumers fail.
    Breaking,
    /// Calls keep working but the model or client may now do something riskier.
    Dangerous,
    /// Existing calls and consumers keep working.
    Compatible,
    /// Nothing a client can observe changes meaning.
    Benign,
    /// The identity control.
    Control,
}

impl Label {
    /// How the label is spelled in specs, rows and summaries.
    pub fn as_str(self) -> &'static str {
        match self {
            Label::Breaking => "breaking",
            Label::Dangerous => "dangerous",
            Label::Compatible => "compatible",
            Label::Benign => "benign",
            Label::Control => "control",
        }
    }

    /// Breaking and dangerous changes are the ones a gate should flag.
    pub fn should_flag(self) -> bool {
        matches!(self, Label::Breaking | Label::Dangerous)
    }
}

/// A kind of contract change.
pub trait MutationClass: Sync {
    /// Stable kebab-case id.
    fn id(&self) -> &'static str;
    /// One line for `driftlab mutations`, METHOD.md and reports.
    fn summary(&self) -> &'static str;
    /// The expected label, fixed before any checker runs.
    fn label(&self) -> Label;
    /// One line: why the label is what it is.
    fn rationale(&self) -> &'static str;
    /// The part of the contract it changes, as the rules name parts: `tools`, `prompts`,
    /// `resources` or `server`. A class beyond tools applies to surfaces that record that part
    /// (generated with [`crate::generate::surface_with_contract`]).
    fn part(&self) -> &'static str {
        "tools"
    }
    /// Changes `surface` in place. Must change the serialized bytes unless it is the control.
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome;
    /// The bytes a client receives for the mutated surface. Compact JSON, except for classes
    /// that change the formatting itself.
    fn serialize(&self, surface: &Value) -> Vec<u8> {
        // `serde_json::to_vec`'s bytes, written faster.
        let mut out = Vec::with_capacity(4096);
        driftlab_contract::payload::compact::write(&mut out, surface);
        out
    }
    /// What `apply` changed, given what it reported. By default the tool it names: a class that
    /// adds, removes or moves tools, or serializes in its own way, says so. A test checks for
    /// every class that bytes built this way equal [`MutationClass::serialize`]'s.
    fn reach(&self, applied: &Applied) -> Reach {
        applied.tool_index.map_or(Reach::Surface, Reach::Tool)
    }
    /// The same change as an edit of the base's bytes, without a `Value`, for the classes a
    /// study runs most. `base` is the base as read from its compact `{"tools":[…]}` bytes.
    /// `Some` must be exactly what `apply` on the base's value and `serialize` give: the same
    /// outcome, the same draws and the same bytes (a test checks every class that has an edit,
    /// over generated and real bases). `None` (the default) means "use `apply`", on a fresh
    /// stream: the class may have drawn before declining.
    fn edit(&self, _base: &Surface, _rng: &mut Stream) -> Option<(Applied, Edit)> {
        None
    }
}

/// The control class, run on every surface to measure false positives.
pub const CONTROL: &dyn MutationClass = &Identity;

/// Declares each class's module, imports its type, and lists it in [`REGISTRY`]: a new class
/// is one line here.
macro_rules! classes {
    ($($module:ident::{$class:ident}),* $(,)?) => {
        $(mod $module; use $module::$class;)*
        /// Every mutation class, in the order listings show them (and `@tools` in a spec's
        /// `mutations` lists the tool classes, by label).
        pub const REGISTRY: &[&dyn MutationClass] = &[$(&$class),*];
    };
}

classes! {
    identity::{Identity},
    name_space::{NameSpace},
    input_schema_missing::{InputSchemaMissing},
    input_schema_null::{InputSchemaNull},
    input_schema_array_root::{InputSchemaArrayRoot},
    tools_reordered::{ToolsReordered},
    // Breaking
    parameter_renamed::{ParameterRenamed},
    parameter_type_narrowed::{ParameterTypeNarrowed},
    required_parameter_added::{RequiredParameterAdded},
    parameter_became_required::{ParameterBecameRequired},
    enum_value_removed::{EnumValueRemoved},
    tool_removed::{ToolRemoved},
    tool_renamed::{ToolRenamed},
    // Name noise, as RoTBench injects it (typos, random names, names swapped between tools)
    name_typo::{NameTypo},
    name_randomized::{NameRandomized},
    tool_names_permuted::{ToolNamesPermuted},
    output_property_removed::{OutputPropertyRemoved},
    output_property_type_changed::{OutputPropertyTypeChanged},
    constraint_tightened::{ConstraintTightened},
    // Dangerous
    annotation_became_dangerous::{AnnotationBecameDangerous},
    description_rewritten::{DescriptionRewritten},
    description_replaced::{DescriptionReplaced},
    description_reworded::{DescriptionReworded},
    // Compatible
    optional_parameter_added::{OptionalParameterAdded},
    enum_value_added::{EnumValueAdded},
    tool_added::{ToolAdded},
    parameter_type_widened::{ParameterTypeWidened},
    output_schema_added::{OutputSchemaAdded},
    // Benign
    schema_key_order_changed::{SchemaKeyOrderChanged},
    payload_reformatted::{PayloadReformatted},
    // Beyond tools: prompts, resources and the server's announcement (whole-contract surfaces)
    prompt_argument_removed::{PromptArgumentRemoved},
    prompt_required_argument_added::{PromptRequiredArgumentAdded},
    resource_removed::{ResourceRemoved},
    instructions_rewritten::{InstructionsRewritten},
    capability_flag_dropped::{CapabilityFlagDropped},
}

/// Looks a class up by id.
pub fn by_id(id: &str) -> Option<&'static dyn MutationClass> {
    REGISTRY.iter().copied().find(|m| m.id() == id)
}

/// The columns of `driftlab mutations` (and docs/study.md's table).
pub const LISTING_COLUMNS: [&str; 4] = ["mutation", "label", "part", "changes"];

/// One row per class, in registry order: what `driftlab mutations` lists.
pub fn listing_rows() -> Vec<[&'static str; 4]> {
    REGISTRY
        .iter()
        .map(|m| [m.id(), m.label().as_str(), m.part(), m.summary()])
        .collect()
}

/// What `@tools` in a spec's `mutations` stands for: every registered class that changes tools
/// (all but the control), grouped by label (breaking, dangerous, compatible, benign) and in
/// registry order within a label.
pub fn tool_classes() -> Vec<&'static dyn MutationClass> {
    let mut classes: Vec<&'static dyn MutationClass> = REGISTRY
        .iter()
        .copied()
        .filter(|c| c.part() == "tools" && c.label() != Label::Control)
        .collect();
    classes.sort_by_key(|c| c.label());
    classes
}

/// Ids of every registered class, for error messages.
pub fn ids() -> Vec<&'static str> {
    REGISTRY.iter().map(|m| m.id()).collect()
}

/// The random stream a class uses on one surface.
pub fn stream(seed: u64, class: &dyn MutationClass, surface_index: u64) -> Stream {
    Stream::derive_parts(seed, &["mutate:", class.id()], surface_index)
}

/// The tools array of a result object.
fn tools_mut(surface: &mut Value) -> Result<&mut Vec<Value>, NotApplicable> {
    surface
        .get_mut("tools")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| NotApplicable("surface has no tools array".into()))
}

/// A list of the contract beyond tools (`prompts`, `resources`) as a snapshot records it.
fn contract_list_mut<'a>(
    surface: &'a mut Value,
    member: &str,
) -> Result<&'a mut Vec<Value>, NotApplicable> {
    surface
        .get_mut(member)
        .and_then(Value::as_array_mut)
        .ok_or_else(|| NotApplicable(format!("the surface records no {member}")))
}

/// An item's `key` member (a prompt's name, a resource's uri) for a detail.
fn item_label(item: &Value, key: &str) -> String {
    match item.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => format!("(no {key})"),
    }
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

/// A place a class can change: a tool, and a top-level property of one of its schemas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Site {
    pub tool: usize,
    pub property: String,
}

/// Every top-level property of `schema` ("inputSchema" or "outputSchema") across the surface
/// whose schema satisfies `eligible(property_schema, is_required)`, in surface order.
pub(crate) fn property_sites(
    surface: &Value,
    schema: &str,
    eligible: impl Fn(&Value, bool) -> bool,
) -> Vec<Site> {
    let mut sites = Vec::new();
    let Some(tools) = surface.field("tools").and_then(Value::as_array) else {
        return sites;
    };
    for (tool, t) in tools.iter().enumerate() {
        let Some(root) = t.field(schema) else {
            continue;
        };
        let required = root
            .as_object()
            .map(driftlab_contract::surface::required_names)
            .unwrap_or_default();
        let Some(props) = root.field("properties").and_then(Value::as_object) else {
            continue;
        };
        for (name, property) in props {
            if eligible(property, required.contains(name.as_str())) {
                sites.push(Site {
                    tool,
                    property: name.clone(),
                });
            }
        }
    }
    sites
}

/// Every tool index whose fields satisfy `eligible`.
pub(crate) fn tool_sites(
    surface: &Value,
    eligible: impl Fn(&Map<String, Value>) -> bool,
) -> Vec<usize> {
    surface
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .enumerate()
                .filter(|(_, t)| t.as_object().is_some_and(&eligible))
                .map(|(i, _)| i)
                .collect()
        })
        .unwrap_or_default()
}

/// Draws one site uniformly (`below(len)`); not applicable when there is none.
pub(crate) fn draw<T>(mut sites: Vec<T>, rng: &mut Stream, what: &str) -> Result<T, NotApplicable> {
    if sites.is_empty() {
        return Err(NotApplicable(format!("no {what} on this surface")));
    }
    let i = rng.index(sites.len());
    Ok(sites.swap_remove(i))
}

/// The tool at `index` as an object.
pub(crate) fn tool_at(
    surface: &mut Value,
    index: usize,
) -> Result<&mut Map<String, Value>, NotApplicable> {
    surface
        .get_mut("tools")
        .and_then(|t| t.get_mut(index))
        .and_then(Value::as_object_mut)
        .ok_or_else(|| NotApplicable(format!("tool {index} is not an object")))
}

/// A schema of a tool ("inputSchema"/"outputSchema") as an object.
pub(crate) fn schema_at<'a>(
    surface: &'a mut Value,
    index: usize,
    schema: &str,
) -> Result<&'a mut Map<String, Value>, NotApplicable> {
    tool_at(surface, index)?
        .get_mut(schema)
        .and_then(Value::as_object_mut)
        .ok_or_else(|| NotApplicable(format!("tool {index} has no object {schema}")))
}

/// The property schema at a site.
pub(crate) fn property_at<'a>(
    surface: &'a mut Value,
    site: &Site,
    schema: &str,
) -> Result<&'a mut Map<String, Value>, NotApplicable> {
    schema_at(surface, site.tool, schema)?
        .get_mut("properties")
        .and_then(|p| p.get_mut(&site.property))
        .and_then(Value::as_object_mut)
        .ok_or_else(|| NotApplicable(format!("{} is not an object schema", site.property)))
}

/// `base`, or `base_2`, `base_3`, ... : the first that `taken` rejects.
fn fresh(base: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut name = base.to_string();
    let mut k = 2;
    while taken(&name) {
        name = format!("{base}_{k}");
        k += 1;
    }
    name
}

/// Renames property `old` of `schema` to `new` in place: its key (the order kept) and its
/// entry in `required`.
pub(crate) fn rename_property(schema: &mut Map<String, Value>, old: &str, new: &str) {
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        // Rebuild in order so only the key changes.
        let all = std::mem::take(props);
        for (k, v) in all {
            props.insert(if k == old { new.to_string() } else { k }, v);
        }
    }
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        for r in required.iter_mut() {
            if r.as_str() == Some(old) {
                *r = Value::String(new.to_string());
            }
        }
    }
}

/// A property name not yet used in `schema`'s properties.
pub(crate) fn fresh_property(schema: &Map<String, Value>, base: &str) -> String {
    fresh(base, |n| {
        schema.get("properties").and_then(|p| p.get(n)).is_some()
    })
}

/// Draws a tool with a string name; returns its index and name.
pub(crate) fn draw_named_tool(
    surface: &Value,
    rng: &mut Stream,
) -> Result<(usize, String), NotApplicable> {
    let sites = tool_sites(surface, |t| t.get("name").is_some_and(Value::is_string));
    let tool = draw(sites, rng, "tool with a string name")?;
    let name = surface["tools"][tool]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    Ok((tool, name))
}

/// A tool name not yet used on the surface.
pub(crate) fn fresh_tool_name(surface: &Value, base: &str) -> String {
    let tools = surface.get("tools").and_then(Value::as_array);
    fresh(base, |n| {
        tools.is_some_and(|t| {
            t.iter()
                .any(|t| t.get("name").and_then(Value::as_str) == Some(n))
        })
    })
}

/// The `type` of a property schema as a single string, when it is one.
pub(crate) fn single_type(schema: &Value) -> Option<&str> {
    schema.get("type").and_then(Value::as_str)
}

fn label_of(tool: &Value) -> String {
    tool.as_object()
        .map_or_else(|| "(not an object)".into(), label)
}

/// Appends a property to an object schema's `properties` (creating it when absent).
pub(crate) fn add_property(schema: &mut Map<String, Value>, name: &str, property: Value) {
    let props = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(p) = props {
        p.insert(name.to_string(), property);
    }
}

/// Shown by id (a spec's `Debug` lists its classes and rules).
impl std::fmt::Debug for dyn MutationClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests;
