//! What an error's text tells the caller to do, as the repairer reads it: from the guard's own
//! sentences (repair.rs) and from other errors (repair_formats.rs).

use serde_json::Value;

/// What the text tells the caller to do.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Fix {
    Rename {
        old: String,
        new: String,
    },
    Gone {
        name: String,
    },
    AddRequired {
        name: String,
        kind: String,
    },
    /// An optional parameter the pin does not have: it takes a gone value of its type.
    New {
        name: String,
        kind: String,
    },
    OneOf {
        name: String,
        allowed: Vec<Value>,
    },
    OfType {
        name: String,
        kind: String,
    },
    CallInstead {
        new: String,
    },
}
