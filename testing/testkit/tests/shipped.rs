//! The test kit stays out of the installer: no package a root `cargo build` builds (the
//! workspace's default members and everything they depend on) is the test kit or the real
//! bootstrap host, so no test code and no test-only feature can reach a release binary.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

/// Packages that exist only for tests.
const TEST_ONLY: [&str; 2] = ["testkit", "real-host"];

/// The host's target triple (`rustc -vV`), so `cargo metadata` resolves only what this
/// machine would build.
fn host_triple() -> String {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("running rustc -vV");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let host = text.lines().find_map(|l| l.strip_prefix("host: "));
    host.expect("rustc -vV names the host").to_string()
}

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--filter-platform"])
        .arg(host_triple())
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("running cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata JSON")
}

/// Each package id's dependencies that are built with it (normal and build dependencies;
/// dev-dependencies only build tests).
fn built_edges(metadata: &Value) -> BTreeMap<String, Vec<String>> {
    let nodes = metadata["resolve"]["nodes"]
        .as_array()
        .expect("resolve.nodes");
    nodes
        .iter()
        .map(|node| {
            let deps = node["deps"].as_array().expect("deps");
            let built = deps
                .iter()
                .filter(|dep| {
                    let kinds = dep["dep_kinds"].as_array().expect("dep_kinds");
                    kinds.iter().any(|k| k["kind"].as_str() != Some("dev"))
                })
                .map(|dep| dep["pkg"].as_str().expect("pkg").to_string())
                .collect();
            (node["id"].as_str().expect("id").to_string(), built)
        })
        .collect()
}

#[test]
fn a_root_build_builds_no_test_only_package() {
    let metadata = metadata();
    let edges = built_edges(&metadata);
    let names: BTreeMap<&str, &str> = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let defaults = metadata["workspace_default_members"]
        .as_array()
        .expect("workspace_default_members (cargo 1.71+)");
    let mut seen = BTreeSet::new();
    let mut todo: Vec<String> = defaults
        .iter()
        .map(|id| id.as_str().unwrap().to_string())
        .collect();
    assert!(
        todo.iter().any(|id| names[id.as_str()] == "okd-install"),
        "the binary is a default member"
    );
    while let Some(id) = todo.pop() {
        if seen.insert(id.clone()) {
            todo.extend(edges[&id].iter().cloned());
        }
    }
    let built: BTreeSet<&str> = seen.iter().map(|id| names[id.as_str()]).collect();
    for test_only in TEST_ONLY {
        assert!(
            !built.contains(test_only),
            "a root `cargo build` builds {test_only}: a default member depends on it"
        );
    }
    assert!(
        built.contains("wait-for") && built.contains("gather") && built.contains("bundle-analysis")
    );
}
