//! The diff rules, as data. Each reports one [`ChangeKind`] of the shared diff engine
//! (`diff`), with its own id and severity; the judgement logic lives in the engine, which
//! walks both surfaces once for all of them.

use std::sync::Arc;

use super::table::{Reported, TableRule};
use crate::check::{Comparison, Finding, Rule, Severity, ToolRef};
use driftlab_diff::diff::{ChangeKind as K, Proof, Proving};

/// A rule that reports one kind of change the diff engine finds.
pub type DiffRule = TableRule<K>;

/// Where every diff rule comes from.
const SOURCE: &str =
    "MCP server/tools Tool fields; JSON Schema 2020-12 validation keywords, judged by data-flow direction";

impl Reported for K {
    // The shared diff parses and walks every changed schema.
    const HEAVY: bool = true;

    fn check(rule: &DiffRule, comparison: &Comparison<'_>, out: &mut Vec<Finding>) {
        for change in comparison
            .changes()
            .iter()
            .filter(|c| c.kind == rule.change)
        {
            if !comparison.detail() {
                // Only the rule and severity are read: no text is copied.
                let mut finding = Finding::verdict(rule);
                if matches!(change.proof, Proof::Missing(_)) && rule.severity == Breaking {
                    finding.severity = Unknown;
                }
                out.push(finding);
                continue;
            }
            // A change in what a schema accepts is breaking only with a witness; without one it
            // is unknown, and says why.
            let (severity, witness, message) = match &change.proof {
                Proof::Witness(w) => (rule.severity, Some(Arc::clone(w)), change.message.clone()),
                Proof::Missing(why) if rule.severity == Breaking => (
                    Unknown,
                    None,
                    format!("{} (unproven: {why})", change.message),
                ),
                _ => (rule.severity, None, change.message.clone()),
            };
            out.push(Finding {
                rule: rule.id,
                severity,
                tool: Some(ToolRef {
                    index: change.tool_index,
                    name: change.tool.clone(),
                }),
                pointer: change
                    .new_pointer
                    .clone()
                    .or_else(|| change.old_pointer.clone())
                    .unwrap_or_default(),
                old_pointer: change.old_pointer.clone(),
                old: change.old.clone(),
                new: change.new.clone(),
                message,
                baseline: None,
                witness,
                subject: None,
            });
        }
    }
}

use Severity::{Breaking, Compatible, Info, Unknown, Warning};

macro_rules! diff_rule {
    ($added_in:literal, $id:expr, $severity:expr, $change:ident, $summary:literal) => {
        DiffRule {
            added_in: $added_in,
            id: $id,
            severity: $severity,
            change: K::$change,
            summary: $summary,
            source: SOURCE,
        }
    };
}

/// The rule that reports a breaking value no other change explains: only a full witness search
/// finds one (see `diff::Proving`).
pub const VALUE_NOW_REJECTED: &str = "value-now-rejected";

/// The least proving that leaves the verdicts of `rules` as witnesses would: only the verdict,
/// unless the rules count what only a full search finds.
pub fn proving_for(rules: &[&dyn Rule]) -> Proving {
    match rules.iter().any(|rule| rule.id() == VALUE_NOW_REJECTED) {
        true => Proving::Witnesses,
        false => Proving::Verdict,
    }
}

