//! Which package a server's argv runs, and at which version, where the argv says: a runner's
//! package spec (`npx -y @scope/name@1.2.3`, `uvx name==1.2.3`, `pipx run`, `docker run
//! image:tag`), or an installed program whose package records its version (a file under
//! `node_modules/`, a script of a Python environment).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A package and its version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Package {
    /// `npm`, `pypi` or `docker`.
    pub ecosystem: String,
    /// The package's name.
    pub name: String,
    /// As the argv pins it (`1.2.3`, `latest`) or as the installed package records it; absent
    /// when the argv leaves it to the runner (the newest, at each start).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub version: Option<String>,
    /// `argv` (a runner's package spec) or `installed` (read from the installed package).
    pub from: String,
}

impl Package {
    /// `npm @scope/name@1.2.3`, or `npm @scope/name (unpinned)`.
    pub fn describe(&self) -> String {
        match &self.version {
            Some(v) => format!("{} {}@{v}", self.ecosystem, self.name),
            None => format!("{} {} (unpinned)", self.ecosystem, self.name),
        }
    }
}

/// The package `argv` runs, if it names one.
pub(crate) fn of_argv(argv: &[String]) -> Option<Package> {
    let program = Path::new(argv.first()?)
        .file_name()?
        .to_string_lossy()
        .into_owned();
    let rest = &argv[1..];
    match program.as_str() {
        "npx" | "bunx" => runner_spec(rest, &["-p", "--package"], &[]).map(npm),
        "pnpm" | "yarn" if rest.first().is_some_and(|w| w == "dlx") => {
            runner_spec(&rest[1..], &["-p", "--package"], &[]).map(npm)
        }
        "uvx" => runner_spec(
            rest,
            &["--from"],
            &["--with", "--python", "-p", "--index-url"],
        )
        .map(pypi),
        "pipx" if rest.first().is_some_and(|w| w == "run") => {
            runner_spec(&rest[1..], &["--spec"], &["--python"]).map(pypi)
        }
        "docker" | "podman" if rest.first().is_some_and(|w| w == "run") => docker(&rest[1..]),
        "node" | "python" | "python3" => rest
            .iter()
            .find(|w| !w.starts_with('-'))
            .and_then(|script| installed(Path::new(script))),
        _ => installed(Path::new(&argv[0])),
    }
}

/// The package spec of a runner's arguments: the value of a `package` option, else the first
/// word that is not an option (options in `valued` take the next word).
fn runner_spec(args: &[String], package: &[&str], valued: &[&str]) -> Option<String> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if let Some((flag, value)) = word.split_once('=') {
            if package.contains(&flag) {
                return Some(value.to_string());
            }
            if flag.starts_with('-') {
                continue;
            }
        }
        if package.contains(&word.as_str()) {
            return words.next().cloned();
        }
        if valued.contains(&word.as_str()) {
            words.next();
            continue;
        }
        if !word.starts_with('-') {
            return Some(word.clone());
        }
    }
    None
}

/// `@scope/name@1.2.3` → npm name and version.
fn npm(spec: String) -> Package {
    let (name, version) = match spec.rfind('@') {
        Some(at) if at > 0 => (spec[..at].to_string(), Some(spec[at + 1..].to_string())),
        _ => (spec, None),
    };
    Package {
        ecosystem: "npm".into(),
        name,
        version,
        from: "argv".into(),
    }
}

/// `name==1.2.3` or `name@1.2.3` → PyPI name and version.
fn pypi(spec: String) -> Package {
    let (name, version) = match spec.split_once("==").or_else(|| spec.split_once('@')) {
        Some((name, version)) => (name.to_string(), Some(version.to_string())),
        None => (spec, None),
    };
    Package {
        ecosystem: "pypi".into(),
        name,
        version,
        from: "argv".into(),
    }
}

/// `docker run [options] image[:tag|@digest]`.
fn docker(args: &[String]) -> Option<Package> {
    const VALUED: &[&str] = &[
        "-e",
        "--env",
        "-v",
        "--volume",
        "--name",
        "-p",
        "--publish",
        "-w",
        "--workdir",
        "--network",
        "--mount",
        "--entrypoint",
        "-u",
        "--user",
        "--env-file",
        "--platform",
        "-l",
        "--label",
    ];
    let image = runner_spec(args, &[], VALUED)?;
    let (name, version) = match image.split_once('@') {
        Some((name, digest)) => (name.to_string(), Some(digest.to_string())),
        None => match image.rfind(':').filter(|&c| !image[c..].contains('/')) {
            Some(colon) => (
                image[..colon].to_string(),
                Some(image[colon + 1..].to_string()),
            ),
            None => (image, None),
        },
    };
    Some(Package {
        ecosystem: "docker".into(),
        name,
        version,
        from: "argv".into(),
    })
}

/// An installed program's package: the `package.json` above it inside `node_modules/`, or the
/// Python distribution whose console script it is.
fn installed(program: &Path) -> Option<Package> {
    let real = program.canonicalize().ok()?;
    node_package(&real).or_else(|| python_distribution(program))
}

fn node_package(file: &Path) -> Option<Package> {
    let manifest = node_package_dir(file)?.join("package.json");
    let text = driftlab_contract::fs::read_text(&manifest, 1024 * 1024).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    Some(Package {
        ecosystem: "npm".into(),
        name: value["name"].as_str()?.to_string(),
        version: value["version"].as_str().map(str::to_string),
        from: "installed".into(),
    })
}

