//! `name-typo`: one tool or input parameter name gets a typo (two letters swapped, one dropped or one doubled)

use serde_json::Value;

use super::*;
use driftlab_contract::rng::Stream;

/// The `name-typo` class: one tool or input parameter name gets a typo (two letters swapped, one dropped or one doubled).
pub(crate) struct NameTypo;

/// Where the typo goes.
enum Place {
    Tool(usize),
    Parameter(Site),
}

impl MutationClass for NameTypo {
    fn id(&self) -> &'static str {
        "name-typo"
    }
    fn summary(&self) -> &'static str {
        "one tool or input parameter name gets a typo: two neighbouring characters swapped, one dropped or one doubled (RoTBench's slight noise)"
    }
    fn label(&self) -> Label {
        Label::Breaking
    }
    fn rationale(&self) -> &'static str {
        "a call by the old tool name fails; an argument under the old parameter name is rejected or silently dropped"
    }
    fn apply(&self, surface: &mut Value, rng: &mut Stream) -> Outcome {
        let mut places: Vec<Place> = tool_sites(surface, |t| {
            t.get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| !n.is_empty())
        })
        .into_iter()
        .map(Place::Tool)
        .collect();
        places.extend(
            property_sites(surface, "inputSchema", |_, _| true)
                .into_iter()
                .filter(|s| !s.property.is_empty())
                .map(Place::Parameter),
        );
        match draw(places, rng, "tool or parameter name")? {
            Place::Tool(tool) => {
                let old = surface["tools"][tool]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                let typo = typo(&old, rng);
                let new = fresh_tool_name(surface, &typo);
                tool_at(surface, tool)?.insert("name".into(), Value::String(new.clone()));
                Ok(Applied {
                    tool_index: Some(tool),
                    detail: format!("tool {old} -> {new}"),
                })
            }
            Place::Parameter(site) => {
                let typo = typo(&site.property, rng);
                let schema = schema_at(surface, site.tool, "inputSchema")?;
                let new = fresh_property(schema, &typo);
                rename_property(schema, &site.property, &new);
                Ok(Applied {
                    tool_index: Some(site.tool),
                    detail: format!("parameter {} -> {new}", site.property),
                })
            }
        }
    }
}

/// `name` with one typo; never `name` itself (a swap of two equal characters doubles instead).
fn typo(name: &str, rng: &mut Stream) -> String {
    let mut chars: Vec<char> = name.chars().collect();
    let kind = rng.index(3);
    let at = rng.index(chars.len());
    match kind {
        0 if chars.len() >= 2 => {
            let next = if at + 1 < chars.len() { at + 1 } else { at - 1 };
            chars.swap(at, next);
        }
        1 if chars.len() >= 2 => {
            chars.remove(at);
        }
        _ => {}
    }
    let typo: String = chars.iter().collect();
    if typo != name {
        return typo;
    }
    let mut doubled: Vec<char> = name.chars().collect();
    doubled.insert(at, doubled[at]);
    doubled.into_iter().collect()
}
