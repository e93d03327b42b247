//! The bootstrap machine-config controller, run for real on a scratch host.
//!
//! The render stages only prepare `/etc/mcc/bootstrap`; the configs nodes boot are rendered
//! later by the `machine-config-controller` init container of the bootstrap MCO pod, when
//! kubelet starts it. Whether a MachineConfig we generate reaches a pool's first-boot config
//! (the OS image of image mode, say) is decided there, so this runs that container as its pod
//! spec on the host says, with podman instead of kubelet, and reads the rendered configs back.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::Error;
use crate::host::output_of;
use crate::{Host, Payload, Result};

/// The bootstrap MCO pod spec bootkube.sh leaves for kubelet.
pub const BOOTSTRAP_POD: &str =
    "/etc/kubernetes/manifests/machineconfigoperator-bootstrap-pod.yaml";
/// The init container that renders the pools' configs.
const CONTROLLER: &str = "machine-config-controller";

/// One pool's config as the bootstrap controller rendered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedPool {
    /// The MachineConfigPool.
    pub pool: String,
    /// Name of its rendered MachineConfig (`rendered-<pool>-<hash>`).
    pub config: String,
    /// The rendered config's `spec.osImageURL`: what the pool's nodes boot into.
    pub os_image_url: String,
    /// The rendered MachineConfig's file on the host.
    pub path: PathBuf,
}

/// Runs the bootstrap controller of `host` (image, command, arguments and host-path mounts
/// from its pod spec, the mounts mapped into the scratch root) and returns every pool it
/// rendered, sorted by name.
pub fn render_pool_configs(host: &Host, payload: &Payload) -> Result<Vec<RenderedPool>> {
    let spec_path = host.path(BOOTSTRAP_POD);
    let pod = read_yaml(&spec_path)?;
    let container = init_container(&pod, &spec_path)?;
    let mounts = mounts(&pod, container, host, &spec_path)?;
    let args = strings(&container["args"]);
    let dest = args
        .iter()
        .find_map(|a| a.strip_prefix("--dest-dir="))
        .and_then(|d| host_side(&mounts, d))
        .ok_or_else(|| {
            content(
                &spec_path,
                "the controller has no --dest-dir inside a mount",
            )
        })?;
    run_controller(payload, container, &mounts, &args, &spec_path)?;
    read_pools(&dest)
}

/// `(path on the host, path in the container)` of every volume mount.
type Mounts = Vec<(PathBuf, String)>;

fn init_container<'a>(pod: &'a Value, spec_path: &Path) -> Result<&'a Value> {
    pod.pointer("/spec/initContainers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|c| c["name"] == CONTROLLER)
        .ok_or_else(|| content(spec_path, &format!("no init container {CONTROLLER}")))
}

/// The container's mounts, each hostPath volume placed under the scratch root (created when
/// missing, as kubelet does for a hostPath directory).
fn mounts(pod: &Value, container: &Value, host: &Host, spec_path: &Path) -> Result<Mounts> {
    let volumes = pod.pointer("/spec/volumes").and_then(Value::as_array);
    let mut out = Vec::new();
    for mount in container["volumeMounts"].as_array().into_iter().flatten() {
        let (name, at) = (mount["name"].as_str(), mount["mountPath"].as_str());
        let (Some(name), Some(at)) = (name, at) else {
            return Err(content(
                spec_path,
                "a volumeMount without name or mountPath",
            ));
        };
        let host_path = volumes
            .into_iter()
            .flatten()
            .find(|v| v["name"] == name)
            .and_then(|v| v.pointer("/hostPath/path")?.as_str())
            .ok_or_else(|| content(spec_path, &format!("volume {name:?} is not a hostPath")))?;
        let on_host = host.path(host_path);
        std::fs::create_dir_all(&on_host).map_err(Error::io(&on_host))?;
        out.push((on_host, at.to_string()));
    }
    Ok(out)
}

/// Where a container path lives on the host, through the mount that holds it.
fn host_side(mounts: &Mounts, container_path: &str) -> Option<PathBuf> {
    mounts.iter().find_map(|(on_host, at)| {
        let rest = container_path.strip_prefix(at.as_str())?;
        (rest.is_empty() || rest.starts_with('/'))
            .then(|| on_host.join(rest.trim_start_matches('/')))
    })
}

fn run_controller(
    payload: &Payload,
    container: &Value,
    mounts: &Mounts,
    args: &[String],
    spec_path: &Path,
) -> Result<()> {
    let image = container["image"].as_str();
    let command = strings(&container["command"]);
    let (Some(image), Some(program)) = (image, command.first()) else {
        return Err(content(spec_path, "the controller has no image or command"));
    };
    let mut cmd = payload.podman();
    cmd.args([
        "run",
        "--quiet",
        "--rm",
        "--net=none",
        "--entrypoint",
        program,
    ]);
    for (on_host, at) in mounts {
        cmd.arg("--volume")
            .arg(format!("{}:{at}:z", on_host.display()));
    }
    cmd.arg(image).args(&command[1..]).args(args);
    output_of(&mut cmd).map(|_| ())
}

/// Every `machine-pools/<pool>.yaml` under `dest` with the rendered config it names.
fn read_pools(dest: &Path) -> Result<Vec<RenderedPool>> {
    let dir = dest.join("machine-pools");
    let mut pools = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(Error::io(&dir))? {
        let path = entry.map_err(Error::io(&dir))?.path();
        let pool = read_yaml(&path)?;
        let name = pool.pointer("/metadata/name").and_then(Value::as_str);
        let config = pool
            .pointer("/spec/configuration/name")
            .and_then(Value::as_str);
        let (Some(name), Some(config)) = (name, config) else {
            return Err(content(
                &path,
                "a pool without name or spec.configuration.name",
            ));
        };
        let rendered = dest.join("machine-configs").join(format!("{config}.yaml"));
        let os_image_url = read_yaml(&rendered)?
            .pointer("/spec/osImageURL")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        pools.push(RenderedPool {
            pool: name.to_string(),
            config: config.to_string(),
            os_image_url,
            path: rendered,
        });
    }
    pools.sort_by(|a, b| a.pool.cmp(&b.pool));
    Ok(pools)
}

fn read_yaml(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
    serde_saphyr::from_str(&text).map_err(|e| content(path, &format!("not YAML: {e}")))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect()
}

fn content(path: &Path, what: &str) -> Error {
    Error::Content {
        path: path.to_path_buf(),
        what: what.to_string(),
    }
}
