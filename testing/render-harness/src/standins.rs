//! What the bootstrap machine waits on but the harness cannot run, and who plays it.
//!
//! The bootstrap machine runs the temporary control plane; the real one forms on the
//! control-plane hosts, whose kubelets, operators and etcd members answer the waits of
//! `cluster-bootstrap start` and `bootkube.sh`. Those hosts do not exist here, and some
//! payload operators have no image in the stand-in payload. [`STAND_INS`] lists every piece
//! played by someone else; [`ApiStandIns`] writes, with the admin kubeconfig, what the missing
//! components would write, at the moment they would write it.

use std::net::IpAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::background::{Background, Journal};
use crate::error::Error;
use crate::host::output_of;
use crate::mcs::IGNITION_ACCEPT;
use crate::pointer::read_pointer;
use crate::{Host, Payload, Result, Sandbox};

/// One component the harness does not run, and what stands in for it.
#[derive(Debug, Clone, Copy)]
pub struct StandIn {
    /// The real component.
    pub component: &'static str,
    /// What the harness does instead.
    pub replaced_by: &'static str,
}

/// Every stand-in of a harness bootstrap run.
pub const STAND_INS: &[StandIn] = &[
    StandIn {
        component: "systemd (bootkube.service, progress.service, approve-csr.service)",
        replaced_by: "the harness runs the three scripts with the units' arguments; bootkube.sh is \
                      started again 5 s after a failure (Restart=on-failure) until .bootkube.done exists",
    },
    StandIn {
        component: "release-image.service",
        replaced_by: "tools/release-image: the release image is looked up in podman's store first (the payload \
                      is loaded there), else pulled with retries as the unit does; the unit's service record \
                      is written; bootkube.sh starts after it succeeded (After=, Requires=)",
    },
    StandIn {
        component: "node-image-pull.service",
        replaced_by: "the host's node-image-pull.sh, run as on a live system; `ostree` is a stand-in \
                      whose `container image pull` is a real podman pull of the release's node \
                      image (a failing pull fails in podman's words) and whose checkout is the \
                      image exported by podman; `rpm-ostree status --json` names one deployment; \
                      bootkube.sh starts after it succeeded",
    },
    StandIn {
        component: "crio-configure, node-image-overlay/finish units; bootstrap-pivot.service",
        replaced_by: "not run: the payload images are in podman already, the harness machine's \
                      /usr is not overlaid, and the pivot installs the machine itself to a disk",
    },
    StandIn {
        component: "kubelet",
        replaced_by: "kubelet::Kubelet runs the static pods of /etc/kubernetes/manifests with podman",
    },
    StandIn {
        component: "crictl",
        replaced_by: "a script answering `crictl ps [--state S]`, `logs`, `inspect` (CRI's status shape, \
                      with attempt 0: the kubelet stand-in restarts a container in place) and `exec` \
                      from the kubelet stand-in's containers",
    },
    StandIn {
        component: "journalctl (of the bootstrap units)",
        replaced_by: "a script printing the harness's log of the unit (`--unit bootkube.service` is \
                      logs/bootkube.log; kubelet.log is the kubelet stand-in's)",
    },
    StandIn {
        component: "systemctl (list-units, status)",
        replaced_by: "a script: no unit is ever failed (the harness restarts them), `status` shows the end of \
                      the unit's log",
    },
    StandIn {
        component: "the node's `core` user, its sudo rights and sshd",
        replaced_by: "the machine's sshd on the bootstrap address:22 in the sandbox's network namespace; `core` \
                      with the keys bootstrap.ign gives it and passwordless sudo, from private copies of \
                      /etc/passwd, /etc/shadow, /etc/group and /etc/sudoers.d bound over the originals in \
                      the sandbox's mount namespace only",
    },
    StandIn {
        component: "oc",
        replaced_by: "kubectl from the payload's hyperkube image (`oc adm certificate` becomes `kubectl certificate`)",
    },
    StandIn {
        component: "payload placeholders (cluster-policy-controller, keepalived, coredns, haproxy, baremetal-runtimecfg)",
        replaced_by: "not run by the kubelet stand-in; api and api-int resolve to the bootstrap address in /etc/hosts",
    },
    StandIn {
        component: "machine-api-operator, cluster-network-operator, cluster-baremetal-operator (no image)",
        replaced_by: "their namespace openshift-machine-api and CRDs networks.operator.openshift.io and \
                      provisionings.metal3.io, with the names, groups, versions and scope of their \
                      release-4.19 manifests and an open schema",
    },
    StandIn {
        component: "control-plane hosts: Ignition in the initramfs",
        replaced_by: "each host's fetch of master.ign's merge URL (api-int:22623/config/master, \
                      trusting the pointer's root CA), made with curl in the sandbox and retried \
                      every few seconds; no host joins before it has its config",
    },
    StandIn {
        component: "control-plane hosts: kubelets and static pods",
        replaced_by: "Nodes master-0..2 kept Ready once they fetched their config, and Running/Ready \
                      Pods named as --required-pods asks",
    },
    StandIn {
        component: "control-plane hosts: kube-apiserver, kube-controller-manager, kube-scheduler operators",
        replaced_by: "status.nodeStatuses at revision 1 on the three masters (cluster-bootstrap's HA check)",
    },
    StandIn {
        component: "control-plane hosts: kube-apiservers",
        replaced_by: "their master leases written into etcd, so default/kubernetes lists three API endpoints; \
                      once cluster-bootstrap has torn the bootstrap API server down, that same pod run \
                      again as master-0's by a second kubelet stand-in (its bootstrap-secrets host path \
                      pointed at a copy of tls/ and the loopback kubeconfig), answering at the API names",
    },
    StandIn {
        component: "cluster-policy-controller (placeholder image): namespace security allocation",
        replaced_by: "every namespace without one gets its openshift.io/sa.scc.* UID, supplemental-group \
                      and MCS ranges, a block of 10000 each, as the controller allocates them",
    },
    StandIn {
        component: "cluster-etcd-operator",
        replaced_by: "etcds/cluster EtcdRunningInCluster=True (wait-for-ceo), then EtcdBootstrapMemberRemoved=True \
                      once kube-system/bootstrap says complete, as the operator orders it",
    },
];

