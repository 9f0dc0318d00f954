//! What a census replays, read from TOML: the packages, which of their releases, how a release
//! starts, and where its registry is.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::version::{Scheme, Version};

/// A census as written in its spec file.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CensusSpec {
    /// Folder-safe id; results go to `results/<id>/` by default.
    pub id: String,
    /// The title of the report and figures; empty: the id.
    #[serde(default)]
    pub title: String,
    /// How long one release may take to answer `initialize` and list its contract.
    #[serde(default = "default_capture_timeout")]
    pub capture_timeout_seconds: u64,
    /// How long one release may take to install.
    #[serde(default = "default_install_timeout")]
    pub install_timeout_seconds: u64,
    /// The npm registry to install from (default: the public one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub npm_registry: Option<String>,
    /// The PyPI simple index to install from (default: the public one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pypi_index: Option<String>,
    /// Pins which diff rules judge a pair (`driftlab rules` lists each rule's set); without it,
    /// every rule of this build, and a rule added later changes the census's results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule_set: Option<String>,
    /// Only releases the registry published on or after this date (`YYYY-MM-DD`): "every
    /// release of the last 12 months" as a fixed date, so the census reruns the same. A release
    /// with no publish time is then left out. `last` still caps each package.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub released_since: Option<String>,
    /// The Python that makes each PyPI release's venv and lists its versions: a command on
    /// PATH (`python3.13`); default `python3`. A census runs one, and a package whose every
    /// release asks for a newer one (`Requires-Python`) has no installable version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<String>,
    /// The uv that installs each PyPI release with its dependencies as they were when the
    /// release was uploaded (`uv pip install --exclude-newer`): a path or a command on PATH;
    /// default `uv` on PATH. Without uv, pip installs them as they are today (the rows say so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uv: Option<String>,
    /// The packages, as `[[package]]` tables.
    #[serde(rename = "package", default)]
    pub packages: Vec<PackageSpec>,
}

fn default_capture_timeout() -> u64 {
    30
}

fn default_install_timeout() -> u64 {
    300
}

/// One package and how its releases start.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PackageSpec {
    /// `npm:NAME` or `pypi:NAME`.
    pub source: String,
    /// Which releases: these exact versions…
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<String>,
    /// …or the last N by version order (without either: every release).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<usize>,
    /// Leave pre-releases out when choosing (default: kept out).
    #[serde(default = "yes")]
    pub skip_pre_releases: bool,
    /// npm: the bin to run (default: the package's only bin, or the one named like it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bin: Option<String>,
    /// PyPI: the console script to run (default: the package's only console script, or the
    /// one named like it)…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// …or the module to run as `python -m MODULE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// Arguments after the script or module.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// The only environment the server gets besides `PATH`, `HOME` and `TMPDIR` (dummy
    /// credentials, say).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

fn yes() -> bool {
    true
}

/// A package's registry and name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Package {
    /// The registry.
    pub scheme: Scheme,
    /// The package's name.
    pub name: String,
}

impl Package {
    /// `npm:NAME` or `pypi:NAME`, as the spec and every table write it.
    pub fn key(&self) -> String {
        match self.scheme {
            Scheme::Npm => format!("npm:{}", self.name),
            Scheme::Pypi => format!("pypi:{}", self.name),
        }
    }

    /// Where its captures live inside `captures/`: `npm/@scope/name`, `pypi/name`.
    pub fn folder(&self) -> String {
        match self.scheme {
            Scheme::Npm => format!("npm/{}", self.name),
            Scheme::Pypi => format!("pypi/{}", self.name),
        }
    }
}

impl PackageSpec {
    /// The registry and name its `source` names.
    pub fn package(&self) -> Result<Package, String> {
        let (scheme, name) = match self.source.split_once(':') {
            Some(("npm", name)) => (Scheme::Npm, name),
            Some(("pypi", name)) => (Scheme::Pypi, name),
            _ => {
                return Err(format!(
                    "{:?}: a package is `npm:NAME` or `pypi:NAME`",
                    self.source
                ))
            }
        };
        // A name becomes a folder: nothing that could leave `captures/`.
        let safe = |part: &str| {
            !part.is_empty()
                && part != "."
                && part != ".."
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.@".contains(c))
        };
        let parts: Vec<&str> = name.split('/').collect();
        let scoped = scheme == Scheme::Npm && parts.len() == 2 && parts[0].starts_with('@');
        if !(parts.len() == 1 || scoped) || !parts.iter().all(|p| safe(p)) {
            return Err(format!("{:?}: not a package name", self.source));
        }
        Ok(Package {
            scheme,
            name: name.to_string(),
        })
    }

