//! Capabilities, feature sets and feature gates.

use std::collections::BTreeSet;

use super::Validation;
use crate::errors::FieldError;
use crate::types::{
    BaselineCapabilitySet as B, Capability as C, DnsRecordsType, FeatureSet, InstallConfig,
    Platform, ZoneType, yaml_name,
};

/// The feature gates whose state changes what okd-install accepts or writes. Each is off in
/// the Default feature set of the 4.19 release; the sets that switch it on are in
/// [`FeatureGate::in_set`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeatureGate {
    /// Two-node control plane with fencing.
    DualReplica,
    /// Two control-plane nodes plus an arbiter node.
    HighlyAvailableArbiter,
    /// Several port groups per vSphere failure domain, and `nodeNetworking`.
    VSphereMultiNetworks,
    /// vSphere zones that are host groups inside a compute cluster.
    VSphereHostVmGroupZonal,
    /// Additional data disks on vSphere machines.
    VSphereMultiDisk,
    /// DNS records for api, api-int and ingress served outside the cluster (OKD 4.21 and
    /// later; the gate does not exist before).
    OnPremDnsRecords,
    /// The signers' key chosen in `pki` (OKD 5.0 and later; RSA-4096 signers with the gate
    /// on and no `pki`).
    ConfigurablePki,
}

impl FeatureGate {
    /// The gate's name as the FeatureGate API spells it.
    pub fn name(self) -> &'static str {
        match self {
            FeatureGate::DualReplica => "DualReplica",
            FeatureGate::HighlyAvailableArbiter => "HighlyAvailableArbiter",
            FeatureGate::VSphereMultiNetworks => "VSphereMultiNetworks",
            FeatureGate::VSphereHostVmGroupZonal => "VSphereHostVMGroupZonal",
            FeatureGate::VSphereMultiDisk => "VSphereMultiDisk",
            FeatureGate::OnPremDnsRecords => "OnPremDNSRecords",
            FeatureGate::ConfigurablePki => "ConfigurablePKI",
        }
    }

    /// Whether the named feature set of release 4.19 switches the gate on (taken from the
    /// release's FeatureGate manifests: DualReplica is a DevPreview feature, the others are
    /// TechPreview features).
    fn in_set(self, set: FeatureSet) -> bool {
        match set {
            FeatureSet::DevPreviewNoUpgrade => true,
            FeatureSet::TechPreviewNoUpgrade => self != FeatureGate::DualReplica,
            FeatureSet::Default | FeatureSet::CustomNoUpgrade => false,
        }
    }
}

/// True when `gate` is on: in the preview feature sets that include it, or with
/// CustomNoUpgrade and `<gate>=true` in featureGates.
pub fn gate_enabled(cfg: &InstallConfig, gate: FeatureGate) -> bool {
    if cfg.feature_set == FeatureSet::CustomNoUpgrade {
        let wanted = format!("{}=true", gate.name());
        return cfg.feature_gates.iter().any(|g| g.trim() == wanted);
    }
    gate.in_set(cfg.feature_set)
}

