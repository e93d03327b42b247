//! The data every bootstrap template can use.

use contract::ClusterNames;
use serde::{Deserialize, Serialize};

/// Variables available to the `.j2` templates under `templates/bootstrap/`.
///
/// Every key is always present (options render as `none`), so templates can rely on strict
/// undefined checking: a misspelt variable is an error at generation time, not an empty
/// string in a script on the bootstrap node.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateContext {
    /// Release image pull spec after any override.
    pub release_image: String,
    /// The cluster's names as the install-config asset made them (templates read
    /// `names.cluster_name`, `names.base_domain`, `names.cluster_domain`, and the API host
    /// names `names.api` and `names.api_int`).
    pub names: ClusterNames,
    /// The pull secret JSON as given in the install-config.
    pub pull_secret: String,
    /// The install-config `sshKey` (possibly several newline-separated keys).
    pub ssh_key: String,
    /// PEM bundle of extra trust anchors (empty when none).
    pub additional_trust_bundle: String,
    /// Whether FIPS mode was requested.
    pub fips: bool,
    /// Effective proxy settings (empty strings when no proxy is used).
    pub proxy: ProxyContext,
    /// Registry mirrors, one entry per source with at least one mirror.
    pub registries: Vec<RegistryContext>,
    /// Set only for the single-node bootstrap-in-place variant.
    pub bootstrap_in_place: Option<InstallationDisk>,
    /// Set only for the pivot variant (bootstrap host installs itself as a control-plane node).
    pub bootstrap_pivot: Option<InstallationDisk>,
    /// Fixed IP for the bootstrap kubelet (`OPENSHIFT_INSTALL_BOOTSTRAP_NODE_IP`), or empty.
    pub bootstrap_node_ip: String,
    /// The first service network is IPv6.
    pub use_ipv6_for_node_ip: bool,
    /// The service networks contain both address families.
    pub use_dual_for_node_ip: bool,
    /// Host part of the Machine Config Server URL, as in the pointer configs: the API VIP
    /// machines use (IPv6 in brackets), or `api-int.<cluster_domain>`.
    pub machine_config_host: String,
    /// The bootstrap host runs the local DNS set-up (`on-prem` templates): the platform
    /// serves its API on a VIP, so cluster names resolve through the host's own CoreDNS.
    pub on_prem: bool,
    /// NetworkManager takes the hostname from DHCP only and keeps stable DHCPv6 identities
    /// (on platforms where the bootstrap host holds the API VIP at times).
    pub hostname_from_dhcp_only: bool,
    /// API virtual IPs (on-premise platforms), empty otherwise.
    pub api_vips: Vec<String>,
    /// Ingress virtual IPs (on-premise platforms), empty otherwise.
    pub ingress_vips: Vec<String>,
    /// Cluster profile (`OPENSHIFT_INSTALL_EXPERIMENTAL_CLUSTER_PROFILE`), usually empty.
    pub cluster_profile: String,
    /// install-config `featureSet` (empty for the default set).
    pub feature_set: String,
    /// Who ran the installer (`OPENSHIFT_INSTALL_INVOKER`), or empty.
    pub invoker: String,
    /// `controlPlane.replicas`.
    pub control_plane_replicas: u32,
    /// The OKD minor release the bootstrap is generated for (`4.22`): bootkube.sh stops when
    /// the payload is another one.
    pub target_minor: String,
    /// On-cluster image mode (OCL, a MachineOSConfig) is enabled for the cluster.
    pub image_mode: bool,
    /// JSON text of the encapsulated MachineConfig for the bootstrap host's first boot.
    pub machine_config_encapsulated: String,
    /// What the release the bootstrap is generated for does differently (absent: the oldest
    /// supported release).
    #[serde(default)]
    pub release: ReleaseContext,
}

