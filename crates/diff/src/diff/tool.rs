//! Changes between two paired tools: rename, text, annotations, metadata, and their schemas.

use serde_json::{Map, Value};

use super::same::same_option;
use super::schema;
use super::tool_diff::{Direction, ToolDiff};
use super::{quoted, Change, ChangeKind, Proving};
use driftlab_contract::pointer;
use driftlab_contract::surface::Tool;

/// Tool fields compared by dedicated logic; any other field that changes is metadata.
const KNOWN: &[&str] = &[
    "name",
    "title",
    "description",
    "annotations",
    "inputSchema",
    "outputSchema",
];

/// An annotation hint: its default (MCP: readOnlyHint false, destructiveHint true,
/// idempotentHint false, openWorldHint true), its safe value, and what losing that value means
/// for a client that relied on it.
struct Hint {
    name: &'static str,
    default: bool,
    safe: bool,
    lost: &'static str,
}

const HINTS: &[Hint] = &[
    Hint {
        name: "readOnlyHint",
        default: false,
        safe: true,
        lost: "is no longer read-only",
    },
    Hint {
        name: "destructiveHint",
        default: true,
        safe: false,
        lost: "became destructive",
    },
    Hint {
        name: "idempotentHint",
        default: false,
        safe: true,
        lost: "is no longer idempotent (a retry may act twice)",
    },
    Hint {
        name: "openWorldHint",
        default: true,
        safe: false,
        lost: "now reaches an open world of external entities",
    },
];

pub(super) fn compare(
    old: &Tool<'_>,
    new: &Tool<'_>,
    rename: Option<f64>,
    proving: Proving,
    out: &mut Vec<Change>,
) {
    // Tools with the same bytes have nothing to compare (a test checks this shortcut against
    // the full comparison on every tool of the corpus).
    if rename.is_none() && old.raw() == new.raw() {
        return;
    }
    compare_fields(old, new, rename, proving, out);
}

/// [`compare`] without the shortcut.
fn compare_fields(
    old: &Tool<'_>,
    new: &Tool<'_>,
    rename: Option<f64>,
    proving: Proving,
    out: &mut Vec<Change>,
) {
    let label = match rename {
        Some(_) => format!("{} -> {}", old.label(), new.label()),
        None => new.label(),
    };
    let mut diff = ToolDiff {
        old,
        new,
        label,
        proving,
        out,
    };
    if let Some(confidence) = rename {
        diff.field(
            ChangeKind::ToolRenamed,
            "name",
            format!(
                "tool {} was likely renamed to {} (confidence {confidence:.2})",
                quoted(&old.label()),
                quoted(&new.label())
            ),
        );
    }
    text_field(
        &mut diff,
        "description",
        ChangeKind::ToolDescriptionChanged,
        "description",
    );
    text_field(&mut diff, "title", ChangeKind::TitleChanged, "title");
    annotations(&mut diff);
    metadata(&mut diff);
    input_schema(&mut diff);
    output_schema(&mut diff);
}

/// Whether field `key` has the same text on both sides (both absent included): then its values
/// are equal, known without parsing either.
fn same_text(diff: &ToolDiff<'_, '_>, key: &str) -> bool {
    diff.old.raw_field(key) == diff.new.raw_field(key)
}

fn text_field(diff: &mut ToolDiff<'_, '_>, field: &str, kind: ChangeKind, what: &str) {
    if same_text(diff, field) {
        return;
    }
    let (old, new) = (diff.old.get(field), diff.new.get(field));
    if same_option(old, new) {
        return;
    }
    let message = match (old, new) {
        (None, Some(_)) => format!("tool {what} was added"),
        (Some(_), None) => format!("tool {what} was removed"),
        _ => format!("tool {what} changed"),
    };
    diff.field(kind, field, message);
}

