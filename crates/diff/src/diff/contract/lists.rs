//! Prompts, resources and resource templates: items paired by their key (`name`, `uri`,
//! `uriTemplate`), then what is left paired as a rename (a prompt with the same arguments and
//! description; a resource or template with the same `name`).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::{quoted, ContractChange, ContractChangeKind as K};
use driftlab_contract::pointer;
use driftlab_contract::surface::contract::{Item, ListKind};

/// Fields that are prompt-facing text: a change is a warning.
const TEXT_FIELDS: &[&str] = &["description", "title"];

pub(super) fn compare(kind: ListKind, old: &[Item], new: &[Item], out: &mut Vec<ContractChange>) {
    let keys = |items: &[Item]| -> Vec<String> {
        items
            .iter()
            .enumerate()
            .map(|(i, item)| item.key(kind, i))
            .collect()
    };
    let (old_keys, new_keys) = (keys(old), keys(new));
    // The first item with a key is the one compared (a client looking it up finds that one).
    let mut new_index: HashMap<&str, usize> = HashMap::new();
    for (i, key) in new_keys.iter().enumerate() {
        new_index.entry(key).or_insert(i);
    }
    let mut paired_new: HashSet<usize> = HashSet::new();
    let mut unpaired_old = Vec::new();
    let mut seen_old: HashSet<&str> = HashSet::new();
    for (i, key) in old_keys.iter().enumerate() {
        if !seen_old.insert(key) {
            continue;
        }
        match new_index.get(key.as_str()) {
            Some(&j) => {
                paired_new.insert(j);
                item(kind, &old[i], &new[j], &old_keys[i], out);
            }
            None => unpaired_old.push(i),
        }
    }
    let mut unpaired_new: Vec<usize> = (0..new.len())
        .filter(|j| !paired_new.contains(j) && new_index.get(new_keys[*j].as_str()) == Some(j))
        .collect();
    for i in unpaired_old {
        let renamed = unpaired_new
            .iter()
            .position(|&j| same_thing(kind, &old[i], &new[j]));
        match renamed {
            Some(at) => {
                let j = unpaired_new.remove(at);
                out.push(renamed_change(
                    kind,
                    &old[i],
                    &new[j],
                    &old_keys[i],
                    &new_keys[j],
                ));
                item(kind, &old[i], &new[j], &new_keys[j], out);
            }
            None => out.push(removed(kind, &old[i], &old_keys[i])),
        }
    }
    for j in unpaired_new {
        let (rule, noun) = match kind {
            ListKind::Prompts => (K::PromptAdded, "prompt"),
            _ => (K::ResourceAdded, kind.noun()),
        };
        out.push(
            ContractChange::new(
                rule,
                format!("{noun} {}", quoted(&new_keys[j])),
                format!("{noun} {} was added", quoted(&new_keys[j])),
            )
            .at(None, Some(&new[j].pointer))
            .values(None, new[j].fields.get(kind.key())),
        );
    }
}

/// A removed and an added item that are the same thing under a new key.
fn same_thing(kind: ListKind, old: &Item, new: &Item) -> bool {
    let get = |item: &Item, field: &str| item.fields.get(field).cloned();
    match kind {
        ListKind::Prompts => {
            get(old, "arguments") == get(new, "arguments")
                && get(old, "description").is_some()
                && get(old, "description") == get(new, "description")
        }
        _ => get(old, "name").is_some() && get(old, "name") == get(new, "name"),
    }
}

fn removed(kind: ListKind, old: &Item, key: &str) -> ContractChange {
    let (rule, consequence) = match kind {
        ListKind::Prompts => (K::PromptRemoved, "prompts/get with its name fails"),
        ListKind::Resources => (K::ResourceRemoved, "resources/read of its uri may fail"),
        ListKind::ResourceTemplates => (
            K::ResourceTemplateRemoved,
            "uris built from it may no longer be readable",
        ),
    };
    let noun = kind.noun();
    ContractChange::new(
        rule,
        format!("{noun} {}", quoted(key)),
        format!("{noun} {} was removed: {consequence}", quoted(key)),
    )
    .at(Some(&old.pointer), None)
    .values(old.fields.get(kind.key()), None)
}

