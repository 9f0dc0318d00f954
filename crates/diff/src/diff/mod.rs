//! The diff engine: pairs the tools of two surfaces and lists every change between them, each
//! tagged with the [`ChangeKind`] whose rule reports it. Computed once per comparison and shared by
//! all diff rules (see `check::rules::diff_rules`).

mod canonical;
pub mod contract;
mod pairing;
mod proof;
mod property_renames;
mod same;
mod schema;
mod tool;
mod tool_diff;
mod trust;
mod words;

pub use pairing::{pair, similarity, Pair, Pairing, RENAME_THRESHOLD};

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;

use crate::witness::Witness;
use driftlab_contract::payload::short;
use driftlab_contract::surface::Surface;

/// Every kind of change the engine reports; each has exactly one diff rule (a test counts
/// them with `strum::EnumCount`, so a new kind may go anywhere in the list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::EnumCount)]
pub enum ChangeKind {
    /// A new tool is listed. (`tool-added`)
    ToolAdded,
    /// The candidate lists a name more times than the approved surface: a client that maps names to
    /// tools keeps one copy (the diff compares the last). (`tool-duplicated`)
    ToolDuplicated,
    /// A tool is gone (and no added tool looks like it renamed). (`tool-removed`)
    ToolRemoved,
    /// A removed and an added tool are similar in name, description and parameters: a likely
    /// rename, with a confidence. (`tool-renamed`)
    ToolRenamed,
    /// Tools present in both are listed in a different relative order (clients and prompt caches
    /// may rely on it). (`tools-reordered`)
    ToolsReordered,
    /// A tool's description changed: prompt-facing text that steers the model. (`tool-description-
    /// changed`)
    ToolDescriptionChanged,
    /// A tool's display title changed. (`title-changed`)
    TitleChanged,
    /// ReadOnlyHint or idempotentHint went true -> false, destructiveHint or openWorldHint false ->
    /// true (defaults applied). (`annotation-became-dangerous`)
    AnnotationBecameDangerous,
    /// Any other tool annotation changed. (`annotation-changed`)
    AnnotationChanged,
    /// Another tool field changed (icons, execution, _meta, ...). (`tool-metadata-changed`)
    ToolMetadataChanged,
    /// An object inputSchema became missing, null or a non-object. (`input-schema-replaced`)
    InputSchemaReplaced,
    /// A tool now declares an outputSchema. (`output-schema-added`)
    OutputSchemaAdded,
    /// A tool no longer declares its outputSchema. (`output-schema-removed`)
    OutputSchemaRemoved,
    /// A new parameter is required: existing calls lack it. (`required-parameter-added`)
    RequiredParameterAdded,
    /// A new optional parameter. (`optional-parameter-added`)
    OptionalParameterAdded,
    /// A parameter is gone: calls that send it may be rejected or silently ignored. (`parameter-
    /// removed`)
    ParameterRemoved,
    /// A removed and an added parameter have the same shape: a likely rename. (`parameter-renamed`)
    ParameterRenamed,
    /// An optional parameter became required. (`parameter-became-required`)
    ParameterBecameRequired,
    /// A required parameter became optional. (`parameter-became-optional`)
    ParameterBecameOptional,
    /// An input accepts fewer types (or fewer anyOf/oneOf branches, or a union reduced to one
    /// branch); integer is a subset of number. (`type-narrowed`)
    TypeNarrowed,
    /// An input accepts more types (or more anyOf/oneOf branches, or is wrapped in a union one of
    /// whose branches is the old schema: one widening, not removals). (`type-widened`)
    TypeWidened,
    /// An input's type changed to an unrelated one. (`type-changed`)
    TypeChanged,
    /// An input no longer accepts an enum (or const) value. (`enum-value-removed`)
    EnumValueRemoved,
    /// An input accepts a new enum value. (`enum-value-added`)
    EnumValueAdded,
    /// An input constraint got stricter: min/max, lengths, item counts, pattern or format added,
    /// additionalProperties: false set, enum added (a bound at or beyond ±(2^53−1), the I-JSON
    /// integer limit zod 4 adds everywhere, counts as no bound). (`constraint-tightened`)
    ConstraintTightened,
    /// An input constraint got looser or was dropped. (`constraint-loosened`)
    ConstraintLoosened,
    /// An input's default value changed: calls that omit it now behave differently. (`default-
    /// changed`)
    DefaultChanged,
    /// A parameter's description changed: prompt-facing text. (`parameter-description-changed`)
    ParameterDescriptionChanged,
    /// The schema's $schema dialect changed (e.g. draft-07 -> 2020-12). (`schema-dialect-changed`)
    SchemaDialectChanged,
    /// An annotation keyword changed (title, examples, deprecated, ...; output descriptions and
    /// defaults). (`schema-annotation-changed`)
    SchemaAnnotationChanged,
    /// An output property is gone. (`output-property-removed`)
    OutputPropertyRemoved,
    /// An output may now have a type (or anyOf branch, or be wrapped in a union) consumers did not
    /// expect. (`output-property-type-changed`)
    OutputPropertyTypeChanged,
    /// An output property is no longer guaranteed. (`output-property-became-optional`)
    OutputPropertyBecameOptional,
    /// An output may return a new enum value. (`output-enum-value-added`)
    OutputEnumValueAdded,
    /// An output constraint got looser: consumers may receive values they did not expect. (`output-
    /// constraint-loosened`)
    OutputConstraintLoosened,
    /// An output got narrower or richer (property added, type narrowed, enum value removed,
    /// constraint tightened). (`output-compatible-change`)
    OutputCompatibleChange,
    /// An output property was added where the approved outputSchema allows no unlisted one
    /// (additionalProperties: false): only a client that validates answers against a cached
    /// approved listing refuses them; the witness is such an answer. (`output-property-added-
    /// closed`)
    OutputPropertyAddedToClosed,
    /// A schema change driftlab cannot judge soundly (unresolvable $ref, a changed pattern that
    /// could not be compared, unknown keyword, ...). (`schema-change-unjudged`)
    SchemaChangeUnjudged,
    /// An object's listed parameters replaced by an open object.
    ParametersUndocumented,
    /// A numeric bound at or beyond ±(2^53−1) appeared.
    UnsafeIntegerBound,
    /// A union branch changed, but a sibling branch accepts every value it did.
    BranchChangeMasked,
    /// The witness search found a breaking value no other change explains.
    ValueNowRejected,
    /// ReadOnlyHint became true, or destructiveHint or openWorldHint was true and became false or
    /// was dropped: a host may stop asking before it runs the tool. (`annotation-lowered-guard`)
    AnnotationLoweredGuard,
    /// Invisible, bidirectional or control characters were added to text the model reads.
    /// (`hidden-characters-added`)
    HiddenCharactersAdded,
    /// A tool's description or title now carries an instruction to the agent, a URL or a
    /// reference to another tool it did not. (`instruction-cue-added`)
    CueAdded,
    /// A tool field the protocol does not define appeared. (`unknown-key-added`)
    UnknownKeyAdded,
    /// A parameter is newly mirrored into an HTTP header (`x-mcp-header` added or moved).
    /// (`mcp-header-added`)
    McpHeaderAdded,
    /// A schema newly takes part of itself from outside the listing (a `$ref` that is not
    /// `#…`). (`remote-ref-added`)
    RemoteRefAdded,
}

