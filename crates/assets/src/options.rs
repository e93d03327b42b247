//! Values the caller provides to a run (flags, environment, a secrets bundle). They are
//! inputs of the graph: a change regenerates exactly the assets that read them.

use asset_graph::{Asset, BoxError, Context, Dep, Fetcher, Parents};
use pki::{CertId, SecretsBundle, ValidityScale};
use serde::{Deserialize, Serialize};

/// Release and environment settings that end up inside generated files.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ReleaseOptions {
    /// Release image pull spec written into bootstrap.ign.
    pub release_image: String,
    /// Update channel for `spec.channel` of the ClusterVersion.
    pub channel: String,
    /// Update graph for `spec.upstream` of the ClusterVersion (empty: the cluster's default,
    /// which serves OCP, not OKD).
    #[serde(default)]
    pub upstream: String,
    /// Recorded in the openshift-install-manifests ConfigMap.
    pub invoker: String,
    /// Cluster profile for the render step (usually empty).
    pub cluster_profile: String,
    /// Explicit bootstrap kubelet node IP (usually empty).
    pub bootstrap_node_ip: String,
    /// The version recorded in `openshift-install-manifests`: upstream records its own build's
    /// release version; okd-install, which installs several releases, records the version of
    /// the release it generates for (as known from the tag, a known digest or the flag).
    pub installer_version: String,
    /// The supported release the release image is: resolved once by the binary
    /// ([`releases::resolve`]) and passed on as the table's entry itself (stored as its
    /// `MAJOR.MINOR`).
    #[serde(with = "releases::by_version", default = "releases::oldest")]
    pub release: &'static releases::Release,
}

/// Empty settings for the oldest supported release (tests, documentation).
impl Default for ReleaseOptions {
    fn default() -> Self {
        ReleaseOptions {
            release_image: String::new(),
            channel: String::new(),
            upstream: String::new(),
            invoker: String::new(),
            cluster_profile: String::new(),
            bootstrap_node_ip: String::new(),
            installer_version: String::new(),
            release: releases::oldest(),
        }
    }
}

impl Asset for ReleaseOptions {
    const ID: &'static str = "input/release";
    const NAME: &'static str = "Release Options";
    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }
    fn generate(_: &Context, _: &Parents) -> Result<Self, BoxError> {
        Err(crate::Error::NotProvided("release options").into())
    }
}

/// How Ignition files are encoded.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct IgnitionOptions {
    /// Store file contents gzip-compressed where that is smaller.
    pub compress: bool,
}

impl Asset for IgnitionOptions {
    const ID: &'static str = "input/ignition";
    const NAME: &'static str = "Ignition Options";
    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }
    fn generate(_: &Context, _: &Parents) -> Result<Self, BoxError> {
        Ok(IgnitionOptions::default())
    }
}

/// Keys, signers and the kubeadmin password to reuse instead of generating (`--with-secrets`).
///
/// Stored in the state file in the bundle's own YAML form, so the state never holds a second
/// encoding of the same secrets.
#[derive(Clone, Debug, Default)]
pub struct SecretsInput(pub Option<SecretsBundle>);

impl Serialize for SecretsInput {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let yaml = match &self.0 {
            Some(b) => Some(b.to_yaml().map_err(serde::ser::Error::custom)?),
            None => None,
        };
        yaml.serialize(s)
    }
}

impl<'de> Deserialize<'de> for SecretsInput {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let yaml: Option<String> = Option::deserialize(d)?;
        yaml.map(|y| SecretsBundle::from_yaml(&y, "state file"))
            .transpose()
            .map(SecretsInput)
            .map_err(serde::de::Error::custom)
    }
}

impl SecretsInput {
    /// The private key of certificate `id`, if the bundle has it.
    pub fn key(&self, id: CertId) -> Option<&str> {
        self.0.as_ref()?.cert_keys.get(&id).map(|k| k.pem())
    }
    /// The signer certificate `id`, if the bundle has it.
    pub fn signer_cert(&self, id: CertId) -> Option<&str> {
        self.0.as_ref()?.signer_certs.get(&id).map(String::as_str)
    }
    /// The service-account signing key.
    pub fn service_account_key(&self) -> Option<&str> {
        self.0.as_ref().map(|b| b.service_account.pem())
    }
    /// The bootstrap SSH key.
    pub fn bootstrap_ssh_key(&self) -> Option<&str> {
        self.0.as_ref().map(|b| b.bootstrap_ssh.pem())
    }
    /// The kubeadmin password.
    pub fn kubeadmin_password(&self) -> Option<&str> {
        self.0.as_ref().map(|b| b.kubeadmin_password.as_str())
    }
}

impl Asset for SecretsInput {
    const ID: &'static str = "input/secrets";
    const NAME: &'static str = "Secrets Bundle";
    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }
    fn generate(_: &Context, _: &Parents) -> Result<Self, BoxError> {
        Ok(SecretsInput(None))
    }
}

/// Certificate lifetime policy of a run; carried in the [`Context`] because expiry checks run
/// on values reused from state, before any parent is resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertPolicy {
    /// Regenerate a certificate the tool created when it expires within this many hours.
    pub margin_hours: u64,
    /// Lifetime table (normal or the short-rotation feature gate).
    pub scale: ValidityScale,
    /// Load user-supplied certificates from `<dir>/tls/`.
    pub load_user_certs: bool,
}

impl Default for CertPolicy {
    fn default() -> Self {
        CertPolicy {
            margin_hours: 12,
            scale: ValidityScale::Normal,
            load_user_certs: false,
        }
    }
}

impl CertPolicy {
    /// The margin as a duration.
    pub fn margin(&self) -> time::Duration {
        time::Duration::hours(self.margin_hours as i64)
    }
}

/// Whether this run loads user-supplied certificates from `tls/`.
pub(crate) fn load_user_certs(dir: &Fetcher) -> bool {
    dir.context()
        .get::<CertPolicy>()
        .is_some_and(|p| p.load_user_certs)
}