/// Every diff rule, in the order `driftlab rules` lists them.
pub static DIFF_RULES: &[DiffRule] = &[
    diff_rule!("2026-11-30", "tool-removed", Breaking, ToolRemoved, "a tool is gone (and no added tool looks like it renamed)"),
    diff_rule!("2026-11-30", "tool-renamed", Breaking, ToolRenamed, "a removed and an added tool are similar in name, description and parameters: a likely rename, with a confidence"),
    diff_rule!("2026-11-30", "tool-added", Compatible, ToolAdded, "a new tool is listed"),
    diff_rule!("2026-11-30", "tool-duplicated", Breaking, ToolDuplicated, "the candidate lists a name more times than the approved surface: a client that maps names to tools keeps one copy (the diff compares the last)"),
    diff_rule!("2026-11-30", "tools-reordered", Warning, ToolsReordered, "tools present in both are listed in a different relative order (clients and prompt caches may rely on it)"),
    diff_rule!("2026-11-30", "tool-description-changed", Warning, ToolDescriptionChanged, "a tool's description changed: prompt-facing text that steers the model"),
    diff_rule!("2026-11-30", "title-changed", Info, TitleChanged, "a tool's display title changed"),
    diff_rule!("2026-11-30", "annotation-became-dangerous", Warning, AnnotationBecameDangerous, "readOnlyHint or idempotentHint went true -> false, destructiveHint or openWorldHint false -> true (defaults applied)"),
    diff_rule!("2026-11-30", "annotation-changed", Info, AnnotationChanged, "any other tool annotation changed"),
    diff_rule!("2026-11-30", "tool-metadata-changed", Info, ToolMetadataChanged, "another tool field changed (icons, execution, _meta, ...)"),
    diff_rule!("2026-11-30", "input-schema-replaced", Breaking, InputSchemaReplaced, "an object inputSchema became missing, null or a non-object"),
    diff_rule!("2026-11-30", "required-parameter-added", Breaking, RequiredParameterAdded, "a new parameter is required: existing calls lack it"),
    diff_rule!("2026-11-30", "optional-parameter-added", Compatible, OptionalParameterAdded, "a new optional parameter"),
    diff_rule!("2026-11-30", "parameter-removed", Breaking, ParameterRemoved, "a parameter is gone: calls that send it may be rejected or silently ignored"),
    diff_rule!("2026-11-30", "parameter-renamed", Breaking, ParameterRenamed, "a removed and an added parameter have the same shape: a likely rename"),
    diff_rule!("2026-11-30", "parameter-became-required", Breaking, ParameterBecameRequired, "an optional parameter became required"),
    diff_rule!("2026-11-30", "parameter-became-optional", Compatible, ParameterBecameOptional, "a required parameter became optional"),
    diff_rule!("2026-11-30", "type-narrowed", Breaking, TypeNarrowed, "an input accepts fewer types (or fewer anyOf/oneOf branches, or a union reduced to one branch); integer is a subset of number"),
    diff_rule!("2026-11-30", "type-widened", Compatible, TypeWidened, "an input accepts more types (or more anyOf/oneOf branches, or is wrapped in a union one of whose branches is the old schema: one widening, not removals)"),
    diff_rule!("2026-11-30", "type-changed", Breaking, TypeChanged, "an input's type changed to an unrelated one"),
    diff_rule!("2026-11-30", "enum-value-removed", Breaking, EnumValueRemoved, "an input no longer accepts an enum (or const) value"),
    diff_rule!("2026-11-30", "enum-value-added", Compatible, EnumValueAdded, "an input accepts a new enum value"),
    diff_rule!("2026-11-30", "constraint-tightened", Breaking, ConstraintTightened, "an input constraint got stricter: min/max, lengths, item counts, pattern or format added, additionalProperties: false set, enum added (a bound at or beyond ±(2^53−1), the I-JSON integer limit zod 4 adds everywhere, counts as no bound)"),
    diff_rule!("2026-11-30", "constraint-loosened", Compatible, ConstraintLoosened, "an input constraint got looser or was dropped"),
    diff_rule!("2026-11-30", "default-changed", Warning, DefaultChanged, "an input's default value changed: calls that omit it now behave differently"),
    diff_rule!("2026-11-30", "parameter-description-changed", Warning, ParameterDescriptionChanged, "a parameter's description changed: prompt-facing text"),
    diff_rule!("2026-11-30", "schema-dialect-changed", Warning, SchemaDialectChanged, "the schema's $schema dialect changed (e.g. draft-07 -> 2020-12)"),
    diff_rule!("2026-11-30", "schema-annotation-changed", Info, SchemaAnnotationChanged, "an annotation keyword changed (title, examples, deprecated, ...; output descriptions and defaults)"),
    diff_rule!("2026-11-30", "output-schema-added", Compatible, OutputSchemaAdded, "a tool now declares an outputSchema"),
    diff_rule!("2026-11-30", "output-schema-removed", Breaking, OutputSchemaRemoved, "a tool no longer declares its outputSchema"),
    diff_rule!("2026-11-30", "output-property-removed", Breaking, OutputPropertyRemoved, "an output property is gone"),
    diff_rule!("2026-11-30", "output-property-type-changed", Breaking, OutputPropertyTypeChanged, "an output may now have a type (or anyOf branch, or be wrapped in a union) consumers did not expect"),
    diff_rule!("2026-11-30", "output-property-became-optional", Breaking, OutputPropertyBecameOptional, "an output property is no longer guaranteed"),
    diff_rule!("2026-11-30", "output-enum-value-added", Breaking, OutputEnumValueAdded, "an output may return a new enum value"),
    diff_rule!("2026-11-30", "output-constraint-loosened", Breaking, OutputConstraintLoosened, "an output constraint got looser: consumers may receive values they did not expect"),
    diff_rule!("2026-11-30", "output-compatible-change", Compatible, OutputCompatibleChange, "an output got narrower or richer (property added, type narrowed, enum value removed, constraint tightened)"),
    diff_rule!("2026-11-30", "schema-change-unjudged", Unknown, SchemaChangeUnjudged, "a schema change driftlab cannot judge soundly (unresolvable $ref, a changed pattern that could not be compared, unknown keyword, ...)"),
    diff_rule!("2026-12-03", "parameters-undocumented", Warning, ParametersUndocumented, "an object's listed parameters were replaced by an open object: every call stays valid (a widening), but the parameters are no longer documented"),
    diff_rule!("2026-12-03", "unsafe-integer-bound", Info, UnsafeIntegerBound, "a minimum or maximum at or beyond ±(2^53−1) appeared (zod 4 adds one to every integer): no real call is limited, so it counts as no bound, but strict clients may trip on it"),
    diff_rule!("2026-12-03", "branch-change-masked", Info, BranchChangeMasked, "an anyOf branch changed, but a sibling branch that accepts every value of its types (an open object, a bare type) still accepts what it did: no value is refused"),
    diff_rule!("2026-12-03", VALUE_NOW_REJECTED, Breaking, ValueNowRejected, "the witness search found a value the approved input schema accepts and the candidate's rejects (outputs: one the candidate's allows and the approved rejects) that no other finding explains; the value is attached"),
    diff_rule!("2026-12-04", "output-property-added-closed", Warning, OutputPropertyAddedToClosed, "an output property was added where the approved outputSchema allows no unlisted one (additionalProperties: false): only a client that validates answers against a cached approved listing refuses them; the witness is such an answer"),
    diff_rule!("2026-12-06", "annotation-lowered-guard", Warning, AnnotationLoweredGuard, "readOnlyHint became true, or destructiveHint or openWorldHint was true and became false or was dropped: a host may stop asking before it runs the tool"),
    diff_rule!("2026-12-06", "hidden-characters-added", Warning, HiddenCharactersAdded, "invisible, bidirectional or control characters were added to text the model reads (names, descriptions, titles, schemas)"),
    diff_rule!("2026-12-06", "instruction-cue-added", Warning, CueAdded, "a tool's description or title now carries an instruction to the agent, a URL or a reference to another tool it did not"),
    diff_rule!("2026-12-06", "unknown-key-added", Warning, UnknownKeyAdded, "a tool field the protocol does not define appeared"),
    diff_rule!("2026-12-06", "mcp-header-added", Warning, McpHeaderAdded, "a parameter is newly mirrored into an HTTP header (x-mcp-header added or moved)"),
    diff_rule!("2026-12-06", "remote-ref-added", Warning, RemoteRefAdded, "a schema newly takes part of itself from outside the listing (a $ref that is not #...): what it accepts can change with no change to the listing"),
];
