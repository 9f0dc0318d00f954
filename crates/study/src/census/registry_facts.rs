//! What a registry says of each release beyond its version: when it was published (so a
//! census can choose releases by date, and npm install one as published) and whether it was
//! withdrawn (deprecated on npm, yanked on PyPI). Asked on the host, as the version list is
//! (no package code runs): npm with its own configuration, a PyPI index through its JSON
//! simple API (PEP 691, upload times per PEP 700).

use std::collections::BTreeMap;
use std::time::Duration;

use super::online::{index, npm_view};
use super::scratch::Scratch;
use super::spec::{CensusSpec, Package};
use super::version::Scheme;

/// What a registry says of a package's releases, by version as the registry writes it.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    /// When each release was published (a validated timestamp).
    pub published: BTreeMap<String, String>,
    /// PyPI releases whose every file is yanked, with the reason given (may be empty).
    pub yanked: BTreeMap<String, String>,
}

/// The registry's facts about `package`'s releases: npm `npm view NAME time`; PyPI the
/// index's JSON page (an index that serves only HTML, as pypiserver does, gives none).
pub(crate) fn facts(
    spec: &CensusSpec,
    package: &Package,
    scratch: &Scratch,
) -> Result<Facts, String> {
    match package.scheme {
        Scheme::Npm => {
            let text = npm_view(spec, scratch, package, &package.name, "time")?;
            Ok(Facts {
                published: npm_times(&package.name, &text)?,
                ..Facts::default()
            })
        }
        Scheme::Pypi => {
            let name = pep503_name(&package.name);
            let url = format!("{}/{name}/", index(spec).trim_end_matches('/'));
            let timeout = Duration::from_secs(spec.install_timeout_seconds);
            // The machine's own roots, as pip trusts them: a registry behind a company's
            // proxy is signed by a CA the bundled roots lack.
            let tls = ureq::tls::TlsConfig::builder()
                .root_certs(ureq::tls::RootCerts::PlatformVerifier)
                .build();
            let agent: ureq::Agent = ureq::Agent::config_builder()
                .timeout_global(Some(timeout))
                .http_status_as_error(false)
                .max_redirects(0)
                .tls_config(tls)
                .build()
                .into();
            let mut response = agent
                .get(&url)
                .header("Accept", PEP_691)
                .call()
                .map_err(|e| format!("{url}: {e}"))?;
            let status = response.status();
            let json = driftlab_live::live::http::header(&response, "content-type")
                .is_some_and(|t| t.starts_with(PEP_691));
            if !status.is_success() || !json {
                return Err(format!(
                    "{url}: HTTP {status}, {} (no PEP 691 JSON page: no upload times)",
                    match json {
                        true => "JSON",
                        false => "not JSON",
                    }
                ));
            }
            let body = response
                .body_mut()
                .with_config()
                .limit(64 * 1024 * 1024)
                .read_to_vec()
                .map_err(|e| format!("{url}: {e}"))?;
            pypi_facts(&body).map_err(|e| format!("{url}: {e}"))
        }
    }
}

/// The versions published on or after `since` (a date, `YYYY-MM-DD`), and how many were left
/// out for want of a publish time.
pub(crate) fn released_since(
    versions: &[String],
    facts: &Facts,
    since: &str,
) -> (Vec<String>, usize) {
    let mut undated = 0;
    let kept = versions
        .iter()
        .filter(|version| match facts.published.get(version.as_str()) {
            // Timestamps and the date are both ISO 8601: text order is time order.
            Some(time) => time.as_str() >= since,
            None => {
                undated += 1;
                false
            }
        })
        .cloned()
        .collect();
    (kept, undated)
}

/// The media type of a PEP 691 JSON page.
const PEP_691: &str = "application/vnd.pypi.simple.v1+json";

fn npm_times(name: &str, text: &str) -> Result<BTreeMap<String, String>, String> {
    let times: BTreeMap<String, serde_json::Value> = serde_json::from_str(text)
        .map_err(|e| format!("npm view {name} time: not a map of times: {e}"))?;
    Ok(times
        .into_iter()
        .filter(|(version, _)| version != "created" && version != "modified")
        .filter_map(|(version, time)| Some((version, time.as_str()?.to_string())))
        .filter(|(_, time)| is_timestamp(time))
        .collect())
}

#[derive(serde::Deserialize)]
struct Page {
    files: Vec<File>,
}

#[derive(serde::Deserialize)]
struct File {
    filename: String,
    #[serde(rename = "upload-time", default)]
    upload_time: Option<String>,
    #[serde(default)]
    yanked: serde_json::Value,
}

/// A project's name as the simple index spells its page (PEP 503): lowercase, each run of `-`,
/// `_` and `.` one `-`. An index redirects other spellings, and the census follows no redirect.
fn pep503_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '-' | '_' | '.' if out.ends_with('-') => {}
            '-' | '_' | '.' => out.push('-'),
            c => out.push(c.to_ascii_lowercase()),
        }
    }
    out
}

