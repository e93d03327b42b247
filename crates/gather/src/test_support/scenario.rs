//! The pieces of a bootstrap host's story, in the shapes the real tools and scripts write
//! them: bootkube's service records stage by stage (upstream 4.19 stage names), the static
//! pods of the bootstrap control plane, the render containers, the machine-config server's
//! request log, etcd's member table and the cluster objects the API returns.
//!
//! Analysis fixtures (bundles) and the fake host of the gather test are built from the same
//! pieces, so a fixture looks like what the gather brings back.

use serde_json::{Value, json};

use super::bundle::record;
use super::evidence::Container;

/// The bootstrap host's name.
pub const HOSTNAME: &str = "bootstrap.okd.example.com";

/// bootkube's stages, in order (upstream 4.19 names; each leaves `<stage>.done`): the
/// manifests copy, the renders of [`ignition::BOOTKUBE_RENDER_STAGES`], then the stages that
/// need the running control plane.
pub fn bootkube_stages() -> Vec<&'static str> {
    std::iter::once("openshift-manifests")
        .chain(
            ignition::BOOTKUBE_RENDER_STAGES
                .iter()
                .map(|(stage, _)| *stage),
        )
        .chain(["wait-for-etcd", "cb-bootstrap", "wait-for-ceo"])
        .collect()
}

/// How the last stage of a bootkube run ends.
#[derive(Debug, Clone, Copy)]
pub enum Ending<'a> {
    /// The stage was still running when the logs were gathered.
    Running,
    /// The stage failed with this message, and so did the service.
    Failed(&'a str),
}

/// The records of one bootkube run: every stage before `last` succeeds, then `last` ends as
/// `ending` says.
pub fn bootkube_run(last: &str, ending: Ending) -> Vec<Value> {
    let mut entries = vec![record("service start", "", "", "")];
    for stage in bootkube_stages() {
        entries.push(record("stage start", stage, "", ""));
        if stage != last {
            entries.push(record("stage end", stage, "success", ""));
            continue;
        }
        if let Ending::Failed(message) = ending {
            entries.push(record("stage end", stage, "failure", message));
            entries.push(record("service end", "", "failure", message));
        }
        return entries;
    }
    panic!("{last} is not a bootkube stage");
}

/// The render containers of every stage before `until` (all of them with `None`), exited 0.
pub fn renders_before(until: Option<&str>) -> Vec<Container> {
    gather::RENDER_STAGES
        .iter()
        .take_while(|(stage, _)| Some(*stage) != until)
        .map(|(stage, name)| {
            Container::podman(name)
                .exited(0)
                .log(&format!(
                    "I1120 08:05:00.000000       1 render.go:93] {stage}: rendered into /assets/{stage}\n"
                ))
        })
        .collect()
}

/// The name of the bootstrap static pod `component` (kubelet appends the node name).
pub fn bootstrap_pod(component: &str) -> String {
    format!("{component}-{HOSTNAME}")
}

/// The machine-config server's log: start-up lines, then one request line per address that
/// fetched the master pool's config (the 4.19 server's wording).
pub fn mcs_log(master_addresses: &[&str]) -> String {
    let mut log = String::from(
        "I1120 08:12:00.000000       1 start.go:49] Version: 4.19.0-okd-scos.19 (Raw: v4.19.0, Hash: 1a6905d9)\n\
         I1120 08:12:00.100000       1 api.go:73] Launching server on :22624\n\
         I1120 08:12:00.100000       1 api.go:73] Launching server on :22623\n",
    );
    for (i, address) in master_addresses.iter().enumerate() {
        log.push_str(&format!(
            "I1120 08:{:02}:00.000000       1 api.go:99] Pool \"master\" requested by address:\"{address}:4{i}210\" User-Agent:\"Ignition/2.20.0\" Accept-Header: \"application/vnd.coreos.ignition+json;version=3.4.0, */*;q=0.1\"\n",
            14 + i
        ));
    }
    log
}

/// The bootstrap etcd (its pod also runs the `etcdctl` container).
pub fn etcd() -> Container {
    Container::crio(
        "openshift-etcd",
        &bootstrap_pod("etcd-bootstrap-member"),
        "etcd",
    )
}

/// The bootstrap kube-apiserver.
pub fn kube_apiserver() -> Container {
    Container::crio(
        "openshift-kube-apiserver",
        &bootstrap_pod("bootstrap-kube-apiserver"),
        "kube-apiserver",
    )
}

/// The bootstrap kube-controller-manager.
pub fn kube_controller_manager() -> Container {
    Container::crio(
        "kube-system",
        &bootstrap_pod("bootstrap-kube-controller-manager"),
        "kube-controller-manager",
    )
}

