//! A server that implements a drifted contract, emulated in front of the real one: what an old
//! client's `tools/call` meets after the server was upgraded to the drifted `tools/list`.
//!
//! The model is the MCP SDKs' default handling of a call: the tool is looked up by name (unknown:
//! JSON-RPC error -32602), argument names the tool's schema does not declare are dropped without a
//! word (zod's default object parsing in the TypeScript SDK, pydantic's default in the Python
//! SDK), and what is left is validated against the inputSchema (invalid: -32602). A call that
//! passes runs on the real server, with a renamed tool or parameter mapped back to the real
//! server's name, so its answer is the real server's.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{json, Map, Value};

use driftlab_contract::contract::Contract;
use driftlab_contract::surface::Surface;
use driftlab_diff::diff::pair;

/// The fate of one call.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Handled {
    /// The drifted server refuses the call with this JSON-RPC error (code -32602).
    Refused {
        /// The error's message.
        reason: String,
    },
    /// The call runs on the real server as `request` (the original bytes when nothing changed).
    Runs {
        /// The rewritten request; `None` when the original bytes go as they are.
        request: Option<Value>,
        /// Arguments the client sent that the drifted tool does not declare: dropped silently.
        dropped: Vec<String>,
        /// The real server's name for the tool, when the drifted one differs.
        server_tool: Option<String>,
        /// Drifted parameter name → the real server's name.
        mapped: BTreeMap<String, String>,
        /// The arguments the call runs with, by the drifted (listed) names.
        received: Map<String, Value>,
    },
}

struct DriftedTool {
    /// Its input validator and parameter names, compiled once (the guard's own `Contract`).
    contract: Contract,
    /// The real server's name for this tool and its parameter names (drifted → real).
    server_name: Option<String>,
    param_map: BTreeMap<String, String>,
}

/// A server that implements a drifted contract in front of the real one: the tools as the
/// drifted listing announced them, each call checked against them and mapped back to the real
/// names.
pub(crate) struct DriftedServer {
    tools: HashMap<String, DriftedTool>,
}

impl DriftedServer {
    /// `original` is the real server's `tools/list` result, `drifted` the one the client was told.
    pub fn new(original: &Value, drifted: &Value) -> DriftedServer {
        let old = surface_of(original);
        let new = surface_of(drifted);
        let pairing = pair(&old, &new);
        let mut tools = HashMap::new();
        for tool in new.tools() {
            let Some(name) = tool.name_str() else {
                continue;
            };
            let counterpart = pairing
                .pairs
                .iter()
                .find(|p| p.new == tool.index)
                .and_then(|p| old.tool(p.old));
            let contract = Contract::of(&tool);
            let old_params = counterpart
                .and_then(|t| t.input_schema())
                .and_then(param_names);
            let param_map = match (&contract.params, &old_params) {
                (Some(new_params), Some(old_params)) => renamed(old_params, new_params),
                _ => BTreeMap::new(),
            };
            let server_name = counterpart
                .and_then(|t| t.name_str())
                .filter(|old_name| *old_name != name)
                .map(str::to_string);
            // The first tool of a name answers, as a server's lookup table would.
            tools.entry(name.to_string()).or_insert(DriftedTool {
                contract,
                server_name,
                param_map,
            });
        }
        DriftedServer { tools }
    }

    /// What the drifted server does with one `tools/call` request.
    pub fn handle(&self, request: &Value) -> Handled {
        let name = request
            .pointer("/params/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Some(tool) = self.tools.get(name) else {
            return Handled::Refused {
                reason: format!("Tool {name} not found"),
            };
        };
        let sent = match request.pointer("/params/arguments") {
            Some(Value::Object(args)) => args.clone(),
            _ => Map::new(),
        };
        let mut kept = Map::new();
        let mut dropped = Vec::new();
        for (key, value) in sent {
            match &tool.contract.params {
                Some(params) if !params.contains(&key) => dropped.push(key),
                _ => {
                    kept.insert(key, value);
                }
            }
        }
        // A schema that does not compile validates nothing, as a server could not enforce it.
        if let Some(validator) = &tool.contract.input {
            let errors: Vec<String> = validator
                .iter_errors(&Value::Object(kept.clone()))
                .take(3)
                .map(|e| e.to_string())
                .collect();
            if !errors.is_empty() {
                return Handled::Refused {
                    reason: format!("Invalid arguments for tool {name}: {}", errors.join("; ")),
                };
            }
        }
        let received = kept.clone();
        let mut mapped = BTreeMap::new();
        let mut arguments = Map::new();
        for (key, value) in kept {
            match tool.param_map.get(&key) {
                Some(real) => {
                    mapped.insert(key, real.clone());
                    arguments.insert(real.clone(), value);
                }
                None => {
                    arguments.insert(key, value);
                }
            }
        }
        let unchanged = dropped.is_empty() && mapped.is_empty() && tool.server_name.is_none();
        let rewritten = (!unchanged).then(|| {
            let mut rewritten = request.clone();
            if let Some(params) = rewritten.get_mut("params").and_then(Value::as_object_mut) {
                params.insert(
                    "name".into(),
                    json!(tool.server_name.as_deref().unwrap_or(name)),
                );
                params.insert("arguments".into(), Value::Object(arguments));
            }
            rewritten
        });
        Handled::Runs {
            request: rewritten,
            dropped,
            server_tool: tool.server_name.clone(),
            mapped,
            received,
        }
    }
}

