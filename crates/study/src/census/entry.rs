//! Which program an installed release starts: an npm package's bin, a PyPI package's console
//! script. What the install wrote is read as untrusted text.

use std::path::Path;

use super::spec::Package;

/// The bin of an installed npm package, relative to the folder it was installed in (a bin is a
/// script, run with node).
pub(super) fn npm_bin(
    folder: &Path,
    package: &Package,
    wanted: Option<&str>,
) -> Result<String, String> {
    let relative = Path::new("node_modules").join(&package.name);
    let dir = folder.join(&relative);
    let manifest: serde_json::Value =
        driftlab_contract::fs::read_json(&dir.join("package.json")).map_err(|e| e.to_string())?;
    let short = package.name.rsplit('/').next().unwrap_or(&package.name);
    let path = match manifest.get("bin") {
        Some(serde_json::Value::String(path)) => path.clone(),
        Some(serde_json::Value::Object(bins)) => {
            let pick = match wanted {
                Some(name) => bins.get(name),
                None if bins.len() == 1 => bins.values().next(),
                None => bins.get(short),
            };
            pick.and_then(|v| v.as_str())
                .map(String::from)
                .ok_or_else(|| {
                    format!(
                        "bins {:?}: say which with `bin`",
                        bins.keys().collect::<Vec<_>>()
                    )
                })?
        }
        _ => return Err(format!("{} has no bin to run", package.name)),
    };
    Ok(relative.join(path).to_string_lossy().into_owned())
}

/// The console script of an installed PyPI package (from its `entry_points.txt`): its only
/// one, or the one named like it. The file was written by the release's install, so it is read
/// as untrusted text: at most 1 MiB, and a name that could leave `bin/` is refused.
pub(super) fn pypi_script(venv: &Path, package: &Package) -> Result<String, String> {
    let normal = |name: &str| {
        name.to_ascii_lowercase()
            .split(|c| "-_.".contains(c))
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join("-")
    };
    let wanted = normal(&package.name);
    let dist_info = std::fs::read_dir(venv.join("lib"))
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|python| std::fs::read_dir(python.path().join("site-packages")))
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .find(|path| {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            name.strip_suffix(".dist-info")
                .and_then(|stem| stem.rsplit_once('-'))
                .is_some_and(|(dist, _)| normal(dist) == wanted)
        })
        .ok_or_else(|| format!("{}: no .dist-info installed", package.name))?;
    let mut text = String::new();
    let file = std::fs::File::open(dist_info.join("entry_points.txt")).map_err(|_| {
        format!(
            "{} declares no console script: say `script` or `module`",
            package.name
        )
    })?;
    std::io::Read::read_to_string(&mut std::io::Read::take(file, 1 << 20), &mut text)
        .map_err(|e| format!("{}: entry_points.txt: {e}", package.name))?;
    let scripts = console_scripts(&text);
    let pick = match scripts.as_slice() {
        [only] => Some(only.clone()),
        _ => scripts.iter().find(|s| normal(s) == wanted).cloned(),
    };
    pick.ok_or_else(|| format!("console scripts {scripts:?}: say which with `script`"))
}

/// The names under `[console_scripts]` in an `entry_points.txt`, those a path can hold only.
fn console_scripts(text: &str) -> Vec<String> {
    let mut inside = false;
    let mut names = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[console_scripts]";
        } else if let (true, Some((name, _))) = (inside, line.split_once('=')) {
            let name = name.trim();
            let safe = !name.starts_with('.')
                && !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
            if safe {
                names.push(name.to_string());
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    #[test]
    fn console_scripts_are_read_from_their_section_only_and_safe_names_only() {
        let text = "[gui_scripts]\nviewer = a:b\n\n[console_scripts]\nmcp-server-git = mcp_server_git:main\n../escape = x:y\n.hidden = x:y\nother_tool=m:f\n[other]\nz = q:r\n";
        assert_eq!(
            super::console_scripts(text),
            ["mcp-server-git", "other_tool"]
        );
    }
}
