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

/// bootkube's stages, in order (upstream 4.19 names; each leaves `<stage>.done`): those of
/// [`ignition::bootkube_stages_to_render`], then the stages that need the running control
/// plane.
pub fn bootkube_stages() -> Vec<&'static str> {
    let mut stages = ignition::bootkube_stages_to_render();
    stages.extend(["wait-for-etcd", "cb-bootstrap", "wait-for-ceo"]);
    stages
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
    ignition::BOOTKUBE_RENDER_STAGES
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

/// The image-mode example's pre-built image of the master pool (okd-install's example value).
pub const MASTER_OS_IMAGE: &str = "registry.example.com:5000/okd-image-mode/master@sha256:e2d1340ef2baa559d7637418a7b1e07397adb2d4bb9611959ec9763be82f3521";

/// The image-mode example's pre-built image of the worker pool.
pub const WORKER_OS_IMAGE: &str = "registry.example.com:5000/okd-image-mode/worker@sha256:b1d7d8988024e06b605fdb47d901045c34c38b9c0e4191d32aaf71f09af2bc31";

/// The release's stock node OS image: what a node runs that did not apply its pool's image.
pub const STOCK_OS_IMAGE: &str = "quay.io/okd/scos-content@sha256:4f8a4f8a4f8a4f8a4f8a4f8a4f8a4f8a4f8a4f8a4f8a4f8a4f8a4f8a4f8a4f8a";

/// Where bootstrap.ign puts okd-install's OS-image MachineConfig of `pool`, below
/// `/opt/openshift` (and the gather below `rendered-assets/openshift`).
pub fn os_image_config_path(pool: &str) -> String {
    format!("openshift/99_openshift-machineconfig_99-{pool}-okd-install-os-image.yaml")
}

/// okd-install's OS-image MachineConfig of `pool`, as `create manifests` writes it.
pub fn os_image_config_yaml(pool: &str, image: &str) -> String {
    format!(
        "# Install-time image mode, from imageMode.pools in install-config.yaml.\n\
         apiVersion: machineconfiguration.openshift.io/v1\n\
         kind: MachineConfig\n\
         metadata:\n  labels:\n    machineconfiguration.openshift.io/role: {pool}\n  \
         name: 99-{pool}-okd-install-os-image\n\
         spec:\n  config:\n    ignition:\n      version: \"3.2.0\"\n  osImageURL: {image}\n"
    )
}

/// A MachineConfig object: okd-install's OS-image override of `pool` when `name` says so, or
/// a rendered config; `os_image` is its `spec.osImageURL`.
pub fn machine_config(name: &str, pool: &str, os_image: &str) -> Value {
    json!({
        "apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfig",
        "metadata": {"name": name, "labels": {"machineconfiguration.openshift.io/role": pool}},
        "spec": {"config": {"ignition": {"version": "3.4.0"}, "storage": {"files": [
            {"path": "/var/lib/kubelet/config.json", "contents": {"source": "data:,%7B%22auths%22%3A%7B%7D%7D"}}]}},
            "osImageURL": os_image}
    })
}

/// `oc get machineconfigpools -o json` with each (pool, rendered config) as its current
/// configuration.
pub fn machine_config_pools_json(pools: &[(&str, &str)]) -> String {
    let items = pools
        .iter()
        .map(|(pool, rendered)| {
            json!({
                "apiVersion": "machineconfiguration.openshift.io/v1", "kind": "MachineConfigPool",
                "metadata": {"name": pool},
                "spec": {"configuration": {"name": rendered}},
                "status": {"configuration": {"name": rendered}, "machineCount": 1}
            })
        })
        .collect();
    list("MachineConfigPoolList", items)
}

/// A pool as the bootstrap machine-config controller writes it to
/// `/etc/mcs/bootstrap/machine-pools/<pool>.yaml` (the 4.19 controller's layout).
pub fn served_pool_yaml(pool: &str, rendered: &str) -> String {
    format!(
        "apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata:\n  \
         creationTimestamp: null\n  name: {pool}\nspec:\n  configuration:\n    name: {rendered}\n    \
         source:\n    - apiVersion: machineconfiguration.openshift.io/v1\n      kind: MachineConfig\n      \
         name: 99-{pool}-okd-install-os-image\n  machineConfigSelector:\n    matchLabels:\n      \
         machineconfiguration.openshift.io/role: {pool}\nstatus:\n  configuration:\n    name: {rendered}\n"
    )
}

/// A rendered config as the bootstrap controller writes it to
/// `/etc/mcs/bootstrap/machine-configs/<name>.yaml`; `secret` stands for the pull secret it
/// carries among its files.
pub fn served_config_yaml(name: &str, os_image: &str, secret: &str) -> String {
    format!(
        "apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  \
         creationTimestamp: null\n  name: {name}\nspec:\n  baseOSExtensionsContainerImage: \
         quay.io/okd/scos-extensions@sha256:77aa\n  config:\n    ignition:\n      version: 3.5.0\n    \
         storage:\n      files:\n      - contents:\n          source: data:;base64,{secret}\n        \
         path: /var/lib/kubelet/config.json\n  extensions: []\n  fips: false\n  kernelType: default\n  \
         osImageURL: {os_image}\n"
    )
}

