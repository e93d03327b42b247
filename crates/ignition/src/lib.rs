//! Ignition configs for okd-install.
//!
//! This crate turns the rendered bootstrap templates plus the files of the other assets
//! (manifests, TLS, kubeconfigs) into `bootstrap.ign` (and its single-node and pivot
//! variants), writes the small `master.ign`/`worker.ign` pointer configs and
//! `metadata.json`, and offers the tools around them:
//!
//! * [`check`]: the semantic rules the `ignition-config` crate does not enforce (it only
//!   parses), so that a broken config fails here instead of on a booting machine;
//! * [`compress`]: gzip file contents where that is smaller, to fit user-data limits;
//! * [`size_report`]: compare a config's size with the known user-data limit of a platform;
//! * [`explain_ignition`]: a readable dump (decoded data URLs) for golden files and humans;
//! * [`parse`]: read any Ignition 3.x config back, with errors that name the position.
//!
//! Output JSON is compact, has no `null` fields and is deterministic: the same input gives
//! the same bytes, which golden-file tests and users' CI diffs rely on.

#![deny(missing_docs)]

mod bootstrap;
mod check;
mod compress;
mod context;
mod dataurl;
mod error;
mod explain;
mod json;
mod metadata;
mod pointer;
mod render;
mod size;

pub use bootstrap::{
    ENABLED_UNITS, NodeFile, Variant, asset_file_mode, bootstrap_config, bootstrap_config_from,
    core_user,
};
pub use check::{Problem, ProblemKind, UNIT_SUFFIXES, check, check_json};
pub use compress::{InlineError, compress, decompress_bytes, gzip_bytes, inline_contents};
pub use context::{
    InstallationDisk, ProxyContext, RegistryContext, ReleaseContext, TemplateContext,
};
pub use dataurl::{DataUrlError, decode_data_url, encode_data_url};
pub use error::Error;
pub use explain::{ExplainOptions, explain_ignition, explain_ignition_with};
pub use json::{Parsed, core_authorized_keys, parse, to_json, to_json_pretty};
pub use metadata::{ClusterMetadata, MetadataPlatform, VCenterMetadata, metadata_json};
pub use pointer::{MCS_PORT, PointerHost, pointer_config};
pub use render::{
    RenderedDirs, RenderedFile, RenderedUnit, TemplateTree, embedded_templates, file_mode,
    render_template,
};
pub use size::{PlatformLimit, SizeLine, platform_limit, platform_limits, size_report};

/// The Ignition config model okd-install writes: spec 3.2.0 as typed by `ignition-config`.
pub type Config = ignition_config::v3_2::Config;

/// The Ignition spec version of every config okd-install writes (bootstrap and pointers).
pub const SPEC_VERSION: &str = "3.2.0";

/// Shorthand for results carrying this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Each render stage of the bootstrap's `bootkube.sh`, in run order, with the podman container
/// (`--name`) its render runs in: the stage names mark `<stage>.done` and the service records,
/// the container names the output a failed stage leaves. One table for the gather analysis and
/// the real-render harness; a test ties it to the template.
pub const BOOTKUBE_RENDER_STAGES: &[(&str, &str)] = &[
    ("api-bootstrap", "api-render"),
    ("auth-api-bootstrap", "auth-api-render"),
    ("config-bootstrap", "config-render"),
    ("cvo-bootstrap", "cvo-render"),
    ("etcd-bootstrap", "etcd-render"),
    ("kube-apiserver-bootstrap", "kube-apiserver-render"),
    (
        "kube-controller-manager-bootstrap",
        "kube-controller-render",
    ),
    ("kube-scheduler-bootstrap", "kube-scheduler-render"),
    ("ingress-operator-bootstrap", "ingress-render"),
    ("node-tuning-bootstrap", "node-tuning-render"),
    ("mco-bootstrap", "mco-render"),
    ("cco-bootstrap", "cco-render"),
];

/// The stage `bootkube.sh` runs before the renders: it copies `openshift/` into `manifests/`.
pub const BOOTKUBE_MANIFESTS_STAGE: &str = "openshift-manifests";

/// `bootkube.sh`'s stages before cluster-bootstrap, in run order: the manifests copy, then the
/// renders of [`BOOTKUBE_RENDER_STAGES`]. What the real-render harness replays and the first
/// part of what a gathered bootstrap host records.
pub fn bootkube_stages_to_render() -> Vec<&'static str> {
    std::iter::once(BOOTKUBE_MANIFESTS_STAGE)
        .chain(BOOTKUBE_RENDER_STAGES.iter().map(|(stage, _)| *stage))
        .collect()
}

#[cfg(test)]
mod render_stage_tests {
    /// Every stage runs in this order in bootkube.sh, its function starts the named container.
    #[test]
    fn the_table_is_what_bootkube_sh_runs() {
        let script =
            include_str!("../../../templates/bootstrap/common/files/usr/local/bin/bootkube.sh.j2");
        let mut from = 0;
        for (stage, container) in super::BOOTKUBE_RENDER_STAGES {
            let call = format!("\nrun_stage {stage} stage_");
            let at = script[from..]
                .find(&call)
                .unwrap_or_else(|| panic!("{call:?} missing or out of order"));
            from += at + call.len();
            let function = format!("stage_{}() {{", stage.replace('-', "_"));
            let body_at = script
                .find(&function)
                .unwrap_or_else(|| panic!("{function} missing"));
            let body_end = body_at + script[body_at..].find("\n}\n").unwrap();
            assert!(
                script[body_at..body_end].contains(&format!("--name {container} ")),
                "{function} does not run container {container}"
            );
        }
    }
}