fn surface_of(result: &Value) -> Surface {
    let tools = result
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t.as_object().cloned())
                .collect()
        })
        .unwrap_or_default();
    Surface::new(tools)
}

fn param_names(schema: &Value) -> Option<BTreeSet<String>> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
}

/// One parameter gone and one new: the new one is the old one renamed (drifted → real name).
fn renamed(old: &BTreeSet<String>, new: &BTreeSet<String>) -> BTreeMap<String, String> {
    let gone: Vec<&String> = old.difference(new).collect();
    let arrived: Vec<&String> = new.difference(old).collect();
    match (gone.as_slice(), arrived.as_slice()) {
        ([gone], [arrived]) => BTreeMap::from([((*arrived).clone(), (*gone).clone())]),
        _ => BTreeMap::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(tools: Value) -> Value {
        json!({ "tools": tools })
    }

    fn call(name: &str, arguments: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}})
    }

    fn search(props: Value, required: Value) -> Value {
        json!({"name": "search", "description": "Search the notes",
            "inputSchema": {"type": "object", "properties": props, "required": required}})
    }

    #[test]
    fn a_renamed_optional_parameter_is_dropped_silently() {
        let original = list(json!([search(
            json!({"query": {"type": "string"}, "limit": {"type": "integer"}}),
            json!(["query"])
        )]));
        let drifted = list(json!([search(
            json!({"query": {"type": "string"}, "max_results": {"type": "integer"}}),
            json!(["query"])
        )]));
        let server = DriftedServer::new(&original, &drifted);
        let Handled::Runs {
            request,
            dropped,
            received,
            ..
        } = server.handle(&call("search", json!({"query": "q", "limit": 3})))
        else {
            panic!("the call should run")
        };
        assert_eq!(dropped, vec!["limit".to_string()]);
        assert_eq!(Value::Object(received), json!({"query": "q"}));
        assert_eq!(
            request.unwrap().pointer("/params/arguments"),
            Some(&json!({"query": "q"}))
        );
        // A new client's call with the new name runs under the real server's name.
        let Handled::Runs {
            request, mapped, ..
        } = server.handle(&call("search", json!({"query": "q", "max_results": 3})))
        else {
            panic!("the call should run")
        };
        assert_eq!(mapped.get("max_results").map(String::as_str), Some("limit"));
        assert_eq!(
            request.unwrap().pointer("/params/arguments"),
            Some(&json!({"query": "q", "limit": 3}))
        );
    }

    #[test]
    fn unknown_tools_and_invalid_arguments_are_refused_and_unchanged_calls_pass_as_sent() {
        let original = list(json!([search(
            json!({"status": {"enum": ["open", "archived"]}}),
            json!([])
        )]));
        let drifted = list(json!([search(
            json!({"status": {"enum": ["open"]}}),
            json!([])
        )]));
        let server = DriftedServer::new(&original, &drifted);
        assert!(matches!(
            server.handle(&call("search", json!({"status": "archived"}))),
            Handled::Refused { reason } if reason.starts_with("Invalid arguments for tool search")
        ));
        assert_eq!(
            server.handle(&call("gone", json!({}))),
            Handled::Refused {
                reason: "Tool gone not found".into()
            }
        );
        assert_eq!(
            server.handle(&call("search", json!({"status": "open"}))),
            Handled::Runs {
                request: None,
                dropped: vec![],
                server_tool: None,
                mapped: BTreeMap::new(),
                received: json!({"status": "open"}).as_object().cloned().unwrap()
            }
        );
    }

    #[test]
    fn a_renamed_tool_runs_under_its_real_name() {
        let original = list(json!([search(json!({"q": {"type": "string"}}), json!([]))]));
        let mut renamed = search(json!({"q": {"type": "string"}}), json!([]));
        renamed["name"] = json!("search_notes");
        let server = DriftedServer::new(&original, &list(json!([renamed])));
        assert!(matches!(
            server.handle(&call("search", json!({}))),
            Handled::Refused { .. }
        ));
        let Handled::Runs {
            request,
            server_tool,
            ..
        } = server.handle(&call("search_notes", json!({"q": "x"})))
        else {
            panic!("the call should run")
        };
        assert_eq!(server_tool.as_deref(), Some("search"));
        assert_eq!(
            request.unwrap().pointer("/params/name"),
            Some(&json!("search"))
        );
    }
}