/// Names of the control-plane hosts that stand in.
pub(crate) const MASTERS: [&str; 3] = ["master-0", "master-1", "master-2"];

/// The CRDs of operators without an image, as (plural, group, kind, version, scope).
const MISSING_CRDS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "networks",
        "operator.openshift.io",
        "Network",
        "v1",
        "Cluster",
    ),
    (
        "provisionings",
        "metal3.io",
        "Provisioning",
        "v1alpha1",
        "Cluster",
    ),
];
/// Namespaces of operators without an image.
const MISSING_NAMESPACES: &[&str] = &["openshift-machine-api"];
/// Pods `cluster-bootstrap start --required-pods` waits for: (namespace, name prefix).
const REQUIRED_PODS: &[(&str, &str)] = &[
    ("openshift-kube-apiserver", "kube-apiserver"),
    ("openshift-kube-scheduler", "openshift-kube-scheduler"),
    (
        "openshift-kube-controller-manager",
        "kube-controller-manager",
    ),
    ("openshift-cluster-version", "cluster-version-operator"),
];
/// Operator configurations whose node status cluster-bootstrap reads on HA clusters.
const HA_OPERATORS: &[&str] = &[
    "kubeapiservers.operator.openshift.io",
    "kubeschedulers.operator.openshift.io",
    "kubecontrollermanagers.operator.openshift.io",
];
const TICK: Duration = Duration::from_secs(3);
/// The annotation the namespace security allocation controller sets first.
const UID_RANGE: &str = "openshift.io/sa.scc.uid-range";
/// The manifest directory of the stand-in master's kubelet (a node path).
pub(crate) const MASTER_MANIFESTS: &str = "/etc/kubernetes/stand-in-master-0/manifests";
/// Where the stand-in master's API server finds its secrets (a node path).
const MASTER_SECRETS: &str = "/etc/kubernetes/stand-in-master-0/secrets";
/// How long a stand-in master lease lives in etcd; renewed well before.
const LEASE_TTL_SECONDS: u64 = 120;