fn annotations(diff: &mut ToolDiff<'_, '_>) {
    if same_text(diff, "annotations") {
        return;
    }
    let empty = Map::new();
    let old = diff.old.get("annotations");
    let new = diff.new.get("annotations");
    if same_option(old, new) {
        return;
    }
    let (Some(old_map), Some(new_map)) = (
        old.map_or(Some(&empty), Value::as_object),
        new.map_or(Some(&empty), Value::as_object),
    ) else {
        diff.field(
            ChangeKind::AnnotationChanged,
            "annotations",
            "tool annotations changed (not an object)".into(),
        );
        return;
    };
    let at = |tool: &Tool<'_>, key: &str| pointer::push(&tool.pointer("annotations"), key);
    for &Hint {
        name: hint,
        default,
        safe,
        lost,
    } in HINTS
    {
        let (was, is) = (old_map.get(hint), new_map.get(hint));
        if was == is {
            continue;
        }
        let effective = |v: Option<&Value>| v.and_then(Value::as_bool).unwrap_or(default);
        let dangerous = effective(was) == safe && effective(is) != safe;
        let (kind, message) = if dangerous {
            (
                ChangeKind::AnnotationBecameDangerous,
                format!(
                    "tool {lost}: {hint} {} -> {}",
                    effective(was),
                    effective(is)
                ),
            )
        } else {
            (
                ChangeKind::AnnotationChanged,
                format!(
                    "annotation {hint} {} -> {} (absent means {default})",
                    show(was),
                    show(is)
                ),
            )
        };
        let (op, np) = (at(diff.old, hint), at(diff.new, hint));
        diff.push(kind, Some(op.clone()), Some(np.clone()), was, is, message);
        // The other way round: a value a host relaxes on appeared, or a warning went away.
        let lowered = match hint {
            "readOnlyHint" => !effective(was) && effective(is),
            "destructiveHint" | "openWorldHint" => {
                effective(was) && (is.is_none() || is == Some(&Value::Bool(false)))
            }
            _ => false,
        };
        if lowered {
            diff.push(
                ChangeKind::AnnotationLoweredGuard,
                Some(op),
                Some(np),
                was,
                is,
                format!(
                    "annotation {hint} {} -> {}: a host may no longer ask before running the tool",
                    show(was),
                    show(is)
                ),
            );
        }
    }
    let others = old_map
        .keys()
        .chain(new_map.keys())
        .filter(|k| !HINTS.iter().any(|h| h.name == k.as_str()));
    let mut seen: Vec<&String> = Vec::new();
    for key in others {
        if seen.contains(&key) || same_option(old_map.get(key), new_map.get(key)) {
            continue;
        }
        seen.push(key);
        let (op, np) = (at(diff.old, key), at(diff.new, key));
        diff.push(
            ChangeKind::AnnotationChanged,
            Some(op),
            Some(np),
            old_map.get(key),
            new_map.get(key),
            format!("annotation {key} changed"),
        );
    }
}

fn metadata(diff: &mut ToolDiff<'_, '_>) {
    // Keys from the text: comparing two fields parses those two, never the whole tools.
    let keys: Vec<&str> = diff.old.keys().chain(diff.new.keys()).collect();
    let mut seen: Vec<&str> = Vec::new();
    for key in keys {
        if KNOWN.contains(&key) || seen.contains(&key) {
            continue;
        }
        seen.push(key);
        if !same_text(diff, key) && !same_option(diff.old.get(key), diff.new.get(key)) {
            diff.field(
                ChangeKind::ToolMetadataChanged,
                key,
                format!("tool field {key} changed"),
            );
        }
    }
}

fn input_schema(diff: &mut ToolDiff<'_, '_>) {
    // Equal texts are equal values (the early return below), known without parsing either.
    if same_text(diff, "inputSchema") {
        return;
    }
    let (old, new) = (diff.old.input_schema(), diff.new.input_schema());
    if same_option(old, new) {
        return;
    }
    match (old, new) {
        (Some(o @ Value::Object(_)), Some(n @ Value::Object(_))) if collapsed(o, n) => {
            let params: Vec<String> = o
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().map(|k| format!("{k:?}")).collect())
                .unwrap_or_default();
            diff.field(
                ChangeKind::InputSchemaReplaced,
                "inputSchema",
                format!(
                    "inputSchema collapsed to {} with no type or properties (a server built \
                     against another zod or schema-library version sends this); it declared {}",
                    driftlab_contract::payload::short(n),
                    if params.is_empty() {
                        "no parameters".to_string()
                    } else {
                        format!("parameters {}", params.join(", "))
                    }
                ),
            );
        }
        (Some(o @ Value::Object(_)), Some(n @ Value::Object(_))) => {
            let (op, np) = (
                diff.old.pointer("inputSchema"),
                diff.new.pointer("inputSchema"),
            );
            let first = diff.out.len();
            schema::compare(diff, o, n, &op, &np, Direction::Request);
            super::proof::prove(diff, first, (o, n), (&op, &np), Direction::Request);
        }
        (Some(Value::Object(_)), _) => diff.field(
            ChangeKind::InputSchemaReplaced,
            "inputSchema",
            format!("inputSchema was an object schema, now {}", describe(new)),
        ),
        _ => diff.field(
            ChangeKind::SchemaChangeUnjudged,
            "inputSchema",
            format!("inputSchema was {}, now {}", describe(old), describe(new)),
        ),
    }
}

/// A schema with a shape became one with none (only annotations, `description` and `$schema`):
/// one root cause, reported once instead of as every parameter removed.
fn collapsed(old: &Value, new: &Value) -> bool {
    let shapeless = |v: &Value| {
        v.as_object().is_some_and(|m| {
            m.keys().all(|k| {
                matches!(k.as_str(), "$schema" | "description")
                    || schema::ANNOTATIONS.contains(&k.as_str())
            })
        })
    };
    !shapeless(old) && shapeless(new)
}