/// A release's publish time is its first file's upload; it is yanked when every file is.
fn pypi_facts(body: &[u8]) -> Result<Facts, String> {
    let page: Page =
        serde_json::from_slice(body).map_err(|e| format!("not a PEP 691 page: {e}"))?;
    let mut facts = Facts::default();
    let mut files_left: BTreeMap<String, usize> = BTreeMap::new();
    let mut yanked: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for file in &page.files {
        let Some(version) = version_of(&file.filename) else {
            continue;
        };
        *files_left.entry(version.clone()).or_default() += 1;
        if let Some(time) = file.upload_time.as_deref().filter(|t| is_timestamp(t)) {
            let earliest = facts
                .published
                .entry(version.clone())
                .or_insert(time.into());
            if time < earliest.as_str() {
                *earliest = time.to_string();
            }
        }
        let reason = match &file.yanked {
            serde_json::Value::Bool(true) => Some(String::new()),
            serde_json::Value::String(reason) => Some(reason.clone()),
            _ => None,
        };
        if let Some(reason) = reason {
            let entry = yanked.entry(version).or_default();
            entry.0 += 1;
            if entry.1.is_empty() {
                entry.1 = reason;
            }
        }
    }
    facts.yanked = yanked
        .into_iter()
        .filter(|(version, (n, _))| files_left.get(version) == Some(n))
        .map(|(version, (_, reason))| (version, reason))
        .collect();
    Ok(facts)
}

/// The version a wheel or sdist file name carries (`name-1.2.0-py3-none-any.whl`,
/// `name-1.2.0.tar.gz`), or `None` for another kind of file.
fn version_of(filename: &str) -> Option<String> {
    if let Some(stem) = filename.strip_suffix(".whl") {
        return stem.split('-').nth(1).map(String::from);
    }
    let stem = [".tar.gz", ".zip", ".tar.bz2"]
        .iter()
        .find_map(|ext| filename.strip_suffix(ext))?;
    stem.rsplit_once('-').map(|(_, v)| v.to_string())
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
    /// A PyPI JSON page in the shape pypi.org serves (mcp-server-fetch's, cut to three
    /// releases, one of them yanked in one of its two files, one in both).
    const PAGE: &str = r#"{"meta": {"api-version": "1.1"}, "name": "mcp-server-fetch", "files": [
      {"filename": "mcp_server_fetch-0.1.0-py3-none-any.whl", "upload-time": "2024-11-22T13:32:01.394305Z", "yanked": false},
      {"filename": "mcp_server_fetch-0.1.0.tar.gz", "upload-time": "2024-11-22T13:32:03.159630Z", "yanked": false},
      {"filename": "mcp_server_fetch-0.1.1-py3-none-any.whl", "upload-time": "2024-11-25T10:00:00.000000Z", "yanked": "broken metadata"},
      {"filename": "mcp_server_fetch-0.1.1.tar.gz", "upload-time": "2024-11-25T09:59:00.000000Z", "yanked": false},
      {"filename": "mcp_server_fetch-0.2.0-py3-none-any.whl", "upload-time": "2025-01-02T00:00:00Z", "yanked": true},
      {"filename": "mcp-server-fetch-0.2.0.tar.gz", "upload-time": "--before=x", "yanked": "wrong entry point"}
    ], "versions": ["0.1.0", "0.1.1", "0.2.0"]}"#;

    #[test]
    fn a_pypi_page_gives_first_upload_times_and_wholly_yanked_releases() {
        let facts = super::pypi_facts(PAGE.as_bytes()).unwrap();
        let published: Vec<(&str, &str)> = facts
            .published
            .iter()
            .map(|(v, t)| (v.as_str(), t.as_str()))
            .collect();
        assert_eq!(
            published,
            [
                ("0.1.0", "2024-11-22T13:32:01.394305Z"),
                ("0.1.1", "2024-11-25T09:59:00.000000Z"),
                ("0.2.0", "2025-01-02T00:00:00Z"),
            ]
        );
        // 0.1.1 keeps a file; 0.2.0 has none left, and the reason it was given is kept.
        assert_eq!(facts.yanked.len(), 1);
        assert_eq!(facts.yanked["0.2.0"], "wrong entry point");
    }

    #[test]
    fn releases_are_kept_from_a_date_on_and_undated_ones_counted() {
        let facts = super::pypi_facts(PAGE.as_bytes()).unwrap();
        let versions: Vec<String> = ["0.1.0", "0.1.1", "0.2.0", "0.3.0"]
            .map(String::from)
            .into();
        let (kept, undated) = super::released_since(&versions, &facts, "2024-11-25");
        assert_eq!(kept, ["0.1.1", "0.2.0"]);
        assert_eq!(undated, 1);
    }

    #[test]
    fn an_index_page_is_named_as_pep_503_normalises() {
        assert_eq!(super::pep503_name("Mysql_MCP.Server"), "mysql-mcp-server");
        assert_eq!(super::pep503_name("a--b__c"), "a-b-c");
        assert_eq!(super::pep503_name("plain"), "plain");
    }

    #[test]
    fn a_file_name_gives_its_version() {
        assert_eq!(
            super::version_of("mcp_server_git-2025.1.14-py3-none-any.whl").as_deref(),
            Some("2025.1.14")
        );
        assert_eq!(
            super::version_of("mcp-server-git-0.6.2.tar.gz").as_deref(),
            Some("0.6.2")
        );
        assert_eq!(super::version_of("notes.txt"), None);
    }

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