/// The stand-in control-plane hosts: where they are and the pointer config they boot from.
#[derive(Debug, Clone)]
pub(crate) struct Masters {
    /// Their addresses (none for a single-node cluster, which waits for no master).
    pub addresses: Vec<IpAddr>,
    /// The install directory's master.ign.
    pub pointer: PathBuf,
    /// `api-int.<cluster domain>`, fetched from when the pointer names an address.
    pub api_int: String,
}

/// Writes the stand-in namespaces, CRDs and status while it runs.
pub(crate) struct ApiStandIns {
    background: Background,
}

/// What [`ApiStandIns`] needs to reach the API server and etcd.
#[derive(Debug, Clone)]
pub(crate) struct Access {
    /// The sandbox.
    pub sandbox: Sandbox,
    /// The payload (etcdctl's image).
    pub payload: Payload,
    /// kubectl on the machine.
    pub kubectl: std::path::PathBuf,
    /// The admin kubeconfig that talks to localhost (`auth/kubeconfig-loopback`).
    pub kubeconfig: std::path::PathBuf,
    /// The etcd image.
    pub etcd_image: String,
    /// The host.
    pub host: Host,
}

impl Access {
    /// kubectl in the sandbox with the admin kubeconfig.
    pub(crate) fn kubectl(&self) -> Command {
        let mut cmd = self.sandbox.command(&self.kubectl);
        cmd.arg(format!("--kubeconfig={}", self.kubeconfig.display()))
            .arg("--request-timeout=20s");
        cmd
    }

    /// `kubectl apply` of `objects`.
    pub(crate) fn apply(&self, objects: &[Value]) -> Result<String> {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": objects});
        let file = self.host.path(&format!(
            "/run/okd-harness-apply-{}.json",
            std::process::id()
        ));
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).map_err(Error::io(parent))?;
        }
        std::fs::write(&file, list.to_string()).map_err(Error::io(&file))?;
        let mut cmd = self.kubectl();
        cmd.args(["apply", "--server-side", "--force-conflicts", "-f"])
            .arg(&file);
        output_of(&mut cmd)
    }

    /// A merge patch of the status of `resource`/`name` (in `namespace` when given).
    pub(crate) fn patch_status(
        &self,
        resource: &str,
        name: &str,
        namespace: Option<&str>,
        status: Value,
    ) -> Result<String> {
        let mut cmd = self.kubectl();
        cmd.args([
            "patch",
            resource,
            name,
            "--subresource=status",
            "--type=merge",
        ]);
        if let Some(ns) = namespace {
            cmd.args(["--namespace", ns]);
        }
        cmd.arg("--patch")
            .arg(json!({ "status": status }).to_string());
        output_of(&mut cmd)
    }

    /// One object as JSON (a list when `name` is empty), `None` when it does not exist (or
    /// the API cannot say).
    pub(crate) fn get(&self, resource: &str, name: &str, namespace: Option<&str>) -> Option<Value> {
        let mut cmd = self.kubectl();
        cmd.args(["get", resource]);
        if !name.is_empty() {
            cmd.arg(name);
        }
        cmd.args(["--output=json", "--ignore-not-found"]);
        if let Some(ns) = namespace {
            cmd.args(["--namespace", ns]);
        }
        let out = output_of(&mut cmd).ok()?;
        serde_json::from_str(&out).ok()
    }

    /// etcdctl in the sandbox with the bootstrap host's client certificate.
    pub(crate) fn etcdctl(&self) -> Command {
        let mut cmd = self.sandbox.podman(&self.payload);
        cmd.args(["run", "--quiet", "--rm", "--net=host"])
            .args(["--volume", "/opt/openshift/tls:/opt/openshift/tls:ro"])
            .args(["--env", "ETCDCTL_API=3", "--entrypoint", "etcdctl"])
            .arg(&self.etcd_image)
            .args([
                "--cacert=/opt/openshift/tls/etcd-ca-bundle.crt",
                "--cert=/opt/openshift/tls/etcd-client.crt",
                "--key=/opt/openshift/tls/etcd-client.key",
                "--endpoints=https://localhost:2379",
            ]);
        cmd
    }
}