fn output_schema(diff: &mut ToolDiff<'_, '_>) {
    // Equal texts are equal values (the early return below), known without parsing either.
    if same_text(diff, "outputSchema") {
        return;
    }
    let (old, new) = (diff.old.output_schema(), diff.new.output_schema());
    if same_option(old, new) {
        return;
    }
    match (old, new) {
        (None, Some(_)) => diff.field(
            ChangeKind::OutputSchemaAdded,
            "outputSchema",
            "outputSchema was added".into(),
        ),
        (Some(_), None) => diff.field(
            ChangeKind::OutputSchemaRemoved,
            "outputSchema",
            "outputSchema was removed: consumers of structuredContent lose its contract".into(),
        ),
        (Some(o @ Value::Object(_)), Some(n @ Value::Object(_))) => {
            let (op, np) = (
                diff.old.pointer("outputSchema"),
                diff.new.pointer("outputSchema"),
            );
            let first = diff.out.len();
            schema::compare(diff, o, n, &op, &np, Direction::Response);
            super::proof::prove(diff, first, (o, n), (&op, &np), Direction::Response);
        }
        _ => diff.field(
            ChangeKind::SchemaChangeUnjudged,
            "outputSchema",
            format!("outputSchema was {}, now {}", describe(old), describe(new)),
        ),
    }
}

fn show(value: Option<&Value>) -> String {
    value.map_or("absent".into(), Value::to_string)
}

fn describe(value: Option<&Value>) -> String {
    match value {
        None => "missing".into(),
        Some(v) => driftlab_contract::surface::json_type(v).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use driftlab_contract::payload::{self, Limits};

    #[test]
    fn losing_a_safe_hint_is_dangerous_and_gaining_one_is_not() {
        let kinds = |was: Value, is: Value| {
            let tool = |annotations: Value| serde_json::json!([{"name": "t", "inputSchema": {"type": "object"}, "annotations": annotations}]);
            let a = payload::from_value(tool(was), "a").unwrap();
            let b = payload::from_value(tool(is), "b").unwrap();
            let mut out = Vec::new();
            compare(
                &a.tool(0).unwrap(),
                &b.tool(0).unwrap(),
                None,
                Proving::Witnesses,
                &mut out,
            );
            out.iter().map(|c| c.kind).collect::<Vec<_>>()
        };
        use serde_json::json;
        let dangerous = vec![ChangeKind::AnnotationBecameDangerous];
        let changed = vec![ChangeKind::AnnotationChanged];
        assert_eq!(
            kinds(
                json!({"idempotentHint": true}),
                json!({"idempotentHint": false})
            ),
            dangerous
        );
        assert_eq!(
            kinds(json!({"idempotentHint": true}), json!({})),
            dangerous,
            "absent means false"
        );
        assert_eq!(
            kinds(
                json!({"idempotentHint": false}),
                json!({"idempotentHint": true})
            ),
            changed
        );
        assert_eq!(
            kinds(json!({"openWorldHint": false}), json!({})),
            dangerous,
            "absent means true"
        );
        // The other way round lowers a host's guard: reported beside the change.
        let lowered = vec![
            ChangeKind::AnnotationChanged,
            ChangeKind::AnnotationLoweredGuard,
        ];
        assert_eq!(
            kinds(
                json!({"openWorldHint": true}),
                json!({"openWorldHint": false})
            ),
            lowered
        );
        assert_eq!(
            kinds(
                json!({"readOnlyHint": false}),
                json!({"readOnlyHint": true})
            ),
            lowered
        );
        assert_eq!(
            kinds(json!({"destructiveHint": true}), json!({})),
            lowered,
            "an explicit warning dropped"
        );
        assert_eq!(kinds(json!({"readOnlyHint": true}), json!({})), dangerous);
        assert_eq!(
            kinds(json!({"destructiveHint": false}), json!({})),
            dangerous
        );
    }

    /// The shortcut in [`compare`] is sound: the full comparison of any real tool with itself
    /// finds nothing.
    #[test]
    fn a_tool_compared_with_itself_has_no_changes() {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/data/corpus");
        let mut tools = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let surface = payload::read(&bytes, "t", Limits::default()).unwrap();
            for tool in surface.tools() {
                let mut out = Vec::new();
                compare_fields(&tool, &tool, None, Proving::Witnesses, &mut out);
                assert!(out.is_empty(), "{}: {:?}", path.display(), out);
                tools += 1;
            }
        }
        assert!(tools > 100, "{tools} tools");
    }
}
