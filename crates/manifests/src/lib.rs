//! Cluster manifests for `create manifests`.
//!
//! This crate renders everything the installer writes into `manifests/` and `openshift/`
//! for the platforms `none`, `baremetal` and `vsphere`, loads what a user left or added in
//! those directories, builds the bootstrap-only CVO overrides, and supports install-time image
//! mode (a `MachineOSConfig` and an OS-image `MachineConfig` per pool). It is pure: no clock, no OS randomness, no file writes except
//! reading user manifests; the caller owns atomic writes and the asset state.

#![deny(missing_docs)]

pub mod cvo;
mod dir;
mod error;
pub mod generate;
pub mod ids;
pub mod imagemode;
pub mod inputs;
pub mod namespaces;
pub mod objects;
pub mod proxy;
pub mod topology;
pub mod user;
pub mod yaml;

pub use cvo::{CvoIgnore, cvo_ignore};
pub use error::{Error, ManifestError};
pub use generate::{
    Classification, Dir, Generated, ManifestFile, Origin, classify, generate, user_added_or_edited,
};
pub use ids::{cluster_id, infra_id};
pub use imagemode::{
    AgreedPool, ImageModeFlow, ImageModeReport, PoolImage, image_mode_manifests,
    pre_built_image_credentials, validate_machine_os_configs,
};
pub use inputs::ManifestInputs;
pub use user::{LoadOutcome, UserFile, load_dir, owned_by_machine_assets};
