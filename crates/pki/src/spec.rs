//! The certificate table: which certificates exist, their subjects, lifetimes, usages, issuers
//! and SAN rules. Everything else in the crate reads these facts from here, so a change to the
//! table is a change in one place.

use std::fmt;

use serde::{Deserialize, Serialize};
use time::Duration;

/// Lifetime class of a certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidityTier {
    /// 24 hours (2 hours with short rotation).
    OneDay,
    /// 365 days (4 hours with short rotation).
    OneYear,
    /// 3650 days, never shortened.
    TenYears,
}

/// Whether lifetimes follow the normal table or the `ShortCertRotation` feature gate, which
/// exists to exercise certificate rotation on test clusters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValidityScale {
    /// The normal lifetimes.
    #[default]
    Normal,
    /// The shortened lifetimes of the `ShortCertRotation` feature gate.
    ShortCertRotation,
}

impl ValidityTier {
    /// The lifetime of this tier under `scale`.
    pub fn duration(self, scale: ValidityScale) -> Duration {
        match (self, scale) {
            (ValidityTier::OneDay, ValidityScale::Normal) => Duration::hours(24),
            (ValidityTier::OneDay, ValidityScale::ShortCertRotation) => Duration::hours(2),
            (ValidityTier::OneYear, ValidityScale::Normal) => Duration::hours(8760),
            (ValidityTier::OneYear, ValidityScale::ShortCertRotation) => Duration::hours(4),
            (ValidityTier::TenYears, _) => Duration::hours(87_600),
        }
    }
}

/// Subject distinguished name, in Go's encoding order (O, OU, CN).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subject {
    /// Common name; never empty.
    pub cn: &'static str,
    /// Organizations (Kubernetes reads these as groups), in order.
    pub o: &'static [&'static str],
    /// Organizational units.
    pub ou: &'static [&'static str],
}

/// Key usage bits a certificate carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyUsage {
    /// DigitalSignature + KeyEncipherment + CertSign: every signer.
    Signer,
    /// DigitalSignature + KeyEncipherment: most leaves.
    DigitalSignatureKeyEncipherment,
    /// No KeyUsage extension at all (the machine-config-server certificate).
    None,
}

/// Extended key usages of a leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtKeyUsage {
    /// No EKU extension (signers).
    None,
    /// serverAuth.
    Server,
    /// clientAuth.
    Client,
    /// serverAuth and clientAuth, in that order.
    ServerAndClient,
}

/// How a certificate's subject alternative names are computed from the cluster parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SanRule {
    /// No SAN extension.
    None,
    /// DNS `localhost`, IPs `127.0.0.1` and `::1`.
    Localhost,
    /// The `kubernetes*`/`openshift*` service names plus the first host address of every
    /// service network.
    ServiceNetwork,
    /// DNS `api.<cluster-domain>`.
    ExternalApi,
    /// DNS `api-int.<cluster-domain>`.
    InternalApi,
    /// DNS `api-int.<cluster-domain>` plus every API VIP as IP SAN and as DNS-name string.
    MachineConfigServer,
}

/// Everything the certificate table says about one certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CertSpec {
    /// File base name: the files are `tls/<name>.key` and `tls/<name>.crt`.
    pub name: &'static str,
    /// Subject of the certificate.
    pub subject: Subject,
    /// Lifetime class.
    pub validity: ValidityTier,
    /// Key usage bits.
    pub key_usage: KeyUsage,
    /// Extended key usages.
    pub ext_key_usage: ExtKeyUsage,
    /// The signer that issues it; `None` for self-signed signers.
    pub issuer: Option<CertId>,
    /// Whether the `.crt` file carries the issuer's certificate after the leaf.
    pub append_parent: bool,
    /// How SANs are computed.
    pub sans: SanRule,
}

impl CertSpec {
    /// True for self-signed signer (CA) certificates.
    pub fn is_signer(&self) -> bool {
        self.issuer.is_none()
    }
}

macro_rules! cert_ids {
    ($($variant:ident),* $(,)?) => {
        /// Every certificate/key pair the installer creates, signers first.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum CertId { $(#[allow(missing_docs)] $variant),* }

        impl CertId {
            /// All certificates, signers before the leaves they issue.
            pub const ALL: &'static [CertId] = &[$(CertId::$variant),*];
        }
    };
}

