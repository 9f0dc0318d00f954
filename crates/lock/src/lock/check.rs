//! What `check --lock` decides before and after capturing: which servers run and what happens
//! to the others, and whether the config now starts a server otherwise than the lock recorded.
//! Also what `lock --update` keeps.

use serde_json::Value;

use super::{Artifact, LockedServer, Lockfile, Package};
use crate::config::{ClientConfig, ConfiguredServer, Start, Written};
use driftlab_check::check::rules::{ArtifactChanged, LaunchChanged};
use driftlab_check::check::Finding;

/// What happens to one server of the run.
pub enum Plan<'c> {
    /// Capture and gate it: the server and its index in the lockfile.
    Run(&'c ConfiguredServer, usize),
    /// Leave it out: it cannot be started as the config writes it (why).
    Skipped(String),
    /// Fail: the lock does not vouch for it (why).
    Unlocked(String),
    /// Fail: the lock has it and the config no longer does.
    Removed,
}

/// A `--server` that names a server neither file has.
#[derive(Debug, thiserror::Error)]
#[error("--server {0}: neither the config nor the lockfile has such a server")]
pub struct NoSuchServer(pub String);

/// Which servers run and what happens to the others: the config's servers in its order, then
/// those only the lock has (`--server` narrows both).
pub fn plan<'c>(
    lock: &Lockfile,
    config: &'c ClientConfig,
    only: &[String],
) -> Result<Vec<(String, Plan<'c>)>, NoSuchServer> {
    for name in only {
        if config.server(name).is_none() && lock.server(name).is_none() {
            return Err(NoSuchServer(name.clone()));
        }
    }
    let wanted = |name: &str| only.is_empty() || only.iter().any(|n| n == name);
    let mut plans = Vec::new();
    for configured in config.servers.iter().filter(|s| wanted(&s.name)) {
        let name = configured.name.clone();
        let index = lock.servers.iter().position(|s| s.name == name);
        let plan = match (index, &configured.start) {
            (None, _) => Plan::Unlocked(format!(
                "the config has it and the lockfile does not (`driftlab lock --update {name}` records it)"
            )),
            (Some(_), Err(why)) => Plan::Skipped(why.to_string()),
            (Some(i), Ok(_)) => match &lock.servers[i].skipped {
                Some(why) => Plan::Unlocked(format!(
                    "locked as skipped ({why}); it can start now: `driftlab lock --update {name}` records it"
                )),
                None => Plan::Run(configured, i),
            },
        };
        plans.push((name, plan));
    }
    for locked in lock.servers.iter().filter(|s| wanted(&s.name)) {
        if config.server(&locked.name).is_none() {
            plans.push((locked.name.clone(), Plan::Removed));
        }
    }
    Ok(plans)
}

/// `launch-changed` when the config starts the server otherwise than the lock recorded.
pub(crate) fn launch_change(
    locked: &LockedServer,
    configured: &ConfiguredServer,
) -> Option<Finding> {
    let launch = configured.written.to_json();
    let package = package_of(configured);
    let same_package = |a: &Option<Package>, b: &Option<Package>| {
        let key = |p: &Option<Package>| {
            p.as_ref()
                .map(|p| (p.ecosystem.clone(), p.name.clone(), p.version.clone()))
        };
        key(a) == key(b)
    };
    if locked.launch == launch && same_package(&locked.package, &package) {
        return None;
    }
    Some(LaunchChanged::finding(
        describe(&locked.launch, locked.package.as_ref()),
        describe(&launch, package.as_ref()),
    ))
}

/// `artifact-changed` when the code under an unchanged launch is not what was locked (only
/// when the lock recorded an artifact and the launch is the same: a changed launch is its own
/// finding). The code is hashed as the lock recorded it (a lockfile from before closures keeps
/// its per-package digest), and the finding names the parts that changed.
pub(crate) fn artifact_change(
    locked: &LockedServer,
    configured: &ConfiguredServer,
) -> Option<Finding> {
    let pinned = locked.artifact.as_ref()?;
    if pinned.not_pinned.is_some() {
        return None;
    }
    let now = match &configured.start {
        Ok(Start::Stdio { argv, cwd, .. }) => {
            super::artifact::of_argv_as(argv, cwd.as_deref(), &pinned.kind)
        }
        _ => None,
    };
    if now.as_ref().is_some_and(|a| pinned.same_code(a)) {
        return None;
    }
    let parts = now
        .as_ref()
        .map(|now| pinned.changed_parts(now))
        .unwrap_or_default();
    let what = match parts.is_empty() {
        true => format!("{} {}", pinned.kind, pinned.of),
        false => format!(
            "{} {} (changed: {})",
            pinned.kind,
            pinned.of,
            parts.join(", ")
        ),
    };
    let now = now.map(|a| match a.not_pinned {
        Some(why) => why,
        None => a.digest,
    });
    Some(ArtifactChanged::finding(
        &what,
        &pinned.digest,
        now.as_deref(),
    ))
}