impl ChangeKind {
    /// Whether a change of this kind breaks by what a schema accepts, and so must be proven by
    /// a witness value (see `witness`).
    pub fn needs_witness(self) -> bool {
        use ChangeKind as K;
        matches!(
            self,
            K::RequiredParameterAdded
                | K::ParameterRemoved
                | K::ParameterRenamed
                | K::ParameterBecameRequired
                | K::TypeNarrowed
                | K::TypeChanged
                | K::EnumValueRemoved
                | K::ConstraintTightened
                | K::OutputPropertyRemoved
                | K::OutputPropertyTypeChanged
                | K::OutputPropertyBecameOptional
                | K::OutputEnumValueAdded
                | K::OutputConstraintLoosened
                | K::ValueNowRejected
        )
    }
}

/// How much the diff proves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proving {
    /// Every change in what a schema accepts gets a witness, or the reason none was found; and
    /// a breaking value no change explains is reported itself (`value-now-rejected`).
    Witnesses,
    /// Only what a gate's verdict needs, for a caller that reports no witness (a study): the
    /// search runs only where a witness decides a change's kind (a changed pattern). Every other
    /// change that needs one is left unproven, so a breaking rule reports it `unknown`, which
    /// every `--fail-on` counts as it counts `breaking` (`check::FailOn::fails`); and
    /// no `value-now-rejected` is looked for, so a caller whose rules hold that rule must prove
    /// with witnesses (`check::rules::diff_rules::proving_for` chooses). Nor are the old and new
    /// values shortened for display: a change's `old` and `new` are `None`.
    Verdict,
}

