//! The bootstrap Machine Config Server, run from the static pod the MCO render left.
//!
//! On a bootstrap host the kubelet runs `machineconfigoperator-bootstrap-pod.yaml`: its init
//! container (the bootstrap machine-config-controller) renders every pool's config from
//! `/etc/mcc/bootstrap` into `/etc/mcs/bootstrap`, then the machine-config-server serves them
//! on :22623 (TLS, `/etc/ssl/mcs`) and :22624. Here podman plays the kubelet: each container
//! runs with its command, arguments and host-path volumes, the host paths taken inside the
//! scratch root, on the host network.

use std::net::TcpStream;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::{Error, tail};
use crate::host::{command_line, output_of};
use crate::{Host, Payload, Result};

/// Node path of the bootstrap pod the MCO render leaves.
pub const BOOTSTRAP_POD: &str =
    "/etc/kubernetes/manifests/machineconfigoperator-bootstrap-pod.yaml";
/// The TLS port of the Machine Config Server.
pub const MCS_PORT: u16 = 22623;
/// Container name of the running server, so a leftover one can be replaced.
const SERVER_NAME: &str = "okd-harness-machine-config-server";

/// A running bootstrap Machine Config Server; stopped on drop.
pub struct Mcs {
    payload: Payload,
}

impl Drop for Mcs {
    fn drop(&mut self) {
        remove_container(&self.payload, SERVER_NAME);
    }
}

/// Removes the container `name` if it exists (a server left running stops here).
pub(crate) fn remove_container(payload: &Payload, name: &str) {
    let _ = payload
        .podman()
        .args(["rm", "--force", "--ignore", name])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

impl Mcs {
    /// Runs the bootstrap pod of `host` as its kubelet would: the controller to completion,
    /// then the server, until it accepts connections on 127.0.0.1:22623.
    pub fn start(host: &Host, payload: &Payload) -> Result<Mcs> {
        run_init_containers(host, payload)?;
        let pod = read_pod(host)?;
        let volumes = volumes(&pod, host);
        let mcs = Mcs {
            payload: payload.clone(),
        };
        let server = pod["spec"]["containers"]
            .as_array()
            .and_then(|c| c.first())
            .ok_or_else(|| pod_error(host, "the pod has no container"))?;
        let mut cmd = podman_run(
            payload,
            server,
            &volumes,
            &["--detach", "--replace", "--name", SERVER_NAME],
        );
        output_of(&mut cmd)?;
        wait_listening(payload, SERVER_NAME, Duration::from_secs(60))?;
        Ok(mcs)
    }
}

/// Waits until the server container `name` accepts connections on 127.0.0.1:22623; when it
/// does not within `limit`, the error carries the end of its log.
pub(crate) fn wait_listening(payload: &Payload, name: &str, limit: Duration) -> Result<()> {
    let started = Instant::now();
    while started.elapsed() < limit {
        if TcpStream::connect(("127.0.0.1", MCS_PORT)).is_ok() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut logs = payload.podman();
    logs.args(["logs", name]);
    let output = logs
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
        })
        .unwrap_or_default();
    Err(Error::Command {
        command: format!("{name} ({})", command_line(&logs)),
        status: format!("not listening on {MCS_PORT} after {}s", limit.as_secs()),
        output: tail(&output, 30),
    })
}

/// Runs the init containers of the bootstrap pod of `host` to completion: the bootstrap
/// machine-config-controller, which renders every pool from `/etc/mcc/bootstrap` into
/// `/etc/mcs/bootstrap`.
pub(crate) fn run_init_containers(host: &Host, payload: &Payload) -> Result<()> {
    let pod = read_pod(host)?;
    let volumes = volumes(&pod, host);
    for container in pod["spec"]["initContainers"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let mut cmd = podman_run(payload, container, &volumes, &["--rm"]);
        output_of(&mut cmd)?;
    }
    Ok(())
}

fn pod_error(host: &Host, why: &str) -> Error {
    Error::Io {
        path: host.path(BOOTSTRAP_POD),
        error: std::io::Error::new(std::io::ErrorKind::InvalidData, why.to_string()),
    }
}

pub(crate) fn read_pod(host: &Host) -> Result<Value> {
    let path = host.path(BOOTSTRAP_POD);
    let text = std::fs::read_to_string(&path).map_err(Error::io(&path))?;
    let docs: Vec<Value> =
        serde_saphyr::from_multiple(&text).map_err(|e| pod_error(host, &e.to_string()))?;
    docs.into_iter()
        .find(|d| d["kind"] == "Pod")
        .ok_or_else(|| pod_error(host, "no Pod object"))
}

/// Volume name to its host path inside the scratch root.
fn volumes(pod: &Value, host: &Host) -> Vec<(String, std::path::PathBuf)> {
    pod["spec"]["volumes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| {
            let path = v["hostPath"]["path"].as_str()?;
            Some((v["name"].as_str()?.to_string(), host.path(path)))
        })
        .collect()
}

/// `podman run` of one pod container: host network, privileged as the pod asks, its mounts,
/// its command as entrypoint and its arguments.
fn podman_run(
    payload: &Payload,
    container: &Value,
    volumes: &[(String, std::path::PathBuf)],
    extra: &[&str],
) -> std::process::Command {
    let mut cmd = payload.podman();
    cmd.args(["run", "--quiet", "--net=host"]).args(extra);
    if container["securityContext"]["privileged"] == true {
        cmd.arg("--privileged");
    }
    for mount in container["volumeMounts"].as_array().into_iter().flatten() {
        let name = mount["name"].as_str().unwrap_or_default();
        if let Some((_, source)) = volumes.iter().find(|(n, _)| n == name) {
            let target = mount["mountPath"].as_str().unwrap_or_default();
            cmd.arg("--volume")
                .arg(format!("{}:{target}:z", source.display()));
        }
    }
    let command: Vec<&str> = strings(&container["command"]);
    if let Some(entrypoint) = command.first() {
        cmd.arg(format!("--entrypoint={entrypoint}"));
    }
    cmd.arg(container["image"].as_str().unwrap_or_default());
    cmd.args(&command[command.len().min(1)..]);
    cmd.args(strings(&container["args"]));
    cmd
}

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}