/// The artifact a server's argv runs (its expanded argv where it can be started).
pub(crate) fn artifact_of(server: &ConfiguredServer) -> Option<Artifact> {
    match &server.start {
        Ok(Start::Stdio { argv, cwd, .. }) => super::artifact::of_argv(argv, cwd.as_deref()),
        _ => None,
    }
}

/// `npx -y x@1 [npm x@1]`, on one line.
pub fn describe(launch: &Value, package: Option<&Package>) -> String {
    let what = match (launch.get("command"), launch.get("url")) {
        (Some(Value::Array(argv)), _) => argv
            .iter()
            .map(|w| w.as_str().unwrap_or_default())
            .collect::<Vec<_>>()
            .join(" "),
        (_, Some(Value::String(url))) => url.clone(),
        _ => launch.to_string(),
    };
    let what = driftlab_contract::text::shorten(&what, 160);
    match package {
        Some(p) => format!("{what} [{}]", p.describe()),
        None => what,
    }
}

/// The package a server's argv runs (its expanded argv where it can be started).
pub(crate) fn package_of(server: &ConfiguredServer) -> Option<Package> {
    match (&server.start, &server.written) {
        (Ok(Start::Stdio { argv, .. }), _) => super::package::of_argv(argv),
        (Err(_), Written::Command(argv)) => super::package::of_argv(argv),
        _ => None,
    }
}

/// `old` with `entries` in place of their namesakes (a server new to the lock goes last).
pub fn updated(mut old: Lockfile, entries: Vec<LockedServer>, config: &ClientConfig) -> Lockfile {
    for entry in entries {
        match old.servers.iter_mut().find(|s| s.name == entry.name) {
            Some(slot) => *slot = entry,
            None => old.servers.push(entry),
        }
    }
    if let Some(recorded) = old.config.as_mut() {
        recorded.layout = config.layout.as_str().to_string();
    }
    old
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configured(argv: &[&str]) -> ConfiguredServer {
        let argv: Vec<String> = argv.iter().map(|w| w.to_string()).collect();
        ConfiguredServer {
            name: "s".into(),
            written: Written::Command(argv.clone()),
            start: Ok(Start::Stdio {
                argv,
                env: Vec::new(),
                cwd: None,
            }),
            pointer: "/mcpServers/s".into(),
        }
    }

    fn locked(argv: &[&str]) -> LockedServer {
        let server = configured(argv);
        LockedServer::skipped("s", server.written.to_json(), package_of(&server), "")
    }

    #[test]
    fn launch_changed_names_the_old_and_new_launch_and_package() {
        let npx = ["npx", "-y", "@acme/server@1.0.0"];
        assert!(launch_change(&locked(&npx), &configured(&npx)).is_none());
        let bumped = launch_change(
            &locked(&npx),
            &configured(&["npx", "-y", "@acme/server@1.1.0"]),
        )
        .expect("a new version is a changed launch");
        assert_eq!(bumped.rule, "launch-changed");
        assert_eq!(bumped.severity, driftlab_check::check::Severity::Unknown);
        assert_eq!(
            bumped.old.as_deref(),
            Some("npx -y @acme/server@1.0.0 [npm @acme/server@1.0.0]")
        );
        assert_eq!(
            bumped.new.as_deref(),
            Some("npx -y @acme/server@1.1.0 [npm @acme/server@1.1.0]")
        );
        let args = launch_change(
            &locked(&npx),
            &configured(&["npx", "-y", "@acme/server@1.0.0", "--ro"]),
        );
        assert!(args.is_some());
    }
}
