//! The in-cluster Machine Config Server, the one worker nodes actually meet.
//!
//! The bootstrap server serves the master pool alone: asked for `/config/worker` the real 4.19
//! server answers 500 "refusing to serve bootstrap configuration to pool worker", by design.
//! Workers boot once the control plane runs, from the machine-config-server daemonset on the
//! masters (`machine-config-server start`), which lists and watches MachineConfigPools,
//! MachineConfigs and the ControllerConfig on the API server and serves with the
//! `machine-config-server-tls` secret of `manifests/`.
//!
//! This runs that real 4.19 binary in `start` mode, from the MCO image the bootstrap pod
//! names, against the cluster crate's TLS test API server (client certificates, list and
//! watch). The API server holds what the real bootstrap controller rendered into
//! `/etc/mcs/bootstrap`: the pools, their rendered MachineConfigs and the ControllerConfig,
//! which is the state the cluster's own controller starts from. Its client identity is the
//! bootstrap host's loopback kubeconfig (the admin client certificate); the node kubeconfig
//! the server embeds is built from a node-bootstrapper token directory the harness writes,
//! as the service-account token secret mounted in the daemonset would be.

use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine as _;
use serde_json::Value;
use testkit::api::TestApiServer;

use crate::check::read_objects;
use crate::error::Error;
use crate::host::output_of;
use crate::mcs::{BootstrapPod, remove_container, wait_listening};
use crate::{Host, Payload, Result};

/// Container name of the running server, so a leftover one can be replaced.
const SERVER_NAME: &str = "okd-harness-cluster-machine-config-server";
/// The secret of `manifests/` the daemonset serves with.
const TLS_SECRET: &str = "/opt/openshift/manifests/machine-config-server-tls-secret.yaml";
/// Where the harness lays out the daemonset's volumes on the scratch host.
const POD_DIR: &str = "/run/okd-harness/cluster-mcs";

/// A running in-cluster Machine Config Server and its API server; stopped on drop.
pub(crate) struct ClusterMcs {
    payload: Payload,
    /// Kept so the API server keeps serving; dropped after the container.
    _api: TestApiServer,
    _runtime: tokio::runtime::Runtime,
}

impl Drop for ClusterMcs {
    fn drop(&mut self) {
        remove_container(&self.payload, SERVER_NAME);
    }
}

impl ClusterMcs {
    /// Starts the API server with the bootstrap controller's output of `host` (run
    /// [`crate::render_pool_configs`] or [`crate::Mcs::start`] first), then the in-cluster
    /// server on 127.0.0.1:22623, which must be free (stop the bootstrap server first, as
    /// the real bootstrap host is gone by the time workers boot). `api_int` is the cluster's
    /// api-int host, the `--apiserver-url` of the daemonset; the server's image is the one
    /// `pod` (the bootstrap MCO pod of `host`) names.
    pub(crate) fn start(
        host: &Host,
        pod: &BootstrapPod,
        payload: &Payload,
        api_int: &str,
    ) -> Result<ClusterMcs> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .map_err(Error::io(host.path(POD_DIR)))?;
        let api = runtime.block_on(start_api(host))?;
        for object in cluster_objects(host)? {
            api.apply(object);
        }
        let dir = host.path(POD_DIR);
        write_volumes(host, &dir, api.port())?;
        let mcs = ClusterMcs {
            payload: payload.clone(),
            _api: api,
            _runtime: runtime,
        };
        let mut cmd = mcs.podman_run(pod.server_image()?, &dir, api_int);
        output_of(&mut cmd)?;
        wait_listening(payload, SERVER_NAME, Duration::from_secs(60))?;
        Ok(mcs)
    }

    /// `podman run` of the daemonset's server container from `image` with the volumes under
    /// `dir`.
    fn podman_run(&self, image: &str, dir: &Path, api_int: &str) -> std::process::Command {
        let mut cmd = self.payload.podman();
        cmd.args(["run", "--quiet", "--net=host", "--detach", "--replace"])
            .args(["--name", SERVER_NAME])
            .args(["--entrypoint", "/usr/bin/machine-config-server"]);
        for (from, to) in [
            ("certs", "/etc/ssl/mcs"),
            ("node-bootstrap-token", "/etc/mcs/bootstrap-token"),
            ("kubeconfig", "/etc/okd-harness"),
        ] {
            cmd.arg("--volume")
                .arg(format!("{}:{to}:z", dir.join(from).display()));
        }
        cmd.arg(image).args([
            "start",
            &format!("--apiserver-url=https://{api_int}:6443"),
            "--kubeconfig=/etc/okd-harness/kubeconfig",
        ]);
        cmd
    }
}