impl ApiStandIns {
    /// Starts writing for `masters`; the journal also goes to `log`.
    pub(crate) fn start(access: Access, masters: Masters, log: Option<PathBuf>) -> ApiStandIns {
        let journal = Journal::new(log);
        let mut writer = Writer {
            access,
            masters: masters.addresses,
            pointer: masters.pointer,
            api_int: masters.api_int,
            journal: journal.clone(),
            done: Vec::new(),
            lease_renewed: None,
            blocks: 0,
            bootstrap_api_seen: false,
        };
        ApiStandIns {
            background: Background::spawn(journal, TICK, move || writer.round()),
        }
    }

    /// Stops writing and returns the journal: what was written, one line each, in order.
    pub(crate) fn stop(self) -> Vec<String> {
        self.background.stop()
    }
}

struct Writer {
    access: Access,
    masters: Vec<IpAddr>,
    /// master.ign, which the masters boot from.
    pointer: PathBuf,
    /// Fetched from when the pointer names an address.
    api_int: String,
    journal: Journal,
    /// Steps that are done once and for all.
    done: Vec<&'static str>,
    lease_renewed: Option<Instant>,
    /// Namespace security blocks handed out.
    blocks: u64,
    /// Whether the bootstrap API server's static pod was seen.
    bootstrap_api_seen: bool,
}

impl Writer {
    fn note(&self, line: String) {
        self.journal.note(line);
    }

    /// One pass over every stand-in: each waits for what its real component would wait for.
    fn round(&mut self) {
        // The masters' API server is what brings the API back after the teardown, so it
        // cannot wait for the API to answer.
        if !self.masters.is_empty() {
            self.once("masters-api", |w| w.masters_api());
        }
        let api_up = self
            .access
            .kubectl()
            .args(["get", "--raw", "/readyz"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !api_up {
            return;
        }
        self.once("missing-operators", |w| w.missing_operators());
        self.step("namespace-security", |w| w.namespace_security());
        if self.masters.is_empty() {
            return;
        }
        // Without its config a host never starts its kubelet: nothing below exists yet.
        self.once("masters-config", |w| w.masters_config());
        if !self.done.contains(&"masters-config") {
            return;
        }
        self.step("masters", |w| w.masters());
        self.step("ha-operators", |w| w.ha_operators());
        self.step("master-leases", |w| w.master_leases());
        self.once("etcd-running", |w| w.etcd_running());
        if self.done.contains(&"etcd-running") {
            self.once("etcd-bootstrap-member-removed", |w| w.etcd_member_removed());
        }
    }

    /// Runs `step` until it succeeds once.
    fn once(&mut self, name: &'static str, step: impl FnOnce(&mut Writer) -> Result<String>) {
        if self.done.contains(&name) {
            return;
        }
        match step(self) {
            Ok(what) => {
                self.note(format!("{name}: {what}"));
                self.done.push(name);
            }
            Err(e) => self.note(format!("{name}: waiting: {}", last_line(&e.to_string()))),
        }
    }

    /// Runs `step` every round (state the real component keeps asserting).
    fn step(&mut self, name: &'static str, step: impl FnOnce(&mut Writer) -> Result<String>) {
        match step(self) {
            Ok(what) => self.note(format!("{name}: {what}")),
            Err(e) => self.note(format!("{name}: waiting: {}", last_line(&e.to_string()))),
        }
    }

    fn missing_operators(&mut self) -> Result<String> {
        let mut objects: Vec<Value> = MISSING_NAMESPACES
            .iter()
            .map(|ns| json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}))
            .collect();
        objects.extend(MISSING_CRDS.iter().map(|c| crd(*c)));
        self.access.apply(&objects)?;
        Ok(format!(
            "created namespaces {MISSING_NAMESPACES:?} and {} CRDs",
            MISSING_CRDS.len()
        ))
    }

