//! Evidence beyond the service records: failed systemd units and on-cluster layering state.

use serde::Serialize;
use serde_json::Value;

/// A systemd unit that was in the failed state on some host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailedUnit {
    /// `bootstrap`, or the control-plane host name/address the per-master gather used.
    pub host: String,
    /// The unit name, e.g. `bootkube.service`.
    pub unit: String,
    /// The unit's description as systemd printed it (may be empty).
    pub description: String,
}

/// Which host a file belongs to, judged by its path inside the bundle.
pub(crate) fn host_of(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    match parts.iter().position(|p| *p == "control-plane") {
        Some(i) if i + 2 < parts.len() => parts[i + 1].to_string(),
        _ => "bootstrap".to_string(),
    }
}

/// Parses `systemctl list-units --state=failed` output (with or without header, legend and
/// the `●` marker).
pub(crate) fn parse_failed_units(host: &str, text: &str) -> Vec<FailedUnit> {
    text.lines()
        .filter_map(|line| {
            let mut tokens = line
                .split_whitespace()
                .skip_while(|t| *t == "●" || *t == "*");
            let unit = tokens.next()?;
            if !contract::UNIT_SUFFIXES.iter().any(|s| unit.ends_with(s)) {
                return None;
            }
            // LOAD ACTIVE SUB come next; the rest is the description.
            let description: Vec<&str> = tokens.skip(3).collect();
            Some(FailedUnit {
                host: host.to_string(),
                unit: unit.to_string(),
                description: description.join(" "),
            })
        })
        .collect()
}

/// A `MachineOSConfig` as dumped from the cluster during the gather.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MachineOsConfigState {
    /// Object name.
    pub name: String,
    /// `spec.machineConfigPool.name`.
    pub pool: Option<String>,
    /// The pre-built image annotation, when image mode is used at install time.
    pub pre_built_image: Option<String>,
    /// `status.currentImagePullSpec`: the image the pool is meant to run.
    pub current_image: Option<String>,
    /// A problem we can see from the object alone (e.g. an image not pinned by digest).
    pub warning: Option<String>,
}

/// A `MachineOSBuild` and the state its conditions report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MachineOsBuildState {
    /// Object name.
    pub name: String,
    /// `spec.machineOSConfig.name`.
    pub config: Option<String>,
    /// The first true condition of Succeeded, Failed, Interrupted, Building, Prepared;
    /// `Unknown` when none is true.
    pub state: String,
    /// Reason of that condition.
    pub reason: Option<String>,
    /// Message of that condition.
    pub message: Option<String>,
}

impl MachineOsBuildState {
    /// Whether the build finished successfully.
    pub fn succeeded(&self) -> bool {
        self.state == "Succeeded"
    }
}

/// On-cluster layering (image mode) objects found in the bundle.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MachineOsState {
    /// Every `MachineOSConfig`.
    pub configs: Vec<MachineOsConfigState>,
    /// Every `MachineOSBuild`.
    pub builds: Vec<MachineOsBuildState>,
}

/// The objects of an `oc get -o json` dump: a List, a bare array, or a single object.
pub(crate) fn items(text: &str) -> Result<Vec<Value>, serde_json::Error> {
    let value = crate::shown::json_value(text)?;
    Ok(match value {
        Value::Array(items) => items,
        Value::Object(ref map) => match map.get("items") {
            Some(Value::Array(items)) => items.clone(),
            _ => vec![value],
        },
        _ => Vec::new(),
    })
}

fn text_at(value: &Value, pointer: &str) -> Option<String> {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_string)
}

const PRE_BUILT_ANNOTATION: &str = "machineconfiguration.openshift.io/pre-built-image";

/// Summarises one `MachineOSConfig`.
pub(crate) fn config_state(value: &Value) -> MachineOsConfigState {
    let pre_built_image = value
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(PRE_BUILT_ANNOTATION))
        .and_then(Value::as_str)
        .map(str::to_string);
    let warning = pre_built_image
        .as_ref()
        .filter(|image| !image.contains("@sha256:"))
        .map(|image| {
            format!("pre-built image {image} is not pinned by digest (@sha256:...); the bootstrap machine-config operator ignores it")
        });
    MachineOsConfigState {
        name: text_at(value, "/metadata/name").unwrap_or_default(),
        pool: text_at(value, "/spec/machineConfigPool/name"),
        pre_built_image,
        current_image: text_at(value, "/status/currentImagePullSpec"),
        warning,
    }
}

/// Summarises one `MachineOSBuild` from its conditions.
pub(crate) fn build_state(value: &Value) -> MachineOsBuildState {
    let conditions = value
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let order = ["Succeeded", "Failed", "Interrupted", "Building", "Prepared"];
    let current = order.iter().find_map(|kind| {
        conditions.iter().find(|c| {
            c.get("type").and_then(Value::as_str) == Some(kind)
                && c.get("status").and_then(Value::as_str) == Some("True")
        })
    });
    MachineOsBuildState {
        name: text_at(value, "/metadata/name").unwrap_or_default(),
        config: text_at(value, "/spec/machineOSConfig/name"),
        state: current
            .and_then(|c| text_at(c, "/type"))
            .unwrap_or_else(|| "Unknown".to_string()),
        reason: current.and_then(|c| text_at(c, "/reason")),
        message: current.and_then(|c| text_at(c, "/message")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_systemctl_output_with_marker_header_and_legend() {
        let text = "  UNIT                 LOAD   ACTIVE SUB    DESCRIPTION\n\
● bootkube.service     loaded failed failed Bootstrap a Kubernetes cluster\n\
  crio.service loaded failed failed Container Runtime Interface for OCI (CRI-O)\n\
\n\
LOAD   = Reflects whether the unit definition was properly loaded.\n\
2 loaded units listed.\n";
        let units = parse_failed_units("bootstrap", text);
        assert_eq!(units.len(), 2);
        assert_eq!(units[0].unit, "bootkube.service");
        assert_eq!(units[0].description, "Bootstrap a Kubernetes cluster");
        assert_eq!(units[1].unit, "crio.service");
        assert!(parse_failed_units("b", "0 loaded units listed.\n").is_empty());
    }

    #[test]
    fn host_comes_from_the_control_plane_directory() {
        assert_eq!(host_of("lb/failed-units.txt"), "bootstrap");
        assert_eq!(
            host_of("lb/control-plane/10.0.0.5/failed-units.txt"),
            "10.0.0.5"
        );
    }
}
