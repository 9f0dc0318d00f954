//! A tool's pinned contract, compiled: what the guard admits calls against and the drifted
//! server of `wrap` answers from.

use std::collections::BTreeSet;

use serde_json::Value;

use super::validator;
use crate::surface::Tool;

/// A tool's contract, compiled once: validators for its input and output schemas and the names
/// of its parameters.
pub struct Contract {
    /// The input schema's validator, when it declares an object schema that compiles.
    pub input: Option<jsonschema::Validator>,
    /// The output schema's validator, likewise.
    pub output: Option<jsonschema::Validator>,
    /// The input schema's `properties` names; `None` when it declares none.
    pub params: Option<BTreeSet<String>>,
    /// The input schema as declared (a refusal reads the names, types and values it allows).
    pub schema: Option<Value>,
    /// Why a declared schema does not compile (an invalid `pattern`, a remote `$ref`): such a
    /// contract validates nothing, so calls to the tool are refused rather than admitted.
    pub broken: Option<String>,
}

impl Contract {
    /// Compiles `tool`'s contract.
    pub fn of(tool: &Tool<'_>) -> Contract {
        let input = tool.input_schema().filter(|s| s.is_object());
        let output = tool.output_schema().filter(|s| s.is_object());
        let mut broken = None;
        let mut compile = |schema: Option<&Value>, which: &str| {
            schema.and_then(|s| match validator(s) {
                Ok(v) => Some(v),
                Err(e) => {
                    broken.get_or_insert(format!("its {which} does not compile: {e}"));
                    None
                }
            })
        };
        let input_validator = compile(input, "inputSchema");
        let output_validator = compile(output, "outputSchema");
        Contract {
            input: input_validator,
            output: output_validator,
            params: input
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect()),
            schema: input.cloned(),
            broken,
        }
    }
}
