//! Rules of the okd-install extensions `imageMode` and `bootstrapPivot`.

use super::Validation;
use crate::errors::FieldError;
use crate::types::{InstallConfig, WORKER_POOL};

/// Control-plane replicas a bootstrap pivot needs.
pub const PIVOT_REPLICAS: i64 = 3;

/// imageMode: images are built for the master and worker pools only.
pub fn image_mode(cfg: &InstallConfig, v: &mut Validation) {
    if !cfg.image_mode_enabled() {
        return;
    }
    for (i, p) in cfg.compute.iter().enumerate() {
        if p.name != WORKER_POOL {
            v.err(FieldError::invalid(
                format!("compute[{i}].name"),
                &p.name,
                "imageMode builds images for the master and worker pools only; name the pool worker or disable imageMode",
            ));
        }
    }
    if cfg.arbiter.is_some() {
        v.err(FieldError::forbidden("imageMode", "imageMode does not cover the arbiter pool; disable imageMode or remove the arbiter pool"));
    }
    if cfg.bootstrap_in_place.is_some() {
        v.err(FieldError::forbidden(
            "imageMode",
            "a single bootstrap-in-place node has no second node to keep the cluster up while it reboots into its image; disable imageMode",
        ));
    }
}

/// bootstrapPivot: three masters, none/baremetal, an absolute /dev disk, no bootstrapInPlace.
pub fn bootstrap_pivot(cfg: &InstallConfig, v: &mut Validation) {
    let Some(pivot) = &cfg.bootstrap_pivot else {
        return;
    };
    let replicas = cfg.control_plane_replicas();
    if replicas != PIVOT_REPLICAS {
        v.err(FieldError::invalid(
            "controlPlane.replicas",
            replicas,
            "bootstrapPivot needs exactly 3 control-plane replicas (the pivoting host becomes the third)",
        ));
    }
    let platform = cfg.platform_name();
    if !matches!(platform, "none" | "baremetal") {
        v.err(FieldError::invalid(
            "platform",
            platform,
            "bootstrapPivot works on platform none or baremetal only, where hosts boot the Ignition you give them",
        ));
    }
    let disk = pivot.installation_disk.trim();
    let path = "bootstrapPivot.installationDisk";
    if disk.is_empty() {
        v.err(FieldError::required(
            path,
            "name the disk the pivoting host installs itself onto, e.g. /dev/sda",
        ));
    } else if !disk.starts_with("/dev/")
        || disk.len() <= 5
        || disk.contains("..")
        || disk.contains(char::is_whitespace)
    {
        v.err(FieldError::invalid(
            path,
            disk,
            "use an absolute device path under /dev/, e.g. /dev/sda or /dev/disk/by-id/...",
        ));
    }
    if cfg.bootstrap_in_place.is_some() {
        v.err(FieldError::forbidden(
            "bootstrapPivot",
            "bootstrapPivot and bootstrapInPlace exclude each other; keep one",
        ));
    }
}