impl Proving {
    /// `value` shortened to one line for a change's `old` or `new`; `None` where only the
    /// verdict is wanted (no report shows it).
    pub(crate) fn shown(self, value: Option<&Value>) -> Option<String> {
        match self {
            Proving::Witnesses => value.map(short),
            Proving::Verdict => None,
        }
    }
}

/// What proves a change breaks callers or consumers.
#[derive(Debug, Clone, PartialEq)]
pub enum Proof {
    /// The change is not about which values a schema accepts.
    NotNeeded,
    /// A value valid before and invalid after (for outputs: the mirror).
    Witness(Arc<Witness>),
    /// The search found none; why, in a few words.
    Missing(String),
}

/// One change between an approved and a candidate surface.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// What kind of change it is (each kind is one rule's).
    pub kind: ChangeKind,
    /// The tool's name (`old -> new` for a rename).
    pub tool: String,
    /// The tool's index in the candidate, or in the approved surface when it is gone.
    pub tool_index: usize,
    /// Where the change is in the approved document (a JSON Pointer), when it is there.
    pub old_pointer: Option<String>,
    /// Where the change is in the candidate document, when it is there.
    pub new_pointer: Option<String>,
    /// The old value, shortened to one line, when there is one (never under
    /// [`Proving::Verdict`]).
    pub old: Option<String>,
    /// The new value, shortened to one line, when there is one (never under
    /// [`Proving::Verdict`]).
    pub new: Option<String>,
    /// The change in one line.
    pub message: String,
    /// How the change was proven: a witness, none needed, or why none was found.
    pub proof: Proof,
}

/// Lists every change from `approved` to `candidate`: per approved tool in order (removed,
/// renamed, then the paired tool's field and schema changes), then added tools, then order.
/// Each change in what a schema accepts is proven by a witness (see [`Proving::Witnesses`]).
pub fn compare(approved: &Surface, candidate: &Surface) -> Vec<Change> {
    compare_proving(approved, candidate, Proving::Witnesses)
}