    /// The releases to take from `available` (every version the registry or the captures
    /// know), in version order; an unparsable version is left out with a note in `skipped`.
    pub fn choose(&self, scheme: Scheme, available: &[String]) -> Chosen {
        let mut skipped = Vec::new();
        let mut parsed: Vec<(Version, String)> = Vec::new();
        let wanted = |v: &String| self.versions.is_empty() || self.versions.contains(v);
        for text in available.iter().filter(|v| wanted(v)) {
            match Version::parse(scheme, text) {
                Ok(version)
                    if self.skip_pre_releases
                        && version.is_pre_release()
                        && self.versions.is_empty() => {}
                Ok(version) => parsed.push((version, text.clone())),
                Err(why) => skipped.push(why),
            }
        }
        parsed.sort();
        parsed.dedup_by(|a, b| a.0 == b.0);
        if let Some(last) = self.last {
            let start = parsed.len().saturating_sub(last);
            parsed.drain(..start);
        }
        let missing = self
            .versions
            .iter()
            .filter(|v| !available.contains(v))
            .cloned()
            .collect();
        Chosen {
            releases: parsed,
            skipped,
            missing,
        }
    }
}

/// A package's chosen releases.
pub struct Chosen {
    /// The chosen versions, parsed and as written, oldest first.
    pub releases: Vec<(Version, String)>,
    /// Versions that could not be parsed, each with why.
    pub skipped: Vec<String>,
    /// Versions the spec names that do not exist.
    pub missing: Vec<String>,
}

impl CensusSpec {
    /// The census of shard `index` of `count` (1-based): packages ⌊(K−1)·P/N⌋ … ⌊K·P/N⌋ − 1 of
    /// the spec's P, split as a study splits its surfaces.
    pub fn shard(&self, index: u64, count: u64) -> CensusSpec {
        let range = driftlab_record::Shard::of(index, count, self.packages.len() as u64);
        CensusSpec {
            packages: self.packages[range.first as usize..range.end as usize].to_vec(),
            ..self.clone()
        }
    }

    /// Reads a census spec's TOML text.
    pub fn parse(text: &str) -> Result<CensusSpec, String> {
        let spec: CensusSpec = toml::from_str(text).map_err(|e| e.to_string())?;
        if spec.id.is_empty()
            || !spec
                .id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            return Err(format!(
                "id {:?}: letters, digits, `-`, `_` and `.` only",
                spec.id
            ));
        }
        if let Some(set) = &spec.rule_set {
            let known = driftlab_check::check::rules::sets::ids();
            if !known.contains(&set.as_str()) {
                return Err(format!(
                    "rule_set {set:?}: not a rule set of this build (one of {})",
                    known.join(", ")
                ));
            }
        }
        if let Some(since) = &spec.released_since {
            let digits = |r: std::ops::Range<usize>| since[r].bytes().all(|b| b.is_ascii_digit());
            let dashes =
                since.as_bytes().get(4) == Some(&b'-') && since.as_bytes().get(7) == Some(&b'-');
            if since.len() != 10 || !dashes || !digits(0..4) || !digits(5..7) || !digits(8..10) {
                return Err(format!("released_since {since:?}: a date, YYYY-MM-DD"));
            }
        }
        if spec.packages.is_empty() {
            return Err("no [[package]]: a census needs at least one".into());
        }
        let mut seen = std::collections::BTreeSet::new();
        for package in &spec.packages {
            let p = package.package()?;
            if !seen.insert(p.key()) {
                return Err(format!("{}: listed twice", p.key()));
            }
            if !package.versions.is_empty() && package.last.is_some() {
                return Err(format!("{}: give `versions` or `last`, not both", p.key()));
            }
            match p.scheme {
                Scheme::Npm if package.script.is_some() || package.module.is_some() => {
                    return Err(format!("{}: an npm package starts by `bin`", p.key()))
                }
                Scheme::Pypi if package.bin.is_some() => {
                    return Err(format!(
                        "{}: a PyPI package starts by `script` or `module`",
                        p.key()
                    ))
                }
                Scheme::Pypi if package.script.is_some() && package.module.is_some() => {
                    return Err(format!("{}: give `script` or `module`, not both", p.key()))
                }
                _ => {}
            }
        }
        Ok(spec)
    }
}
