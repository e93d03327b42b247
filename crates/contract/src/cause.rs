//! The causes of a failed bootstrap that okd-install can name.
//!
//! `wait-for bootstrap-complete` (from the API, the TLS handshake and name resolution) and
//! `gather bootstrap`'s analysis (from the log bundle) each recognise causes on their own
//! evidence; both name them with this one catalogue, so a cause reads the same from either
//! command, the README's troubleshooting table lists exactly these, and the real-render
//! harness's fault table says for each injected fault which cause both must name.

use serde::{Deserialize, Serialize};

/// Why a bootstrap failed, as far as okd-install can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// The release image (or another payload image the bootstrap pulls) could not be pulled.
    ReleaseImagePull,
    /// The node (OS) image the bootstrap host pivots to could not be pulled.
    NodeImagePull,
    /// `api-int.<cluster>.<domain>` does not resolve on the bootstrap host.
    ApiIntDns,
    /// `api.<cluster>.<domain>` does not resolve where okd-install runs.
    ApiDns,
    /// etcd on the bootstrap host did not start (data directory, port).
    EtcdStart,
    /// The certificates are not valid yet on the host's clock (clock behind, or configs made
    /// with a creation time in the future).
    CertificatesNotYetValid,
    /// The certificates have expired on the host's clock (clock ahead, or configs too old).
    CertificatesExpired,
    /// A manifest the user added was refused by the API server, or its kind never appeared.
    UserManifest,
    /// A render stage of bootkube.sh failed.
    RenderStage,
    /// The Machine Config Server could not listen on :22623.
    MachineConfigServerPort,
    /// The bootstrap host ran out of disk space.
    DiskFull,
}

impl Cause {
    /// Every cause, in the order the README's table lists them.
    pub const ALL: [Cause; 11] = [
        Cause::ReleaseImagePull,
        Cause::NodeImagePull,
        Cause::ApiIntDns,
        Cause::ApiDns,
        Cause::EtcdStart,
        Cause::CertificatesNotYetValid,
        Cause::CertificatesExpired,
        Cause::UserManifest,
        Cause::RenderStage,
        Cause::MachineConfigServerPort,
        Cause::DiskFull,
    ];

    /// The stable kebab-case id (JSON output, tests, the README's table).
    pub fn id(self) -> &'static str {
        match self {
            Cause::ReleaseImagePull => "release-image-pull",
            Cause::NodeImagePull => "node-image-pull",
            Cause::ApiIntDns => "api-int-dns",
            Cause::ApiDns => "api-dns",
            Cause::EtcdStart => "etcd-start",
            Cause::CertificatesNotYetValid => "certificates-not-yet-valid",
            Cause::CertificatesExpired => "certificates-expired",
            Cause::UserManifest => "user-manifest",
            Cause::RenderStage => "render-stage",
            Cause::MachineConfigServerPort => "machine-config-server-port",
            Cause::DiskFull => "disk-full",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_are_the_serialized_names() {
        let mut seen = std::collections::BTreeSet::new();
        for cause in Cause::ALL {
            assert!(seen.insert(cause.id()), "{} twice", cause.id());
            let json = serde_json::to_string(&cause).expect("a unit variant serializes");
            assert_eq!(json, format!("\"{}\"", cause.id()));
        }
    }
}
