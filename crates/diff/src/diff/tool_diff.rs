//! Where the changes about one pair of tools are collected, and which way a compared schema
//! faces: shared by the field comparisons (`tool`), the schema walk (`schema`) and the witness
//! search (`proof`).

use serde_json::Value;

use super::{Change, ChangeKind, Proof, Proving};
use driftlab_contract::surface::Tool;

/// Which side of a call a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// inputSchema: what the server accepts.
    Request,
    /// outputSchema: what the server may return.
    Response,
}

/// Collects changes about one tool.
pub(super) struct ToolDiff<'a, 'o> {
    pub old: &'a Tool<'a>,
    pub new: &'a Tool<'a>,
    pub label: String,
    pub proving: Proving,
    pub out: &'o mut Vec<Change>,
}

impl ToolDiff<'_, '_> {
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        kind: ChangeKind,
        old_pointer: Option<String>,
        new_pointer: Option<String>,
        old: Option<&Value>,
        new: Option<&Value>,
        message: String,
    ) {
        self.out.push(Change {
            kind,
            tool: self.label.clone(),
            tool_index: self.new.index,
            old_pointer,
            new_pointer,
            old: self.proving.shown(old),
            new: self.proving.shown(new),
            message,
            proof: Proof::NotNeeded,
        });
    }

    /// A change of one field at the same relative place in both tools.
    pub fn field(&mut self, kind: ChangeKind, field: &str, message: String) {
        let (old, new) = (self.old.get(field), self.new.get(field));
        self.push(
            kind,
            Some(self.old.pointer(field)),
            Some(self.new.pointer(field)),
            old,
            new,
            message,
        );
    }
}