/// The folder of the installed npm package `file` belongs to: the nearest folder above it with
/// a `package.json` that sits in `node_modules/` (or `node_modules/@scope/`).
pub(super) fn node_package_dir(file: &Path) -> Option<PathBuf> {
    let mut dir = file.parent();
    while let Some(d) = dir {
        let parent = d.parent().and_then(Path::file_name);
        let grandparent = d.parent().and_then(Path::parent).and_then(Path::file_name);
        let in_node_modules = parent.is_some_and(|p| p == "node_modules")
            || grandparent.is_some_and(|g| g == "node_modules");
        if in_node_modules && d.join("package.json").is_file() {
            return Some(d.to_path_buf());
        }
        dir = d.parent();
    }
    None
}

/// A script in a Python environment's `bin/`: the `*.dist-info` whose `entry_points.txt`
/// declares it as a console script.
fn python_distribution(program: &Path) -> Option<Package> {
    let info = python_dist_info(program)?;
    let metadata = std::fs::read_to_string(info.join("METADATA")).ok()?;
    let field = |key: &str| {
        metadata
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim().to_string())
    };
    Some(Package {
        ecosystem: "pypi".into(),
        name: field("Name:")?,
        version: field("Version:"),
        from: "installed".into(),
    })
}

/// The `*.dist-info` folder of the Python distribution whose console script `program` is.
pub(super) fn python_dist_info(program: &Path) -> Option<PathBuf> {
    let script = program.file_name()?.to_str()?;
    let environment = program.parent()?.parent()?;
    let lib = std::fs::read_dir(environment.join("lib")).ok()?;
    let site_packages: Vec<PathBuf> = lib
        .flatten()
        .map(|e| e.path().join("site-packages"))
        .filter(|p| p.is_dir())
        .collect();
    let declared = format!("{script} =");
    for site in site_packages {
        let mut infos: Vec<PathBuf> = std::fs::read_dir(&site)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "dist-info"))
            .collect();
        infos.sort();
        for info in infos {
            let Ok(entries) = std::fs::read_to_string(info.join("entry_points.txt")) else {
                continue;
            };
            let is_script = entries
                .lines()
                .any(|l| l.trim_start().starts_with(&declared));
            if is_script && info.join("METADATA").is_file() {
                return Some(info);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(words: &str) -> Option<Package> {
        of_argv(&words.split(' ').map(str::to_string).collect::<Vec<_>>())
    }

    fn spec(p: Option<Package>) -> (String, String, Option<String>) {
        let p = p.expect("a package");
        (p.ecosystem, p.name, p.version)
    }

    #[test]
    fn runner_specs() {
        let cases = [
            (
                "npx -y @modelcontextprotocol/server-memory@2025.9.25",
                (
                    "npm",
                    "@modelcontextprotocol/server-memory",
                    Some("2025.9.25"),
                ),
            ),
            (
                "npx -y @modelcontextprotocol/server-memory",
                ("npm", "@modelcontextprotocol/server-memory", None),
            ),
            (
                "npx --package=mcp-remote@0.1.2 mcp-remote https://x",
                ("npm", "mcp-remote", Some("0.1.2")),
            ),
            ("npx -p left-pad@1 run", ("npm", "left-pad", Some("1"))),
            (
                "pnpm dlx some-server@latest",
                ("npm", "some-server", Some("latest")),
            ),
            (
                "uvx mcp-server-time==2025.9.25 --local-timezone=UTC",
                ("pypi", "mcp-server-time", Some("2025.9.25")),
            ),
            (
                "uvx --python 3.12 mcp-server-git@1.0",
                ("pypi", "mcp-server-git", Some("1.0")),
            ),
            (
                "uvx --from mcp-server-fetch==1.2 mcp-server-fetch",
                ("pypi", "mcp-server-fetch", Some("1.2")),
            ),
            (
                "pipx run --spec black==24.1 black",
                ("pypi", "black", Some("24.1")),
            ),
            (
                "docker run -i --rm -e TOKEN ghcr.io/github/github-mcp-server:v1.2",
                ("docker", "ghcr.io/github/github-mcp-server", Some("v1.2")),
            ),
            (
                "docker run -i localhost:5000/img",
                ("docker", "localhost:5000/img", None),
            ),
        ];
        for (argv, (eco, name, version)) in cases {
            assert_eq!(
                spec(of(argv)),
                (
                    eco.to_string(),
                    name.to_string(),
                    version.map(str::to_string)
                ),
                "{argv}"
            );
        }
        assert_eq!(of("./bin/my-server --x"), None);
        assert_eq!(of("npx -y"), None);
    }

    #[test]
    fn installed_node_package_is_read_from_its_package_json() {
        let root = std::env::temp_dir().join(format!("driftlab-pkg-{}", std::process::id()));
        let package = root.join("node_modules/@acme/server");
        std::fs::create_dir_all(package.join("dist")).unwrap();
        std::fs::write(
            package.join("package.json"),
            r#"{"name": "@acme/server", "version": "3.1.4"}"#,
        )
        .unwrap();
        let script = package.join("dist/index.js");
        std::fs::write(&script, "").unwrap();
        let argv = vec!["node".to_string(), script.display().to_string()];
        assert_eq!(
            spec(of_argv(&argv)),
            ("npm".into(), "@acme/server".into(), Some("3.1.4".into()))
        );
        assert_eq!(of_argv(&argv).unwrap().from, "installed");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
