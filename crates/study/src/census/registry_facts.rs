//! What a registry says of each npm release beyond its version: when it was published (so it
//! can be installed as published) and whether it is deprecated. Asked on the host, as the
//! version list is (no package code runs), with npm's own configuration.

use std::collections::BTreeMap;

use super::online::npm_view;
use super::scratch::Scratch;
use super::spec::{CensusSpec, Package};
use super::version::Scheme;

/// When each npm release was published (`npm view NAME time`), by version; empty for PyPI,
/// whose index tells pip no upload time.
pub(crate) fn published_times(
    spec: &CensusSpec,
    package: &Package,
    scratch: &Scratch,
) -> Result<BTreeMap<String, String>, String> {
    if package.scheme != Scheme::Npm {
        return Ok(BTreeMap::new());
    }
    let text = npm_view(spec, scratch, package, &package.name, "time")?;
    let times: BTreeMap<String, serde_json::Value> = serde_json::from_str(&text)
        .map_err(|e| format!("npm view {} time: not a map of times: {e}", package.name))?;
    Ok(times
        .into_iter()
        .filter(|(version, _)| version != "created" && version != "modified")
        .filter_map(|(version, time)| Some((version, time.as_str()?.to_string())))
        .filter(|(_, time)| is_timestamp(time))
        .collect())
}

/// Whether the registry's `time` is a timestamp and nothing else: it becomes npm's `--before`
/// value, and a value npm could read as a flag (`--ignore-scripts=false`) must never get there.
fn is_timestamp(time: &str) -> bool {
    time.len() <= 40
        && time.starts_with(|c: char| c.is_ascii_digit())
        && time.contains('T')
        && time
            .chars()
            .all(|c| c.is_ascii_digit() || "-:T.Z+".contains(c))
}

/// The registry's deprecation message for one npm release (`npm view NAME@VERSION
/// deprecated`), or `None`: not deprecated, not npm, or the registry did not say.
pub(crate) fn deprecation(
    spec: &CensusSpec,
    package: &Package,
    version: &str,
    scratch: &Scratch,
) -> Option<String> {
    if package.scheme != Scheme::Npm {
        return None;
    }
    let release = format!("{}@{version}", package.name);
    let text = npm_view(spec, scratch, package, &release, "deprecated").ok()?;
    match serde_json::from_str(&text) {
        Ok(serde_json::Value::String(message)) if !message.is_empty() => Some(message),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_a_timestamp_is_taken_as_a_publish_time() {
        assert!(super::is_timestamp("2026-12-06T17:55:44.535Z"));
        assert!(super::is_timestamp("2025-05-08T02:03:10.165000+00:00"));
        for bad in [
            "--ignore-scripts=false",
            "2026-12-06 --foo",
            "",
            "yesterday",
            "T",
        ] {
            assert!(!super::is_timestamp(bad), "{bad}");
        }
    }
}
