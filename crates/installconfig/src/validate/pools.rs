//! Machine pool rules and topologies (single node, arbiter, two-node fencing).

use super::Validation;
use super::features::{FeatureGate, gate_enabled};
use crate::errors::FieldError;
use crate::types::{ARBITER_POOL, InstallConfig, MachinePool, Platform, WORKER_POOL};

/// Every pool rule.
pub(super) fn pools(cfg: &InstallConfig, v: &mut Validation) {
    let platform = cfg.platform_name();
    if let Some(cp) = &cfg.control_plane {
        control_plane(cfg, cp, v);
        pool_platform(cp, "controlPlane", platform, v);
    }
    let mut seen: Vec<&str> = Vec::new();
    let cp_arch = cfg.control_plane.as_ref().map(|p| p.architecture);
    for (i, p) in cfg.compute.iter().enumerate() {
        let path = format!("compute[{i}]");
        if seen.contains(&p.name.as_str()) {
            v.err(FieldError::duplicate(
                format!("{path}.name"),
                &p.name,
                "compute pool names must be unique; merge the pools",
            ));
        }
        seen.push(&p.name);
        if p.name != WORKER_POOL {
            v.err(FieldError::not_supported(
                format!("{path}.name"),
                &p.name,
                &[WORKER_POOL],
            ));
        }
        if let Some(r) = p.replicas.filter(|r| *r < 0) {
            v.err(FieldError::invalid(
                format!("{path}.replicas"),
                r,
                "replicas must not be negative",
            ));
        }
        if cp_arch.is_some_and(|a| a != p.architecture) {
            v.err(FieldError::invalid(
                format!("{path}.architecture"),
                p.architecture.as_str(),
                "mixed architectures are not supported; use the control plane's architecture",
            ));
        }
        if p.fencing.is_some() {
            v.err(FieldError::forbidden(
                format!("{path}.fencing"),
                "fencing applies to the control plane only; remove it",
            ));
        }
        pool_platform(p, &path, platform, v);
    }
    // Zero compute replicas is warned about where it takes effect, by the manifests'
    // scheduler config, which names the file to edit; warning here too said it twice.
    if let Some(a) = &cfg.arbiter {
        arbiter(cfg, a, v);
    }
}

fn control_plane(cfg: &InstallConfig, cp: &MachinePool, v: &mut Validation) {
    let replicas = cp.replicas.unwrap_or(0);
    let path = "controlPlane.replicas";
    if replicas <= 0 {
        v.err(FieldError::invalid(
            path,
            replicas,
            "the control plane needs a positive number of replicas; use 3 (or 1 for single node)",
        ));
    } else if replicas == 1
        && !cfg
            .platform_kind()
            .is_some_and(Platform::allows_single_node)
    {
        v.err(FieldError::invalid(
            path,
            replicas,
            format!("single-node clusters are supported on platform none only, not {:?}; use 3 replicas or platform none", cfg.platform_name()),
        ));
    } else if replicas == 2 && cfg.arbiter.is_none() && cp.fencing.is_none() {
        v.err(FieldError::invalid(
            path,
            replicas,
            "two control-plane nodes need an arbiter pool or fencing credentials; use 3 replicas",
        ));
    }
    if let Some(f) = &cp.fencing {
        if !gate_enabled(cfg, FeatureGate::DualReplica) {
            v.err(FieldError::forbidden("controlPlane.fencing", "two-node fencing needs the DualReplica feature gate (featureSet DevPreviewNoUpgrade, or CustomNoUpgrade with DualReplica=true)"));
        }
        if replicas != 2 {
            v.err(FieldError::invalid(
                path,
                replicas,
                "fencing is only for a two-node control plane; set replicas: 2",
            ));
        }
        if f.credentials.len() as i64 != replicas {
            v.err(FieldError::invalid(
                "controlPlane.fencing.credentials",
                f.credentials.len(),
                "give one credential per control-plane host",
            ));
        }
    }
}

fn pool_platform(p: &MachinePool, path: &str, platform: &str, v: &mut Validation) {
    for key in p.platform.set_names() {
        if key != platform {
            v.err(FieldError::invalid(
                format!("{path}.platform.{key}"),
                key,
                format!("the pool's platform settings must be for the cluster platform {platform:?}; remove this section"),
            ));
        }
    }
}

fn arbiter(cfg: &InstallConfig, a: &MachinePool, v: &mut Validation) {
    if !gate_enabled(cfg, FeatureGate::HighlyAvailableArbiter) {
        v.err(FieldError::forbidden(
            "arbiter",
            "the arbiter pool needs the HighlyAvailableArbiter feature gate (featureSet TechPreviewNoUpgrade, or CustomNoUpgrade with HighlyAvailableArbiter=true)",
        ));
    }
    if !cfg.platform_kind().is_some_and(Platform::allows_arbiter) {
        v.err(FieldError::invalid(
            "arbiter",
            cfg.platform_name(),
            "an arbiter pool is supported on platform baremetal only",
        ));
    }
    if a.name != ARBITER_POOL {
        v.err(FieldError::not_supported(
            "arbiter.name",
            &a.name,
            &[ARBITER_POOL],
        ));
    }
    if a.replicas.unwrap_or(0) <= 0 {
        v.err(FieldError::invalid(
            "arbiter.replicas",
            a.replicas.unwrap_or(0),
            "the arbiter pool needs at least one replica",
        ));
    }
    if cfg.control_plane_replicas() < 2 {
        v.err(FieldError::invalid(
            "controlPlane.replicas",
            cfg.control_plane_replicas(),
            "an arbiter deployment needs at least 2 control-plane replicas",
        ));
    }
}
