//! Capabilities, feature sets and feature gates.

use std::collections::BTreeSet;

use super::Validation;
use crate::errors::FieldError;
use crate::types::{BaselineCapabilitySet as B, Capability as C, FeatureSet, InstallConfig};

/// True when feature gate `name` is on: any preview feature set, or CustomNoUpgrade with
/// `name=true`.
pub fn gate_enabled(cfg: &InstallConfig, name: &str) -> bool {
    match cfg.feature_set {
        FeatureSet::TechPreviewNoUpgrade | FeatureSet::DevPreviewNoUpgrade => true,
        FeatureSet::CustomNoUpgrade => cfg
            .feature_gates
            .iter()
            .any(|g| g.trim() == format!("{name}=true")),
        _ => false,
    }
}

/// The capabilities a baseline set enables (each release's set extends the previous one).
pub fn baseline_capabilities(set: B) -> BTreeSet<C> {
    let steps: [(B, &[C]); 11] = [
        (
            B::V4_11,
            &[C::Baremetal, C::Marketplace, C::OpenshiftSamples],
        ),
        (
            B::V4_12,
            &[C::Console, C::Insights, C::Storage, C::CsiSnapshot],
        ),
        (B::V4_13, &[C::NodeTuning]),
        (
            B::V4_14,
            &[
                C::MachineApi,
                C::Build,
                C::DeploymentConfig,
                C::ImageRegistry,
            ],
        ),
        (B::V4_15, &[C::OperatorLifecycleManager, C::CloudCredential]),
        (B::V4_16, &[C::CloudControllerManager, C::Ingress]),
        (B::V4_17, &[]),
        (B::V4_18, &[C::OperatorLifecycleManagerV1]),
        (B::V4_19, &[]),
        (B::V4_20, &[]),
        (B::VCurrent, &[]),
    ];
    let mut out = BTreeSet::new();
    if set == B::None {
        return out;
    }
    for (step, caps) in steps {
        out.extend(caps.iter().copied());
        if step == set {
            break;
        }
    }
    out
}

/// Every capability and feature rule.
pub fn features(cfg: &InstallConfig, v: &mut Validation) {
    capabilities(cfg, v);
    gates(cfg, v);
}

fn capabilities(cfg: &InstallConfig, v: &mut Validation) {
    let Some(caps) = &cfg.capabilities else {
        return;
    };
    let mut enabled = baseline_capabilities(caps.baseline_capability_set);
    enabled.extend(caps.additional_enabled_capabilities.iter().copied());
    let path = "capabilities.additionalEnabledCapabilities";
    let platform = cfg.platform_name();
    if enabled.contains(&C::Marketplace) && !enabled.contains(&C::OperatorLifecycleManager) {
        v.err(FieldError::invalid(
            path,
            "marketplace",
            "the marketplace capability needs OperatorLifecycleManager; add it",
        ));
    }
    if platform == "baremetal" && !enabled.contains(&C::Baremetal) {
        v.err(FieldError::invalid(
            path,
            "baremetal",
            "platform baremetal needs the baremetal capability; add it",
        ));
    }
    if caps.baseline_capability_set != B::None {
        return;
    }
    if !enabled.contains(&C::Ingress) {
        v.err(FieldError::invalid(
            path,
            "Ingress",
            "the Ingress capability cannot be disabled; add it",
        ));
    }
    if !enabled.contains(&C::CloudCredential) && !matches!(platform, "baremetal" | "none") {
        v.err(FieldError::invalid(
            path,
            "CloudCredential",
            format!(
                "CloudCredential can only be disabled on baremetal and none, not {platform}; add it"
            ),
        ));
    }
    if !enabled.contains(&C::CloudControllerManager) && !matches!(platform, "baremetal" | "none") {
        v.err(FieldError::invalid(
            path,
            "CloudControllerManager",
            format!("CloudControllerManager can only be disabled on baremetal and none, not {platform}; add it"),
        ));
    }
}

fn gates(cfg: &InstallConfig, v: &mut Validation) {
    if cfg.feature_gates.is_empty() {
        return;
    }
    if cfg.feature_set != FeatureSet::CustomNoUpgrade {
        v.err(FieldError::forbidden(
            "featureGates",
            "featureGates need featureSet: CustomNoUpgrade; set it or remove featureGates",
        ));
    }
    for (i, g) in cfg.feature_gates.iter().enumerate() {
        let ok = g.split_once('=').is_some_and(|(name, val)| {
            !name.trim().is_empty()
                && !name.contains(char::is_whitespace)
                && matches!(val.trim(), "true" | "false")
        });
        if !ok {
            v.err(FieldError::invalid(
                format!("featureGates[{i}]"),
                g,
                "write a feature gate as Name=true or Name=false",
            ));
        }
    }
}