/// The per-release differences the templates read: every flag comes from the release table
/// (`data/releases.toml`), so no template compares version numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseContext {
    /// Kubernetes minor of the payload.
    pub kubernetes: String,
    /// bootkube.sh copies image-references into /etc/mcc/bootstrap.
    pub mcc_image_references: bool,
    /// The CVO render takes `--cluster-version-manifest-path`.
    pub cvo_cluster_version_manifest_path: bool,
    /// The etcd render takes `--rendered-manifest-files` and `--payload-version`.
    pub etcd_render_manifest_flags: bool,
    /// The kubelet runs without `--pod-infra-container-image`.
    pub kubelet_without_pod_infra_image: bool,
    /// node-image-finish.service has `KillMode=none`.
    pub node_image_finish_kill_mode_none: bool,
    /// The node-image overlay keeps the booted /etc/crypto-policies.
    pub overlay_excludes_crypto_policies: bool,
    /// The node-image overlay try-restarts sshd afterwards.
    pub overlay_restarts_sshd: bool,
    /// The tmpfs a live system pulls the node image into.
    pub node_image_live_dir: String,
    /// The mount unit of that tmpfs, named after its path as systemd requires
    /// ([`crate::mount_unit_name`]: the escaped form of the path, so it may hold a backslash:
    /// `var-ostree\x2dcontainer.mount`). The template `units/node-image-live.mount.j2` is
    /// written as this unit (see `NODE_IMAGE_LIVE_MOUNT` in render.rs).
    pub node_image_live_unit: String,
    /// The tmpfs mount is skipped when `/etc/no-var-tmpfs` exists.
    pub no_var_tmpfs_condition: bool,
    /// How the node image is found: `first-listed`, `tag` or `stream-helper`.
    pub node_image: String,
    /// The payload tag of the node image.
    pub node_image_tag: String,
    /// The OS image stream the stream helper picks (empty unless `node_image` is
    /// `stream-helper`).
    pub os_image_stream: String,
}

impl ReleaseContext {
    /// The context of `release`, with the install-config's `osImageStream` (already defaulted
    /// and validated against the release; empty where the release has none).
    pub fn of(release: &releases::Release, os_image_stream: &str) -> Self {
        use releases::{Feature, NodeImage};
        let node_image = match release.node_image {
            NodeImage::FirstListed => "first-listed",
            NodeImage::Tag => "tag",
            NodeImage::StreamHelper => "stream-helper",
        };
        ReleaseContext {
            kubernetes: release.kubernetes.clone(),
            mcc_image_references: release.has(Feature::MccImageReferences),
            cvo_cluster_version_manifest_path: release.has(Feature::CvoClusterVersionManifestPath),
            etcd_render_manifest_flags: release.has(Feature::EtcdRenderManifestFlags),
            kubelet_without_pod_infra_image: release.has(Feature::KubeletWithoutPodInfraImage),
            node_image_finish_kill_mode_none: release.has(Feature::NodeImageFinishKillModeNone),
            overlay_excludes_crypto_policies: release.has(Feature::OverlayExcludesCryptoPolicies),
            overlay_restarts_sshd: release.overlay_restarts_sshd(),
            node_image_live_dir: release.node_image_live_dir().into(),
            node_image_live_unit: crate::mount_unit_name(release.node_image_live_dir()),
            no_var_tmpfs_condition: release.has(Feature::NoVarTmpfsCondition),
            node_image: node_image.into(),
            node_image_tag: release.node_image_tag.clone(),
            os_image_stream: match release.node_image {
                NodeImage::StreamHelper => os_image_stream.into(),
                _ => String::new(),
            },
        }
    }
}

/// The oldest supported release, with its default OS image stream.
impl Default for ReleaseContext {
    fn default() -> Self {
        let oldest = &releases::table().releases[0];
        let stream = oldest
            .os_image_stream
            .as_ref()
            .map(|s| s.default.as_str())
            .unwrap_or_default();
        ReleaseContext::of(oldest, stream)
    }
}

/// Proxy settings as templates see them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProxyContext {
    /// `HTTP_PROXY` value, or empty.
    pub http_proxy: String,
    /// `HTTPS_PROXY` value, or empty.
    pub https_proxy: String,
    /// Computed `NO_PROXY` list (comma separated), or empty.
    pub no_proxy: String,
}

/// One registry source and its mirrors, for `registries.conf`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegistryContext {
    /// The repository the images are normally pulled from.
    pub source: String,
    /// Mirror locations, tried in order.
    pub mirrors: Vec<String>,
    /// The source itself is never contacted (`sourcePolicy: NeverContactSource`), only its
    /// mirrors.
    #[serde(default)]
    pub blocked: bool,
}

