//! Rules of the okd-install extensions `imageMode` and `bootstrapPivot`.

use super::{Validation, dns_subdomain_problem, repository_problem};
use crate::errors::FieldError;
use crate::types::{ImageModePool, InstallConfig, MASTER_POOL, Platform, WORKER_POOL};

/// Control-plane replicas a bootstrap pivot needs.
pub(super) const PIVOT_REPLICAS: i64 = 3;

/// imageMode: images are built for the master and worker pools only, and each entry of
/// `imageMode.pools` carries every value its MachineOSConfig needs.
pub(super) fn image_mode(cfg: &InstallConfig, v: &mut Validation) {
    let pools = cfg.image_mode.as_ref().map(|m| m.pools.as_slice());
    if !cfg.image_mode_enabled() {
        if pools.is_some_and(|p| !p.is_empty()) {
            v.warn(
                "imageMode.pools",
                "imageMode.enabled is false, so the pools' pre-built images are not used",
            );
        }
        return;
    }
    image_mode_pools(pools.unwrap_or_default(), v);
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

/// Pools of `imageMode.pools`: each names master or worker once and gives all its values.
fn image_mode_pools(pools: &[ImageModePool], v: &mut Validation) {
    for (i, pool) in pools.iter().enumerate() {
        let base = format!("imageMode.pools[{i}]");
        let name = pool.name.as_str();
        if name.is_empty() {
            v.err(FieldError::required(
                format!("{base}.name"),
                "name the pool: master or worker",
            ));
        } else if name != MASTER_POOL && name != WORKER_POOL {
            v.err(FieldError::not_supported(
                format!("{base}.name"),
                name,
                &[MASTER_POOL, WORKER_POOL],
            ));
        } else if pools[..i].iter().any(|p| p.name == name) {
            v.err(FieldError::duplicate(
                format!("{base}.name"),
                name,
                "each pool has one pre-built image; keep one entry per pool",
            ));
        }
        pool_values(pool, &base, v);
    }
}

/// The four values of one pool entry, each required and well-formed.
fn pool_values(pool: &ImageModePool, base: &str, v: &mut Validation) {
    checked(
        v,
        format!("{base}.preBuiltImage"),
        &pool.pre_built_image,
        "give the image built for this pool, as <registry>/<repository>@sha256:<digest>",
        |s| image_problem(s, true),
    );
    checked(
        v,
        format!("{base}.containerfile"),
        &pool.containerfile,
        "give the Containerfile the pre-built image was built from; on-cluster builds after install reuse it",
        |_| None,
    );
    checked(
        v,
        format!("{base}.renderedImagePushSpec"),
        &pool.rendered_image_push_spec,
        "give where on-cluster builds push their images, as <registry>/<repository>:<tag>",
        |s| image_problem(s, false),
    );
    checked(
        v,
        format!("{base}.renderedImagePushSecret"),
        &pool.rendered_image_push_secret,
        "name the Secret in openshift-machine-config-operator that holds the push credentials",
        |s| dns_subdomain_problem(s).map(|p| format!("a Secret name {p}")),
    );
}

/// A required value: `hint` when it is blank, else whatever `problem` finds in it.
fn checked(
    v: &mut Validation,
    path: String,
    value: &str,
    hint: &str,
    problem: impl Fn(&str) -> Option<String>,
) {
    let value = value.trim();
    if value.is_empty() {
        v.err(FieldError::required(path, hint));
    } else if let Some(p) = problem(value) {
        v.err(FieldError::invalid(path, value, p));
    }
}

/// Why `reference` is not `<repository>[:tag]` or `<repository>@sha256:<64 hex>`; with
/// `need_digest` only the digest form is accepted, because a tag can move between the
/// install and the node's first boot.
fn image_problem(reference: &str, need_digest: bool) -> Option<String> {
    let (repository, digest) = match reference.split_once('@') {
        Some((r, d)) => (r, Some(d)),
        None => (reference, None),
    };
    match digest {
        Some(d) => {
            let hex = d.strip_prefix("sha256:").unwrap_or_default();
            let ok = hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
            if !ok {
                return Some("the digest must be sha256: and 64 lower-case hex digits".into());
            }
        }
        None if need_digest => {
            return Some("pin the image by digest (<image>@sha256:<digest>), not by tag".into());
        }
        None => {}
    }
    let untagged = match repository.rsplit_once(':') {
        Some((r, tag)) if digest.is_none() && !tag.contains('/') => r,
        _ => repository,
    };
    repository_problem(untagged).map(|p| format!("the repository {p}"))
}

/// bootstrapPivot: three masters, none/baremetal, an absolute /dev disk, no bootstrapInPlace.
pub(super) fn bootstrap_pivot(cfg: &InstallConfig, v: &mut Validation) {
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
    if !cfg
        .platform_kind()
        .is_some_and(Platform::boots_given_ignition)
    {
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
