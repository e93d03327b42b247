//! TLS material for an OKD installation: keys, signer and leaf certificates, CA bundles,
//! kubeconfigs, the kubeadmin password and a secrets bundle for reproducible runs.
//!
//! The functions work per item (one key, one certificate, one bundle) so that the asset graph
//! (crate `assets`) can run the expensive RSA key generation in parallel; that graph is the
//! only place they are strung together into a whole PKI, for `okd-install create` as for the
//! tests and the benchmark. Time and randomness always come from the caller: the only
//! randomness this crate cannot inject is aws-lc's key generation, which is why deterministic
//! runs take their keys from a [`SecretsBundle`].
//!
//! The certificate table ([`CertId::spec`]) is the single source of subjects, lifetimes,
//! usages, issuers and SAN rules, and the kubeconfig table ([`KubeconfigId::spec`]) that of
//! each kubeconfig's file, user, CA bundle, client certificate and endpoint. Signing follows
//! the upstream installer's rules (SHA-1 SKI over the PKCS#1 public key, AKI from the issuer,
//! leaf NotBefore = issuer NotBefore, ...).
//!
//! ```
//! use pki::{CertId, ClusterNames, ClusterParams, ValidityScale, generate_rsa_key, sign_leaf, sign_self};
//! let params = ClusterParams {
//!     names: ClusterNames::new("demo", "example.com"),
//!     service_networks: vec!["172.30.0.0/16".parse().unwrap()],
//!     api_vips: vec![],
//! };
//! let now = time::macros::datetime!(2026-01-01 00:00 UTC);
//! let scale = ValidityScale::Normal;
//! let root = sign_self(CertId::RootCa, &generate_rsa_key()?, now, scale, 1)?;
//! let key = generate_rsa_key()?;
//! let mcs = sign_leaf(CertId::MachineConfigServer, &key, &root, &params, now, scale, 2)?;
//! pki::check_pair(mcs.cert_pem(), mcs.key_pem(), "tls/machine-config-server.crt")?;
//! # Ok::<(), pki::Error>(())
//! ```

#![deny(missing_docs)]

mod bundle;
mod check;
mod der;
mod error;
mod expiry;
mod key;
mod kubeconfig;
mod params;
mod password;
pub mod pem;
mod secrets;
mod sign;
mod spec;
mod yaml;

pub use bundle::bundle_pem;
pub use check::check_pair;
pub use contract::ClusterNames;
pub use error::{Error, Result};
pub use expiry::{expiry_problem, human, not_after, not_after_all};
pub use key::{
    EC_PRIVATE_KEY, KeyPem, RSA_PRIVATE_KEY, RSA_PUBLIC_KEY, generate_key, generate_rsa_key,
};
pub use kubeconfig::{Endpoint, KubeconfigFile, KubeconfigId, KubeconfigSpec, kubeconfig_yaml};
pub use params::{ClusterParams, San, first_host};
pub use password::{BCRYPT_COST, KubeadminPassword, PASSWORD_ALPHABET, generate_password};
pub use secrets::{BOOTSTRAP_SSH, SECRETS_KIND, SECRETS_VERSION, SERVICE_ACCOUNT, SecretsBundle};
pub use sign::{CertKey, SERIAL_LIMIT, random_serial, sign_leaf, sign_self, subject_key_id};
pub use spec::{
    BundleId, BundleMember, CertId, CertSpec, Curve, ExtKeyUsage, KeyKind, KeyUsage,
    OnBootstrapHost, SanRule, Subject, TLS_DIR, TlsFile, ValidityScale, ValidityTier,
};
