//! Word lists for synthetic tools, modelled on the names, parameters and descriptions of the real
//! servers in the shared corpus. Changing any list changes every generated surface.

/// Verbs, with whether a tool named after them only reads.
pub(crate) const VERBS: &[(&str, bool)] = &[
    ("get", true),
    ("list", true),
    ("search", true),
    ("fetch", true),
    ("read", true),
    ("describe", true),
    ("create", false),
    ("update", false),
    ("delete", false),
    ("move", false),
    ("add", false),
    ("run", false),
    ("send", false),
    ("sync", false),
];

/// Nouns a tool acts on.
pub(crate) const NOUNS: &[&str] = &[
    "user",
    "issue",
    "file",
    "directory",
    "ticket",
    "invoice",
    "repository",
    "record",
    "event",
    "query",
    "table",
    "page",
    "comment",
    "branch",
    "message",
    "channel",
    "document",
    "entity",
    "pipeline",
    "metric",
    "dashboard",
    "monitor",
    "collection",
    "index",
];

/// How a surface spells its tool names (one style per server, as real servers do).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NameStyle {
    Snake,
    Kebab,
    Camel,
    Dotted,
}

pub(crate) const NAME_STYLES: &[NameStyle] = &[
    NameStyle::Snake,
    NameStyle::Kebab,
    NameStyle::Camel,
    NameStyle::Dotted,
];

/// The kind of a parameter, which fixes its JSON Schema.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Text,
    Enum(&'static [&'static str]),
    Pattern(&'static str),
    Format(&'static str),
    Integer { min: i64, max: i64 },
    Number { min: f64, max: f64 },
    Boolean,
    StringList,
}

/// Parameters: (snake_case name, kind, description).
pub(crate) const PARAMETERS: &[(&str, Kind, &str)] = &[
    ("query", Kind::Text, "Search query"),
    ("path", Kind::Text, "Path of the file or directory"),
    ("content", Kind::Text, "Content to write"),
    (
        "owner",
        Kind::Pattern("^[A-Za-z0-9-]+$"),
        "Repository owner (user or organization)",
    ),
    (
        "id",
        Kind::Pattern("^[a-z0-9-]{1,64}$"),
        "Identifier of the item",
    ),
    ("branch", Kind::Pattern("^[A-Za-z0-9._/-]+$"), "Branch name"),
    (
        "format",
        Kind::Enum(&["json", "markdown", "text"]),
        "Output format",
    ),
    (
        "state",
        Kind::Enum(&["open", "closed", "all"]),
        "Filter by state",
    ),
    ("sort", Kind::Enum(&["asc", "desc"]), "Sort direction"),
    (
        "priority",
        Kind::Enum(&["low", "normal", "high", "urgent"]),
        "Priority level",
    ),
    (
        "email",
        Kind::Format("email"),
        "Email address of the recipient",
    ),
    ("url", Kind::Format("uri"), "URL to fetch"),
    (
        "since",
        Kind::Format("date-time"),
        "Only items updated after this time (ISO 8601)",
    ),
    (
        "limit",
        Kind::Integer { min: 1, max: 100 },
        "Maximum number of results",
    ),
    ("page", Kind::Integer { min: 1, max: 1000 }, "Page number"),
    (
        "timeout_ms",
        Kind::Integer { min: 0, max: 60000 },
        "Timeout in milliseconds",
    ),
    (
        "threshold",
        Kind::Number { min: 0.0, max: 1.0 },
        "Minimum relevance score",
    ),
    (
        "temperature",
        Kind::Number { min: 0.0, max: 2.0 },
        "Sampling temperature",
    ),
    ("recursive", Kind::Boolean, "Include nested items"),
    ("include_archived", Kind::Boolean, "Include archived items"),
    (
        "dry_run",
        Kind::Boolean,
        "Report what would change without changing it",
    ),
    ("labels", Kind::StringList, "Labels to apply"),
    ("paths", Kind::StringList, "Paths to include"),
    ("fields", Kind::StringList, "Fields to return"),
];

/// Description templates; `{verb}` and `{noun}` are replaced.
pub(crate) const DESCRIPTIONS: &[&str] = &[
    "{Verb} a {noun}.",
    "{Verb} a {noun} by its identifier. Returns the {noun} as JSON.",
    "{Verb} one or more {noun} records in the workspace.",
    "Use this tool to {verb} a {noun}. Only works within allowed directories.",
    "{Verb} {noun} data. Results are paginated; use page and limit to continue.",
];

/// `$schema` dialects seen in real servers (none, draft-07, 2020-12), one per surface.
pub(crate) const DIALECTS: &[Option<&str>] = &[
    None,
    Some("http://json-schema.org/draft-07/schema#"),
    Some("https://json-schema.org/draft/2020-12/schema"),
];
