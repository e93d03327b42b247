//! Install-time image mode (On-Cluster Layering with a pre-built image).
//!
//! With image mode on, each pool (master, worker) gets two objects that name the same
//! digest-pinned image, one built and pushed beforehand:
//!
//! - a `MachineConfig` `99-<pool>-okd-install-os-image` in `openshift/` setting
//!   `spec.osImageURL`. This is what takes effect at install time: the bootstrap
//!   machine-config controller of 4.19 merges it into the pool's rendered config (the last
//!   MachineConfig that sets an osImageURL wins over the release's base OS image), the Machine
//!   Config Server serves that config, and each node rebases onto the image on first boot.
//! - a `MachineOSConfig` in `manifests/` with the `pre-built-image` annotation. The 4.19
//!   bootstrap controller skips it; it exists for after the install, when the build controller
//!   runs on-cluster builds of the pool from its Containerfile.
//!
//! Both are generated from one [`PoolImage`], and validation refuses them when they disagree:
//! nothing is built during bootstrap, so a wrong or mismatched reference would surface only as
//! nodes that boot the wrong OS or never become ready.
//!
//! From OKD 4.21 the MCO bootstrap itself honours a MachineOSConfig with that annotation: it
//! writes the pool's osImageURL MachineConfig (`10-prebuiltimage-osimageurl-<pool>`) and aborts
//! the whole bootstrap on a MachineOSConfig it cannot use. There ([`ImageModeFlow`]) only the
//! MachineOSConfig is written, and every MachineOSConfig among the manifests is held to the
//! bootstrap's rules whether or not install-config turns image mode on.

mod generate;
mod reference;
mod validate;

use serde_json::Value;

use crate::user::{ObjectRef, UserFile};

pub use generate::{
    PoolImage, image_mode_manifests, os_image_config_name, os_image_file_name, skeleton_name,
};
pub use reference::{image_reference, pre_built_image_credentials};
pub use validate::{AgreedPool, ImageModeReport, validate_machine_os_configs};

/// How a release takes the pre-built image at install time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageModeFlow {
    /// The release's bootstrap ignores MachineOSConfigs (OKD 4.19, 4.20): our MachineConfig
    /// sets the pool's osImageURL, the MachineOSConfig serves on-cluster builds after install.
    OsImageMachineConfig,
    /// The release's MCO bootstrap applies a MachineOSConfig's pre-built image (OKD 4.21 and
    /// later): the MachineOSConfig alone, which the bootstrap validates and fails on.
    BootstrapMachineOsConfig,
}

/// Annotation holding the digest-pinned pre-built image.
pub const PRE_BUILT_IMAGE: &str = "machineconfiguration.openshift.io/pre-built-image";
/// Marker for values only the user can supply; validation rejects any field containing it.
pub const PLACEHOLDER: &str = "REPLACE-ME";
/// Kind of the on-cluster build configuration.
const KIND: &str = "MachineOSConfig";
/// API group of MachineConfig and MachineOSConfig.
const MCO_GROUP: &str = "machineconfiguration.openshift.io";

/// Every object of `kind` in the MCO API group, with its file.
fn objects_of<'a>(
    files: &'a [UserFile],
    kind: &'a str,
) -> impl Iterator<Item = (&'a UserFile, &'a ObjectRef)> {
    files
        .iter()
        .flat_map(|f| f.objects.iter().map(move |o| (f, o)))
        .filter(move |(_, o)| o.kind == kind && o.group() == MCO_GROUP)
}

/// The MachineOSConfigs among `files`.
fn machine_os_configs(files: &[UserFile]) -> impl Iterator<Item = (&UserFile, &ObjectRef)> {
    objects_of(files, KIND)
}

/// The pool a MachineOSConfig is for.
fn pool_of(o: &ObjectRef) -> Option<&str> {
    o.value
        .pointer("/spec/machineConfigPool/name")
        .and_then(Value::as_str)
}

/// The pre-built image a MachineOSConfig names, if any.
fn pre_built_image_of(o: &ObjectRef) -> Option<&str> {
    o.value
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(PRE_BUILT_IMAGE))
        .and_then(Value::as_str)
}
