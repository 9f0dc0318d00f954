//! Which protocol era a session speaks, and how it was chosen.
//!
//! Until 2025-11-25 a client opens with the `initialize` handshake. 2026-07-28 removed it: the
//! client may ask `server/discover` for the server's versions and capabilities, and every request
//! carries its protocol version and client capabilities in `params._meta`. `auto` probes
//! `server/discover` first and falls back to `initialize` when the server refuses it (a
//! JSON-RPC error such as −32601, an HTTP error) or answers without 2026-07-28 among its
//! `supportedVersions`, as the MCP Python SDK's "auto" client does.

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use super::options::{CaptureOptions, ProtocolMode};
use super::session::Session;
use super::{LiveError, Transport};

/// The protocol revision without the `initialize` handshake.
pub const MODERN: &str = "2026-07-28";

/// The era a session ended up speaking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Era {
    /// The `initialize` handshake.
    #[serde(rename = "initialize")]
    Handshake,
    /// 2026-07-28: `server/discover` and per-request `_meta`.
    #[serde(rename = "2026-07-28")]
    Modern,
}

/// An opened session: its era, the server's answer to `initialize` or `server/discover` (exact
/// bytes), the protocol version in use and how it was chosen.
#[derive(Debug)]
pub struct Opened {
    /// The era the session speaks.
    pub era: Era,
    /// The `initialize` or `server/discover` result, exactly as sent.
    pub result: Box<RawValue>,
    /// The protocol version in use, when the server named one.
    pub protocol_version: Option<String>,
    /// How the era was chosen, in one line.
    pub how: String,
}

/// Opens `session` in the era `options.protocol` asks for. In the 2026-07-28 era the session
/// puts the protocol version, client capabilities and client info in every request's `_meta`.
pub fn open<T: Transport>(
    session: &mut Session<T>,
    options: &CaptureOptions,
) -> Result<Opened, LiveError> {
    match options.protocol {
        ProtocolMode::Legacy => initialize(session, options, "--protocol legacy".into()),
        ProtocolMode::Modern => {
            match discover(session, options, "server/discover").map_err(|e| match e {
                LiveError::Rpc { code, message, .. } => LiveError::Protocol(format!(
                    "--protocol 2026-07-28: server/discover refused with JSON-RPC error {code} \
                     ({message}): the server may speak only initialize (try --protocol auto)"
                )),
                other => other,
            })? {
                Ok(opened) => Ok(Opened {
                    how: "--protocol 2026-07-28: server/discover".into(),
                    ..opened
                }),
                Err(why) => Err(LiveError::Protocol(format!(
                    "--protocol 2026-07-28: {why} (try --protocol auto or legacy)"
                ))),
            }
        }
        ProtocolMode::Auto => {
            let phase = "server/discover (probing 2026-07-28; --protocol legacy skips the probe)";
            let why = match discover(session, options, phase) {
                Ok(Ok(opened)) => {
                    return Ok(Opened {
                        how: "auto: server/discover lists 2026-07-28".into(),
                        ..opened
                    })
                }
                Ok(Err(why)) => why.to_string(),
                Err(LiveError::Rpc { code, message, .. }) => {
                    format!("server/discover refused with JSON-RPC error {code} ({message})")
                }
                Err(LiveError::Http(message)) => format!("server/discover failed: {message}"),
                Err(fatal) => return Err(fatal),
            };
            session.set_request_meta(None);
            session.transport().forget_negotiated();
            initialize(
                session,
                options,
                format!("auto: {why}; fell back to initialize"),
            )
        }
    }
}

/// `initialize`, then `notifications/initialized`.
fn initialize<T: Transport>(
    session: &mut Session<T>,
    options: &CaptureOptions,
    how: String,
) -> Result<Opened, LiveError> {
    let params = json!({
        "protocolVersion": options.protocol_version,
        "capabilities": options.client_capabilities,
        "clientInfo": client_info(),
    });
    let result = session.request("initialize", &params, options.timeout, "initialize")?;
    let protocol_version = named_version(&result, "initialize")?;
    if let Some(version) = &protocol_version {
        session.transport().negotiated(version);
    }
    session.notify("notifications/initialized", "notifications/initialized")?;
    Ok(Opened {
        era: Era::Handshake,
        result,
        protocol_version,
        how,
    })
}

/// A server that answered `server/discover` without listing 2026-07-28 (`listed` is what it
/// listed instead).
#[derive(Debug, thiserror::Error)]
#[error("server/discover answered with {listed}, without {MODERN}")]
struct NotModern {
    listed: String,
}

/// `server/discover` at 2026-07-28, with the session's request meta set. `Ok(Err(why))` when the
/// server answered but does not speak 2026-07-28.
fn discover<T: Transport>(
    session: &mut Session<T>,
    options: &CaptureOptions,
    phase: &str,
) -> Result<Result<Opened, NotModern>, LiveError> {
    let mut meta = Map::new();
    meta.insert(
        "io.modelcontextprotocol/protocolVersion".into(),
        MODERN.into(),
    );
    meta.insert(
        "io.modelcontextprotocol/clientCapabilities".into(),
        options.client_capabilities.clone(),
    );
    meta.insert("io.modelcontextprotocol/clientInfo".into(), client_info());
    session.set_request_meta(Some(meta));
    session.transport().negotiated(MODERN);
    let result = session.request("server/discover", &json!({}), options.timeout, phase)?;
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(default, rename = "supportedVersions")]
        supported_versions: Option<Value>,
    }
    let head: Head = serde_json::from_str(result.get())
        .map_err(|_| LiveError::Protocol("the server/discover result is not an object".into()))?;
    let lists_modern = head
        .supported_versions
        .as_ref()
        .and_then(Value::as_array)
        .is_some_and(|v| v.iter().any(|v| v == MODERN));
    if !lists_modern {
        let listed = head
            .supported_versions
            .map_or("no supportedVersions".to_string(), |v| {
                format!(
                    "supportedVersions {}",
                    driftlab_contract::payload::short(&v)
                )
            });
        return Ok(Err(NotModern { listed }));
    }
    Ok(Ok(Opened {
        era: Era::Modern,
        result,
        protocol_version: Some(MODERN.into()),
        how: String::new(),
    }))
}

fn client_info() -> Value {
    json!({"name": "driftlab", "version": env!("CARGO_PKG_VERSION")})
}

/// The `protocolVersion` of an initialize result; a result that is not an object is an error.
fn named_version(result: &RawValue, phase: &str) -> Result<Option<String>, LiveError> {
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(default, rename = "protocolVersion")]
        protocol_version: Option<Value>,
    }
    let head: Head = serde_json::from_str(result.get())
        .map_err(|_| LiveError::Protocol(format!("the {phase} result is not an object")))?;
    Ok(head
        .protocol_version
        .and_then(|v| v.as_str().map(str::to_string)))
}
