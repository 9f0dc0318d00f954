//! Answers to admitted calls: a JSON-RPC error or an `isError` result passes; a task-augmented
//! call's `CreateTaskResult` is remembered, and the final result `tasks/result` fetches is
//! checked like a call's; any other result is checked against the pinned outputSchema.

use serde_json::{json, Value};

use super::words::{self, ServerWords};
use super::{Awaited, Guard, OnOutput};
use crate::proxy::{id_json, Action};

impl Guard {
    /// The answer to a call the guard admitted (or to a `tasks/result` for its task).
    pub(super) fn answered(&mut self, id: &str, awaited: Awaited, response: &Value) -> Action {
        if awaited.task {
            let task_id = response
                .pointer("/result/task/taskId")
                .and_then(Value::as_str);
            if let Some(task_id) = task_id {
                // A CreateTaskResult: the tool's output comes later, from tasks/result.
                self.record(json!({"event": "task-created", "id": id_json(Some(id)),
                    "tool": awaited.tool, "task": task_id}));
                self.tasks.insert(task_id.to_string(), awaited.tool);
                return Action::Forward;
            }
        }
        self.assert_output(id, &awaited.tool, response)
    }

    /// A client's `tasks/result` for a task an admitted call created: its answer is that call's.
    pub(super) fn task_result_asked(&mut self, id: &str, request: &Value) {
        let task_id = request.pointer("/params/taskId").and_then(Value::as_str);
        if let Some(tool) = task_id.and_then(|t| self.tasks.get(t)) {
            let awaited = Awaited {
                tool: tool.clone(),
                task: false,
            };
            self.calls.insert(id.to_string(), awaited);
        }
    }

    /// Checks an answer to an admitted call against the pinned outputSchema.
    fn assert_output(&mut self, id: &str, tool: &str, response: &Value) -> Action {
        let Some(validator) = self.contracts.get(tool).and_then(|c| c.output.as_ref()) else {
            return Action::Forward;
        };
        let Some(result) = response.get("result") else {
            // A JSON-RPC error is the server's own answer, not an output to check.
            return Action::Forward;
        };
        if result.get("isError") == Some(&Value::Bool(true)) {
            return Action::Forward;
        }
        let words = self.options.server_words;
        let problems: Vec<String> = match result.get("structuredContent") {
            Some(structured) => validator
                .iter_errors(structured)
                .take(5)
                .map(|e| match words {
                    // The error and its place quote the answer: by kind, the pinned schema's
                    // keyword and its place in the pinned schema are what is said.
                    ServerWords::Kinds => {
                        let at = e.schema_path().as_str();
                        let keyword = words::keyword_at(at);
                        format!("the answer breaks `{keyword}` at {at} of the pinned outputSchema")
                    }
                    ServerWords::Quoted => words::quoted(&format!(
                        "{} at {}",
                        e,
                        if e.instance_path().as_str().is_empty() {
                            "/"
                        } else {
                            e.instance_path().as_str()
                        }
                    )),
                })
                .collect(),
            None => vec![
                "the result has no structuredContent, but the pinned tool declares an outputSchema"
                    .into(),
            ],
        };
        if problems.is_empty() {
            return Action::Forward;
        }
        self.record(json!({"event": "output-violation", "id": id_json(Some(id)),
            "tool": tool, "problems": problems}));
        // Output drift: look at the server's list again.
        self.list_tools(None);
        let mut response = response.clone();
        match self.options.on_output {
            OnOutput::Warn => {
                if let Some(Value::Object(result)) = response.get_mut("result") {
                    let meta = result.entry("_meta").or_insert_with(|| json!({}));
                    if let Value::Object(meta) = meta {
                        meta.insert(
                            "driftlab/guard".into(),
                            json!({"outputViolation": problems}),
                        );
                    }
                }
                Action::Replace(response.to_string().into_bytes())
            }
            OnOutput::Error => {
                let text = format!(
                    "driftlab guard: the answer of `{tool}` breaks its pinned outputSchema: {}",
                    problems.join("; ")
                );
                let result = json!({"content": [{"type": "text", "text": text}], "isError": true});
                Action::Replace(
                    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#).into_bytes(),
                )
            }
        }
    }
}