    /// The UID, supplemental-group and MCS ranges of every namespace that has none yet.
    fn namespace_security(&mut self) -> Result<String> {
        let list = self
            .access
            .get("namespaces", "", None)
            .ok_or_else(|| Error::content(std::path::Path::new("namespaces"), "cannot list"))?;
        let mut annotated = Vec::new();
        for namespace in list["items"].as_array().into_iter().flatten() {
            if !namespace["metadata"]["annotations"][UID_RANGE].is_null() {
                continue;
            }
            let name = namespace["metadata"]["name"].as_str().unwrap_or_default();
            self.blocks += 1;
            let block = self.blocks;
            let range = format!("{}/10000", 1_000_000_000 + block * 10_000);
            let mut cmd = self.access.kubectl();
            cmd.args(["annotate", "namespace", name])
                .arg(format!("{UID_RANGE}={range}"))
                .arg(format!("openshift.io/sa.scc.supplemental-groups={range}"))
                .arg(format!(
                    "openshift.io/sa.scc.mcs=s0:c{},c{}",
                    block / 1000 + 1,
                    block % 1000
                ));
            output_of(&mut cmd)?;
            annotated.push(name.to_string());
        }
        Ok(if annotated.is_empty() {
            "every namespace has its ranges".into()
        } else {
            format!("ranges given to {}", annotated.join(", "))
        })
    }

    /// After cluster-bootstrap's teardown the API names must still answer, as the masters'
    /// API servers do behind the load balancer: the bootstrap API server's pod is run again
    /// as master-0's, from a copy of the secrets the teardown deleted.
    fn masters_api(&mut self) -> Result<String> {
        let host = &self.access.host;
        let bootstrap_pod = host.path("/etc/kubernetes/manifests/kube-apiserver-pod.yaml");
        if bootstrap_pod.exists() {
            self.bootstrap_api_seen = true;
        }
        if !self.bootstrap_api_seen || bootstrap_pod.exists() {
            return Err(Error::content(
                &bootstrap_pod,
                "the bootstrap API server still runs",
            ));
        }
        let secrets = host.path(MASTER_SECRETS);
        std::fs::create_dir_all(&secrets).map_err(Error::io(&secrets))?;
        output_of(
            Command::new("cp")
                .arg("-a")
                .arg(host.path("/opt/openshift/tls/."))
                .arg(&secrets),
        )?;
        std::fs::copy(
            host.path("/opt/openshift/auth/kubeconfig-loopback"),
            secrets.join("kubeconfig"),
        )
        .map_err(Error::io(&secrets))?;
        let source = host.path("/opt/openshift/bootstrap-manifests/kube-apiserver-pod.yaml");
        let text = std::fs::read_to_string(&source).map_err(Error::io(&source))?;
        let moved = text.replace("/etc/kubernetes/bootstrap-secrets", MASTER_SECRETS);
        let manifests = host.path(MASTER_MANIFESTS);
        std::fs::create_dir_all(&manifests).map_err(Error::io(&manifests))?;
        let target = manifests.join("kube-apiserver-pod.yaml");
        std::fs::write(&target, moved).map_err(Error::io(&target))?;
        Ok("the bootstrap API server is gone; master-0's API server starts".into())
    }

    /// Every control-plane host fetches its pool's config as Ignition does: master.ign's merge
    /// URL, trusting only the pointer's root CA, asking for a spec 3 config. A server that
    /// does not answer (its port held by another process) keeps them waiting, as it keeps
    /// real hosts retrying in their initramfs.
    fn masters_config(&mut self) -> Result<String> {
        let pointer = read_pointer(&self.pointer, &self.api_int)
            .map_err(|e| Error::content(&self.pointer, &e.to_string()))?;
        let run = self.access.host.path("/run");
        std::fs::create_dir_all(&run).map_err(Error::io(&run))?;
        let ca = run.join("okd-harness-master-ca.pem");
        std::fs::write(&ca, &pointer.ca).map_err(Error::io(&ca))?;
        for name in MASTERS.iter().take(self.masters.len()) {
            let mut curl = self.access.sandbox.command("curl");
            curl.args(["--silent", "--show-error", "--fail"])
                .args(["--connect-timeout", "3", "--max-time", "10"])
                .arg("--cacert")
                .arg(&ca)
                .args(["--header", IGNITION_ACCEPT])
                .arg(&pointer.fetch_url);
            let served: Value = serde_json::from_str(&output_of(&mut curl)?)
                .map_err(|e| Error::content(&self.pointer, &format!("{name}: {e}")))?;
            if !served["ignition"]["version"].is_string() {
                return Err(Error::content(
                    &self.pointer,
                    &format!("{name}: the server answered no Ignition config"),
                ));
            }
        }
        Ok(format!(
            "{:?} fetched their config from {}",
            &MASTERS[..self.masters.len()],
            pointer.fetch_url
        ))
    }