/// The capabilities a baseline set enables, as release 4.19 defines the sets (MachineAPI is
/// part of every set since it was made optional; OperatorLifecycleManagerV1 joined in v4.18).
pub fn baseline_capabilities(set: B) -> BTreeSet<C> {
    let steps: [(B, &[C]); 9] = [
        (
            B::V4_11,
            &[
                C::Baremetal,
                C::Marketplace,
                C::OpenshiftSamples,
                C::MachineApi,
            ],
        ),
        (
            B::V4_12,
            &[C::Console, C::Insights, C::Storage, C::CsiSnapshot],
        ),
        (B::V4_13, &[C::NodeTuning]),
        (B::V4_14, &[C::Build, C::DeploymentConfig, C::ImageRegistry]),
        (B::V4_15, &[C::OperatorLifecycleManager, C::CloudCredential]),
        (B::V4_16, &[C::CloudControllerManager, C::Ingress]),
        (B::V4_17, &[]),
        (B::V4_18, &[C::OperatorLifecycleManagerV1]),
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

/// The capabilities the config enables (the baseline defaults to vCurrent).
pub(super) fn enabled_capabilities(cfg: &InstallConfig) -> BTreeSet<C> {
    match &cfg.capabilities {
        None => baseline_capabilities(B::VCurrent),
        Some(caps) => {
            let mut enabled = baseline_capabilities(caps.baseline_capability_set);
            enabled.extend(caps.additional_enabled_capabilities.iter().copied());
            enabled
        }
    }
}

/// Every capability and feature rule.
pub(super) fn features(cfg: &InstallConfig, v: &mut Validation) {
    capabilities(cfg, v);
    gates(cfg, v);
    gated_fields(cfg, v);
}

/// A capability the config needs but does not enable, and why.
struct Missing {
    capability: C,
    why: String,
}

/// The name of a capability as install-config.yaml spells it.
fn capabilities(cfg: &InstallConfig, v: &mut Validation) {
    let Some(caps) = &cfg.capabilities else {
        return;
    };
    let enabled = enabled_capabilities(cfg);
    // The user either listed additional capabilities or chose only a baseline: point at the
    // field they wrote, since that is where the fix goes.
    let path = if caps.additional_enabled_capabilities.is_empty() {
        "capabilities.baselineCapabilitySet"
    } else {
        "capabilities.additionalEnabledCapabilities"
    };
    let baseline = yaml_name(&caps.baseline_capability_set);
    for m in missing_capabilities(cfg, &enabled) {
        let name = yaml_name(&m.capability);
        v.err(FieldError::invalid(
            path,
            &name,
            format!(
                "{}; baseline {baseline} does not include it, so add {name} to capabilities.additionalEnabledCapabilities",
                m.why
            ),
        ));
    }
}

fn missing_capabilities(cfg: &InstallConfig, enabled: &BTreeSet<C>) -> Vec<Missing> {
    let platform = cfg.platform_name();
    let kind = cfg.platform_kind();
    let cloud_free = kind.is_some_and(Platform::cloud_free);
    let mut needed: Vec<(C, String)> = Vec::new();
    if enabled.contains(&C::Marketplace) {
        needed.push((
            C::OperatorLifecycleManager,
            "the marketplace capability needs OperatorLifecycleManager".into(),
        ));
    }
    if let Some(c) = kind.and_then(Platform::required_capability) {
        let why = format!("platform {platform} needs the {} capability", yaml_name(&c));
        needed.push((c, why));
    }
    if !cloud_free {
        for c in [C::CloudCredential, C::CloudControllerManager] {
            let why = format!(
                "{} can only be disabled on baremetal and none, not {platform}",
                yaml_name(&c)
            );
            needed.push((c, why));
        }
    }
    needed.push((
        C::Ingress,
        "the Ingress capability cannot be disabled".into(),
    ));
    needed
        .into_iter()
        .filter(|(cap, _)| !enabled.contains(cap))
        .map(|(capability, why)| Missing { capability, why })
        .collect()
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

/// Install-config fields that only work when a feature gate is on: (path, gate, used).
fn gated_field_uses(cfg: &InstallConfig) -> Vec<(String, FeatureGate)> {
    let mut uses = Vec::new();
    if cfg.pki.is_some() {
        uses.push(("pki".to_string(), FeatureGate::ConfigurablePki));
    }
    if let Some(p) = cfg.platform.vip_platform()
        && p.dns_records_type() == Some(DnsRecordsType::External)
    {
        uses.push((
            format!("platform.{}.dnsRecordsType", p.key()),
            FeatureGate::OnPremDnsRecords,
        ));
    }
    let Some(vs) = &cfg.platform.vsphere else {
        return uses;
    };
    if vs.node_networking.is_some() {
        uses.push((
            "platform.vsphere.nodeNetworking".to_string(),
            FeatureGate::VSphereMultiNetworks,
        ));
    }
    for (i, fd) in vs.failure_domains.iter().enumerate() {
        let base = format!("platform.vsphere.failureDomains[{i}]");
        if fd.topology.networks.len() > 1 {
            uses.push((
                format!("{base}.topology.networks"),
                FeatureGate::VSphereMultiNetworks,
            ));
        }
        if fd.zone_type == Some(ZoneType::HostGroup) || fd.topology.host_group.is_some() {
            uses.push((
                format!("{base}.zoneType"),
                FeatureGate::VSphereHostVmGroupZonal,
            ));
        }
    }
    let pools = cfg
        .control_plane
        .iter()
        .map(|p| ("controlPlane".to_string(), p))
        .chain(
            cfg.compute
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("compute[{i}]"), p)),
        );
    for (path, pool) in pools {
        if pool
            .platform
            .vsphere
            .as_ref()
            .is_some_and(|p| !p.data_disks.is_empty())
        {
            uses.push((
                format!("{path}.platform.vsphere.dataDisks"),
                FeatureGate::VSphereMultiDisk,
            ));
        }
    }
    uses
}

fn gated_fields(cfg: &InstallConfig, v: &mut Validation) {
    for (path, gate) in gated_field_uses(cfg) {
        if !gate_enabled(cfg, gate) {
            v.err(FieldError::forbidden(
                path,
                format!(
                    "this field needs the {} feature gate: set featureSet TechPreviewNoUpgrade, or CustomNoUpgrade with featureGates [{}=true], or remove the field",
                    gate.name(),
                    gate.name()
                ),
            ));
        }
    }
}