/// The disk a self-installing bootstrap writes the final OS to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstallationDisk {
    /// Device path, e.g. `/dev/sda` or a `/dev/disk/by-id/...` link.
    pub installation_disk: String,
}

impl TemplateContext {
    /// Keys whose value contains a `'` or a line break although scripts embed it inside
    /// single quotes (every single-line string key; the pull secret, SSH key, trust bundle
    /// and encapsulated MachineConfig are excluded because files hold them verbatim).
    ///
    /// Such a value would end the quoted string and run as shell code on the bootstrap
    /// node, so [`crate::bootstrap_config`] refuses to render with any of them.
    pub fn unsafe_values(&self) -> Vec<String> {
        let mut fields: Vec<(String, &str)> = vec![
            ("release_image".into(), &self.release_image),
            ("names.cluster_name".into(), &self.names.cluster_name),
            ("names.base_domain".into(), &self.names.base_domain),
            ("names.cluster_domain".into(), &self.names.cluster_domain),
            ("names.api".into(), &self.names.api),
            ("names.api_int".into(), &self.names.api_int),
            ("bootstrap_node_ip".into(), &self.bootstrap_node_ip),
            ("machine_config_host".into(), &self.machine_config_host),
            ("cluster_profile".into(), &self.cluster_profile),
            ("feature_set".into(), &self.feature_set),
            ("invoker".into(), &self.invoker),
            ("target_minor".into(), &self.target_minor),
            (
                "release.node_image_tag".into(),
                &self.release.node_image_tag,
            ),
            (
                "release.os_image_stream".into(),
                &self.release.os_image_stream,
            ),
            (
                "release.node_image_live_dir".into(),
                &self.release.node_image_live_dir,
            ),
            ("proxy.http_proxy".into(), &self.proxy.http_proxy),
            ("proxy.https_proxy".into(), &self.proxy.https_proxy),
            ("proxy.no_proxy".into(), &self.proxy.no_proxy),
        ];
        let disks = [
            ("bootstrap_in_place", &self.bootstrap_in_place),
            ("bootstrap_pivot", &self.bootstrap_pivot),
        ];
        for (key, disk) in disks {
            if let Some(d) = disk {
                fields.push((format!("{key}.installation_disk"), &d.installation_disk));
            }
        }
        for (key, list) in [
            ("api_vips", &self.api_vips),
            ("ingress_vips", &self.ingress_vips),
        ] {
            for (i, v) in list.iter().enumerate() {
                fields.push((format!("{key}[{i}]"), v));
            }
        }
        for (i, r) in self.registries.iter().enumerate() {
            fields.push((format!("registries[{i}].source"), &r.source));
            for (j, m) in r.mirrors.iter().enumerate() {
                fields.push((format!("registries[{i}].mirrors[{j}]"), m));
            }
        }
        fields
            .into_iter()
            .filter(|(_, v)| v.contains(['\'', '\n', '\r']))
            .map(|(k, _)| k)
            .collect()
    }

    /// A complete, realistic context for a three-node cluster on platform `none`.
    ///
    /// Used by tests (here and in the template tests) and documentation, so that they all
    /// render the templates against the same well-formed values.
    pub fn example() -> Self {
        let names = ClusterNames::new("demo", "example.com");
        Self {
            release_image: "quay.io/okd/scos-release@sha256:\
                0000000000000000000000000000000000000000000000000000000000000000"
                .into(),
            machine_config_host: names.api_int.clone(),
            names,
            pull_secret: r#"{"auths":{"registry.example.com":{"auth":"dXNlcjpwYXNz"}}}"#.into(),
            ssh_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExampleExampleExampleExampleExample0 user@example"
                .into(),
            control_plane_replicas: 3,
            target_minor: releases::table().releases[0].version.to_string(),
            machine_config_encapsulated: r#"{"apiVersion":"machineconfiguration.openshift.io/v1","kind":"MachineConfig","metadata":{"name":"bootstrap"},"spec":{}}"#.into(),
            ..Self::default()
        }
    }
}
