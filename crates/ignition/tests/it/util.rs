//! Helpers shared by the test modules.

use std::path::Path;

use ignition::{Config, NodeFile, TemplateContext, TemplateTree, Variant, bootstrap_config_from};
use tempfile::TempDir;

/// Write `files` (path relative to the tree root, contents) into a fresh template tree.
pub(crate) fn fixture_tree(files: &[(&str, &str)]) -> (TempDir, TemplateTree) {
    let dir = tempfile::tempdir().expect("temp dir");
    for (rel, contents) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("has parent")).expect("mkdir");
        std::fs::write(&path, contents).expect("write fixture");
    }
    let tree = TemplateTree::Disk(dir.path().to_path_buf());
    (dir, tree)
}

/// A small tree covering every layout rule: scripts, append files, registries.conf,
/// templates, docs to skip, units, a drop-in-only unit and a variant directory.
pub(crate) const STANDARD_TREE: &[(&str, &str)] = &[
    ("README.md", "docs\n"),
    ("common/CONTEXT.md", "docs\n"),
    (
        "common/files/usr/local/bin/bootkube.sh.j2",
        "#!/bin/bash\necho {{ release_image }}\n",
    ),
    ("common/files/etc/motd", "This is a bootstrap node.\n"),
    (
        "common/files/etc/containers/registries.conf.j2",
        "{% for r in registries %}[[registry]]\nlocation = \"{{ r.source }}\"\n{% endfor %}",
    ),
    (
        "common/files/root/.docker/config.json.j2",
        "{{ pull_secret }}",
    ),
    ("common/files/etc/kubernetes/README.md", "not shipped\n"),
    (
        "common/units/kubelet.service",
        "[Service]\nExecStart=/usr/local/bin/kubelet.sh\n[Install]\nWantedBy=multi-user.target\n",
    ),
    (
        "common/units/bootkube.service.j2",
        "[Unit]\nDescription=bootkube for {{ names.cluster_name }}\n",
    ),
    (
        "common/units/systemd-journal-gatewayd.service.d/certs.conf",
        "[Service]\nExecStart=\n",
    ),
    (
        "common/units/systemd-journal-gatewayd.socket",
        "[Socket]\nListenStream=19531\n[Install]\nWantedBy=sockets.target\n",
    ),
    (
        "single-node/files/usr/local/bin/install-to-disk.sh.j2",
        "#!/bin/bash\ncoreos-installer install {{ bootstrap_in_place.installation_disk }}\n",
    ),
    (
        "single-node/files/etc/motd",
        "This is a single-node bootstrap.\n",
    ),
    (
        "single-node/units/install-to-disk.service",
        "[Service]\nExecStart=/usr/local/bin/install-to-disk.sh\n[Install]\nWantedBy=multi-user.target\n",
    ),
    (
        "pivot/units/bootstrap-pivot.service",
        "[Service]\nType=oneshot\n[Install]\nWantedBy=multi-user.target\n",
    ),
];

/// The example context with a registry mirror.
pub(crate) fn context() -> TemplateContext {
    let mut ctx = TemplateContext::example();
    ctx.registries = vec![ignition::RegistryContext {
        source: "quay.io/okd".into(),
        mirrors: vec!["mirror.example.com/okd".into()],
        blocked: false,
    }];
    ctx
}

/// [`context`] with the installation disk the variant needs.
pub(crate) fn context_for(variant: Variant) -> TemplateContext {
    let disk = |d: &str| {
        Some(ignition::InstallationDisk {
            installation_disk: d.into(),
        })
    };
    let mut ctx = context();
    match variant {
        Variant::Bootstrap => {}
        Variant::SingleNode => ctx.bootstrap_in_place = disk("/dev/sda"),
        Variant::Pivot => ctx.bootstrap_pivot = disk("/dev/vda"),
    }
    ctx
}

/// Build from [`STANDARD_TREE`].
pub(crate) fn build(variant: Variant, extra: Vec<NodeFile>, keys: Vec<String>) -> Config {
    let (_dir, tree) = fixture_tree(STANDARD_TREE);
    bootstrap_config_from(&tree, variant, &context_for(variant), extra, keys)
        .expect("fixture renders")
}

/// Decoded contents of a data URL source.
pub(crate) fn decoded(source: &str) -> String {
    String::from_utf8(ignition::decode_data_url(source).expect("data URL")).expect("utf-8")
}

/// Root of the repository's bootstrap templates.
pub(crate) fn templates_dir() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../templates/bootstrap"
    ))
}