    /// Nodes kept Ready (a heartbeat each round) and the required pods Running and Ready.
    fn masters(&mut self) -> Result<String> {
        let nodes: Vec<Value> = MASTERS
            .iter()
            .map(|name| {
                json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {
                    "node-role.kubernetes.io/master": "",
                    "node-role.kubernetes.io/control-plane": "",
                    "kubernetes.io/hostname": name,
                }}})
            })
            .collect();
        self.access.apply(&nodes)?;
        let now = now_rfc3339();
        for (name, address) in MASTERS.iter().zip(&self.masters) {
            self.access.patch_status(
                "node",
                name,
                None,
                json!({
                    "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                        "message": "stand-in for a control-plane host",
                        "lastHeartbeatTime": now, "lastTransitionTime": now}],
                    "addresses": [{"type": "InternalIP", "address": address.to_string()},
                                  {"type": "Hostname", "address": name}],
                }),
            )?;
        }
        // Created once: a pod's spec cannot be applied again (the API server adds defaults
        // that a second apply would try to take away).
        let missing: Vec<Value> = REQUIRED_PODS
            .iter()
            .filter(|(ns, prefix)| {
                self.access
                    .get("pod", &format!("{prefix}-{}", MASTERS[0]), Some(ns))
                    .is_none()
            })
            .map(|(ns, prefix)| required_pod(ns, prefix))
            .collect();
        if !missing.is_empty() {
            self.access.apply(&missing)?;
        }
        // cluster-bootstrap checks the first pod whose name has the prefix, which may be one
        // a Deployment made (the CVO's): every such pod runs on a master here.
        for (ns, prefix) in REQUIRED_PODS {
            let pods = self.access.get("pods", "", Some(ns)).unwrap_or_default();
            for pod in pods["items"].as_array().into_iter().flatten() {
                let name = pod["metadata"]["name"].as_str().unwrap_or_default();
                if !name.starts_with(prefix) || pod["status"]["phase"] == "Running" && ready(pod) {
                    continue;
                }
                self.access.patch_status(
                    "pod",
                    name,
                    Some(ns),
                    json!({"phase": "Running", "conditions": [
                        {"type": "Ready", "status": "True", "lastTransitionTime": now},
                    ]}),
                )?;
            }
        }
        Ok(format!(
            "nodes {MASTERS:?} Ready, {} required pods Running and Ready",
            REQUIRED_PODS.len()
        ))
    }

    /// A node status is added first and given its revision after, as the operators do (the
    /// CRDs refuse a revision on a node status that is being created).
    fn ha_operators(&mut self) -> Result<String> {
        let added: Vec<Value> = MASTERS.iter().map(|n| json!({"nodeName": n})).collect();
        let at_one: Vec<Value> = MASTERS
            .iter()
            .map(|n| json!({"nodeName": n, "currentRevision": 1}))
            .collect();
        for resource in HA_OPERATORS {
            let current = self.access.get(resource, "cluster", None).ok_or_else(|| {
                Error::content(std::path::Path::new(resource), "cluster not created yet")
            })?;
            if current["status"]["nodeStatuses"].as_array().map(Vec::len) == Some(MASTERS.len())
                && current["status"]["latestAvailableRevision"] == 1
            {
                continue;
            }
            self.access
                .patch_status(resource, "cluster", None, json!({"nodeStatuses": added}))?;
            self.access.patch_status(
                resource,
                "cluster",
                None,
                json!({"latestAvailableRevision": 1, "nodeStatuses": at_one}),
            )?;
        }
        Ok("kube-apiserver, kube-scheduler and kube-controller-manager at revision 1 on every master".into())
    }

    /// One lease per master under the API servers' lease prefix, renewed every minute.
    fn master_leases(&mut self) -> Result<String> {
        if self
            .lease_renewed
            .is_some_and(|at| at.elapsed() < Duration::from_secs(LEASE_TTL_SECONDS / 2))
        {
            return Ok(format!("{} master leases held", self.masters.len()));
        }
        let mut grant = self.access.etcdctl();
        grant.args(["lease", "grant", &LEASE_TTL_SECONDS.to_string()]);
        let granted = output_of(&mut grant)?;
        let lease = granted
            .split_whitespace()
            .nth(1)
            .ok_or_else(|| Error::content(std::path::Path::new("etcdctl"), &granted))?
            .to_string();
        for address in &self.masters {
            let endpoints = json!({
                "kind": "Endpoints", "apiVersion": "v1",
                "metadata": {"name": address.to_string(), "creationTimestamp": null},
                "subsets": [{"addresses": [{"ip": address.to_string()}],
                             "ports": [{"name": "https", "port": 6443, "protocol": "TCP"}]}],
            });
            let mut put = self.access.etcdctl();
            put.arg("put")
                .arg(format!("--lease={lease}"))
                .arg(format!("/kubernetes.io/masterleases/{address}"))
                .arg(endpoints.to_string());
            output_of(&mut put)?;
        }
        self.lease_renewed = Some(Instant::now());
        Ok(format!("{} master leases written", self.masters.len()))
    }

    fn etcd_running(&mut self) -> Result<String> {
        self.access.patch_status(
            "etcds.operator.openshift.io",
            "cluster",
            None,
            json!({"conditions": [condition("EtcdRunningInCluster", "True", "EtcdRunning")]}),
        )?;
        Ok("EtcdRunningInCluster=True".into())
    }

    /// The bootstrap member goes only after the bootstrap host reported completion.
    fn etcd_member_removed(&mut self) -> Result<String> {
        let complete = self
            .access
            .get("configmap", "bootstrap", Some("kube-system"))
            .is_some_and(|cm| cm["data"]["status"] == "complete");
        if !complete {
            return Err(Error::content(
                std::path::Path::new("kube-system/bootstrap"),
                "not complete yet",
            ));
        }
        self.access.patch_status(
            "etcds.operator.openshift.io",
            "cluster",
            None,
            json!({"conditions": [
                condition("EtcdRunningInCluster", "True", "EtcdRunning"),
                condition("EtcdBootstrapMemberRemoved", "True", "BootstrapMemberRemoved"),
            ]}),
        )?;
        Ok("EtcdBootstrapMemberRemoved=True".into())
    }
}

