//! The certificate table: which certificates exist, their file names, subjects, lifetimes,
//! usages, issuers, SAN rules, key kinds and which of their files the bootstrap host gets.
//! Everything else (this crate, the assets that make one typed asset per certificate, the
//! bootstrap config that places the files) reads these facts from here, so a change to the
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

/// The kind of a private key. The table states it per certificate (RSA-2048 for every one,
/// as upstream generates them); a signer may be given another kind by the caller (upstream
/// 5.0's `pki.signerCertificates.key`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum KeyKind {
    /// RSA (PKCS#1 PEM on disk).
    Rsa {
        /// Modulus size.
        bits: u16,
    },
    /// ECDSA on a NIST curve (SEC 1 `EC PRIVATE KEY` PEM on disk, the curve named inside, as
    /// Go's `x509.MarshalECPrivateKey` writes it).
    Ecdsa(Curve),
}

impl Default for KeyKind {
    fn default() -> Self {
        KeyKind::RSA_2048
    }
}

/// The NIST curves an ECDSA key may be on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Curve {
    /// P-256 (certificates it signs use ECDSA with SHA-256).
    P256,
    /// P-384 (SHA-384).
    P384,
    /// P-521 (SHA-512).
    P521,
}

impl KeyKind {
    /// RSA-2048, the kind of every key upstream makes by default.
    pub const RSA_2048: KeyKind = KeyKind::Rsa { bits: 2048 };
}

impl fmt::Display for KeyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyKind::Rsa { bits } => write!(f, "RSA-{bits}"),
            KeyKind::Ecdsa(curve) => write!(f, "ECDSA {curve:?}"),
        }
    }
}

/// Where a certificate's files go on the bootstrap host (`/opt/openshift/tls/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnBootstrapHost {
    /// Certificate and key, both readable by root only.
    CertAndKey,
    /// The certificate only (root only); the key stays off the host.
    CertOnly,
    /// The certificate only, readable by everyone (other tools on the host trust it); the key
    /// stays off the host.
    PublicCertOnly,
}

/// Everything the certificate table says about one certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CertSpec {
    /// File base name: the files are `tls/<name>.key` and `tls/<name>.crt`.
    pub name: &'static str,
    /// The kind of its private key.
    pub key: KeyKind,
    /// Which of its files the bootstrap host gets, and how readable.
    pub bootstrap_host: OnBootstrapHost,
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

/// The certificate table's rows, signers before the leaves they issue: each certificate's
/// [`CertId`] variant and file base name (`tls/<name>.key`, `tls/<name>.crt`).
///
/// `for_each_cert!(m)` expands to `m! { RootCa => "root-ca", ... }`: this crate defines
/// [`CertId`] with it, and a crate that needs one type per certificate (the typed assets of
/// `assets`) generates them from the same rows instead of restating them. Everything else a
/// row says is in [`CertId::spec`].
#[macro_export]
macro_rules! for_each_cert {
    ($m:ident) => {
        $m! {
            RootCa => "root-ca",
            AdminKubeconfigSigner => "admin-kubeconfig-signer",
            AggregatorSigner => "aggregator-signer",
            AggregatorCa => "aggregator-ca",
            KubeApiserverToKubeletSigner => "kube-apiserver-to-kubelet-signer",
            KubeApiserverLocalhostSigner => "kube-apiserver-localhost-signer",
            KubeApiserverServiceNetworkSigner => "kube-apiserver-service-network-signer",
            KubeApiserverLbSigner => "kube-apiserver-lb-signer",
            KubeControlPlaneSigner => "kube-control-plane-signer",
            KubeletSigner => "kubelet-signer",
            KubeletBootstrapKubeconfigSigner => "kubelet-bootstrap-kubeconfig-signer",
            AdminKubeconfigClient => "admin-kubeconfig-client",
            AggregatorClient => "aggregator-client",
            ApiserverProxy => "apiserver-proxy",
            KubeApiserverToKubeletClient => "kube-apiserver-to-kubelet-client",
            KubeApiserverLocalhostServer => "kube-apiserver-localhost-server",
            KubeApiserverServiceNetworkServer => "kube-apiserver-service-network-server",
            KubeApiserverLbServer => "kube-apiserver-lb-server",
            KubeApiserverInternalLbServer => "kube-apiserver-internal-lb-server",
            KubeControlPlaneKubeControllerManagerClient => "kube-control-plane-kube-controller-manager-client",
            KubeControlPlaneKubeSchedulerClient => "kube-control-plane-kube-scheduler-client",
            KubeletClient => "kubelet-client",
            MachineConfigServer => "machine-config-server",
            JournalGatewayd => "journal-gatewayd",
        }
    };
}