/// `rpm-ostree status --json` with the booted deployment from `booted` (an ostree container
/// reference, or `None` for a commit from an OSTree remote) and, if given, a staged one.
pub fn rpm_ostree_status_json(booted: Option<&str>, staged: Option<&str>) -> String {
    let deployment = |reference: Option<&str>, booted: bool| {
        let mut d = json!({
            "id": "scos-0", "osname": "scos", "booted": booted, "staged": !booted,
            "checksum": "7c1e55b0c9a1", "version": "9.0.20261118-0", "pinned": false,
        });
        match reference {
            Some(r) => d["container-image-reference"] = json!(r),
            None => d["origin"] = json!("scos:scos/x86_64/coreos/stable"),
        }
        d
    };
    let mut deployments = Vec::new();
    if let Some(s) = staged {
        deployments.push(deployment(Some(s), false));
    }
    deployments.push(deployment(booted, true));
    serde_json::to_string_pretty(
        &json!({"deployments": deployments, "transaction": null, "cached-update": null}),
    )
    .expect("rpm-ostree status JSON")
}

/// `bootc status --json` with `image` booted (name, and the digest bootc reports apart).
pub fn bootc_status_json(image: &str, digest: &str) -> String {
    serde_json::to_string_pretty(&json!({
        "apiVersion": "org.containers.bootc/v1", "kind": "BootcHost",
        "metadata": {"name": "host"},
        "spec": {"image": {"image": image, "transport": "registry"}},
        "status": {"staged": null, "rollback": null, "booted": {
            "image": {"image": {"image": image, "transport": "registry"},
                      "version": "9.0.20261118-0", "imageDigest": digest},
            "pinned": false, "ostree": {"checksum": "7c1e55b0c9a1", "deploySerial": 0}}}
    }))
    .expect("bootc status JSON")
}

/// The user's ConfigMap in a namespace nothing creates, from the 4.19 run that found the
/// analysis giving a false all-clear: its file, and cluster-bootstrap's two line shapes for it.
pub const HELDOUT_FILE: &str = "99-heldout-probe.yaml";
/// The namespace nothing creates.
pub const HELDOUT_NAMESPACE: &str = "heldout-never-created";
/// cluster-bootstrap's first shape, written as it is refused.
pub const HELDOUT_ONE: &str = r#"Failed to create "99-heldout-probe.yaml" configmaps.v1./heldout-probe -n heldout-never-created: namespaces "heldout-never-created" not found"#;
/// Its second shape, listed after `[#N] failed to create some manifests:`.
pub const HELDOUT_TWO: &str = r#""99-heldout-probe.yaml": failed to create configmaps.v1./heldout-probe -n heldout-never-created: namespaces "heldout-never-created" not found"#;
/// The manifest itself.
pub const HELDOUT_YAML: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: heldout-probe\n  namespace: heldout-never-created\ndata:\n  probe: \"1\"\n";

/// A release manifest cluster-bootstrap waits on at first on every bootstrap, in both shapes,
/// and the line that settles it.
const ADMIN_GATES: [&str; 3] = [
    r#"Failed to create "0000_00_cluster-version-operator_01_admingate_configmap.yaml" configmaps.v1./admin-gates -n openshift-config-managed: namespaces "openshift-config-managed" not found"#,
    r#""0000_00_cluster-version-operator_01_admingate_configmap.yaml": failed to create configmaps.v1./admin-gates -n openshift-config-managed: namespaces "openshift-config-managed" not found"#,
    r#"Created "0000_00_cluster-version-operator_01_admingate_configmap.yaml" configmaps.v1./admin-gates -n openshift-config-managed"#,
];

/// bootkube's journal as `journalctl -o short` writes it on the bootstrap host, from
/// 08:00:00 on Nov 28: `attempts` attempts of cluster-bootstrap's create loop 5 s apart, each
/// writing `one` (the first shape) when given, then `[#N] failed to create some manifests:`
/// and `two` (the second shape) when given. A release manifest is refused in the first three
/// attempts and created in the fourth, as on every bootstrap.
pub fn create_loop_journal(attempts: usize, one: Option<&str>, two: Option<&str>) -> String {
    let mut out = String::new();
    let mut say = |second: usize, line: &str| {
        let (m, s) = (second / 60, second % 60);
        out.push_str(&format!(
            "Nov 28 08:{m:02}:{s:02} bootstrap bootkube.sh[2301]: {line}\n"
        ));
    };
    say(0, "Starting cluster-bootstrap...");
    for attempt in 1..=attempts {
        let t = attempt * 5;
        let release_waits = attempt <= 3;
        if release_waits {
            say(t, ADMIN_GATES[0]);
        } else if attempt == 4 {
            say(t, ADMIN_GATES[2]);
        }
        if let Some(line) = one {
            say(t, line);
        }
        say(t, &format!("[#{attempt}] failed to create some manifests:"));
        if release_waits {
            say(t, ADMIN_GATES[1]);
        }
        if let Some(line) = two {
            say(t, line);
        }
    }
    out
}