/// The test API server with the bootstrap host's localhost serving certificate, accepting
/// client certificates of the complete client CA bundle (the admin kubeconfig's signer is in
/// it, as on the real API server).
async fn start_api(host: &Host) -> Result<TestApiServer> {
    let tls = |name: &str| read(&host.path(&format!("/opt/openshift/tls/{name}")));
    let cert = tls("kube-apiserver-localhost-server.crt")?;
    let key = tls("kube-apiserver-localhost-server.key")?;
    let client_ca = tls("kube-apiserver-complete-client-ca-bundle.crt")?;
    Ok(TestApiServer::start(&cert, &key, &client_ca).await)
}

/// The pools, rendered MachineConfigs and ControllerConfig the bootstrap controller wrote.
fn cluster_objects(host: &Host) -> Result<Vec<Value>> {
    let out = host.path("/etc/mcs/bootstrap");
    let mut objects = Vec::new();
    for sub in ["machine-pools", "machine-configs", "controller-config"] {
        let dir = out.join(sub);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(Error::io(&dir))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        files.sort();
        for file in files {
            objects.extend(read_objects(&file).into_iter().filter(|o| o.is_object()));
        }
    }
    if objects.is_empty() {
        return Err(Error::content(
            &out,
            "the bootstrap controller left no objects",
        ));
    }
    Ok(objects)
}

/// The daemonset's volumes: the serving secret, the node-bootstrapper token and a
/// kubeconfig for the API server on `port`.
fn write_volumes(host: &Host, dir: &Path, port: u16) -> Result<()> {
    let secret_path = host.path(TLS_SECRET);
    let secret = read_objects(&secret_path).into_iter().next();
    let secret = secret.ok_or_else(|| Error::content(&secret_path, "no Secret"))?;
    for file in ["tls.crt", "tls.key"] {
        let encoded = secret["data"][file].as_str().unwrap_or_default();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|e| Error::content(&secret_path, &format!("data.{file}: {e}")))?;
        write(&dir.join("certs"), file, &bytes)?;
    }
    let ca = read(&host.path("/opt/openshift/tls/kube-apiserver-complete-server-ca-bundle.crt"))?;
    write(&dir.join("node-bootstrap-token"), "ca.crt", ca.as_bytes())?;
    write(
        &dir.join("node-bootstrap-token"),
        "token",
        b"okd-harness-node-bootstrapper-token",
    )?;
    let kubeconfig = loopback_kubeconfig(host, port)?;
    write(&dir.join("kubeconfig"), "kubeconfig", kubeconfig.as_bytes())
}

/// The bootstrap host's loopback kubeconfig, pointed at the test API server.
fn loopback_kubeconfig(host: &Host, port: u16) -> Result<String> {
    let path = host.path("/opt/openshift/auth/kubeconfig-loopback");
    let mut config = read_objects(&path)
        .into_iter()
        .next()
        .ok_or_else(|| Error::content(&path, "not a kubeconfig"))?;
    let clusters = config["clusters"].as_array_mut();
    let cluster = clusters
        .and_then(|c| c.first_mut())
        .ok_or_else(|| Error::content(&path, "no cluster"))?;
    cluster["cluster"]["server"] = Value::String(format!("https://localhost:{port}"));
    Ok(config.to_string())
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(Error::io(path))
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    let path = dir.join(name);
    std::fs::write(&path, bytes).map_err(Error::io(&path))
}