fn renamed_change(
    kind: ListKind,
    old: &Item,
    new: &Item,
    old_key: &str,
    new_key: &str,
) -> ContractChange {
    let noun = kind.noun();
    let (rule, message) = match kind {
        ListKind::Prompts => (
            K::PromptRenamed,
            format!(
                "prompt {} was renamed {} (same arguments and description): prompts/get with \
                 the old name fails",
                quoted(old_key),
                quoted(new_key)
            ),
        ),
        _ => (
            K::ResourceUriChanged,
            format!(
                "{noun} {} changed its {} from {} to {}: clients holding the old one fail",
                quoted(&name_of(new)),
                kind.key(),
                quoted(old_key),
                quoted(new_key)
            ),
        ),
    };
    ContractChange::new(rule, format!("{noun} {}", quoted(old_key)), message)
        .at(Some(&old.pointer), Some(&new.pointer))
        .values(old.fields.get(kind.key()), new.fields.get(kind.key()))
}

fn name_of(item: &Item) -> String {
    item.fields
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// The changes inside one item present in both.
fn item(kind: ListKind, old: &Item, new: &Item, key: &str, out: &mut Vec<ContractChange>) {
    let noun = kind.noun();
    let subject = format!("{noun} {}", quoted(key));
    for field in TEXT_FIELDS {
        text_field(
            (&old.fields, &new.fields),
            field,
            (&old.pointer, &new.pointer),
            match kind {
                ListKind::Prompts => K::PromptTextChanged,
                _ => K::ResourceTextChanged,
            },
            &subject,
            out,
        );
    }
    if kind == ListKind::Prompts {
        arguments(old, new, &subject, out);
    } else {
        for field in ["name", "mimeType"] {
            let (a, b) = (old.fields.get(field), new.fields.get(field));
            if a == b {
                continue;
            }
            let (rule, why) = match field {
                "mimeType" => (
                    K::ResourceMimeTypeChanged,
                    "clients that parse the content by its type may misread it",
                ),
                _ => (K::ResourceTextChanged, "the name models and users see"),
            };
            out.push(
                ContractChange::new(
                    rule,
                    format!("{subject} {field}"),
                    format!("{subject}: {field} changed ({why})"),
                )
                .at(
                    Some(&field_pointer(&old.pointer, field, a)),
                    Some(&field_pointer(&new.pointer, field, b)),
                )
                .values(a, b),
            );
        }
    }
    let compared: &[&str] = match kind {
        ListKind::Prompts => &["name", "description", "title", "arguments"],
        _ => &[
            "name",
            "description",
            "title",
            "mimeType",
            "uri",
            "uriTemplate",
        ],
    };
    metadata(
        (&old.fields, &new.fields),
        compared,
        (&old.pointer, &new.pointer),
        &subject,
        out,
    );
}

/// A prompt's arguments, paired by name.
fn arguments(old: &Item, new: &Item, subject: &str, out: &mut Vec<ContractChange>) {
    let list = |item: &Item| -> Vec<(String, Map<String, Value>, String)> {
        let at = pointer::push(&item.pointer, "arguments");
        match item.fields.get("arguments") {
            Some(Value::Array(args)) => args
                .iter()
                .enumerate()
                .filter_map(|(i, a)| {
                    let map = a.as_object()?;
                    let name = map
                        .get("name")
                        .and_then(Value::as_str)
                        .map_or(format!("#{i}"), str::to_string);
                    Some((name, map.clone(), pointer::push_index(&at, i)))
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    let (old_args, new_args) = (list(old), list(new));
    let required = |a: &Map<String, Value>| a.get("required") == Some(&Value::Bool(true));
    for (name, a, a_at) in &old_args {
        let arg_subject = format!("{subject} argument {}", quoted(name));
        match new_args.iter().find(|(n, _, _)| n == name) {
            None => out.push(
                ContractChange::new(
                    K::PromptArgumentRemoved,
                    arg_subject.clone(),
                    format!(
                        "{subject}: argument {} was removed: clients that send it may be refused, \
                         and what it steered is gone",
                        quoted(name)
                    ),
                )
                .at(Some(a_at), Some(&new.pointer))
                .values(Some(&Value::Object(a.clone())), None),
            ),
            Some((_, b, b_at)) => {
                let change = match (required(a), required(b)) {
                    (false, true) => Some((
                        K::PromptArgumentBecameRequired,
                        "became required: calls that omit it fail",
                    )),
                    (true, false) => Some((K::PromptArgumentBecameOptional, "became optional")),
                    _ => None,
                };
                if let Some((rule, what)) = change {
                    out.push(
                        ContractChange::new(
                            rule,
                            arg_subject.clone(),
                            format!("{subject}: argument {} {what}", quoted(name)),
                        )
                        .at(Some(a_at), Some(b_at))
                        .values(a.get("required"), b.get("required")),
                    );
                }
                for field in TEXT_FIELDS {
                    text_field(
                        (a, b),
                        field,
                        (a_at, b_at),
                        K::PromptTextChanged,
                        &arg_subject,
                        out,
                    );
                }
                metadata(
                    (a, b),
                    &["name", "description", "title", "required"],
                    (a_at, b_at),
                    &arg_subject,
                    out,
                );
            }
        }
    }
    for (name, b, b_at) in &new_args {
        if old_args.iter().any(|(n, _, _)| n == name) {
            continue;
        }
        let (rule, what) = match required(b) {
            true => (
                K::PromptRequiredArgumentAdded,
                "a new required argument: calls that lack it fail",
            ),
            false => (K::PromptOptionalArgumentAdded, "a new optional argument"),
        };
        out.push(
            ContractChange::new(
                rule,
                format!("{subject} argument {}", quoted(name)),
                format!("{subject}: argument {}: {what}", quoted(name)),
            )
            .at(Some(&old.pointer), Some(b_at))
            .values(None, Some(&Value::Object(b.clone()))),
        );
    }
}

/// A description or title changed, appeared or went away.
fn text_field(
    (old, new): (&Map<String, Value>, &Map<String, Value>),
    field: &str,
    (old_at, new_at): (&str, &str),
    rule: K,
    subject: &str,
    out: &mut Vec<ContractChange>,
) {
    let (a, b) = (old.get(field), new.get(field));
    if a == b {
        return;
    }
    out.push(
        ContractChange::new(
            rule,
            format!("{subject} {field}"),
            format!("{subject}: {field} changed (text the model or user reads)"),
        )
        .at(
            Some(&field_pointer(old_at, field, a)),
            Some(&field_pointer(new_at, field, b)),
        )
        .values(a, b),
    );
}

/// Every other field (icons, annotations, `_meta`, size, …) that changed, one change each.
fn metadata(
    (old, new): (&Map<String, Value>, &Map<String, Value>),
    compared: &[&str],
    (old_at, new_at): (&str, &str),
    subject: &str,
    out: &mut Vec<ContractChange>,
) {
    let fields = old
        .keys()
        .chain(new.keys().filter(|k| !old.contains_key(*k)));
    for field in fields.filter(|f| !compared.contains(&f.as_str())) {
        let (a, b) = (old.get(field), new.get(field));
        if a != b {
            out.push(
                ContractChange::new(
                    K::ContractMetadataChanged,
                    format!("{subject} {field}"),
                    format!("{subject}: {} changed", quoted(field)),
                )
                .at(
                    Some(&field_pointer(old_at, field, a)),
                    Some(&field_pointer(new_at, field, b)),
                )
                .values(a, b),
            );
        }
    }
}

/// The field's pointer when it is there, else its object's.
fn field_pointer(object: &str, field: &str, value: Option<&Value>) -> String {
    match value {
        Some(_) => pointer::push(object, field),
        None => object.to_string(),
    }
}
