//! The server contract beyond tools: what a server announced about itself (`instructions`,
//! `capabilities`, `serverInfo`) and its prompts, resources and resource templates.
//!
//! Each part is `None` when the document did not record it (a tools-only payload, an old capture,
//! a list the server answered with an error), so a comparison can tell "not recorded" from "the
//! server offers none". Items keep their JSON pointer in the document they were read from.

use serde_json::{Map, Value};

/// The lists a server offers besides tools, each behind a capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ListKind {
    /// `prompts/list`.
    Prompts,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
}

impl ListKind {
    /// Every list, in the order they are captured and compared.
    pub const ALL: [ListKind; 3] = [
        ListKind::Prompts,
        ListKind::Resources,
        ListKind::ResourceTemplates,
    ];

    /// The JSON-RPC method that lists it.
    pub fn method(self) -> &'static str {
        match self {
            ListKind::Prompts => "prompts/list",
            ListKind::Resources => "resources/list",
            ListKind::ResourceTemplates => "resources/templates/list",
        }
    }

    /// The member of the list result that holds the items; also the snapshot's member.
    pub fn member(self) -> &'static str {
        match self {
            ListKind::Prompts => "prompts",
            ListKind::Resources => "resources",
            ListKind::ResourceTemplates => "resourceTemplates",
        }
    }

    /// The capture file's field holding the raw list result(s).
    pub fn capture_field(self) -> &'static str {
        match self {
            ListKind::Prompts => "promptsList",
            ListKind::Resources => "resourcesList",
            ListKind::ResourceTemplates => "resourceTemplatesList",
        }
    }

    /// The server capability that says the list exists.
    pub fn capability(self) -> &'static str {
        match self {
            ListKind::Prompts => "prompts",
            ListKind::Resources | ListKind::ResourceTemplates => "resources",
        }
    }

    /// The item field that identifies an item across releases.
    pub fn key(self) -> &'static str {
        match self {
            ListKind::Prompts => "name",
            ListKind::Resources => "uri",
            ListKind::ResourceTemplates => "uriTemplate",
        }
    }

    /// How a report names the list: `prompts`, `resources`, `resource templates`.
    pub fn plural(self) -> &'static str {
        match self {
            ListKind::Prompts => "prompts",
            ListKind::Resources => "resources",
            ListKind::ResourceTemplates => "resource templates",
        }
    }

    /// How a report names one item: `prompt`, `resource`, `resource template`.
    pub fn noun(self) -> &'static str {
        match self {
            ListKind::Prompts => "prompt",
            ListKind::Resources => "resource",
            ListKind::ResourceTemplates => "resource template",
        }
    }
}

/// One prompt, resource or template, as listed.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Its members, as listed.
    pub fields: Map<String, Value>,
    /// JSON pointer of the item in its document.
    pub pointer: String,
}

impl Item {
    /// The identifying field as text (`#<index>` when it is not a string).
    pub fn key(&self, kind: ListKind, index: usize) -> String {
        match self.fields.get(kind.key()) {
            Some(Value::String(s)) => s.clone(),
            _ => format!("#{index}"),
        }
    }
}

/// What the server said about itself in `initialize` (or `server/discover`).
#[derive(Debug, Clone, PartialEq)]
pub struct Announced {
    /// The `instructions` text (a non-string is kept as its JSON text).
    pub instructions: Option<String>,
    /// The `capabilities` object.
    pub capabilities: Map<String, Value>,
    /// The `serverInfo` object, when given.
    pub server_info: Option<Value>,
    /// JSON pointer of the object these were read from (`/initializeResult`, or `` for a
    /// snapshot).
    pub pointer: String,
}

/// Everything but tools that a document recorded of a server's contract.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerContract {
    /// Whether it was read from a capture file (lists under `promptsList`, …) or a snapshot
    /// (lists under `prompts`, …).
    pub from_capture: bool,
    /// What the server said about itself, when recorded.
    pub announced: Option<Announced>,
    /// The prompts, when recorded (`None`: not recorded; empty: none offered).
    pub prompts: Option<Vec<Item>>,
    /// The resources, likewise.
    pub resources: Option<Vec<Item>>,
    /// The resource templates, likewise.
    pub resource_templates: Option<Vec<Item>>,
    /// 2026-07-28 caching hints per method (`server/discover`, `tools/list`, …): an object with
    /// the `ttlMs` and `cacheScope` the result carried (of a list's first page).
    pub cache_hints: Option<Map<String, Value>>,
    /// In a capture made in the 2026-07-28 era (it has a `discoverResult`): each result that
    /// lacks a caching hint the era requires, as (method, the members missing).
    pub missing_cache_hints: Vec<(String, Vec<&'static str>)>,
}

/// The capture file's member holding the result of `method` (`server/discover`, `tools/list`,
/// `prompts/list`, `resources/list`, `resources/templates/list`).
pub fn capture_field(method: &str) -> &'static str {
    match method {
        "server/discover" => "discoverResult",
        "tools/list" => "toolsList",
        "prompts/list" => "promptsList",
        "resources/list" => "resourcesList",
        _ => "resourceTemplatesList",
    }
}

impl ServerContract {
    /// The items of one list, when recorded.
    pub fn list(&self, kind: ListKind) -> Option<&[Item]> {
        match kind {
            ListKind::Prompts => self.prompts.as_deref(),
            ListKind::Resources => self.resources.as_deref(),
            ListKind::ResourceTemplates => self.resource_templates.as_deref(),
        }
    }

    /// The list of `kind`, to fill or change.
    pub(crate) fn list_mut(&mut self, kind: ListKind) -> &mut Option<Vec<Item>> {
        match kind {
            ListKind::Prompts => &mut self.prompts,
            ListKind::Resources => &mut self.resources,
            ListKind::ResourceTemplates => &mut self.resource_templates,
        }
    }

    /// The pointer of a list's field in the document it was read from.
    pub fn list_pointer(&self, kind: ListKind) -> String {
        match self.from_capture {
            true => format!("/{}", kind.capture_field()),
            false => format!("/{}", kind.member()),
        }
    }

    /// Whether the server declared the capability behind a list: `None` when nothing it announced
    /// was recorded.
    pub fn declares(&self, kind: ListKind) -> Option<bool> {
        let announced = self.announced.as_ref()?;
        Some(announced.capabilities.contains_key(kind.capability()))
    }

    /// The members a snapshot records besides `tools`, in the order written: `serverInfo`,
    /// `capabilities`, `instructions`, then each recorded list (but for an empty one that the
    /// capabilities imply).
    pub(crate) fn snapshot_members(&self) -> Map<String, Value> {
        let mut out = Map::new();
        if let Some(a) = &self.announced {
            if let Some(info) = &a.server_info {
                out.insert("serverInfo".into(), info.clone());
            }
            out.insert("capabilities".into(), Value::Object(a.capabilities.clone()));
            if let Some(text) = &a.instructions {
                out.insert("instructions".into(), Value::String(text.clone()));
            }
        }
        if let Some(hints) = self.cache_hints.as_ref().filter(|h| !h.is_empty()) {
            out.insert("cacheHints".into(), Value::Object(hints.clone()));
        }
        for kind in ListKind::ALL {
            // An empty list of an undeclared capability is implied by `capabilities`.
            let implied = self.declares(kind) == Some(false);
            if let Some(items) = self.list(kind).filter(|i| !(i.is_empty() && implied)) {
                let items = items.iter().map(|i| Value::Object(i.fields.clone()));
                out.insert(kind.member().into(), Value::Array(items.collect()));
            }
        }
        out
    }
}
