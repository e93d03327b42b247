//! What a node gets from the bootstrap Machine Config Server, checked against the install
//! directory: the install-config's SSH key, the OS image the pool must boot, and every
//! MachineConfig the user or the installer wrote for the pool.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::check::{Finding, read_objects};
use crate::host::output_of;
use crate::{Payload, Result};

/// Node path of the MachineConfig the served config carries for the node's first boot.
const ENCAPSULATED: &str = "/etc/ignition-machine-config-encapsulated.json";

/// The config the single-node flow fetches for itself from the plain-HTTP port 22624, as
/// bootstrap-in-place.sh does.
pub fn fetch_local_master() -> Result<Value> {
    let mut cmd = Command::new("curl");
    cmd.args(["--silent", "--show-error", "--fail", "--max-time", "20"])
        .args(["--header", crate::mcs::IGNITION_ACCEPT])
        .arg("http://localhost:22624/config/master");
    let text = output_of(&mut cmd)?;
    serde_json::from_str(&text).map_err(|e| crate::Error::Command {
        command: "curl http://localhost:22624/config/master".into(),
        status: "not JSON".into(),
        output: e.to_string(),
    })
}

/// The Ignition config a node of `role` gets and the MachineConfig it was rendered from.
pub struct NodeConfig {
    /// The Ignition config.
    pub ignition: Value,
    /// The rendered MachineConfig.
    pub machine_config: Value,
}

impl NodeConfig {
    /// From a config the server served: the MachineConfig is the one it embeds for the
    /// node's first boot.
    pub fn served(served: Value) -> Option<NodeConfig> {
        let machine_config = encapsulated(&served)?;
        Some(NodeConfig {
            ignition: served,
            machine_config,
        })
    }
}

/// What the install directory and the bootstrap config asked of the nodes, read once per
/// example: each pool's checks pick their part of it.
pub(crate) struct Asked {
    /// The install-config's SSH public keys (the non-empty lines of `sshKey`, trimmed).
    ssh_keys: Vec<String>,
    /// Every MachineConfig the bootstrap config carried to the host
    /// (`/opt/openshift/openshift` and `manifests`), in file order.
    machine_configs: Vec<Value>,
}

impl Asked {
    /// The SSH keys of `install_config` and the MachineConfigs under `/opt/openshift` on
    /// `host`.
    pub(crate) fn read(install_config: &Value, host: &crate::Host) -> Asked {
        let ssh_keys = install_config["sshKey"]
            .as_str()
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .map(str::to_string)
            .collect();
        Asked {
            ssh_keys,
            machine_configs: machine_configs(&host.assets()),
        }
    }

    /// What a node of `role` must get: the SSH keys, the pool's MachineConfigs and the OS
    /// image (the last one a MachineConfig of the pool names, else the release's node image).
    pub(crate) fn for_pool(&self, role: &str, payload: &Payload) -> Expected<'_> {
        let configs = pool_machine_configs(&self.machine_configs, role);
        let os_image = configs
            .iter()
            .filter_map(|mc| mc["spec"]["osImageURL"].as_str().filter(|s| !s.is_empty()))
            .next_back()
            .map(str::to_string)
            .or_else(|| payload.image_for("stream-coreos").ok().flatten());
        Expected {
            ssh_keys: &self.ssh_keys,
            configs,
            os_image,
        }
    }
}

/// What a node of one pool must get ([`Asked::for_pool`]).
pub(crate) struct Expected<'a> {
    ssh_keys: &'a [String],
    configs: Vec<&'a Value>,
    os_image: Option<String>,
}

/// Every way the config a node of `role` gets falls short of what was `expected`: the
/// install-config's SSH keys, the OS image the pool must boot and every MachineConfig the
/// user or the installer wrote for the pool.
pub(crate) fn check_served(
    stage: &'static str,
    role: &str,
    node: &NodeConfig,
    expected: &Expected<'_>,
) -> Vec<Finding> {
    let served = &node.ignition;
    let mut findings = Vec::new();
    let mut say = |problem: String| findings.push(Finding { stage, problem });
    let keys = ignition::core_authorized_keys(served);
    for key in expected.ssh_keys {
        if !keys.iter().any(|k| k.trim() == key) {
            say(format!(
                "the core user does not get the install-config SSH key {}",
                short(key)
            ));
        }
    }
    let machine_config = &node.machine_config;
    let os = machine_config["spec"]["osImageURL"]
        .as_str()
        .unwrap_or_default();
    if expected.os_image.as_deref() != Some(os) {
        say(format!(
            "the rendered {role} config boots {os:?}, not {:?}",
            expected.os_image
        ));
    }
    for mc in &expected.configs {
        for problem in missing_parts(mc, served, machine_config) {
            say(problem);
        }
    }
    findings
}

fn short(key: &str) -> String {
    key.chars().take(40).collect::<String>() + "..."
}

/// The MachineConfig the served config embeds for the node's first boot.
fn encapsulated(served: &Value) -> Option<Value> {
    let file = served["storage"]["files"]
        .as_array()?
        .iter()
        .find(|f| f["path"] == ENCAPSULATED)?;
    let bytes = ignition::inline_contents(&file["contents"]).ok()??;
    serde_json::from_slice(&bytes).ok()
}

/// The MachineConfigs of `openshift/` and `manifests/` under `assets`, in file order.
fn machine_configs(assets: &Path) -> Vec<Value> {
    let mut files: Vec<_> = ["openshift", "manifests"]
        .iter()
        .filter_map(|d| std::fs::read_dir(assets.join(d)).ok())
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    files
        .iter()
        .flat_map(|p| read_objects(p))
        .filter(|object| object["kind"] == "MachineConfig")
        .collect()
}

/// The configs of `all` labelled for `role`, each name once (bootkube copies `openshift/`
/// into `manifests/`).
fn pool_machine_configs<'a>(all: &'a [Value], role: &str) -> Vec<&'a Value> {
    let mut configs: Vec<&Value> = Vec::new();
    for object in all {
        let for_pool =
            object["metadata"]["labels"]["machineconfiguration.openshift.io/role"] == role;
        if for_pool
            && !configs
                .iter()
                .any(|c| c["metadata"]["name"] == object["metadata"]["name"])
        {
            configs.push(object);
        }
    }
    configs
}

/// Files, units and kernel arguments of `mc` that the served config lacks.
fn missing_parts(mc: &Value, served: &Value, rendered: &Value) -> Vec<String> {
    let name = mc["metadata"]["name"].as_str().unwrap_or("?");
    let mut missing = Vec::new();
    let served_files: Vec<&str> = list(&served["storage"]["files"], "path");
    for path in list(&mc["spec"]["config"]["storage"]["files"], "path") {
        if !served_files.contains(&path) {
            missing.push(format!(
                "MachineConfig {name}: file {path} is not in the served config"
            ));
        }
    }
    let served_units: Vec<&str> = list(&served["systemd"]["units"], "name");
    for unit in list(&mc["spec"]["config"]["systemd"]["units"], "name") {
        if !served_units.contains(&unit) {
            missing.push(format!(
                "MachineConfig {name}: unit {unit} is not in the served config"
            ));
        }
    }
    let args: Vec<&str> = rendered["spec"]["kernelArguments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for arg in mc["spec"]["kernelArguments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !args.contains(&arg) {
            missing.push(format!(
                "MachineConfig {name}: kernel argument {arg} is not rendered"
            ));
        }
    }
    missing
}

fn list<'a>(value: &'a Value, key: &str) -> Vec<&'a str> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v[key].as_str())
        .collect()
}