/// The bootstrap control plane with every static pod running, the machine-config server
/// having served `served` (addresses of masters that fetched their config).
pub fn control_plane(served: &[&str]) -> Vec<Container> {
    vec![
        etcd().log("{\"level\":\"info\",\"msg\":\"serving client traffic securely\",\"address\":\"[::]:2379\"}\n"),
        Container::crio("openshift-etcd", &bootstrap_pod("etcd-bootstrap-member"), "etcdctl"),
        kube_apiserver().log("I1120 08:11:00.000000      17 controller.go:615] quota admission added evaluator for: leases.coordination.k8s.io\n"),
        kube_controller_manager().log("I1120 08:12:00.000000       1 leaderelection.go:268] successfully acquired lease kube-system/kube-controller-manager\n"),
        Container::crio("kube-system", &bootstrap_pod("bootstrap-kube-scheduler"), "kube-scheduler"),
        Container::crio("openshift-cluster-version", &bootstrap_pod("bootstrap-cluster-version-operator"), "cluster-version-operator"),
        Container::crio(
            "openshift-machine-config-operator",
            &bootstrap_pod("bootstrap-machine-config-operator"),
            "machine-config-server",
        )
        .log(&mcs_log(served)),
    ]
}

/// [`control_plane`] with the containers of the names in `instead` replaced by them (e.g. a
/// crash loop's runs, see [`crash_looping`]).
pub fn control_plane_with(served: &[&str], instead: Vec<Container>) -> Vec<Container> {
    let mut all: Vec<Container> = control_plane(served)
        .into_iter()
        .filter(|c| !instead.iter().any(|i| i.name == c.name))
        .collect();
    all.extend(instead);
    all
}

/// A container that crash-loops: `runs` failed runs (attempts `first..first+runs`) with the
/// same `log`, as `crictl ps --all` keeps them.
pub fn crash_looping(
    base: &Container,
    first: u32,
    runs: u32,
    exit_code: i32,
    log: &str,
) -> Vec<Container> {
    (first..first + runs)
        .map(|attempt| base.clone().attempt(attempt).exited(exit_code).log(log))
        .collect()
}

/// `etcdctl member list --write-out table` for the bootstrap member alone.
pub fn etcd_members() -> String {
    "+------------------+---------+---------------------------+----------------------------+----------------------------+------------+\n\
     |        ID        | STATUS  |           NAME            |         PEER ADDRS         |        CLIENT ADDRS        | IS LEARNER |\n\
     +------------------+---------+---------------------------+----------------------------+----------------------------+------------+\n\
     | 8e9e05c52164694d | started | etcd-bootstrap            | https://192.0.2.10:2380    | https://192.0.2.10:2379    |      false |\n\
     +------------------+---------+---------------------------+----------------------------+----------------------------+------------+\n"
        .to_string()
}

/// `oc get nodes -o json` with one Ready master per (name, address).
pub fn nodes_json(masters: &[(&str, &str)]) -> String {
    let items: Vec<Value> = masters
        .iter()
        .map(|(name, address)| {
            json!({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": {
                    "kubernetes.io/hostname": name,
                    "node-role.kubernetes.io/control-plane": "",
                    "node-role.kubernetes.io/master": ""}},
                "status": {
                    "addresses": [{"type": "InternalIP", "address": address}, {"type": "Hostname", "address": name}],
                    "conditions": [{"type": "Ready", "status": "False", "reason": "KubeletNotReady",
                                    "message": "container runtime network not ready: NetworkReady=false"}]}
            })
        })
        .collect();
    list("NodeList", items)
}

/// `oc get csr -o json` with one pending kubelet client request per node name.
pub fn csr_json(nodes: &[&str]) -> String {
    let items: Vec<Value> = nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            json!({
                "apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
                "metadata": {"name": format!("csr-{i}x7k2q")},
                "spec": {"signerName": "kubernetes.io/kube-apiserver-client-kubelet",
                         "username": format!("system:node:{node}"), "usages": ["digital signature", "client auth"]},
                "status": {}
            })
        })
        .collect();
    list("CertificateSigningRequestList", items)
}

/// An `oc get ... -o json` list of `items`.
pub fn list(kind: &str, items: Vec<Value>) -> String {
    serde_json::to_string_pretty(&json!({"apiVersion": "v1", "kind": kind, "items": items, "metadata": {"resourceVersion": "4711"}}))
        .expect("list JSON")
}

/// bootkube's journal while cluster-bootstrap waits: whether it saw the API, and the last
/// lines it printed.
pub fn bootkube_journal(api_up: bool, last: &[&str]) -> String {
    let mut journal = String::from(
        "Nov 20 08:05:00 bootstrap bootkube.sh[2211]: Rendering the cluster API manifests...\n\
         Nov 20 08:09:40 bootstrap bootkube.sh[2211]: Starting etcd certificate signer...\n\
         Nov 20 08:10:05 bootstrap bootkube.sh[2211]: Starting cluster-bootstrap...\n\
         Nov 20 08:10:09 bootstrap bootkube.sh[2211]: Starting temporary bootstrap control plane...\n\
         Nov 20 08:10:09 bootstrap bootkube.sh[2211]: Waiting up to 20m0s for the Kubernetes API\n",
    );
    if api_up {
        journal.push_str("Nov 20 08:11:02 bootstrap bootkube.sh[2211]: API is up\n");
    }
    for line in last {
        journal.push_str(&format!(
            "Nov 20 08:30:00 bootstrap bootkube.sh[2211]: {line}\n"
        ));
    }
    journal
}
