//! What the repairer reads in errors that are not the guard's: the messages of pydantic
//! (bare, and as LangChain and CrewAI quote them), zod (the MCP TypeScript SDK), jsonschema
//! (Python), Python's own `TypeError`s, and the agent stacks' unknown-tool answers. Each
//! sentence becomes the fix it names and nothing more: a missing parameter whose type the text
//! does not give, or a value it does not name, is not guessed.

use serde_json::Value;

use super::repair_fix::Fix;

/// Every fix the text names, in order; `arguments` is the call that got the error (jsonschema
/// names a wrong value, not the parameter that sent it).
pub(super) fn read(text: &str, arguments: &Value) -> Vec<Fix> {
    let mut fixes = Vec::new();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    for (i, line) in lines.iter().enumerate() {
        // pydantic: `NAME` on one line, the error on the next (LangChain: `NAME: error`).
        let (name, error) = match line.split_once(": ") {
            Some((name, error)) if is_name(name) => (Some(name), error),
            _ => (
                Some(*line).filter(|l| is_name(l)),
                lines.get(i + 1).copied().unwrap_or(""),
            ),
        };
        if let Some(name) = name {
            fixes.extend(pydantic(name, error));
        }
        fixes.extend(zod(line));
        fixes.extend(jsonschema(line, arguments));
        fixes.extend(python(line));
        fixes.extend(tools(line));
    }
    fixes
}

fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `Field required` names no type, so it fixes nothing.
fn pydantic(name: &str, error: &str) -> Option<Fix> {
    let name = name.to_string();
    if error.starts_with("Extra inputs are not permitted") {
        return Some(Fix::Gone { name });
    }
    let should = error.strip_prefix("Input should be ")?;
    let should = should.split(" [type=").next().unwrap_or(should);
    let kind = [
        ("a valid integer", "integer"),
        ("a valid number", "number"),
        ("a valid string", "string"),
        ("a valid list", "array"),
        ("a valid array", "array"),
        ("a valid boolean", "boolean"),
    ]
    .iter()
    .find(|(words, _)| should.starts_with(words))
    .map(|(_, kind)| kind.to_string());
    if let Some(kind) = kind {
        return Some(Fix::OfType { name, kind });
    }
    let allowed = quoted_alternatives(should, '\'', &[", ", " or "])?;
    Some(Fix::OneOf { name, allowed })
}

/// zod 4: `Invalid option: expected one of "a"|"b" at NAME`, `Invalid input: expected T,
/// received U at NAME` (`received undefined`: a missing parameter, and zod names its type).
fn zod(line: &str) -> Option<Fix> {
    let at = line.rfind(" at ")?;
    let name = line[at + 4..].trim().to_string();
    if !is_name(&name) {
        return None;
    }
    let before = &line[..at];
    if let Some(list) = before.split("expected one of ").nth(1) {
        let allowed = quoted_alternatives(list, '"', &["|"])?;
        return Some(Fix::OneOf { name, allowed });
    }
    let expected = before.split("expected ").nth(1)?;
    let (kind, received) = expected.split_once(", received ")?;
    let kind = match kind {
        "int" => "integer",
        other => other,
    }
    .to_string();
    Some(if received == "undefined" {
        Fix::AddRequired { name, kind }
    } else {
        Fix::OfType { name, kind }
    })
}

/// Python jsonschema: `Additional properties are not allowed ('a' was unexpected)`, and a
/// value's errors (`'x' is not one of [..]`, `1.5 is not of type 'integer'`), which name the
/// value: the parameter is the call's argument holding it.
fn jsonschema(line: &str, arguments: &Value) -> Vec<Fix> {
    if let Some(rest) = line.strip_prefix("Additional properties are not allowed (") {
        return rest
            .split(", ")
            .filter_map(|part| {
                let name = part.strip_prefix('\'')?.split('\'').next()?;
                Some(Fix::Gone {
                    name: name.to_string(),
                })
            })
            .collect();
    }
    let holder = |repr: &str| -> Option<String> {
        let value = python_literal(repr)?;
        let args = arguments.as_object()?;
        let mut holders = args.iter().filter(|(_, v)| **v == value);
        let (name, _) = holders.next()?;
        holders.next().is_none().then(|| name.clone())
    };
    if let Some((value, list)) = line.split_once(" is not one of [") {
        let list = list.strip_suffix(']').unwrap_or(list);
        if let (Some(name), Some(allowed)) =
            (holder(value), quoted_alternatives(list, '\'', &[", "]))
        {
            return vec![Fix::OneOf { name, allowed }];
        }
    }
    if let Some((value, kind)) = line.split_once(" is not of type '") {
        if let Some(name) = holder(value) {
            let kind = kind.trim_end_matches('\'').to_string();
            return vec![Fix::OfType { name, kind }];
        }
    }
    Vec::new()
}

/// `f() got an unexpected keyword argument 'a'`.
fn python(line: &str) -> Option<Fix> {
    let rest = line.split("got an unexpected keyword argument '").nth(1)?;
    Some(Fix::Gone {
        name: rest.split('\'').next()?.to_string(),
    })
}

/// An unknown tool's answer that offers exactly one other tool: LangChain's `try one of [a]`,
/// Pydantic AI's `Available tools: 'a'`, CrewAI's `Tool Name: a` after "don't exist".
fn tools(line: &str) -> Option<Fix> {
    let offered: Vec<String> = if let Some(list) = line.split("try one of [").nth(1) {
        let list = list.split(']').next()?;
        list.split(", ").map(String::from).collect()
    } else if let Some(list) = line.split("Available tools: ").nth(1) {
        quoted_alternatives(list, '\'', &[", "])?
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect()
    } else {
        return None;
    };
    match offered.as_slice() {
        [one] if is_name(one) => Some(Fix::CallInstead { new: one.clone() }),
        _ => None,
    }
}

/// `'a', 'b' or 'c'` (or `"a"|"b"`) as JSON strings; `None` unless every part is quoted.
fn quoted_alternatives(text: &str, quote: char, separators: &[&str]) -> Option<Vec<Value>> {
    let mut parts = vec![text.trim()];
    for separator in separators {
        parts = parts.iter().flat_map(|p| p.split(separator)).collect();
    }
    let values: Option<Vec<Value>> = parts
        .iter()
        .map(|p| {
            let inner = p.trim().strip_prefix(quote)?.strip_suffix(quote)?;
            Some(Value::String(inner.to_string()))
        })
        .collect();
    values.filter(|v| !v.is_empty())
}

/// A Python literal as printed by `repr`: a quoted string or a number.
fn python_literal(repr: &str) -> Option<Value> {
    let repr = repr.trim();
    if let Some(inner) = repr.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return Some(Value::String(inner.to_string()));
    }
    serde_json::from_str::<serde_json::Number>(repr)
        .ok()
        .map(Value::Number)
}
