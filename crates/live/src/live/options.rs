//! What a live command asks of a server: the era to speak, what to offer, and how long and how
//! much to wait for.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

/// What a command asks for (`--protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
pub enum ProtocolMode {
    /// probe `server/discover` (2026-07-28), fall back to `initialize` when the server refuses it
    /// or does not list 2026-07-28
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// the `initialize` handshake only (2024-11-05 … 2025-11-25)
    #[serde(rename = "legacy")]
    Legacy,
    /// 2026-07-28 only: `server/discover`, and `_meta` on every request
    #[value(name = "2026-07-28")]
    #[serde(rename = "2026-07-28")]
    Modern,
}

/// What to offer the server and how long and how much to wait for.
#[derive(Debug, Clone)]
pub struct CaptureOptions {
    /// The protocol version offered in `initialize`.
    pub protocol_version: String,
    /// Which era to speak: `initialize`, 2026-07-28's `server/discover`, or a probe of the latter
    /// falling back to the former.
    pub protocol: ProtocolMode,
    /// The client capabilities declared in `initialize` (servers may list different tools for
    /// different capabilities). Default: none, `{}`.
    pub client_capabilities: Value,
    /// How long each phase may take: spawn + initialize, then each tools/list page.
    pub timeout: Duration,
    /// At most this many tools/list pages are followed.
    pub max_pages: usize,
    /// At most this many bytes of tools/list results in all (and per message); the same again
    /// for each other list.
    pub max_bytes: usize,
    /// Also list prompts, resources and resource templates (the whole contract); commands that
    /// need only tools (scan, guard, wrap) leave it off.
    pub whole_contract: bool,
}
