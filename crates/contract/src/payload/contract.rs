//! Reads the server contract beyond tools (see [`crate::surface::contract`]) from the same
//! document the tools were read from.
//!
//! Two shapes carry it: a capture file (`initializeResult` or `discoverResult`, and
//! `promptsList`, `resourcesList`, `resourceTemplatesList`, each one list result or an array of
//! pages) and a snapshot (`{"tools":[…]}` with `serverInfo`, `capabilities`, `instructions`,
//! `prompts`, `resources`, `resourceTemplates` beside it). Anything else carries none. The tools
//! are skipped without being built, so a large payload costs one pass over its bytes.

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{describe, shape_error, Limits, PayloadError};
use crate::pointer;
use crate::surface::contract::{Announced, Item, ListKind, ServerContract};

/// The top-level members that matter; the rest (the tools above all) are skipped.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Members {
    tools: Option<IgnoredAny>,
    /// Only its first page's caching hints are used (the fast reader keeps no more).
    tools_list: Option<Value>,
    cache_hints: Option<Value>,
    initialize_result: Option<Value>,
    discover_result: Option<Value>,
    prompts_list: Option<Value>,
    resources_list: Option<Value>,
    resource_templates_list: Option<Value>,
    server_info: Option<Value>,
    capabilities: Option<Value>,
    instructions: Option<Value>,
    prompts: Option<Value>,
    resources: Option<Value>,
    resource_templates: Option<Value>,
}

impl Members {
    fn list(&mut self, kind: ListKind, capture: bool) -> Option<Value> {
        match (kind, capture) {
            (ListKind::Prompts, true) => self.prompts_list.take(),
            (ListKind::Resources, true) => self.resources_list.take(),
            (ListKind::ResourceTemplates, true) => self.resource_templates_list.take(),
            (ListKind::Prompts, false) => self.prompts.take(),
            (ListKind::Resources, false) => self.resources.take(),
            (ListKind::ResourceTemplates, false) => self.resource_templates.take(),
        }
    }
}

/// The contract `bytes` (a payload [`super::read`] accepted) recorded besides tools, or `None`
/// when it recorded nothing more than tools.
pub fn read(
    bytes: &[u8],
    source_name: &str,
    limits: Limits,
) -> Result<Option<ServerContract>, PayloadError> {
    let json = super::checked(bytes, source_name, limits)?;
    if json.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Ok(None);
    }
    match super::members::top_level(json) {
        Some(members) => from_member_bytes(json, members, source_name, limits),
        None => read_general(bytes, source_name, limits),
    }
}

/// [`read`] by parsing the whole document instead of the member scan (the fuzz target holds
/// the two to the same answer; [`read`] falls back to it where the scan gives up).
#[doc(hidden)]
pub fn read_general(
    bytes: &[u8],
    source_name: &str,
    limits: Limits,
) -> Result<Option<ServerContract>, PayloadError> {
    from_value(&super::parse_json(bytes, source_name, limits)?, source_name)
}

/// The contract from the top-level members' bytes: the members that matter are parsed, the tools
/// only noted.
fn from_member_bytes(
    json: &[u8],
    members: Vec<(String, std::ops::Range<usize>)>,
    source_name: &str,
    limits: Limits,
) -> Result<Option<ServerContract>, PayloadError> {
    const WANTED: &[&str] = &[
        "cacheHints",
        "initializeResult",
        "discoverResult",
        "promptsList",
        "resourcesList",
        "resourceTemplatesList",
        "serverInfo",
        "capabilities",
        "instructions",
        "prompts",
        "resources",
        "resourceTemplates",
    ];
    let mut object = Map::new();
    for (key, range) in members {
        let value = match key.as_str() {
            // Only their presence matters.
            "tools" => Value::Bool(true),
            // Only the first page's caching hints are read: the tools are stepped over.
            "toolsList" => first_page_hints(&json[range], source_name, limits)?,
            k if WANTED.contains(&k) => super::parse_json(&json[range], source_name, limits)?,
            _ => continue,
        };
        object.insert(key, value);
    }
    from_value(&Value::Object(object), source_name)
}