cert_ids!(
    RootCa,
    AdminKubeconfigSigner,
    AggregatorSigner,
    AggregatorCa,
    KubeApiserverToKubeletSigner,
    KubeApiserverLocalhostSigner,
    KubeApiserverServiceNetworkSigner,
    KubeApiserverLbSigner,
    KubeControlPlaneSigner,
    KubeletSigner,
    KubeletBootstrapKubeconfigSigner,
    AdminKubeconfigClient,
    AggregatorClient,
    ApiserverProxy,
    KubeApiserverToKubeletClient,
    KubeApiserverLocalhostServer,
    KubeApiserverServiceNetworkServer,
    KubeApiserverLbServer,
    KubeApiserverInternalLbServer,
    KubeControlPlaneKubeControllerManagerClient,
    KubeControlPlaneKubeSchedulerClient,
    KubeletClient,
    MachineConfigServer,
    JournalGatewayd,
);

impl fmt::Display for CertId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spec().name)
    }
}

const OPENSHIFT: &[&str] = &["openshift"];
const KUBE_MASTER: &[&str] = &["kube-master"];
const MASTERS: &[&str] = &["system:masters"];

const fn signer(
    name: &'static str,
    ou: &'static [&'static str],
    validity: ValidityTier,
) -> CertSpec {
    CertSpec {
        name,
        subject: Subject {
            cn: name,
            o: &[],
            ou,
        },
        validity,
        key_usage: KeyUsage::Signer,
        ext_key_usage: ExtKeyUsage::None,
        issuer: None,
        append_parent: false,
        sans: SanRule::None,
    }
}

const fn leaf(
    name: &'static str,
    cn: &'static str,
    o: &'static [&'static str],
    issuer: CertId,
    validity: ValidityTier,
    ext_key_usage: ExtKeyUsage,
) -> CertSpec {
    CertSpec {
        name,
        subject: Subject { cn, o, ou: &[] },
        validity,
        key_usage: KeyUsage::DigitalSignatureKeyEncipherment,
        ext_key_usage,
        issuer: Some(issuer),
        append_parent: false,
        sans: SanRule::None,
    }
}

const fn serving(name: &'static str, issuer: CertId, sans: SanRule) -> CertSpec {
    CertSpec {
        append_parent: true,
        sans,
        ..leaf(
            name,
            "system:kube-apiserver",
            KUBE_MASTER,
            issuer,
            ValidityTier::OneDay,
            ExtKeyUsage::Server,
        )
    }
}

impl CertId {
    /// The table entry for this certificate.
    pub const fn spec(self) -> CertSpec {
        use CertId::*;
        use ExtKeyUsage::{Client, Server, ServerAndClient};
        use ValidityTier::{OneDay, OneYear, TenYears};
        match self {
            RootCa => signer("root-ca", OPENSHIFT, TenYears),
            AdminKubeconfigSigner => signer("admin-kubeconfig-signer", OPENSHIFT, TenYears),
            AggregatorSigner => signer("aggregator-signer", OPENSHIFT, OneDay),
            AggregatorCa => CertSpec {
                subject: Subject {
                    cn: "aggregator",
                    o: &[],
                    ou: &["bootkube"],
                },
                ..signer("aggregator-ca", &[], OneDay)
            },
            KubeApiserverToKubeletSigner => {
                signer("kube-apiserver-to-kubelet-signer", OPENSHIFT, OneYear)
            }
            KubeApiserverLocalhostSigner => {
                signer("kube-apiserver-localhost-signer", OPENSHIFT, TenYears)
            }
            KubeApiserverServiceNetworkSigner => {
                signer("kube-apiserver-service-network-signer", OPENSHIFT, TenYears)
            }
            KubeApiserverLbSigner => signer("kube-apiserver-lb-signer", OPENSHIFT, TenYears),
            KubeControlPlaneSigner => signer("kube-control-plane-signer", OPENSHIFT, OneYear),
            KubeletSigner => signer("kubelet-signer", OPENSHIFT, OneDay),
            KubeletBootstrapKubeconfigSigner => {
                signer("kubelet-bootstrap-kubeconfig-signer", OPENSHIFT, TenYears)
            }
            AdminKubeconfigClient => leaf(
                "admin-kubeconfig-client",
                "system:admin",
                MASTERS,
                AdminKubeconfigSigner,
                TenYears,
                ServerAndClient,
            ),
            AggregatorClient => leaf(
                "aggregator-client",
                "system:kube-apiserver-proxy",
                KUBE_MASTER,
                AggregatorSigner,
                OneDay,
                Client,
            ),
            ApiserverProxy => leaf(
                "apiserver-proxy",
                "system:kube-apiserver-proxy",
                KUBE_MASTER,
                AggregatorCa,
                OneDay,
                Client,
            ),
            KubeApiserverToKubeletClient => leaf(
                "kube-apiserver-to-kubelet-client",
                "system:kube-apiserver",
                KUBE_MASTER,
                KubeApiserverToKubeletSigner,
                OneYear,
                Client,
            ),
            KubeApiserverLocalhostServer => serving(
                "kube-apiserver-localhost-server",
                KubeApiserverLocalhostSigner,
                SanRule::Localhost,
            ),
            KubeApiserverServiceNetworkServer => serving(
                "kube-apiserver-service-network-server",
                KubeApiserverServiceNetworkSigner,
                SanRule::ServiceNetwork,
            ),
            KubeApiserverLbServer => serving(
                "kube-apiserver-lb-server",
                KubeApiserverLbSigner,
                SanRule::ExternalApi,
            ),
            KubeApiserverInternalLbServer => serving(
                "kube-apiserver-internal-lb-server",
                KubeApiserverLbSigner,
                SanRule::InternalApi,
            ),
            KubeControlPlaneKubeControllerManagerClient => leaf(
                "kube-control-plane-kube-controller-manager-client",
                "system:admin",
                MASTERS,
                KubeControlPlaneSigner,
                OneYear,
                Client,
            ),
            KubeControlPlaneKubeSchedulerClient => leaf(
                "kube-control-plane-kube-scheduler-client",
                "system:admin",
                MASTERS,
                KubeControlPlaneSigner,
                OneYear,
                Client,
            ),
            KubeletClient => leaf(
                "kubelet-client",
                "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper",
                &[
                    "system:serviceaccounts:openshift-machine-config-operator",
                    "system:serviceaccounts",
                ],
                KubeletBootstrapKubeconfigSigner,
                TenYears,
                Client,
            ),
            MachineConfigServer => CertSpec {
                key_usage: KeyUsage::None,
                sans: SanRule::MachineConfigServer,
                ..leaf(
                    "machine-config-server",
                    "system:machine-config-server",
                    &[],
                    RootCa,
                    TenYears,
                    Server,
                )
            },
            JournalGatewayd => leaf(
                "journal-gatewayd",
                "journal-gatewayd",
                &["OpenShift Bootstrap"],
                RootCa,
                TenYears,
                ServerAndClient,
            ),
        }
    }