/// A CRD with the given names and an open schema.
fn crd((plural, group, kind, version, scope): (&str, &str, &str, &str, &str)) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}"),
                     "labels": {"okd-harness.stand-in": "true"}},
        "spec": {
            "group": group,
            "scope": scope,
            "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind,
                      "listKind": format!("{kind}List")},
            "versions": [{"name": version, "served": true, "storage": true,
                          "subresources": {"status": {}},
                          "schema": {"openAPIV3Schema": {"type": "object",
                              "x-kubernetes-preserve-unknown-fields": true}}}],
        },
    })
}

/// A pod named as a control-plane host's static pod mirror: `<prefix>-master-0`.
fn required_pod(namespace: &str, prefix: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("{prefix}-{}", MASTERS[0]), "namespace": namespace,
                     "labels": {"okd-harness.stand-in": "true"}},
        "spec": {
            "nodeName": MASTERS[0],
            "hostNetwork": true,
            "tolerations": [{"operator": "Exists"}],
            "containers": [{"name": prefix, "image": "stand-in.invalid/control-plane:latest"}],
        },
    })
}

/// Whether a pod's Ready condition is True.
fn ready(pod: &Value) -> bool {
    pod["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Ready" && c["status"] == "True")
}

fn condition(kind: &str, status: &str, reason: &str) -> Value {
    json!({"type": kind, "status": status, "reason": reason,
           "message": "written by the okd-install harness stand-in",
           "lastTransitionTime": now_rfc3339()})
}

fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    now.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

fn last_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(text)
}
