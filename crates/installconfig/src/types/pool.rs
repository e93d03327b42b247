//! Machine pools (controlPlane, compute, arbiter).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::vsphere::VsphereMachinePool;

pub use contract::{ARBITER_POOL, MASTER_POOL, WORKER_POOL};
/// Replicas of a pool that does not say.
pub const DEFAULT_REPLICAS: i64 = 3;

/// A group of machines with the same role and settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MachinePool {
    /// Pool name: `master` for the control plane, `worker` for compute, `arbiter` for the
    /// arbiter pool.
    #[serde(default)]
    pub name: String,
    /// Number of machines in the pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = DEFAULT_REPLICAS))]
    pub replicas: Option<i64>,
    /// Platform-specific machine settings.
    #[serde(default)]
    pub platform: MachinePoolPlatform,
    /// Simultaneous multithreading on the pool's machines.
    #[serde(default)]
    pub hyperthreading: Hyperthreading,
    /// CPU architecture of the pool's machines.
    #[serde(default)]
    pub architecture: Architecture,
    /// Fencing credentials of a two-node-with-fencing control plane (feature-gated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fencing: Option<Fencing>,
    /// Additional disk layout of the pool's machines (feature-gated).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disk_setup: Vec<serde_json::Value>,
}

impl MachinePool {
    /// A pool with the given name and everything else defaulted.
    pub fn named(name: &str) -> Self {
        MachinePool {
            name: name.to_string(),
            replicas: None,
            platform: MachinePoolPlatform::default(),
            hyperthreading: Hyperthreading::default(),
            architecture: Architecture::default(),
            fencing: None,
            disk_setup: Vec::new(),
        }
    }
}

/// Simultaneous multithreading.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Hyperthreading {
    /// SMT on.
    #[default]
    Enabled,
    /// SMT off (adds a MachineConfig that disables it).
    Disabled,
}

/// CPU architecture.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Architecture {
    /// x86-64.
    #[default]
    Amd64,
    /// 64-bit ARM.
    Arm64,
    /// 64-bit little-endian POWER.
    Ppc64le,
    /// IBM Z.
    S390x,
}

impl Architecture {
    /// The name as written in install-config.yaml.
    pub fn as_str(&self) -> &'static str {
        match self {
            Architecture::Amd64 => "amd64",
            Architecture::Arm64 => "arm64",
            Architecture::Ppc64le => "ppc64le",
            Architecture::S390x => "s390x",
        }
    }
}

/// Fencing settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Fencing {
    /// One BMC credential per control-plane host.
    #[serde(default)]
    pub credentials: Vec<FencingCredential>,
}

/// BMC credentials used to fence one host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FencingCredential {
    /// Host name of the node.
    #[serde(default)]
    pub host_name: String,
    /// MAC address of the node's BMC-managed interface, to name the host instead of
    /// `hostName` (OKD 5.0 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac_address: Option<String>,
    /// BMC user.
    #[serde(default)]
    pub username: String,
    /// BMC password.
    #[serde(default)]
    pub password: String,
    /// BMC address (redfish URL).
    #[serde(default)]
    pub address: String,
    /// Whether the fencing agent verifies the BMC's TLS certificate (OKD 4.20 and later).
    /// `Disabled` is for BMCs with self-signed certificates; unset means `Enabled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "Enabled"))]
    pub certificate_verification: Option<CertificateVerification>,
}

/// Whether a BMC's TLS certificate is verified. A closed set, so that a misspelt value is
/// reported while parsing with the allowed ones instead of reaching the fencing secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum CertificateVerification {
    /// The certificate must chain to a trusted CA.
    Enabled,
    /// Any certificate is accepted (self-signed BMCs).
    Disabled,
}

/// Platform-specific machine pool settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MachinePoolPlatform {
    /// Bare-metal pool settings (none today).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baremetal: Option<super::NonePlatform>,
    /// vSphere virtual machine settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vsphere: Option<VsphereMachinePool>,
    /// The platforms okd-install recognises in a pool but does not implement, one optional
    /// key each ([`super::UNSUPPORTED_PLATFORMS`], the rows `in_pools`).
    #[serde(flatten)]
    pub unsupported: super::UnsupportedPlatforms<true>,
}

impl MachinePoolPlatform {
    /// Names of the pool platform keys that are set.
    pub fn set_names(&self) -> Vec<&'static str> {
        let mut names = super::set_keys(&[
            (super::Platform::Baremetal.name(), self.baremetal.is_some()),
            (super::Platform::Vsphere.name(), self.vsphere.is_some()),
        ]);
        names.extend(self.unsupported.set_names());
        names
    }
}