    /// Looks a certificate up by its file base name (such as `root-ca`).
    pub fn from_name(name: &str) -> Option<CertId> {
        CertId::ALL
            .iter()
            .copied()
            .find(|id| id.spec().name == name)
    }

    /// The signers only.
    pub fn signers() -> impl Iterator<Item = CertId> {
        CertId::ALL
            .iter()
            .copied()
            .filter(|id| id.spec().is_signer())
    }

    /// The leaves only.
    pub fn leaves() -> impl Iterator<Item = CertId> {
        CertId::ALL
            .iter()
            .copied()
            .filter(|id| !id.spec().is_signer())
    }

    /// `tls/<name>.crt`.
    pub fn cert_path(self) -> String {
        format!("tls/{}.crt", self.spec().name)
    }

    /// Whether this certificate's private key stays off the bootstrap host, as upstream keeps
    /// it off: the root CA's, and those of the two ten-year signers behind the admin kubeconfig
    /// and the kubelet bootstrap kubeconfig. Whoever read the host could otherwise mint
    /// cluster-admin or node client certificates for a decade; the host needs only their
    /// certificates.
    pub fn key_stays_off_bootstrap_host(self) -> bool {
        matches!(
            self,
            CertId::RootCa
                | CertId::AdminKubeconfigSigner
                | CertId::KubeletBootstrapKubeconfigSigner
        )
    }

    /// `tls/<name>.key`.
    pub fn key_path(self) -> String {
        format!("tls/{}.key", self.spec().name)
    }
}

/// One member of a CA bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BundleMember {
    /// A signer certificate.
    Cert(CertId),
    /// Another bundle, of which only the first certificate is taken.
    Bundle(BundleId),
}

macro_rules! bundle_ids {
    ($($variant:ident => $file:literal),* $(,)?) => {
        /// Every CA bundle the installer generates (the user-provided `cloud-ca-cert.pem` and
        /// `bmc-ca/verify_ca.crt` are copies of install-config text and live with that input).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum BundleId { $(#[allow(missing_docs)] $variant),* }

        impl BundleId {
            /// All generated bundles.
            pub const ALL: &'static [BundleId] = &[$(BundleId::$variant),*];

            /// File base name: the file is `tls/<name>.crt`.
            pub const fn name(self) -> &'static str {
                match self { $(BundleId::$variant => $file),* }
            }
        }
    };
}

