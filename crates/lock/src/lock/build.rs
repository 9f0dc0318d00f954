//! A lockfile built from a client config's servers: each one captured, or skipped with the
//! reason (a server that needs a person's sign-in, or that the config cannot start). `driftlab
//! lock` prints what `note` hears.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use thiserror::Error;

use super::capture::{capture_each, Captured, NotCaptured, ToCapture};
use super::check::{artifact_of, package_of};
use super::Artifact;
use super::{LockedConfig, LockedServer, Lockfile, LOCKFILE_VERSION};
use crate::config::{ClientConfig, ConfiguredServer};

/// Servers that failed (could not start, crashed, broke the protocol): nothing is locked.
#[derive(Debug, Error)]
#[error("{} of {of} server(s) could not be captured; nothing was written", .failures.len())]
pub struct NotLocked {
    /// One line per failed server.
    pub failures: Vec<String>,
    /// How many servers were to be captured.
    pub of: usize,
}

/// Each chosen server's lock entry, in order, captured `jobs` at once; `note` hears one line per
/// server, in order.
pub fn lock_servers(
    chosen: &[&ConfiguredServer],
    timeout: Duration,
    max_bytes: usize,
    jobs: usize,
    note: &(dyn Fn(&str) + Sync),
) -> Result<Vec<LockedServer>, NotLocked> {
    let mut slots: Vec<Option<Result<LockedServer, String>>> = Vec::new();
    let mut runnable = Vec::new();
    let mut to_capture = Vec::new();
    for (i, server) in chosen.iter().enumerate() {
        match &server.start {
            Ok(start) => {
                slots.push(None);
                runnable.push(i);
                to_capture.push(ToCapture {
                    start,
                    written: &server.written,
                });
            }
            Err(why) => {
                note(&format!("{}: skipped: {why}", server.name));
                let launch = server.written.to_json();
                let entry = LockedServer::skipped(
                    &server.name,
                    launch,
                    package_of(server),
                    &why.to_string(),
                );
                slots.push(Some(Ok(entry)));
            }
        }
    }
    // The code each server runs, hashed before any of them starts (a server that writes into
    // its own folder at start would otherwise be pinned as it left it).
    let artifacts: Vec<Option<Artifact>> =
        runnable.iter().map(|&i| artifact_of(chosen[i])).collect();
    for (k, artifact) in artifacts.iter().enumerate() {
        if let Some(why) = artifact.as_ref().and_then(|a| a.not_pinned.as_ref()) {
            note(&format!(
                "warning: {}: its code is {why}",
                chosen[runnable[k]].name
            ));
        }
    }
    let slots = Mutex::new(slots);
    capture_each(&to_capture, timeout, max_bytes, jobs, &|k, result, took| {
        let server = chosen[runnable[k]];
        let entry = entry(server, result, took, artifacts[k].clone(), note)
            .map_err(|why| format!("server {:?}: {why}", server.name));
        slots.lock().unwrap_or_else(|e| e.into_inner())[runnable[k]] = Some(entry);
    });
    let mut entries = Vec::new();
    let mut failures = Vec::new();
    for slot in slots.into_inner().unwrap_or_else(|e| e.into_inner()) {
        match slot {
            Some(Ok(entry)) => entries.push(entry),
            Some(Err(failure)) => failures.push(failure),
            None => unreachable!("capture_each hands on every server"),
        }
    }
    if failures.is_empty() {
        Ok(entries)
    } else {
        Err(NotLocked {
            failures,
            of: chosen.len(),
        })
    }
}

/// A new lockfile of `config`'s servers, written at `lock_path`.
pub fn new_lockfile(
    config: &ClientConfig,
    lock_path: &Path,
    servers: Vec<LockedServer>,
) -> Lockfile {
    Lockfile {
        lockfile_version: LOCKFILE_VERSION.into(),
        digest_algorithm: driftlab_contract::digest::ALGORITHM.into(),
        config: Some(locked_config(config, lock_path)),
        discovered: None,
        servers,
    }
}

/// The lockfile of `lock --discover`: the configs `found` (in `project`) and their servers.
pub fn discovered_lockfile(
    found: &[(crate::config::discover::Place, ClientConfig)],
    project: &Path,
    lock_path: &Path,
    servers: Vec<LockedServer>,
) -> Lockfile {
    let configs = found
        .iter()
        .map(|(place, config)| LockedConfig {
            scope: Some(place.scope.as_str().to_string()),
            ..locked_config(config, lock_path)
        })
        .collect();
    Lockfile {
        lockfile_version: LOCKFILE_VERSION.into(),
        digest_algorithm: driftlab_contract::digest::ALGORITHM.into(),
        config: None,
        discovered: Some(super::Discovered {
            project: project.display().to_string(),
            configs,
        }),
        servers,
    }
}

/// The lock entry of a server from its capture: locked, or skipped when it needs a person's
/// sign-in.
fn entry(
    server: &ConfiguredServer,
    captured: Result<Captured, NotCaptured>,
    took: Duration,
    artifact: Option<Artifact>,
    note: &(dyn Fn(&str) + Sync),
) -> Result<LockedServer, NotCaptured> {
    let launch = server.written.to_json();
    let package = package_of(server);
    match captured {
        Ok(Captured { surface, protocol }) => {
            note(&format!(
                "{}: {} tools{}, protocol {}, in {:.2} s",
                server.name,
                surface.len(),
                package
                    .as_ref()
                    .map(|p| format!(" ({})", p.describe()))
                    .unwrap_or_default(),
                protocol.version.as_deref().unwrap_or(&protocol.era),
                took.as_secs_f64()
            ));
            if let Some(p) = package.as_ref().filter(|p| p.version.is_none()) {
                note(&format!(
                    "warning: {}: {} is not pinned to a version: the runner may start a newer \
                     one than was locked; pin it in the config",
                    server.name,
                    p.describe()
                ));
            }
            Ok(LockedServer::locked(
                &server.name,
                launch,
                package,
                artifact,
                protocol,
                &surface,
            ))
        }
        Err(NotCaptured::NeedsAuthorization(why)) => {
            note(&format!("{}: skipped: {why}", server.name));
            Ok(LockedServer::skipped(&server.name, launch, package, &why))
        }
        Err(failed) => Err(failed),
    }
}

fn locked_config(config: &ClientConfig, lock_path: &Path) -> LockedConfig {
    LockedConfig {
        path: super::config_path_for_lock(&config.path, lock_path),
        client: config.client.map(|c| c.as_str().to_string()),
        layout: config.layout.as_str().to_string(),
        scope: None,
    }
}
