//! The bootstrap Machine Config Server, run from the static pod the MCO render left.
//!
//! On a bootstrap host the kubelet runs `machineconfigoperator-bootstrap-pod.yaml`: its init
//! container (the bootstrap machine-config-controller) renders every pool's config from
//! `/etc/mcc/bootstrap` into `/etc/mcs/bootstrap`, then the machine-config-server serves them
//! on :22623 (TLS, `/etc/ssl/mcs`) and :22624. Here podman plays the kubelet: each container
//! runs with its command, arguments and host-path volumes, the host paths taken inside the
//! scratch root, on the host network.

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::{Error, tail};
use crate::host::{command_line, output_of};
use crate::kubelet::strings;
use crate::{Host, Payload, Result};

/// Node path of the bootstrap pod the MCO render leaves.
pub const BOOTSTRAP_POD: &str =
    "/etc/kubernetes/manifests/machineconfigoperator-bootstrap-pod.yaml";
/// The TLS port of the Machine Config Server.
pub const MCS_PORT: u16 = 22623;
/// The header Ignition (spec 3.2) sends, which the server answers with a spec 3 config.
pub(crate) const IGNITION_ACCEPT: &str =
    "Accept: application/vnd.coreos.ignition+json;version=3.2.0";
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
        Mcs::run(&BootstrapPod::read(host)?, payload)
    }

    /// [`Mcs::start`] with the bootstrap pod already read.
    pub(crate) fn run(pod: &BootstrapPod, payload: &Payload) -> Result<Mcs> {
        pod.run_init_containers(payload)?;
        let mcs = Mcs {
            payload: payload.clone(),
        };
        let mut cmd = podman_run(
            payload,
            pod.server()?,
            &pod.volumes,
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

/// The bootstrap MCO pod the render left on a host, read once for every container run from it.
pub(crate) struct BootstrapPod {
    /// Its file on the host.
    path: PathBuf,
    /// The Pod object.
    pod: Value,
    /// Volume name to its host path inside the scratch root.
    volumes: Vec<(String, PathBuf)>,
}

impl BootstrapPod {
    /// The Pod of [`BOOTSTRAP_POD`] on `host`.
    pub(crate) fn read(host: &Host) -> Result<BootstrapPod> {
        let path = host.path(BOOTSTRAP_POD);
        let text = std::fs::read_to_string(&path).map_err(Error::io(&path))?;
        let docs: Vec<Value> = serde_saphyr::from_multiple(&text)
            .map_err(|e| Error::content(&path, &e.to_string()))?;
        let pod = docs
            .into_iter()
            .find(|d| d["kind"] == "Pod")
            .ok_or_else(|| Error::content(&path, "no Pod object"))?;
        let volumes = pod["spec"]["volumes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| {
                let hostpath = v["hostPath"]["path"].as_str()?;
                Some((v["name"].as_str()?.to_string(), host.path(hostpath)))
            })
            .collect();
        Ok(BootstrapPod { path, pod, volumes })
    }

    /// Runs the init containers to completion: the bootstrap machine-config-controller,
    /// which renders every pool from `/etc/mcc/bootstrap` into `/etc/mcs/bootstrap`.
    pub(crate) fn run_init_containers(&self, payload: &Payload) -> Result<()> {
        for container in self.pod["spec"]["initContainers"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let mut cmd = podman_run(payload, container, &self.volumes, &["--rm"]);
            output_of(&mut cmd)?;
        }
        Ok(())
    }

    /// The server container (the pod's first).
    pub(crate) fn server(&self) -> Result<&Value> {
        self.pod["spec"]["containers"]
            .as_array()
            .and_then(|c| c.first())
            .ok_or_else(|| Error::content(&self.path, "the pod has no container"))
    }

    /// The image of the server container.
    pub(crate) fn server_image(&self) -> Result<&str> {
        self.pod["spec"]["containers"][0]["image"]
            .as_str()
            .ok_or_else(|| Error::content(&self.path, "no server image"))
    }
}

/// `podman run` of one pod container: host network, privileged as the pod asks, its mounts,
/// its command as entrypoint and its arguments.
fn podman_run(
    payload: &Payload,
    container: &Value,
    volumes: &[(String, PathBuf)],
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
