//! What becomes of one `tools/call` once the guard decided it: forwarded (in the server's new
//! names, where `--translate renames` applies), or answered with a refusal; each recorded in
//! the audit log, with the use of a changed tool.

use serde_json::{json, Value};
use std::time::Instant;

use super::{translate, Admission, Awaited, Guard, LiveView};
use crate::proxy::{id_json, Action};

impl Guard {
    /// Admission of one tools/call request (as read strictly): `Forward`, `Replace` with the
    /// call in the server's new names (a translated rename), or `Answer` with the refusal.
    pub(super) fn call(&mut self, id: &str, request: &Value) -> Action {
        let tool = request
            .pointer("/params/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let arguments = request
            .pointer("/params/arguments")
            .cloned()
            .unwrap_or(json!({}));
        let id_value = id_json(Some(id));
        // An open circuit is decided by `admit`, which a translation must not pass by.
        let circuit_open = self.open_circuits.contains_key(&tool);
        if let Some(translated) = self
            .translation(&tool, &arguments)
            .filter(|_| !circuit_open)
        {
            if self.decide(&translated.tool, &translated.arguments) == Admission::Admit {
                return self.translated(id, request, (&tool, &arguments), translated);
            }
        }
        let decision = self.admit(&tool, &arguments, Instant::now());
        self.changed_then_used(&id_value, &tool, &arguments, &decision);
        match decision {
            Admission::Admit => {
                self.record(json!({"event": "admit", "id": id_value, "tool": tool}));
                let task = request.pointer("/params/task").is_some();
                let tool = self.pinned_name(&tool).to_string();
                self.calls.insert(id.to_string(), Awaited { tool, task });
                Action::Forward
            }
            Admission::Refuse { rule, problems } => {
                self.record(json!({"event": "refuse", "id": id_value, "tool": tool, "rule": rule, "problems": problems}));
                Action::Answer(self.refusal(id, &tool, rule, &problems))
            }
        }
    }

    /// Sends an admitted call in the server's new names, and records it (the translation, and
    /// the changed tool's use).
    fn translated(
        &mut self,
        id: &str,
        request: &Value,
        (tool, arguments): (&str, &Value),
        translated: translate::Translation,
    ) -> Action {
        let id_value = id_json(Some(id));
        self.changed_then_used(&id_value, tool, arguments, &Admission::Admit);
        self.record(json!({"event": "translate", "id": id_value, "tool": tool,
            "to": translated.tool, "parameters": translated.parameters}));
        let task = request.pointer("/params/task").is_some();
        self.calls.insert(
            id.to_string(),
            Awaited {
                tool: tool.to_string(),
                task,
            },
        );
        let mut request = request.clone();
        request["params"]["name"] = Value::String(translated.tool);
        request["params"]["arguments"] = translated.arguments;
        Action::Replace(request.to_string().into_bytes())
    }

    /// Records a call to a tool that changed since it was pinned, with the change and the call
    /// (its argument names: values may be secrets), whatever the mode and the decision.
    fn changed_then_used(
        &mut self,
        id: &Value,
        tool: &str,
        arguments: &Value,
        decision: &Admission,
    ) {
        let LiveView::Listed(live) = &self.live else {
            return;
        };
        let Some(changes) = live.changed.get(self.pinned_name(tool)) else {
            return;
        };
        let names: Vec<&String> = arguments
            .as_object()
            .map(|a| a.keys().collect())
            .unwrap_or_default();
        let decided = match decision {
            Admission::Admit => "admit",
            Admission::Refuse { .. } => "refuse",
        };
        let entry = json!({"event": "changed-then-used", "id": id, "tool": tool,
            "decision": decided, "arguments": names, "changes": changes});
        self.record(entry);
    }

    /// The refusal as a tools/call result for the client.
    pub(super) fn refusal(&self, id: &str, tool: &str, rule: &str, problems: &[String]) -> Vec<u8> {
        let left = self
            .options
            .max_retries
            .saturating_sub(self.refusals.get(tool).map_or(0, |t| t.len() as u32));
        let text = format!(
            "driftlab guard refused this call to `{tool}` ({rule}): {}. Correct the call from this \
             message, or tell the user the tool's contract changed.",
            problems.join("; ")
        );
        let result = json!({
            "content": [{"type": "text", "text": text}],
            "isError": true,
            "structuredContent": {"driftlabGuard": {"refused": true, "tool": tool, "rule": rule,
                "problems": problems, "retriesLeft": left}},
        });
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#).into_bytes()
    }
}
