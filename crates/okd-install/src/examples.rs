//! The example install-configs shipped in `examples/`, embedded so `--from-example` works
//! from any directory.

use anyhow::{Result, bail};

/// (name, text) of every shipped example.
const EXAMPLES: &[(&str, &str)] = &[
    (
        "single-node",
        include_str!("../../../examples/single-node.yaml"),
    ),
    (
        "compact-3-node",
        include_str!("../../../examples/compact-3-node.yaml"),
    ),
    (
        "ha-workers",
        include_str!("../../../examples/ha-workers.yaml"),
    ),
    (
        "proxy-trust-bundle",
        include_str!("../../../examples/proxy-trust-bundle.yaml"),
    ),
    (
        "disconnected-mirror",
        include_str!("../../../examples/disconnected-mirror.yaml"),
    ),
    (
        "dual-stack",
        include_str!("../../../examples/dual-stack.yaml"),
    ),
    (
        "image-mode",
        include_str!("../../../examples/image-mode.yaml"),
    ),
    (
        "bootstrap-pivot",
        include_str!("../../../examples/bootstrap-pivot.yaml"),
    ),
    (
        "baremetal-hosts",
        include_str!("../../../examples/baremetal-hosts.yaml"),
    ),
];

/// Names of the shipped examples.
pub(crate) fn names() -> Vec<&'static str> {
    EXAMPLES.iter().map(|(n, _)| *n).collect()
}

/// The text of example `name` (a trailing `.yaml` is accepted).
pub(crate) fn get(name: &str) -> Result<&'static str> {
    let name = name.trim_end_matches(".yaml");
    match EXAMPLES.iter().find(|(n, _)| *n == name) {
        Some((_, text)) => Ok(text),
        None => bail!(
            "no example named {name:?}; choose one of: {}",
            names().join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_example_file_is_embedded() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".yaml"))
            .map(|n| n.trim_end_matches(".yaml").to_string())
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = super::names().iter().map(|s| s.to_string()).collect();
        embedded.sort();
        assert_eq!(on_disk, embedded);
    }

    /// The README's list of examples names each of them.
    #[test]
    fn the_readme_names_every_example() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
        let readme = std::fs::read_to_string(path).expect("README.md");
        let section = readme
            .split_once("### Examples")
            .and_then(|(_, rest)| rest.split_once("\n#"))
            .map(|(section, _)| section)
            .expect("README.md has a section ### Examples");
        for name in super::names() {
            assert!(
                section.contains(&format!("`{name}`")),
                "README.md's examples do not name `{name}`"
            );
        }
    }
}
