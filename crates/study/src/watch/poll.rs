//! One poll of every endpoint a watch spec lists: capture its `tools/list`, store the contract,
//! and append a line to its log; a change from the last contract is judged on the spot.

use std::collections::BTreeMap;
use std::time::Duration;

use rayon::prelude::*;
use serde::Deserialize;

use super::judge::judge;
use super::record::{valid_server_name, value_digest, Observation, Record, Seen};
use driftlab_check::check::Rule;
use driftlab_live::live::http::HttpTransport;
use driftlab_live::live::sse::SseTransport;
use driftlab_live::live::stdio::StdioTransport;
use driftlab_live::live::{self, CaptureOptions, LiveError, ProtocolMode, Transport};

/// What `driftlab watch poll` reads (TOML; docs/watch.md).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WatchSpec {
    /// The endpoints, in order.
    #[serde(rename = "server", default)]
    pub servers: Vec<ServerSpec>,
}

/// One endpoint.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerSpec {
    /// Its name in the record (`servers/NAME.jsonl`): lowercase letters, digits, `.`, `_`, `-`.
    pub name: String,
    /// An HTTP endpoint: Streamable HTTP, or with `transport = "sse"` the event stream of the
    /// older HTTP+SSE transport (2024-11-05).
    #[serde(default)]
    pub url: Option<String>,
    /// `streamable-http` (the default) or `sse`, for a `url`.
    #[serde(default)]
    pub transport: Option<String>,
    /// Headers sent to `url`; `${VAR}` in a value is read from the environment, and no value is
    /// ever written to the record.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// A command to start instead (argv, run directly, never through a shell).
    #[serde(default)]
    pub command: Vec<String>,
    /// Seconds each phase may take (default 30).
    #[serde(default)]
    pub timeout_seconds: Option<f64>,
    /// `legacy` for a server that mishandles the 2026-07-28 probe (default: `auto`).
    #[serde(default)]
    pub protocol: Option<String>,
}

/// Largest `tools/list` kept (and largest message): 16 MiB.
const MAX_BYTES: usize = 16 << 20;

impl WatchSpec {
    /// Parses and checks a spec; errors name the file and the place.
    pub fn parse(text: &str, path: &str) -> Result<WatchSpec, String> {
        let spec: WatchSpec = toml::from_str(text).map_err(|e| {
            let (line, column, message) = driftlab_contract::text::toml_error(text, &e);
            format!("{path}:{line}:{column}: {message}")
        })?;
        if spec.servers.is_empty() {
            return Err(format!("{path}: no [[server]] to watch"));
        }
        let mut seen = std::collections::BTreeSet::new();
        for server in &spec.servers {
            let name = &server.name;
            if !valid_server_name(name) {
                return Err(format!(
                    "{path}: server {name:?}: a name is lowercase letters, digits, '.', '_' and '-'"
                ));
            }
            if !seen.insert(name) {
                return Err(format!("{path}: server {name:?} is listed twice"));
            }
            match (&server.url, server.command.is_empty()) {
                (Some(url), true) if url.starts_with("http://") || url.starts_with("https://") => {}
                (Some(url), true) => {
                    return Err(format!(
                        "{path}: server {name:?}: url {url:?} is not http:// or https://"
                    ))
                }
                (None, false) => {}
                _ => {
                    return Err(format!(
                        "{path}: server {name:?}: give exactly one of `url` and `command`"
                    ))
                }
            }
            match server.transport.as_deref() {
                None | Some("streamable-http") => {}
                Some("sse") if server.url.is_some() => {}
                Some("sse") => {
                    return Err(format!(
                        "{path}: server {name:?}: transport \"sse\" goes with a url"
                    ))
                }
                Some(other) => {
                    return Err(format!(
                    "{path}: server {name:?}: transport {other:?}: expected streamable-http or sse"
                ))
                }
            }
            if !server.headers.is_empty() && server.url.is_none() {
                return Err(format!(
                    "{path}: server {name:?}: headers go with a url, not a command"
                ));
            }
            if let Some(seconds) = server.timeout_seconds {
                if !(seconds > 0.0 && seconds <= 3600.0) {
                    return Err(format!(
                        "{path}: server {name:?}: timeout_seconds {seconds}: expected above 0 and at most 3600"
                    ));
                }
            }
            protocol(server).map_err(|e| format!("{path}: server {name:?}: {e}"))?;
        }
        Ok(spec)
    }
}

fn protocol(server: &ServerSpec) -> Result<ProtocolMode, String> {
    match server.protocol.as_deref() {
        None | Some("auto") => Ok(ProtocolMode::Auto),
        Some("legacy") => Ok(ProtocolMode::Legacy),
        Some("2026-07-28") => Ok(ProtocolMode::Modern),
        Some(other) => Err(format!(
            "protocol {other:?}: expected auto, legacy or 2026-07-28"
        )),
    }
}

/// What one server's poll appended, for the command's summary.
pub struct Polled {
    /// The server.
    pub server: String,
    /// The line appended.
    pub observation: Observation,
}