/// [`compare`], proving as much as `proving` asks.
pub fn compare_proving(approved: &Surface, candidate: &Surface, proving: Proving) -> Vec<Change> {
    let pairing = pair(approved, candidate);
    let mut out = Vec::new();
    let names: HashSet<&str> = candidate.tools().filter_map(|t| t.name_str()).collect();
    // Per approved tool: removed, or its pair. (Looked up by index: a search per tool made two
    // identical 300,000-tool payloads take minutes.)
    let removed: HashSet<usize> = pairing.removed.iter().copied().collect();
    let mut pair_of: Vec<Option<&Pair>> = vec![None; approved.len()];
    for p in &pairing.pairs {
        if let Some(slot) = pair_of.get_mut(p.old) {
            slot.get_or_insert(p);
        }
    }
    for (old_index, paired) in pair_of.iter().enumerate() {
        let Some(old) = approved.tool(old_index) else {
            continue;
        };
        if removed.contains(&old_index) {
            out.push(Change {
                kind: ChangeKind::ToolRemoved,
                tool: old.label(),
                tool_index: old_index,
                old_pointer: Some(old.location().to_string()),
                new_pointer: None,
                old: proving.shown(old.name()),
                new: None,
                message: format!("tool {} was removed", quoted(&old.label())),
                proof: Proof::NotNeeded,
            });
            continue;
        }
        let Some(p) = paired else {
            continue;
        };
        let Some(new) = candidate.tool(p.new) else {
            continue;
        };
        tool::compare(&old, &new, p.confidence, proving, &mut out);
        trust::compare(Some(&old), &new, &names, proving, &mut out);
    }
    for new in pairing.added.iter().filter_map(|&i| candidate.tool(i)) {
        trust::compare(None, &new, &names, proving, &mut out);
    }
    for (kind, indices) in [
        (ChangeKind::ToolAdded, &pairing.added),
        (ChangeKind::ToolDuplicated, &pairing.duplicates),
    ] {
        for new in indices.iter().filter_map(|&i| candidate.tool(i)) {
            let label = quoted(&new.label());
            let message = match kind {
                ChangeKind::ToolAdded => format!("tool {label} was added"),
                _ => format!(
                    "another tool named {label} is listed: a client that maps names to tools \
                     keeps only one (compared here: the last)"
                ),
            };
            out.push(Change {
                kind,
                tool: new.label(),
                tool_index: new.index,
                old_pointer: None,
                new_pointer: Some(new.location().to_string()),
                old: None,
                new: proving.shown(new.name()),
                message,
                proof: Proof::NotNeeded,
            });
        }
    }
    if pairing.capped {
        out.push(Change {
            kind: ChangeKind::SchemaChangeUnjudged,
            tool: String::new(),
            tool_index: 0,
            old_pointer: None,
            new_pointer: None,
            old: None,
            new: None,
            message: format!(
                "rename search abandoned: {} removed and {} added tools share too many words to \
                 compare in {} steps; they are reported as removed and added, without rename hints",
                pairing.removed.len(),
                pairing.added.len(),
                pairing::MAX_RENAME_COMPARISONS
            ),
            proof: Proof::NotNeeded,
        });
    }
    if let Some(change) = reorder(approved, candidate, &pairing, proving) {
        out.push(change);
    }
    out
}

/// The paired tools in approved order should appear in the same relative order in the candidate.
fn reorder(
    approved: &Surface,
    candidate: &Surface,
    pairing: &Pairing,
    proving: Proving,
) -> Option<Change> {
    let mut pairs: Vec<&Pair> = pairing.pairs.iter().collect();
    pairs.sort_by_key(|p| p.old);
    let at = pairs.windows(2).position(|w| w[0].new > w[1].new)?;
    let (before, after) = (pairs[at], pairs[at + 1]);
    let first = candidate.tool(after.new)?;
    let second = candidate.tool(before.new)?;
    let old_order: Vec<String> = pairs
        .iter()
        .filter_map(|p| approved.tool(p.old))
        .map(|t| t.label())
        .collect();
    let mut by_new = pairs.clone();
    by_new.sort_by_key(|p| p.new);
    let new_order: Vec<String> = by_new
        .iter()
        .filter_map(|p| candidate.tool(p.new))
        .map(|t| t.label())
        .collect();
    Some(Change {
        kind: ChangeKind::ToolsReordered,
        tool: first.label(),
        tool_index: first.index,
        old_pointer: approved.tool(after.old).map(|t| t.location().to_string()),
        new_pointer: Some(first.location().to_string()),
        old: proving.shown(Some(&Value::from(old_order))),
        new: proving.shown(Some(&Value::from(new_order))),
        message: format!(
            "tools are listed in a different order: {} now comes before {}",
            quoted(&first.label()),
            quoted(&second.label())
        ),
        proof: Proof::NotNeeded,
    })
}

fn quoted(text: &str) -> String {
    format!("{text:?}")
}