/// The `ttlMs` and `cacheScope` members of a list result (of its first page, for an array of
/// pages), parsed without the rest of it.
fn first_page_hints(
    value: &[u8],
    source_name: &str,
    limits: Limits,
) -> Result<Value, PayloadError> {
    let mut page = value;
    let start = value
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    if value.get(start) == Some(&b'[') {
        let first = start
            + 1
            + value[start + 1..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        if let Some(end) = crate::json_scan::value_end(value, first) {
            page = &value[first..end];
        }
    }
    let mut hints = Map::new();
    for (key, range) in super::members::top_level(page).unwrap_or_default() {
        if CACHE_HINTS.contains(&key.as_str()) {
            hints.insert(key, super::parse_json(&page[range], source_name, limits)?);
        }
    }
    Ok(Value::Object(hints))
}

/// The members of a 2026-07-28 result that say how it may be cached.
const CACHE_HINTS: &[&str] = &["ttlMs", "cacheScope"];

/// A result's caching hints (of its first page for an array of pages), if it has any.
fn hints_of(result: &Value) -> Option<Value> {
    let page = match result {
        Value::Array(pages) => pages.first()?,
        page => page,
    };
    let hints: Map<String, Value> = CACHE_HINTS
        .iter()
        .filter_map(|k| Some((k.to_string(), page.get(*k)?.clone())))
        .collect();
    (!hints.is_empty()).then_some(Value::Object(hints))
}

/// [`read`] of an already parsed document.
pub fn from_value(
    value: &Value,
    source_name: &str,
) -> Result<Option<ServerContract>, PayloadError> {
    if !value.is_object() {
        return Ok(None);
    }
    let members = Members::deserialize(value)
        .map_err(|e| shape_error(source_name, "", format!("cannot read the document: {e}")))?;
    from_members(members, source_name)
}

fn from_members(
    mut members: Members,
    source_name: &str,
) -> Result<Option<ServerContract>, PayloadError> {
    let capture = members.tools_list.is_some();
    if !capture && members.tools.is_none() {
        return Ok(None);
    }
    let mut contract = ServerContract {
        from_capture: capture,
        ..ServerContract::default()
    };
    contract.cache_hints = match capture {
        true => {
            let mut hints = Map::new();
            let lists = [
                ("server/discover", &members.discover_result),
                ("tools/list", &members.tools_list),
                ("prompts/list", &members.prompts_list),
                ("resources/list", &members.resources_list),
                ("resources/templates/list", &members.resource_templates_list),
            ];
            let modern = members.discover_result.is_some();
            for (method, result) in lists {
                let Some(result) = result else { continue };
                let found = hints_of(result);
                if modern {
                    let missing: Vec<&'static str> = CACHE_HINTS
                        .iter()
                        .copied()
                        .filter(|k| found.as_ref().and_then(|h| h.get(*k)).is_none())
                        .collect();
                    if !missing.is_empty() {
                        contract.missing_cache_hints.push((method.into(), missing));
                    }
                }
                if let Some(h) = found {
                    hints.insert(method.into(), h);
                }
            }
            (!hints.is_empty()).then_some(hints)
        }
        false => match members.cache_hints.take() {
            None => None,
            Some(Value::Object(hints)) => Some(hints),
            Some(other) => {
                return Err(shape_error(
                    source_name,
                    "/cacheHints",
                    format!("`cacheHints` must be an object, found {}", describe(&other)),
                ))
            }
        },
    };
    contract.announced = match capture {
        true => match (
            members.initialize_result.take(),
            members.discover_result.take(),
        ) {
            (Some(result), _) => Some(announced_in(result, "/initializeResult", source_name)?),
            (None, Some(result)) => Some(announced_in(result, "/discoverResult", source_name)?),
            (None, None) => None,
        },
        false => announced_at_top(&mut members, source_name)?,
    };
    for kind in ListKind::ALL {
        let (field, items) = match capture {
            true => (kind.capture_field(), members.list(kind, true)),
            false => (kind.member(), members.list(kind, false)),
        };
        let at = pointer::push("", field);
        *contract.list_mut(kind) = match items {
            Some(value) if capture => Some(pages(value, kind, &at, source_name)?),
            Some(value) => Some(items_of(value, &at, kind, source_name)?),
            // A list the server does not declare is empty, whatever the document kept.
            None if contract.declares(kind) == Some(false) => Some(Vec::new()),
            None => None,
        };
    }
    let recorded = contract.announced.is_some()
        || contract.cache_hints.is_some()
        || ListKind::ALL.iter().any(|k| contract.list(*k).is_some());
    Ok(recorded.then_some(contract))
}

/// `instructions`, `capabilities` and `serverInfo` of an initialize or discover result.
fn announced_in(result: Value, at: &str, source_name: &str) -> Result<Announced, PayloadError> {
    let Value::Object(mut result) = result else {
        return Err(shape_error(
            source_name,
            at,
            format!("expected an object, found {}", describe(&result)),
        ));
    };
    // 2026-07-28 names the server in the result's `_meta`.
    let server_info = result.remove("serverInfo").or_else(|| {
        result
            .get_mut("_meta")
            .and_then(Value::as_object_mut)
            .and_then(|meta| meta.remove("io.modelcontextprotocol/serverInfo"))
    });
    announced(
        result.remove("capabilities"),
        result.remove("instructions"),
        server_info,
        at,
        source_name,
    )
}

/// A snapshot's `capabilities` (which says the server's own announcement was recorded),
/// `instructions` and `serverInfo`.
fn announced_at_top(
    members: &mut Members,
    source_name: &str,
) -> Result<Option<Announced>, PayloadError> {
    let Some(capabilities) = members.capabilities.take() else {
        return Ok(None);
    };
    let (instructions, info) = (members.instructions.take(), members.server_info.take());
    announced(Some(capabilities), instructions, info, "", source_name).map(Some)
}

fn announced(
    capabilities: Option<Value>,
    instructions: Option<Value>,
    server_info: Option<Value>,
    at: &str,
    source_name: &str,
) -> Result<Announced, PayloadError> {
    let capabilities = match capabilities {
        None => Map::new(),
        Some(Value::Object(map)) => map,
        Some(other) => {
            return Err(shape_error(
                source_name,
                &pointer::push(at, "capabilities"),
                format!(
                    "`capabilities` must be an object, found {}",
                    describe(&other)
                ),
            ))
        }
    };
    let instructions = instructions.map(|v| match v {
        Value::String(text) => text,
        other => other.to_string(),
    });
    Ok(Announced {
        instructions,
        capabilities,
        server_info,
        pointer: at.to_string(),
    })
}

/// A capture's list field: one result object, or an array of page results in order.
fn pages(
    value: Value,
    kind: ListKind,
    at: &str,
    source_name: &str,
) -> Result<Vec<Item>, PayloadError> {
    let mut items = Vec::new();
    match value {
        Value::Array(pages) => {
            for (i, page) in pages.into_iter().enumerate() {
                items.extend(page_items(
                    page,
                    kind,
                    &pointer::push_index(at, i),
                    source_name,
                )?);
            }
        }
        page => items = page_items(page, kind, at, source_name)?,
    }
    Ok(items)
}

fn page_items(
    page: Value,
    kind: ListKind,
    at: &str,
    source_name: &str,
) -> Result<Vec<Item>, PayloadError> {
    let Value::Object(mut page) = page else {
        return Err(shape_error(
            source_name,
            at,
            format!(
                "a {} result must be an object, found {}",
                kind.method(),
                describe(&page)
            ),
        ));
    };
    let list_at = pointer::push(at, kind.member());
    match page.remove(kind.member()) {
        Some(list) => items_of(list, &list_at, kind, source_name),
        None => Err(shape_error(
            source_name,
            at,
            format!("a {} result must have `{}`", kind.method(), kind.member()),
        )),
    }
}

fn items_of(
    list: Value,
    at: &str,
    kind: ListKind,
    source_name: &str,
) -> Result<Vec<Item>, PayloadError> {
    let Value::Array(list) = list else {
        return Err(shape_error(
            source_name,
            at,
            format!(
                "`{}` must be an array, found {}",
                kind.member(),
                describe(&list)
            ),
        ));
    };
    list.into_iter()
        .enumerate()
        .map(|(i, item)| {
            let here = pointer::push_index(at, i);
            match item {
                Value::Object(fields) => Ok(Item {
                    fields,
                    pointer: here,
                }),
                other => Err(shape_error(
                    source_name,
                    &here,
                    format!(
                        "a {} must be an object, found {}",
                        kind.noun(),
                        describe(&other)
                    ),
                )),
            }
        })
        .collect()
}

/// How many items the pages of a list hold (`?` when a page cannot be read as one).
pub fn count_items(pages: &[Box<serde_json::value::RawValue>], kind: ListKind) -> String {
    let mut count = 0;
    for (i, page) in pages.iter().enumerate() {
        let items = serde_json::from_str(page.get())
            .ok()
            .and_then(|v| page_items(v, kind, &pointer::push_index("", i), "").ok());
        match items {
            Some(items) => count += items.len(),
            None => return "? items (a page is not a list result)".into(),
        }
    }
    match count {
        1 => format!("1 {}", kind.noun()),
        n => format!("{n} {}", kind.plural()),
    }
}

#[cfg(test)]
mod tests;
