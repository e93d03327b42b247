//! MachineConfigs the installer adds for install-config settings (SSH key, FIPS,
//! hyperthreading, dual-stack). They land in `openshift/` so the bootstrap MCO renders them
//! into the first-boot configs.

use std::collections::BTreeMap;

use contract::{ARBITER_POOL, MASTER_POOL, WORKER_POOL};
use serde_json::{Value, json};

use super::{Dir, Out};
use crate::error::Error;
use crate::inputs::ManifestInputs;
use crate::objects::{MCO_V1, MachineConfig, MachineConfigSpec, Object};

/// Label that binds a MachineConfig to a pool role.
pub(crate) const ROLE_LABEL: &str = "machineconfiguration.openshift.io/role";
/// Ignition spec version of the configs we embed; every supported MCO accepts it.
pub(crate) const IGNITION_VERSION: &str = "3.2.0";

pub(super) fn add(inputs: &ManifestInputs, out: &mut Out) -> Result<(), Error> {
    let worker_ht_off = inputs.compute.iter().any(|p| p.hyperthreading_disabled);
    let mut roles = vec![
        (MASTER_POOL, inputs.control_plane.hyperthreading_disabled),
        (WORKER_POOL, worker_ht_off),
    ];
    // A two-node-with-arbiter cluster has a third pool, `arbiter`, with its own role.
    if let Some(arbiter) = inputs.arbiter.as_ref().filter(|p| p.replicas > 0) {
        roles.push((ARBITER_POOL, arbiter.hyperthreading_disabled));
    }
    for (role, ht_off) in roles {
        for mc in for_role(inputs, role, ht_off) {
            let name = mc.metadata.name.clone().unwrap_or_default();
            out.push(Dir::Openshift, &file_name(&name), &mc)?;
        }
    }
    Ok(())
}

/// `99_openshift-machineconfig_<name>.yaml`.
pub(crate) fn file_name(mc_name: &str) -> String {
    format!("99_openshift-machineconfig_{mc_name}.yaml")
}

fn for_role(inputs: &ManifestInputs, role: &str, ht_off: bool) -> Vec<MachineConfig> {
    let empty = || json!({"ignition": {"version": IGNITION_VERSION}});
    let mut mcs = Vec::new();
    if let Some(key) = &inputs.ssh_key {
        let config = json!({
            "ignition": {"version": IGNITION_VERSION},
            "passwd": {"users": [{"name": "core", "sshAuthorizedKeys": [key]}]},
        });
        mcs.push(machine_config(
            &format!("99-{role}-ssh"),
            role,
            config,
            false,
            &[],
        ));
    }
    if inputs.fips {
        mcs.push(machine_config(
            &format!("99-{role}-fips"),
            role,
            empty(),
            true,
            &[],
        ));
    }
    if ht_off {
        // `nosmt` for x86 and arm; `smt-enabled=off` is the POWER spelling.
        let args = ["nosmt", "smt-enabled=off"];
        let name = format!("99-{role}-disable-hyperthreading");
        mcs.push(machine_config(&name, role, empty(), false, &args));
    }
    if inputs.networking.service_network.len() == 2 {
        // Dual-stack: ask the initramfs to configure both address families.
        let name = format!("99-dual-stack-{role}");
        mcs.push(machine_config(
            &name,
            role,
            empty(),
            false,
            &["ip=dhcp,dhcp6"],
        ));
    }
    mcs
}

pub(crate) fn machine_config(
    name: &str,
    role: &str,
    config: Value,
    fips: bool,
    args: &[&str],
) -> MachineConfig {
    let spec = MachineConfigSpec {
        config,
        fips,
        kernel_arguments: args.iter().map(ToString::to_string).collect(),
        os_image_url: None,
    };
    let mut mc = Object::cluster_scoped(MCO_V1, "MachineConfig", name, spec);
    mc.metadata.labels = Some(BTreeMap::from([(ROLE_LABEL.to_string(), role.to_string())]));
    mc
}