bundle_ids!(
    AdminKubeconfigCa => "admin-kubeconfig-ca-bundle",
    AggregatorCa => "aggregator-ca-bundle",
    KubeApiserverToKubeletCa => "kube-apiserver-to-kubelet-ca-bundle",
    KubeApiserverLocalhostCa => "kube-apiserver-localhost-ca-bundle",
    KubeApiserverServiceNetworkCa => "kube-apiserver-service-network-ca-bundle",
    KubeApiserverLbCa => "kube-apiserver-lb-ca-bundle",
    KubeApiserverCompleteServerCa => "kube-apiserver-complete-server-ca-bundle",
    KubeControlPlaneCa => "kube-control-plane-ca-bundle",
    KubeletClientCa => "kubelet-client-ca-bundle",
    KubeletServingCa => "kubelet-serving-ca-bundle",
    KubeletBootstrapKubeconfigCa => "kubelet-bootstrap-kubeconfig-ca-bundle",
    KubeApiserverCompleteClientCa => "kube-apiserver-complete-client-ca-bundle",
);

impl BundleId {
    /// The signer certificates the bundle is made of, in file order: a nested bundle counts
    /// as its first certificate, as the reference describes.
    pub fn signers(self) -> Vec<CertId> {
        self.members()
            .iter()
            .filter_map(|m| match m {
                BundleMember::Cert(c) => Some(*c),
                BundleMember::Bundle(b) => b.signers().first().copied(),
            })
            .collect()
    }

    /// The members, in file order.
    pub fn members(self) -> &'static [BundleMember] {
        use BundleMember::{Bundle, Cert};
        use CertId as C;
        match self {
            BundleId::AdminKubeconfigCa => &[Cert(C::AdminKubeconfigSigner)],
            BundleId::AggregatorCa => &[Cert(C::AggregatorSigner)],
            BundleId::KubeApiserverToKubeletCa => &[Cert(C::KubeApiserverToKubeletSigner)],
            BundleId::KubeApiserverLocalhostCa => &[Cert(C::KubeApiserverLocalhostSigner)],
            BundleId::KubeApiserverServiceNetworkCa => {
                &[Cert(C::KubeApiserverServiceNetworkSigner)]
            }
            BundleId::KubeApiserverLbCa => &[Cert(C::KubeApiserverLbSigner)],
            BundleId::KubeApiserverCompleteServerCa => &[
                Cert(C::KubeApiserverLocalhostSigner),
                Cert(C::KubeApiserverServiceNetworkSigner),
                Cert(C::KubeApiserverLbSigner),
            ],
            BundleId::KubeControlPlaneCa => &[
                Cert(C::KubeControlPlaneSigner),
                Cert(C::KubeApiserverLbSigner),
                Cert(C::KubeApiserverLocalhostSigner),
                Cert(C::KubeApiserverServiceNetworkSigner),
            ],
            BundleId::KubeletClientCa | BundleId::KubeletServingCa => &[Cert(C::KubeletSigner)],
            BundleId::KubeletBootstrapKubeconfigCa => &[Cert(C::KubeletBootstrapKubeconfigSigner)],
            BundleId::KubeApiserverCompleteClientCa => &[
                Bundle(BundleId::AdminKubeconfigCa),
                Bundle(BundleId::KubeletClientCa),
                Bundle(BundleId::KubeControlPlaneCa),
                Bundle(BundleId::KubeApiserverToKubeletCa),
                Bundle(BundleId::KubeletBootstrapKubeconfigCa),
            ],
        }
    }

    /// `tls/<name>.crt`.
    pub fn path(self) -> String {
        format!("tls/{}.crt", self.name())
    }
}

impl fmt::Display for BundleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issuers_are_signers_listed_before_their_leaves() {
        for (pos, id) in CertId::ALL.iter().enumerate() {
            if let Some(issuer) = id.spec().issuer {
                assert!(issuer.spec().is_signer(), "{id} issued by non-signer");
                let ipos = CertId::ALL.iter().position(|x| *x == issuer);
                assert!(ipos < Some(pos), "{id} listed before {issuer}");
            }
        }
    }

    #[test]
    fn names_are_unique_and_resolvable() {
        for id in CertId::ALL {
            assert_eq!(CertId::from_name(id.spec().name), Some(*id));
        }
        assert_eq!(CertId::ALL.len(), 24);
        assert_eq!(CertId::signers().count(), 11);
    }

    #[test]
    fn short_rotation_shortens_only_day_and_year_tiers() {
        let short = ValidityScale::ShortCertRotation;
        assert_eq!(ValidityTier::OneDay.duration(short), Duration::hours(2));
        assert_eq!(ValidityTier::OneYear.duration(short), Duration::hours(4));
        assert_eq!(ValidityTier::TenYears.duration(short), Duration::days(3650));
    }
}
