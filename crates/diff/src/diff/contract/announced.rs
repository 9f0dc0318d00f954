//! What a server announces about itself: `instructions` (prompt text for the model) and
//! `capabilities` (what a client may rely on).

use serde_json::{Map, Value};

use super::{quoted, word_diff, ContractChange, ContractChangeKind as K};
use driftlab_contract::pointer;
use driftlab_contract::surface::contract::Announced;

/// Capability flags a client relies on: dropping one leaves it with stale lists or no updates.
const FLAGS: &[(&str, &str, &str)] = &[
    (
        "tools",
        "listChanged",
        "clients that wait for notifications/tools/list_changed keep a stale tool list",
    ),
    (
        "prompts",
        "listChanged",
        "clients that wait for notifications/prompts/list_changed keep a stale prompt list",
    ),
    (
        "resources",
        "listChanged",
        "clients that wait for notifications/resources/list_changed keep a stale resource list",
    ),
    (
        "resources",
        "subscribe",
        "resources/subscribe is no longer offered: subscribed clients stop getting updates",
    ),
];

pub(super) fn compare(old: &Announced, new: &Announced, out: &mut Vec<ContractChange>) {
    instructions(old, new, out);
    capabilities(old, new, out);
}

fn instructions(old: &Announced, new: &Announced, out: &mut Vec<ContractChange>) {
    if old.instructions == new.instructions {
        return;
    }
    let at = |a: &Announced| pointer::push(&a.pointer, "instructions");
    let (old_text, new_text) = (
        old.instructions.as_deref().unwrap_or(""),
        new.instructions.as_deref().unwrap_or(""),
    );
    let what = match (&old.instructions, &new.instructions) {
        (None, _) => "were added".to_string(),
        (_, None) => "were removed".to_string(),
        _ => "changed".to_string(),
    };
    let message = format!(
        "the server's instructions {what} (prompt text the model reads): {}",
        word_diff::summary(old_text, new_text)
    );
    let new_pointer = match new.instructions {
        Some(_) => at(new),
        None => new.pointer.clone(),
    };
    let old_pointer = match old.instructions {
        Some(_) => at(old),
        None => old.pointer.clone(),
    };
    out.push(
        ContractChange::new(K::InstructionsChanged, "instructions".into(), message)
            .at(Some(&old_pointer), Some(&new_pointer))
            .values(
                old.instructions
                    .as_ref()
                    .map(|t| Value::from(t.as_str()))
                    .as_ref(),
                new.instructions
                    .as_ref()
                    .map(|t| Value::from(t.as_str()))
                    .as_ref(),
            ),
    );
}

/// Top-level capabilities (and each entry of `experimental` and `extensions`) removed, added or
/// changed; a flag a client relies on dropped.
fn capabilities(old: &Announced, new: &Announced, out: &mut Vec<ContractChange>) {
    let caps = |a: &Announced| pointer::push(&a.pointer, "capabilities");
    let (old_at, new_at) = (caps(old), caps(new));
    let (old_entries, new_entries) = (
        entries(&old.capabilities, &old_at),
        entries(&new.capabilities, &new_at),
    );
    for (name, old_value, old_ptr) in &old_entries {
        let (name, old_value) = (name.as_str(), *old_value);
        let subject = format!("capability {name}");
        match find(&new_entries, name) {
            None => out.push(
                ContractChange::new(
                    K::CapabilityRemoved,
                    subject,
                    format!(
                        "the server no longer declares the capability {}: clients that use it \
                         get errors (-32601) or nothing",
                        quoted(name)
                    ),
                )
                .at(Some(old_ptr), Some(&new_at))
                .values(Some(old_value), None),
            ),
            Some((new_value, new_ptr)) if new_value != old_value => {
                let before = out.len();
                flags(name, old_value, new_value, (old_ptr, &new_ptr), out);
                // A dropped flag is reported once, as dropped; anything else that changed too
                // is reported as changed.
                if out.len() == before || !only_flags_differ(old_value, new_value) {
                    out.push(
                        ContractChange::new(
                            K::CapabilityChanged,
                            subject,
                            format!("the capability {} changed", quoted(name)),
                        )
                        .at(Some(old_ptr), Some(&new_ptr))
                        .values(Some(old_value), Some(new_value)),
                    );
                }
            }
            Some(_) => {}
        }
    }
    for (name, new_value, new_ptr) in &new_entries {
        let new_value = *new_value;
        if find(&old_entries, name).is_none() {
            out.push(
                ContractChange::new(
                    K::CapabilityAdded,
                    format!("capability {name}"),
                    format!("the server now declares the capability {}", quoted(name)),
                )
                .at(None, Some(new_ptr))
                .values(None, Some(new_value)),
            );
        }
    }
}

/// `listChanged` or `subscribe` true before and not true now.
fn flags(
    name: &str,
    old: &Value,
    new: &Value,
    (old_ptr, new_ptr): (&str, &str),
    out: &mut Vec<ContractChange>,
) {
    for (capability, flag, why) in FLAGS {
        if *capability != name {
            continue;
        }
        let was = old.get(flag) == Some(&Value::Bool(true));
        let is = new.get(flag) == Some(&Value::Bool(true));
        if was && !is {
            out.push(
                ContractChange::new(
                    K::CapabilityFlagDropped,
                    format!("capability {name}.{flag}"),
                    format!("{name}.{flag} is no longer true: {why}"),
                )
                .at(
                    Some(&pointer::push(old_ptr, flag)),
                    Some(&match new.get(flag) {
                        Some(_) => pointer::push(new_ptr, flag),
                        None => new_ptr.to_string(),
                    }),
                )
                .values(old.get(flag), new.get(flag)),
            );
        }
    }
}

/// Whether the two capability values differ only in the flags [`FLAGS`] names.
fn only_flags_differ(old: &Value, new: &Value) -> bool {
    let strip = |v: &Value| -> Value {
        let mut v = v.clone();
        if let Value::Object(map) = &mut v {
            map.remove("listChanged");
            map.remove("subscribe");
        }
        v
    };
    strip(old) == strip(new)
}

/// Each capability with its value and pointer; `experimental` and `extensions` entries count one
/// by one (`experimental.x`).
fn entries<'a>(capabilities: &'a Map<String, Value>, at: &str) -> Vec<(String, &'a Value, String)> {
    let mut out = Vec::new();
    for (name, value) in capabilities {
        let here = pointer::push(at, name);
        match (name.as_str(), value) {
            ("experimental" | "extensions", Value::Object(inner)) => {
                for (key, v) in inner {
                    out.push((format!("{name}.{key}"), v, pointer::push(&here, key)));
                }
            }
            _ => out.push((name.clone(), value, here)),
        }
    }
    out
}

/// A capability's value and pointer among [`entries`].
fn find<'a>(entries: &[(String, &'a Value, String)], name: &str) -> Option<(&'a Value, String)> {
    entries
        .iter()
        .find(|(n, _, _)| n == name)
        .map(|(_, v, p)| (*v, p.clone()))
}