/// Polls the servers this shard takes (shard K of N: servers ⌊(K−1)·S/N⌋ to ⌊K·S/N⌋−1 of
/// the spec's S, as a census shards packages), in parallel, each into its own log, at time `now`; the record pins the rule set changes are
/// judged by. `env` reads the variables headers name.
pub fn poll(
    spec: &WatchSpec,
    record: &Record,
    rules: &[&'static dyn Rule],
    now: &str,
    shard: (u64, u64),
    env: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<Vec<Polled>, String> {
    let (k, n) = shard;
    let count = spec.servers.len() as u64;
    let (start, end) = ((k - 1) * count / n, k * count / n);
    let mine: Vec<&ServerSpec> = spec.servers[start as usize..end as usize].iter().collect();
    mine.par_iter()
        .map(|server| {
            let seen = match capture(server, env) {
                Ok(bytes) => seen_contract(record, &server.name, &bytes, rules)?,
                Err((failed, reason)) => Seen::Failed { failed, reason },
            };
            let observation = Observation {
                at: now.to_string(),
                seen,
            };
            record.append(&server.name, &observation)?;
            Ok(Polled {
                server: server.name.clone(),
                observation,
            })
        })
        .collect()
}

/// A contract seen now: stored, and judged against the last one the log names.
pub(crate) fn seen_contract(
    record: &Record,
    server: &str,
    bytes: &[u8],
    rules: &[&'static dyn Rule],
) -> Result<Seen, String> {
    let contract = record.store(bytes)?;
    let last = record.last_contract(server)?;
    let previous = last.filter(|previous| *previous != contract);
    let change = match &previous {
        Some(previous) => Some(judge(&record.contract(previous)?, bytes, rules)),
        None => None,
    };
    Ok(Seen::Contract {
        contract,
        value: value_digest(bytes),
        previous,
        change,
    })
}

/// The server's `tools/list` result, exactly as sent, or why there is none: (kind, reason).
fn capture(
    server: &ServerSpec,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<u8>, (String, String)> {
    let timeout = Duration::from_secs_f64(server.timeout_seconds.unwrap_or(30.0));
    let options = CaptureOptions {
        protocol_version: live::DEFAULT_PROTOCOL_VERSION.into(),
        client_capabilities: serde_json::json!({}),
        timeout,
        max_pages: live::DEFAULT_MAX_PAGES,
        max_bytes: MAX_BYTES,
        whole_contract: false,
        protocol: protocol(server).map_err(|e| ("config".to_string(), e))?,
    };
    let transport: Box<dyn Transport> = match &server.url {
        Some(url) => {
            let mut headers = Vec::new();
            for (name, value) in &server.headers {
                let value = expand(value, env)
                    .map_err(|e| ("config".to_string(), format!("header {name}: {e}")))?;
                headers.push((name.clone(), value));
            }
            match server.transport.as_deref() {
                Some("sse") => Box::new(
                    SseTransport::connect(url, headers, timeout, MAX_BYTES)
                        .map_err(|e| failure(&e))?,
                ),
                _ => Box::new(HttpTransport::new(url, headers, timeout, MAX_BYTES)),
            }
        }
        None => Box::new(
            StdioTransport::spawn(&server.command, MAX_BYTES, None).map_err(|e| failure(&e))?,
        ),
    };
    let capture = live::capture(transport, &options).map_err(|e| failure(&e))?;
    Ok(capture.tools_list_bytes())
}

/// A failed poll's kind and reason: an endpoint that wants credentials is `auth`, never drift.
fn failure(error: &LiveError) -> (String, String) {
    let reason = driftlab_contract::text::with_causes(error);
    let kind = match error {
        LiveError::Unauthorized { .. } => "auth",
        LiveError::Timeout { .. } => "timeout",
        LiveError::Http(message) => {
            let lower = message.to_ascii_lowercase();
            if lower.contains("403") {
                "auth"
            } else if lower.contains("tls") || lower.contains("certificate") {
                "tls"
            } else if lower.contains("timed out") || lower.contains("timeout") {
                "timeout"
            } else {
                "http"
            }
        }
        LiveError::NotFound(_) | LiveError::Spawn { .. } | LiveError::Exited { .. } => "start",
        _ => "protocol",
    };
    (kind.to_string(), reason)
}

/// `${VAR}` in `text` replaced by the variable's value; an unset or empty variable is an error
/// naming it (its value is never shown).
pub fn expand(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let tail = &rest[start + 2..];
        let end = tail.find('}').ok_or_else(|| "an unclosed ${".to_string())?;
        let name = &tail[..end];
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(format!("${{{name}}} is not a variable name"));
        }
        match env(name).filter(|v| !v.is_empty()) {
            Some(value) => out.push_str(&value),
            None => return Err(format!("${{{name}}} is not set")),
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_are_read_and_unset_ones_named() {
        let env = |name: &str| (name == "TOKEN").then(|| "s3cret".to_string());
        assert_eq!(expand("Bearer ${TOKEN}", &env).unwrap(), "Bearer s3cret");
        let error = expand("Bearer ${OTHER}", &env).unwrap_err();
        assert!(
            error.contains("OTHER") && !error.contains("s3cret"),
            "{error}"
        );
        assert!(expand("${", &env).is_err());
    }

    #[test]
    fn a_spec_names_each_server_once_with_one_endpoint() {
        let ok = "[[server]]\nname = \"a\"\nurl = \"https://x.example/mcp\"\n";
        assert!(WatchSpec::parse(ok, "w.toml").is_ok());
        for (bad, says) in [
            ("", "no [[server]]"),
            ("[[server]]\nname = \"A\"\nurl = \"https://x\"\n", "lowercase"),
            ("[[server]]\nname = \"a\"\n", "exactly one"),
            (
                "[[server]]\nname = \"a\"\nurl = \"https://x\"\n[[server]]\nname = \"a\"\nurl = \"https://y\"\n",
                "twice",
            ),
            ("[[server]]\nname = \"a\"\nurl = \"ftp://x\"\n", "http"),
            (
                "[[server]]\nname = \"a\"\ncommand = [\"x\"]\ntransport = \"sse\"\n",
                "goes with a url",
            ),
            ("[[server]]\nname = \"a\"\nurl = \"https://x\"\nbogus = 1\n", "w.toml:4"),
        ] {
            let error = WatchSpec::parse(bad, "w.toml").unwrap_err();
            assert!(error.contains(says), "{bad:?}: {error}");
        }
    }
}