macro_rules! cert_ids {
    ($($variant:ident => $file:literal),* $(,)?) => {
        /// Every certificate/key pair the installer creates, signers first.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum CertId { $(#[allow(missing_docs)] $variant),* }

        impl CertId {
            /// All certificates, signers before the leaves they issue.
            pub const ALL: &'static [CertId] = &[$(CertId::$variant),*];

            /// File base name, such as `root-ca`.
            pub const fn name(self) -> &'static str {
                match self { $(CertId::$variant => $file),* }
            }

            /// `tls/<name>.crt`.
            pub const fn cert_path(self) -> &'static str {
                match self { $(CertId::$variant => concat!("tls/", $file, ".crt")),* }
            }

            /// `tls/<name>.key`.
            pub const fn key_path(self) -> &'static str {
                match self { $(CertId::$variant => concat!("tls/", $file, ".key")),* }
            }
        }
    };
}

for_each_cert!(cert_ids);

impl fmt::Display for CertId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

const OPENSHIFT: &[&str] = &["openshift"];
const KUBE_MASTER: &[&str] = &["kube-master"];
const MASTERS: &[&str] = &["system:masters"];

const fn signer(id: CertId, ou: &'static [&'static str], validity: ValidityTier) -> CertSpec {
    CertSpec {
        name: id.name(),
        key: KeyKind::RSA_2048,
        bootstrap_host: OnBootstrapHost::CertAndKey,
        subject: Subject {
            cn: id.name(),
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
    id: CertId,
    cn: &'static str,
    o: &'static [&'static str],
    issuer: CertId,
    validity: ValidityTier,
    ext_key_usage: ExtKeyUsage,
) -> CertSpec {
    CertSpec {
        name: id.name(),
        key: KeyKind::RSA_2048,
        bootstrap_host: OnBootstrapHost::CertAndKey,
        subject: Subject { cn, o, ou: &[] },
        validity,
        key_usage: KeyUsage::DigitalSignatureKeyEncipherment,
        ext_key_usage,
        issuer: Some(issuer),
        append_parent: false,
        sans: SanRule::None,
    }
}

const fn serving(id: CertId, issuer: CertId, sans: SanRule) -> CertSpec {
    CertSpec {
        append_parent: true,
        sans,
        ..leaf(
            id,
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
        use OnBootstrapHost::{CertOnly, PublicCertOnly};
        use ValidityTier::{OneDay, OneYear, TenYears};
        // The keys of the root CA and of the two ten-year signers behind the admin kubeconfig
        // and the kubelet bootstrap kubeconfig stay off the bootstrap host, as upstream keeps
        // them off: whoever read the host could otherwise mint cluster-admin or node client
        // certificates for a decade; the host needs only their certificates.
        match self {
            RootCa => CertSpec {
                bootstrap_host: PublicCertOnly,
                ..signer(self, OPENSHIFT, TenYears)
            },
            AdminKubeconfigSigner => CertSpec {
                bootstrap_host: CertOnly,
                ..signer(self, OPENSHIFT, TenYears)
            },
            AggregatorSigner => signer(self, OPENSHIFT, OneDay),
            AggregatorCa => CertSpec {
                subject: Subject {
                    cn: "aggregator",
                    o: &[],
                    ou: &["bootkube"],
                },
                ..signer(self, &[], OneDay)
            },
            KubeApiserverToKubeletSigner => signer(self, OPENSHIFT, OneYear),
            KubeApiserverLocalhostSigner => signer(self, OPENSHIFT, TenYears),
            KubeApiserverServiceNetworkSigner => signer(self, OPENSHIFT, TenYears),
            KubeApiserverLbSigner => signer(self, OPENSHIFT, TenYears),
            KubeControlPlaneSigner => signer(self, OPENSHIFT, OneYear),
            KubeletSigner => signer(self, OPENSHIFT, OneDay),
            KubeletBootstrapKubeconfigSigner => CertSpec {
                bootstrap_host: CertOnly,
                ..signer(self, OPENSHIFT, TenYears)
            },
            AdminKubeconfigClient => leaf(
                self,
                "system:admin",
                MASTERS,
                AdminKubeconfigSigner,
                TenYears,
                ServerAndClient,
            ),
            AggregatorClient => leaf(
                self,
                "system:kube-apiserver-proxy",
                KUBE_MASTER,
                AggregatorSigner,
                OneDay,
                Client,
            ),
            ApiserverProxy => leaf(
                self,
                "system:kube-apiserver-proxy",
                KUBE_MASTER,
                AggregatorCa,
                OneDay,
                Client,
            ),
            KubeApiserverToKubeletClient => leaf(
                self,
                "system:kube-apiserver",
                KUBE_MASTER,
                KubeApiserverToKubeletSigner,
                OneYear,
                Client,
            ),
            KubeApiserverLocalhostServer => {
                serving(self, KubeApiserverLocalhostSigner, SanRule::Localhost)
            }
            KubeApiserverServiceNetworkServer => serving(
                self,
                KubeApiserverServiceNetworkSigner,
                SanRule::ServiceNetwork,
            ),
            KubeApiserverLbServer => serving(self, KubeApiserverLbSigner, SanRule::ExternalApi),
            KubeApiserverInternalLbServer => {
                serving(self, KubeApiserverLbSigner, SanRule::InternalApi)
            }
            KubeControlPlaneKubeControllerManagerClient => leaf(
                self,
                "system:admin",
                MASTERS,
                KubeControlPlaneSigner,
                OneYear,
                Client,
            ),
            KubeControlPlaneKubeSchedulerClient => leaf(
                self,
                "system:admin",
                MASTERS,
                KubeControlPlaneSigner,
                OneYear,
                Client,
            ),
            KubeletClient => leaf(
                self,
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
                    self,
                    "system:machine-config-server",
                    &[],
                    RootCa,
                    TenYears,
                    Server,
                )
            },
            JournalGatewayd => leaf(
                self,
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
        CertId::ALL.iter().copied().find(|id| id.name() == name)
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

    /// Whether this certificate's private key stays off the bootstrap host
    /// ([`CertSpec::bootstrap_host`]).
    pub fn key_stays_off_bootstrap_host(self) -> bool {
        self.spec().bootstrap_host != OnBootstrapHost::CertAndKey
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
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum BundleId { $(#[allow(missing_docs)] $variant),* }

        impl BundleId {
            /// All generated bundles.
            pub const ALL: &'static [BundleId] = &[$(BundleId::$variant),*];

            /// File base name: the file is `tls/<name>.crt`.
            pub const fn name(self) -> &'static str {
                match self { $(BundleId::$variant => $file),* }
            }

            /// `tls/<name>.crt`.
            pub const fn path(self) -> &'static str {
                match self { $(BundleId::$variant => concat!("tls/", $file, ".crt")),* }
            }
        }
    };
}

/// The CA bundle table's rows: each bundle's [`BundleId`] variant and file base name
/// (`tls/<name>.crt`). `for_each_bundle!(m)` expands to `m! { AdminKubeconfigCa =>
/// "admin-kubeconfig-ca-bundle", ... }`, like [`for_each_cert!`]; the members are in
/// [`BundleId::members`].
#[macro_export]
macro_rules! for_each_bundle {
    ($m:ident) => {
        $m! {
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
        }
    };
}

for_each_bundle!(bundle_ids);

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
}

/// One file of the `tls/` tree, named by the tables: what it is decides its path, whether it
/// is private, and whether and how the bootstrap host gets it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TlsFile {
    /// `tls/<name>.key` of a certificate.
    Key(CertId),
    /// `tls/<name>.crt` of a certificate.
    Cert(CertId),
    /// `tls/<name>.crt` of a CA bundle.
    Bundle(BundleId),
    /// `tls/service-account.key`, the service-account token signing key.
    ServiceAccountKey,
    /// `tls/service-account.pub`, its public half.
    ServiceAccountPublicKey,
}

/// The directory of DIR that holds every file of the tables ([`TlsFile::path`]); the paths
/// spell it themselves (`concat!` takes literals only), and a test holds them to it.
pub const TLS_DIR: &str = "tls";

impl TlsFile {
    /// Every file of the tree in its stable order: each certificate's key and certificate,
    /// then the bundles, then the service-account key pair.
    pub fn all() -> Vec<TlsFile> {
        let certs = CertId::ALL
            .iter()
            .flat_map(|id| [TlsFile::Key(*id), TlsFile::Cert(*id)]);
        let bundles = BundleId::ALL.iter().map(|id| TlsFile::Bundle(*id));
        certs
            .chain(bundles)
            .chain([TlsFile::ServiceAccountKey, TlsFile::ServiceAccountPublicKey])
            .collect()
    }

    /// The path in the asset directory, such as `tls/root-ca.crt`.
    pub fn path(self) -> &'static str {
        match self {
            TlsFile::Key(id) => id.key_path(),
            TlsFile::Cert(id) => id.cert_path(),
            TlsFile::Bundle(id) => id.path(),
            TlsFile::ServiceAccountKey => "tls/service-account.key",
            TlsFile::ServiceAccountPublicKey => "tls/service-account.pub",
        }
    }

    /// Holds a private key (written readable by its owner only).
    pub fn is_private(self) -> bool {
        matches!(self, TlsFile::Key(_) | TlsFile::ServiceAccountKey)
    }

    /// The file's mode on the bootstrap host, `None` when it stays off the host (the keys
    /// [`CertSpec::bootstrap_host`] keeps off). Every file there is root's alone, except a
    /// certificate the table makes public.
    pub fn bootstrap_host_mode(self) -> Option<u32> {
        match self {
            TlsFile::Key(id) if id.key_stays_off_bootstrap_host() => None,
            TlsFile::Cert(id) if id.spec().bootstrap_host == OnBootstrapHost::PublicCertOnly => {
                Some(0o644)
            }
            _ => Some(0o600),
        }
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

    /// On the bootstrap host every TLS file is root's alone except the root CA certificate;
    /// the keys of the root CA and the two ten-year kubeconfig signers are not there at all.
    #[test]
    fn every_tls_file_is_in_the_tls_directory() {
        for file in TlsFile::all() {
            let (dir, name) = file.path().split_once('/').unwrap();
            assert_eq!(dir, TLS_DIR, "{}", file.path());
            assert!(!name.contains('/'), "{}", file.path());
        }
    }

    #[test]
    fn the_table_says_which_tls_files_the_bootstrap_host_gets() {
        let files = TlsFile::all();
        assert_eq!(files.len(), 2 * CertId::ALL.len() + BundleId::ALL.len() + 2);
        let public: Vec<&str> = files
            .iter()
            .filter(|f| f.bootstrap_host_mode() == Some(0o644))
            .map(|f| f.path())
            .collect();
        assert_eq!(public, ["tls/root-ca.crt"]);
        let off: Vec<&str> = files
            .iter()
            .filter(|f| f.bootstrap_host_mode().is_none())
            .map(|f| f.path())
            .collect();
        assert_eq!(
            off,
            [
                "tls/root-ca.key",
                "tls/admin-kubeconfig-signer.key",
                "tls/kubelet-bootstrap-kubeconfig-signer.key"
            ]
        );
        for f in files {
            assert_eq!(f.is_private(), f.path().ends_with(".key"), "{f:?}");
        }
    }

    #[test]
    fn short_rotation_shortens_only_day_and_year_tiers() {
        let short = ValidityScale::ShortCertRotation;
        assert_eq!(ValidityTier::OneDay.duration(short), Duration::hours(2));
        assert_eq!(ValidityTier::OneYear.duration(short), Duration::hours(4));
        assert_eq!(ValidityTier::TenYears.duration(short), Duration::days(3650));
    }
}
