//! Validation of a converted and defaulted install config.
//!
//! Each submodule owns one area of the rules; every rule appends [`FieldError`]s with the
//! field path, so a single run reports everything that is wrong.

mod extensions;
mod features;
mod hosts;
mod mirrors;
mod names;
mod network;
mod pki;
mod platform;
mod pools;
mod provisioning;
mod proxy;
mod release;
mod secrets;
pub mod sshkey;
mod vips;
mod vsphere;

pub use features::{FeatureGate, baseline_capabilities, gate_enabled};
pub use hosts::{MAC_HINT, is_mac};
pub use mirrors::repository_problem;
pub use names::{MAX_NAME_LEN, dns_subdomain_problem};
pub use network::configured_join_subnet;
pub use pki::{DEFAULT_PROFILE_SIGNER, PkiManagement, SignerKeyChoice, pki_management, signer_key};
pub use provisioning::{DhcpRangeError, parse_dhcp_range};
pub use release::{os_image_stream, validate_for_release};
pub use secrets::{
    pull_secret_problem, ssh_key_problem, trust_bundle_problem, trust_bundle_validity,
};

use crate::errors::{FieldError, Warning};
use crate::types::InstallConfig;

/// Findings of a validation run.
#[derive(Debug, Default, Clone)]
pub struct Validation {
    /// Problems that make the config unusable.
    pub errors: Vec<FieldError>,
    /// Findings the user should look at.
    pub warnings: Vec<Warning>,
}

impl Validation {
    pub(crate) fn err(&mut self, e: FieldError) {
        self.errors.push(e);
    }

    pub(crate) fn warn(&mut self, path: &str, message: impl Into<String>) {
        self.warnings.push(Warning {
            path: path.to_string(),
            message: message.into(),
        });
    }
}

/// Checks every rule that applies to the config's platform.
pub fn validate(cfg: &InstallConfig) -> Validation {
    let mut v = Validation::default();
    platform::platform(cfg, &mut v);
    names::names(cfg, &mut v);
    network::networking(cfg, &mut v);
    vips::vips(cfg, &mut v);
    vsphere::vsphere(cfg, &mut v);
    hosts::hosts(cfg, &mut v);
    provisioning::provisioning(cfg, &mut v);
    pools::pools(cfg, &mut v);
    secrets::secrets(cfg, &mut v);
    proxy::proxy(cfg, &mut v);
    mirrors::mirrors(cfg, &mut v);
    mirrors::publish(cfg, &mut v);
    mirrors::credentials_mode(cfg, &mut v);
    features::features(cfg, &mut v);
    pki::pki(cfg, &mut v);
    extensions::image_mode(cfg, &mut v);
    extensions::bootstrap_pivot(cfg, &mut v);
    v
}

/// Checks of the single-node bootstrap-in-place target (`create single-node-ignition-config`);
/// they are not part of [`validate`] because a normal install does not need them.
pub fn validate_single_node(cfg: &InstallConfig) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if cfg.control_plane_replicas() != 1 {
        errors.push(FieldError::invalid(
            "controlPlane.replicas",
            cfg.control_plane_replicas(),
            "a single-node bootstrap-in-place install needs exactly one control-plane replica; set controlPlane.replicas: 1",
        ));
    }
    match &cfg.bootstrap_in_place {
        None => errors.push(FieldError::required(
            "bootstrapInPlace",
            "single-node Ignition needs a bootstrapInPlace section; add bootstrapInPlace.installationDisk (e.g. /dev/sda)",
        )),
        Some(b) if b.installation_disk.trim().is_empty() => errors.push(FieldError::required(
            "bootstrapInPlace.installationDisk",
            "name the disk the node installs itself onto, e.g. /dev/sda",
        )),
        Some(_) => {}
    }
    errors
}

/// Annotation recorded when the FIPS host check was skipped on purpose.
pub const HOSTCRYPT_BYPASS_ANNOTATION: &str = "install.openshift.io/hostcrypt-check-bypassed";

/// The FIPS host rule: a `fips: true` cluster must be generated on a host running in FIPS
/// mode, unless the check is skipped (`OPENSHIFT_INSTALL_SKIP_HOSTCRYPT_VALIDATION`). The
/// caller reads the host state (e.g. /proc/sys/crypto/fips_enabled) and the environment, so
/// this stays a pure function.
pub fn validate_fips_host(
    cfg: &InstallConfig,
    host_fips_enabled: bool,
    skip_check: bool,
) -> Option<FieldError> {
    (cfg.fips && !host_fips_enabled && !skip_check).then(|| {
        FieldError::forbidden(
            "fips",
            "a FIPS cluster must be created from a host running in FIPS mode; run okd-install on such a host, or set OPENSHIFT_INSTALL_SKIP_HOSTCRYPT_VALIDATION=1 if you accept the risk",
        )
    })
}
