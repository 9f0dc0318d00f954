//! A release is installed with its dependencies as they were when it was published (npm
//! `--before` its publish time), against the Verdaccio the test starts: a dependency whose later
//! release breaks at load breaks only the fixture releases published after it. And a release its
//! registry deprecated is marked, and its pairs are left out of the headline; `released_since`
//! keeps only the releases published from a date on.

use std::fs;

use serde_json::json;

use super::census::{
    census_run, local_registry, publish_fixture, publish_package, rows, spec, statuses,
};

/// Publishes the dependency: 1.0.0 loads, any later release throws at load.
fn publish_dependency(registry: &super::census::Registry, work: &std::path::Path, release: &str) {
    let body = match release {
        "1.0.0" => "module.exports = 1;\n".to_string(),
        _ => format!("throw new Error('driftlab-census-dep {release} is broken');\n"),
    };
    let package = json!({ "name": "driftlab-census-dep", "version": release, "main": "index.js" });
    publish_package(registry, work, &package, &[("index.js", body)]);
}

#[test]
fn each_release_gets_its_dependencies_as_they_were_when_it_was_published() {
    let Some((dir, registry)) = local_registry() else {
        return;
    };
    let tools = json!([{ "name": "ping", "inputSchema": { "type": "object" } }]);
    let contract = json!({ "tools": tools, "requires": "driftlab-census-dep" });
    let dependencies = json!({ "driftlab-census-dep": "^1.0.0" });
    publish_dependency(&registry, dir.path(), "1.0.0");
    publish_fixture(
        &registry,
        dir.path(),
        "1.0.0",
        contract.clone(),
        dependencies.clone(),
    );
    // Publish times are kept to the millisecond: keep the next ones apart.
    std::thread::sleep(std::time::Duration::from_millis(50));
    publish_dependency(&registry, dir.path(), "1.1.0");
    std::thread::sleep(std::time::Duration::from_millis(50));
    publish_fixture(&registry, dir.path(), "1.0.1", contract, dependencies);
    let spec = spec(
        dir.path(),
        Some(&registry.url),
        "[[package]]\nsource = \"npm:driftlab-census-fixture\"\n",
    );
    let out = dir.path().join("out");
    let (_, releases) = census_run(&spec, &out);
    // Today the dependency's 1.1.0 would break both; as published, only 1.0.1 has it.
    assert_eq!(
        statuses(&releases),
        [
            ("npm:driftlab-census-fixture", "1.0.0", "captured"),
            ("npm:driftlab-census-fixture", "1.0.1", "capture-failed"),
        ]
    );
    assert!(
        releases[1][12].contains("driftlab-census-dep 1.1.0 is broken"),
        "{:?}",
        releases[1]
    );
    // Each row names the time it was installed as of: its own publish time.
    let published = |release: &str| -> String {
        let package = registry.url.clone() + "driftlab-census-fixture";
        let body = ureq::get(&package)
            .call()
            .unwrap()
            .body_mut()
            .read_to_string()
            .unwrap();
        let doc: serde_json::Value = serde_json::from_str(&body).unwrap();
        doc["time"][release].as_str().unwrap().to_string()
    };
    assert_eq!(releases[0][8], published("1.0.0"), "{:?}", releases[0]);
    assert_eq!(releases[1][8], published("1.0.1"), "{:?}", releases[1]);
    let summary: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["releases_installed_as_published"], 2);
    assert_eq!(summary["pairs"], 0);
    assert!(rows(&out.join("pairs.csv")).is_empty());
}

/// A local registry holding fixture releases 1.0.0 and 1.1.0 (a parameter renamed between them).
fn two_releases() -> Option<(tempfile::TempDir, super::census::Registry)> {
    let (dir, registry) = local_registry()?;
    for release in ["1.0.0", "1.1.0"] {
        let tools = super::census::tools(release);
        publish_fixture(
            &registry,
            dir.path(),
            release,
            json!({ "tools": tools }),
            json!({}),
        );
    }
    Some((dir, registry))
}

#[test]
fn a_deprecated_release_is_marked_and_left_out_of_the_headline() {
    let Some((dir, registry)) = two_releases() else {
        return;
    };
    registry.deprecate("driftlab-census-fixture@1.1.0", "use 1.0.0", dir.path());
    let spec = spec(
        dir.path(),
        Some(&registry.url),
        "[[package]]\nsource = \"npm:driftlab-census-fixture\"\n",
    );
    let out = dir.path().join("out");
    let (headline, releases) = census_run(&spec, &out);
    let deprecated: Vec<&str> = releases.iter().map(|r| r[9].as_str()).collect();
    assert_eq!(deprecated, ["", "use 1.0.0"]);
    // The pair breaks (a parameter renamed under a minor bump), but its new release is
    // deprecated: it is counted apart, not among the pairs whose version promised.
    let pairs = rows(&out.join("pairs.csv"));
    assert_eq!(pairs[0][4], "breaking");
    assert!(
        headline.starts_with("0 of 0 release pairs whose SemVer version promised")
            && headline
                .ends_with(", 1 of 1 pairs with a release its registry deprecated or yanked."),
        "{headline}"
    );
}

#[test]
fn released_since_keeps_only_the_releases_published_from_that_date_on() {
    let Some((dir, registry)) = two_releases() else {
        return;
    };
    // Both were published today: a date long past keeps both, one far ahead keeps none.
    for (since, expected) in [("2000-01-01", 2), ("2999-01-01", 0)] {
        let spec = spec(
            dir.path(),
            Some(&registry.url),
            &format!(
                "released_since = \"{since}\"\n[[package]]\nsource = \"npm:driftlab-census-fixture\"\n"
            ),
        );
        let out = dir.path().join(format!("out-{since}"));
        let (_, releases) = census_run(&spec, &out);
        assert_eq!(releases.len(), expected, "since {since}: {releases:?}");
    }
}
