//! `okd-install gather bootstrap` with the real gather scripts, rendered from the templates,
//! on a simulated bootstrap host: the real sshd logs in `core`, which has passwordless sudo
//! as on CoreOS; installer-gather.sh collects with sudo what only root can read, reaches a
//! simulated master (a second sshd) through the bootstrap host with the forwarded agent,
//! and the bundle that comes back is checked file by file against the hosts' contents. With
//! image mode, the diagnosis compares each pool's OS image with what the master booted.
//!
//! Needs root (to create `core` and its sudoers entry) and OpenSSH; without them the test
//! prints a skip line, and fails with `CI=true`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

use serde_json::json;
use testkit::gather::evidence::Container;
use testkit::gather::host::{CORE, FakeHost, core_with_sudo};
use testkit::gather::scenario::{
    Ending, MASTER_OS_IMAGE, STOCK_OS_IMAGE, WORKER_OS_IMAGE, bootc_status_json, bootkube_journal,
    bootkube_run, bootkube_stages, control_plane_with, crash_looping, csr_json, etcd_members,
    kube_apiserver, kube_controller_manager, list, machine_config, machine_config_pools_json,
    nodes_json, os_image_config_path, os_image_config_yaml, renders_before, rpm_ostree_status_json,
    served_config_yaml, served_pool_yaml,
};

use crate::bundle::succeeded;
use crate::sshd::{Sshd, keygen, run};
use crate::support::{both, okd, stdout};

/// The pull secret's credential; it must not show up anywhere in the bundle.
const PULL_TOKEN: &str = "b2tkLWdhdGhlci10ZXN0OnB1bGwtc2VjcmV0LW5vdC1mb3ItdGhlLWJ1bmRsZQ==";

/// Where the master answers: the bootstrap host's gather reaches it as core@127.0.0.1.
const MASTER: &str = "127.0.0.1";

/// The bootstrap stages finished before cb-bootstrap, each with its marker.
fn done_stages() -> impl Iterator<Item = &'static str> {
    bootkube_stages()
        .into_iter()
        .take_while(|s| *s != "cb-bootstrap")
}

/// A PEM private key block (made up: only its markers matter).
fn private_key() -> String {
    let marker = ["PRIVATE", "KEY"].join(" ");
    format!("-----BEGIN RSA {marker}-----\nMIIEowIBAAKCAQEAtest\n-----END RSA {marker}-----\n")
}

fn kubeconfig(server: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: {server}\n  name: okd\n\
         users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTg==\n    \
         client-key-data: LS0tLS1CRUdJTiBSU0E=\n"
    )
}

/// The host's files: asset tree, /etc/kubernetes, service records (bootkube's are `bootkube`),
/// control-plane logs.
fn bootstrap_files(host: &FakeHost, bootkube: Vec<serde_json::Value>) {
    let pull = format!("{{\"auths\":{{\"quay.io\":{{\"auth\":\"{PULL_TOKEN}\"}}}}}}");
    for (rel, text) in [
        ("opt/openshift/auth/kubeconfig", kubeconfig("https://api-int.okd.example.com:6443")),
        ("opt/openshift/auth/kubeconfig-loopback", kubeconfig("https://localhost:6443")),
        ("opt/openshift/auth/kubeconfig-kubelet", kubeconfig("https://api-int.okd.example.com:6443")),
        ("opt/openshift/.kube/config", kubeconfig("https://localhost:6443")),
        ("opt/openshift/tls/root-ca.crt", "-----BEGIN CERTIFICATE-----\nMIIDroot\n-----END CERTIFICATE-----\n".into()),
        ("opt/openshift/tls/kube-apiserver-lb-server.key", private_key()),
        ("opt/openshift/tls/aggregator-signer.pem", private_key()),
        ("opt/openshift/manifests/cluster-config.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-config-v1\n  namespace: kube-system\n".into()),
        ("opt/openshift/manifests/openshift-config-secret-pull-secret.yaml", format!("kind: Secret\ndata:\n  .dockerconfigjson: {PULL_TOKEN}\n")),
        ("opt/openshift/mco-bootstrap/bootstrap/manifests/machineconfigcontroller-pull-secret", pull.clone()),
        ("opt/openshift/openshift/99_openshift-machineconfig_99-master-ssh.yaml", "kind: MachineConfig\n".into()),
        ("opt/openshift/bootstrap-manifests/kube-apiserver-pod.yaml", "kind: Pod\nmetadata:\n  name: bootstrap-kube-apiserver\n".into()),
        ("etc/kubernetes/manifests/etcd-member-pod.yaml", "kind: Pod\nmetadata:\n  name: etcd-bootstrap-member\n".into()),
        ("etc/kubernetes/manifests/kube-controller-manager-pod.yaml", "kind: Pod\nmetadata:\n  name: bootstrap-kube-controller-manager\n".into()),
        ("etc/kubernetes/bootstrap-configs/kube-apiserver-config.yaml", "apiVersion: kubecontrolplane.config.openshift.io/v1\nkind: KubeAPIServerConfig\n".into()),
        ("etc/kubernetes/bootstrap-manifests/kube-apiserver-pod.yaml", "kind: Pod\n".into()),
        ("etc/kubernetes/bootstrap-secrets/kubeconfig", kubeconfig("https://localhost:6443")),
        ("etc/kubernetes/bootstrap-secrets/service-account.key", private_key()),
        ("etc/kubernetes/kubeconfig", kubeconfig("https://localhost:6443")),
        ("var/log/bootstrap-control-plane/kube-apiserver.log", "I1120 08:11:00.000000 17 genericapiserver.go:531] serving\n".into()),
        ("var/log/openshift/node-image-pull.json", json!(succeeded()).to_string()),
        ("var/log/openshift/node-image-overlay.json", json!(succeeded()).to_string()),
        ("var/log/openshift/release-image.json", json!(succeeded()).to_string()),
        ("var/log/openshift/bootkube.json", json!(bootkube).to_string()),
    ] {
        host.private_file(rel, text);
    }
    for stage in done_stages() {
        host.private_file(&format!("opt/openshift/{stage}.done"), "");
    }
    host.private_dirs(&[
        "opt/openshift/auth",
        "etc/kubernetes/bootstrap-secrets",
        "var/log/openshift",
    ]);
}

/// The kube-controller-manager that keeps exiting, and its output.
fn crash_looping_kcm() -> (Container, String) {
    let kcm = kube_controller_manager();
    let log = "I1120 08:20:00.000000       1 controllermanager.go:187] Version: v1.32.5\n\
               E1120 08:20:01.000000       1 run.go:72] \"command failed\" err=\"open /etc/kubernetes/secrets/service-account.key: no such file or directory\"\n";
    (kcm, log.to_string())
}

/// The crash-loop scenario: bootkube waits in cb-bootstrap, the API answers, the master
/// fetched its config, and kube-controller-manager keeps exiting.
fn crash_loop_host(host: &FakeHost) {
    bootstrap_files(host, bootkube_run("cb-bootstrap", Ending::Running));
    let (kcm, kcm_log) = crash_looping_kcm();
    let mut containers = control_plane_with(&[MASTER], crash_looping(&kcm, 3, 3, 1, &kcm_log));
    containers.extend(renders_before(None));
    containers.push(
        Container::podman("cluster-bootstrap")
            .log("Starting temporary bootstrap control plane...\nAPI is up\n"),
    );
    for c in &containers {
        host.container(c);
    }
    let journal = bootkube_journal(
        true,
        &["Pod Status:kube-system/kube-controller-manager\tDoesNotExist"],
    );
    host_state(host, &journal);
    api_objects(host);
}

/// The kube-apiserver that keeps exiting before it ever answers, and its output.
fn crash_looping_kas() -> (Container, String) {
    let kas = kube_apiserver();
    let log = "I1120 08:10:30.000000      17 flags.go:64] FLAG: --etcd-servers=\"[https://localhost:2379]\"\n\
               E1120 08:10:31.000000      17 run.go:72] \"command failed\" err=\"failed to parse service-account-issuer: must be a URL\"\n";
    (kas, log.to_string())
}

/// The API scenario: etcd runs, kube-apiserver crash-loops, cluster-bootstrap gave up
/// waiting for the API, and nothing answers on 6443.
fn api_down_host(host: &FakeHost) {
    let waiting = "Still waiting for the Kubernetes API: Get \"https://localhost:6443/readyz\": dial tcp [::1]:6443: connect: connection refused";
    bootstrap_files(
        host,
        bootkube_run(
            "cb-bootstrap",
            Ending::Failed("cluster-bootstrap exited with status 1"),
        ),
    );
    let (kas, kas_log) = crash_looping_kas();
    let mut containers = control_plane_with(&[], crash_looping(&kas, 4, 3, 1, &kas_log));
    containers.extend(renders_before(None));
    for c in &containers {
        host.container(c);
    }
    host_state(host, &bootkube_journal(false, &[waiting]));
    host.api_down(
        "The connection to the server localhost:6443 was refused - did you specify the right host or port?\n",
    );
}

/// Journals (bootkube's is `bootkube_journal`), a failed unit, etcd, OS and network state.
fn host_state(host: &FakeHost, bootkube_journal: &str) {
    for (unit, text) in [
        (
            "node-image-pull",
            "Pulling quay.io/okd/scos-content@sha256:4f8a\nChecking out node image content\n"
                .to_string(),
        ),
        (
            "node-image-overlay",
            "Overlaying node image content\nReloading SELinux policy\n".to_string(),
        ),
        (
            "release-image",
            "Pulling quay.io/okd/scos-release:4.19.0-okd-scos.19...\n".to_string(),
        ),
        (
            "crio",
            "Started Container Runtime Interface for OCI (CRI-O).\n".to_string(),
        ),
        (
            "kubelet",
            "I1120 08:10:00.000000 2301 kubelet.go:2437] \"SyncLoop ADD\" source=\"file\"\n"
                .to_string(),
        ),
        ("bootkube", bootkube_journal.to_string()),
        ("approve-csr", "No resources found\n".to_string()),
        (
            "afterburn-checkin",
            "afterburn: no metadata provider\n".to_string(),
        ),
    ] {
        host.journal(unit, &text);
    }
    host.failed_unit("afterburn-checkin.service", "Afterburn (Check In)");
    host.etcd(
        &etcd_members(),
        "+------------------------+--------+------------+-------+\n| https://localhost:2379 |   true | 7.123456ms |       |\n+------------------------+--------+------------+-------+\n",
        "+------------------------+------------------+---------+---------+-----------+\n| https://localhost:2379 | 8e9e05c52164694d |  3.5.18 |   42 MB |      true |\n+------------------------+------------------+---------+---------+-----------+\n",
    );
    host.rpm_ostree(
        "State: idle\nDeployments:\n* ostree-unverified-registry:quay.io/okd/scos-content@sha256:4f8a\n                   Digest: sha256:4f8a\n                  Version: 9.0.20261118-0 (2026-11-18T10:00:00Z)\n",
        "NAME ostree-unverified-registry:quay.io/okd/scos-content@sha256:4f8a\nVERSION 9.0.20261118-0\nFIRST BOOT 2026-11-20T08:00:00Z\n",
    );
    host.network(
        "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536\n    inet 127.0.0.1/8 scope host lo\n2: ens3: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500\n    inet 192.0.2.10/24 brd 192.0.2.255 scope global ens3\n",
        "default via 192.0.2.1 dev ens3 proto dhcp metric 100\n192.0.2.0/24 dev ens3 proto kernel scope link src 192.0.2.10\n",
        "fe80::/64 dev ens3 proto kernel metric 1024 pref medium\n",
        "tcp LISTEN 0 4096 *:6443 *:* users:((\"kube-apiserver\",pid=4242,fd=7))\ntcp LISTEN 0 4096 *:22623 *:* users:((\"machine-config-\",pid=4300,fd=8))\n",
        "bootstrap.okd.example.com\n",
    );
}

/// The bootstrap API's objects.
fn api_objects(host: &FakeHost) {
    let pods = list(
        "PodList",
        vec![
            json!({"metadata": {"name": "kube-apiserver-master-0", "namespace": "openshift-kube-apiserver", "labels": {"apiserver": "true"}},
               "spec": {"initContainers": [{"name": "setup"}], "containers": [{"name": "kube-apiserver"}, {"name": "kube-apiserver-cert-syncer"}]}}),
            json!({"metadata": {"name": "etcd-master-0", "namespace": "openshift-etcd", "labels": {"app": "etcd"}},
               "spec": {"containers": [{"name": "etcd"}]}}),
        ],
    );
    host.api_object("pods.json", &pods);
    host.api_object("nodes.json", &nodes_json(&[("master-0", MASTER)]));
    host.api_object("csr.json", &csr_json(&["master-0"]));
    host.api_object(
        "version.json",
        "{\"major\": \"1\", \"minor\": \"32\", \"gitVersion\": \"v1.32.5\"}",
    );
    host.api_object(
        "openapi.json",
        "{\"swagger\": \"2.0\", \"info\": {\"title\": \"Kubernetes\", \"version\": \"v1.32.5\"}}",
    );
    host.api_object("secrets.txt", "NAMESPACE     NAME            TYPE                DATA   AGE\nopenshift-config   pull-secret   kubernetes.io/dockerconfigjson   1   20m\n");
    host.api_object(
        "secrets-annotations.txt",
        "NAMESPACE   NAME   TYPE   ANNOTATIONS\nkube-system   builder-token-x7k2q   kubernetes.io/service-account-token   map[]\nopenshift-config   pull-secret   kubernetes.io/dockerconfigjson   <none>\n",
    );
    for kind in [
        "apiservices",
        "clusteroperators",
        "clusterversion",
        "configmaps",
        "endpoints",
        "events",
        "kubeapiserver",
        "kubecontrollermanager",
        "machineconfigpools",
        "machineconfigs",
        "namespaces",
        "openshiftapiserver",
        "rolebindings",
        "roles",
        "services",
        "machineosconfigs",
        "machineosbuilds",
    ] {
        host.api_object(
            &format!("{kind}.json"),
            &list(
                "List",
                vec![json!({"kind": kind, "metadata": {"name": format!("{kind}-0")}})],
            ),
        );
    }
}

/// The master's one static pod.
fn master_static_pod() -> Container {
    Container::crio(
        "openshift-machine-config-operator",
        "kube-rbac-proxy-crio-master-0",
        "kube-rbac-proxy-crio",
    )
    .log("I1120 08:16:00.000000 1 main.go:210] Starting TCP socket on :9637\n")
}

/// The master: it fetched its config from the bootstrap host and runs one static pod.
fn master_host() -> FakeHost {
    let host = FakeHost::new();
    host.container(&master_static_pod());
    host.journal(
        "kubelet",
        "I1120 08:16:00.000000 2101 kubelet.go:2437] \"SyncLoop ADD\"\n",
    );
    host.journal(
        "crio",
        "Started Container Runtime Interface for OCI (CRI-O).\n",
    );
    host.journal(
        "ignition",
        "ignition[812]: GET https://api-int.okd.example.com:22623/config/master: attempt #1\nignition[812]: GET result: OK\n",
    );
    host.rpm_ostree(
        "State: idle\nDeployments:\n* fedora-coreos 42.20261101.3.0\n",
        "NAME fedora-coreos\n",
    );
    host.rpm_ostree_json(&rpm_ostree_status_json(None, None));
    host.network(
        "2: ens3: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500\n    inet 192.0.2.11/24 scope global ens3\n",
        "default via 192.0.2.1 dev ens3\n",
        "fe80::/64 dev ens3 proto kernel metric 1024 pref medium\n",
        "tcp LISTEN 0 4096 *:10250 *:* users:((\"kubelet\",pid=2101,fd=20))\n",
        "master-0\n",
    );
    host
}

/// The image-mode install: the crash-loop scenario, plus bootstrap.ign's OS-image
/// MachineConfigs, the pools the bootstrap machine-config server serves (their rendered
/// configs carrying the pull secret, like the real ones), the cluster's MachineConfigs and
/// pools, and the bootstrap host's own OS status.
fn image_mode_host(host: &FakeHost) {
    crash_loop_host(host);
    let mut configs = Vec::new();
    let mut pools = Vec::new();
    for (pool, image) in [("master", MASTER_OS_IMAGE), ("worker", WORKER_OS_IMAGE)] {
        let rendered = format!("rendered-{pool}-2d807340");
        host.private_file(
            &format!("opt/openshift/{}", os_image_config_path(pool)),
            os_image_config_yaml(pool, image),
        );
        host.private_file(
            &format!("etc/mcs/bootstrap/machine-pools/{pool}.yaml"),
            served_pool_yaml(pool, &rendered),
        );
        host.private_file(
            &format!("etc/mcs/bootstrap/machine-configs/{rendered}.yaml"),
            served_config_yaml(&rendered, image, PULL_TOKEN),
        );
        configs.push(machine_config(
            &format!("99-{pool}-okd-install-os-image"),
            pool,
            image,
        ));
        configs.push(machine_config(&rendered, pool, image));
        pools.push((pool, rendered));
    }
    host.private_dirs(&["etc/mcs/bootstrap"]);
    host.api_object("machineconfigs.json", &list("MachineConfigList", configs));
    let pools: Vec<(&str, &str)> = pools.iter().map(|(p, r)| (*p, r.as_str())).collect();
    host.api_object(
        "machineconfigpools.json",
        &machine_config_pools_json(&pools),
    );
    // The bootstrap host runs the release's stock OS: it belongs to no pool.
    let stock = format!("ostree-unverified-registry:{STOCK_OS_IMAGE}");
    host.rpm_ostree_json(&rpm_ostree_status_json(Some(&stock), None));
    let (name, digest) = STOCK_OS_IMAGE.split_once('@').unwrap();
    host.bootc(&bootc_status_json(name, digest));
}

/// A master that booted the stock OS instead of its pool's image, and has no bootc.
fn master_on_the_stock_os(host: &FakeHost) {
    let stock = format!("ostree-unverified-registry:{STOCK_OS_IMAGE}");
    host.rpm_ostree_json(&rpm_ostree_status_json(Some(&stock), None));
    host.without_tool("bootc");
}

/// A master that booted its pool's image, by both rpm-ostree and bootc.
fn master_on_its_image(host: &FakeHost) {
    let told = format!("ostree-unverified-registry:{MASTER_OS_IMAGE}");
    host.rpm_ostree_json(&rpm_ostree_status_json(Some(&told), None));
    let (name, digest) = MASTER_OS_IMAGE.split_once('@').unwrap();
    host.bootc(&bootc_status_json(name, digest));
}

/// The bootstrap host's registries.conf and a drop-in of its registries.conf.d.
const REGISTRIES_CONF: &str = "[[registry]]\nprefix = \"\"\nlocation = \"quay.io/okd/scos-release\"\n\n\
                               [[registry.mirror]]\nlocation = \"registry.example.com:5000/okd/scos-release\"\n";
const REGISTRIES_DROP_IN: &str = "[[registry]]\nlocation = \"quay.io/okd/scos-content\"\n";

/// Renders the gather scripts from the templates into the host's /usr/local/bin, and
/// writes the host's registries.conf.
fn install_scripts(host: &FakeHost) {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../templates/bootstrap/common/files/usr/local/bin");
    let template = std::fs::read_to_string(bin.join("installer-gather.sh.j2"))
        .expect("installer-gather.sh.j2");
    let mut ctx = ignition::TemplateContext::example();
    ctx.image_mode = true;
    let gather = ignition::render_template("installer-gather.sh.j2", &template, &ctx)
        .expect("render installer-gather.sh");
    host.write("usr/local/bin/installer-gather.sh", gather, 0o555);
    host.write("etc/containers/registries.conf", REGISTRIES_CONF, 0o644);
    host.write(
        "etc/containers/registries.conf.d/99-site.conf",
        REGISTRIES_DROP_IN,
        0o644,
    );
    let masters = std::fs::read_to_string(bin.join("installer-masters-gather.sh"))
        .expect("installer-masters-gather.sh");
    host.write("usr/local/bin/installer-masters-gather.sh", masters, 0o555);
}

/// The environment of a login on the bootstrap host: its paths, and the master's sshd port.
fn bootstrap_env(host: &FakeHost, master_port: u16) -> String {
    let p = |rel: &str| host.path(rel).display().to_string();
    format!(
        "SetEnv PATH={} OPENSHIFT_ROOT={} ETC_KUBERNETES={} MCS_BOOTSTRAP_DIR={} REGISTRIES_CONF={} \
         SERVICE_RECORDS_DIR={} CONTROL_PLANE_LOGS={} BOOTSTRAP_BIN_DIR={} PRE_REBOOT_BUNDLE={} \
         GATHER_SSH_PORT={master_port}\n",
        host.path_env(),
        p("opt/openshift"),
        p("etc/kubernetes"),
        p("etc/mcs/bootstrap"),
        p("etc/containers/registries.conf"),
        p("var/log/openshift"),
        p("var/log/bootstrap-control-plane"),
        p("usr/local/bin"),
        p("var/log/log-bundle-bootstrap.tar.gz"),
    )
}

/// The gather id is the local time to the second and names files on the shared test host:
/// one site at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The bootstrap host (and master, when there is one), their servers and the key that logs in
/// to both.
struct Site {
    bootstrap: FakeHost,
    master: Option<(FakeHost, Sshd)>,
    server: Sshd,
    key: PathBuf,
    /// The gather id, once known: names what the run leaves on the hosts.
    id: Option<String>,
    _serial: MutexGuard<'static, ()>,
}

impl Site {
    /// A bootstrap host prepared by `scenario`, and a master when `with_master`.
    fn start(scenario: fn(&FakeHost), with_master: bool) -> Option<Site> {
        let as_is: fn(&FakeHost) = |_| {};
        Site::start_with(scenario, with_master.then_some(as_is))
    }

    /// A bootstrap host prepared by `scenario`, and a master when `master` says how it
    /// differs from [`master_host`].
    fn start_with(scenario: fn(&FakeHost), master: Option<fn(&FakeHost)>) -> Option<Site> {
        if !crate::sshd::available() || !core_with_sudo() {
            return None;
        }
        let serial = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
        let master = match master {
            Some(prepare) => {
                let host = master_host();
                prepare(&host);
                let env = format!("SetEnv PATH={}\n", host.path_env());
                Some((host, Sshd::start_as(CORE, &env)?))
            }
            None => None,
        };
        let bootstrap = FakeHost::new();
        scenario(&bootstrap);
        install_scripts(&bootstrap);
        let master_port = master.as_ref().map_or(22, |(_, s)| s.port);
        let server = Sshd::start_as(CORE, &bootstrap_env(&bootstrap, master_port))?;
        let key = keygen(&server.dir.path().join("admin_ed25519"), "ed25519", "", &[]);
        server.authorize(&key);
        if let Some((_, master_server)) = &master {
            master_server.authorize(&key);
        }
        Some(Site {
            bootstrap,
            master,
            server,
            key,
            id: None,
            _serial: serial,
        })
    }

    /// `okd-install gather bootstrap` as core (naming the master, if any) into `dir`; asserts
    /// success and returns the output and the extracted bundle.
    fn gather(&mut self, dir: &Path) -> (Output, Gathered) {
        let home = tempfile::tempdir().unwrap();
        let mut cmd = okd(dir);
        cmd.args(["gather", "bootstrap", "--bootstrap", "127.0.0.1"])
            .args(["--port", &self.server.port.to_string(), "--user", CORE])
            .arg("--key")
            .arg(&self.key)
            .arg("--remote-command")
            .arg(self.bootstrap.path("usr/local/bin/installer-gather.sh"))
            .env("HOME", home.path())
            .timeout(std::time::Duration::from_secs(180));
        if self.master.is_some() {
            cmd.args(["--master", MASTER]);
        }
        let out = cmd.output().expect("run okd-install gather bootstrap");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}\nsshd log:\n{}",
            both(&out),
            self.server.log()
        );
        let gathered = extract(dir);
        self.id = Some(gathered.id.clone());
        (out, gathered)
    }
}

impl Drop for Site {
    /// What the run left on the (shared) hosts: artifact directories, bundle, copied script.
    fn drop(&mut self) {
        let core_home = PathBuf::from("/home").join(CORE);
        let _ = std::fs::remove_file(core_home.join("installer-masters-gather.sh"));
        if let Some(id) = &self.id {
            let _ = std::fs::remove_dir_all(format!("/tmp/artifacts-{id}"));
            let _ = std::fs::remove_dir_all(format!("/tmp/artifacts-master-{id}"));
            let _ = std::fs::remove_file(core_home.join(format!("log-bundle-{id}.tar.gz")));
        }
    }
}

/// Every file of the extracted bundle below `top`, by path relative to it.
fn bundle_files(top: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut dirs = vec![top.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("read a bundle dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                let rel = path.strip_prefix(top).unwrap().display().to_string();
                files.insert(rel, std::fs::read(&path).expect("read a bundle file"));
            }
        }
    }
    files
}

/// The bundle's files, with the gather id.
struct Gathered {
    id: String,
    files: BTreeMap<String, Vec<u8>>,
}

impl Gathered {
    fn text(&self, rel: &str) -> String {
        let bytes = self.files.get(rel).unwrap_or_else(|| {
            panic!(
                "{rel} missing from the bundle; it has:\n{:#?}",
                self.files.keys()
            )
        });
        String::from_utf8_lossy(bytes).into_owned()
    }

    /// Asserts that `rel` holds exactly `expected`.
    fn expect(&self, rel: &str, expected: &str) {
        assert_eq!(self.text(rel), expected, "{rel} in the bundle");
    }

    fn has(&self, rel: &str) -> bool {
        self.files.contains_key(rel)
    }

    fn gunzip(&self, rel: &str) -> String {
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(&self.files[rel][..]),
            &mut text,
        )
        .unwrap_or_else(|e| panic!("{rel} is not gzip: {e}"));
        text
    }
}

/// Extracts the one bundle in `dir`.
fn extract(dir: &Path) -> Gathered {
    let bundle = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("log-bundle-") && n.ends_with(".tar.gz"))
        .expect("a log bundle in the directory");
    let id = bundle
        .trim_start_matches("log-bundle-")
        .trim_end_matches(".tar.gz")
        .to_string();
    let out = tempfile::tempdir().unwrap();
    run(Command::new("tar")
        .arg("-xzf")
        .arg(dir.join(&bundle))
        .arg("-C")
        .arg(out.path()));
    let files = bundle_files(&out.path().join(format!("log-bundle-{id}")));
    Gathered { id, files }
}

#[test]
fn gather_as_core_with_sudo_brings_back_the_whole_bundle_and_names_the_crash_loop() {
    let Some(mut site) = Site::start(crash_loop_host, true) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (out, gathered) = site.gather(dir.path());
    let (master, _) = site.master.as_ref().expect("a master");

    check_records_journals_and_units(&site.bootstrap, &gathered);
    check_containers(&site.bootstrap, &gathered);
    check_etcd_network_and_os(&site.bootstrap, &gathered);
    check_assets_and_manifests(&site.bootstrap, &gathered);
    check_resources(&site.bootstrap, &gathered);
    check_master(master, &gathered);
    check_nothing_secret(&gathered);
    check_root_only_tools_ran_as_root(&site.bootstrap, &BOOTSTRAP_ROOT_TOOLS);
    check_root_only_tools_ran_as_root(master, &["crictl", "journalctl", "rpm-ostree"]);

    let (kcm, kcm_log) = crash_looping_kcm();
    let text = stdout(&out);
    let named = format!("Cause (static pod): the static pod kube-system/{}", kcm.pod);
    assert!(text.contains(&named), "{}", both(&out));
    let last = format!("| {}", kcm_log.lines().last().unwrap());
    assert!(text.contains(&last), "{text}");
    // Image mode is off: the OS status is gathered, and the diagnosis says nothing about it.
    let master_status = format!("control-plane/{MASTER}/os-image/rpm-ostree-status.json");
    gathered.expect(&master_status, &master.data("rpm-ostree/status.json"));
    assert!(
        !text.contains("Image mode") && !text.contains("Image-mode"),
        "{text}"
    );
}

#[test]
fn image_mode_names_a_master_that_booted_another_image_than_its_pool() {
    let Some(mut site) = Site::start_with(image_mode_host, Some(master_on_the_stock_os)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (out, gathered) = site.gather(dir.path());
    let (master, _) = site.master.as_ref().expect("a master");

    gathered.expect(
        "bootstrap/os-image/rpm-ostree-status.json",
        &site.bootstrap.data("rpm-ostree/status.json"),
    );
    gathered.expect(
        "bootstrap/os-image/bootc-status.json",
        &site.bootstrap.data("bootc/status.json"),
    );
    gathered.expect(
        "bootstrap/os-image/served-os-images.txt",
        &format!(
            "master rendered-master-2d807340 {MASTER_OS_IMAGE}\n\
             worker rendered-worker-2d807340 {WORKER_OS_IMAGE}\n"
        ),
    );
    let told = format!(
        "rendered-assets/openshift/{}",
        os_image_config_path("master")
    );
    gathered.expect(&told, &os_image_config_yaml("master", MASTER_OS_IMAGE));
    let m = format!("control-plane/{MASTER}/os-image");
    gathered.expect(
        &format!("{m}/rpm-ostree-status.json"),
        &master.data("rpm-ostree/status.json"),
    );
    gathered.expect(
        &format!("{m}/bootc-absent.txt"),
        "bootc is not installed on this host\n",
    );
    // The served configs hold the pull secret: only their osImageURL line was read.
    assert!(
        !gathered
            .files
            .keys()
            .any(|k| k.contains("rendered-master-2d807340.yaml"))
    );
    check_nothing_secret(&gathered);
    let mut bootstrap_tools = BOOTSTRAP_ROOT_TOOLS.to_vec();
    bootstrap_tools.push("bootc");
    check_root_only_tools_ran_as_root(&site.bootstrap, &bootstrap_tools);

    let text = stdout(&out);
    let stock = format!("ostree-unverified-registry:{STOCK_OS_IMAGE}");
    let problem = format!(
        "Image-mode problem: host {MASTER} of pool master booted {stock} (rpm-ostree), not the \
         OS image {MASTER_OS_IMAGE} its pool was told to boot.\n  Next: the node did not apply \
         its pool's OS image"
    );
    assert!(text.contains(&problem), "{}", both(&out));
    // The cluster runs the config the bootstrap host served: it is shown once.
    let rendered = "    rendered config rendered-master-2d807340 served by the bootstrap \
                    machine-config server carries it\n";
    assert_eq!(
        text.matches("rendered config rendered-master-").count(),
        1,
        "{text}"
    );
    assert!(text.contains(rendered), "{text}");
    assert!(
        text.contains(&format!(
            "Image-mode note: bootc is not installed on {MASTER}"
        )),
        "{text}"
    );
}

#[test]
fn image_mode_with_a_master_on_its_pools_image_reports_no_problem() {
    let Some(mut site) = Site::start_with(image_mode_host, Some(master_on_its_image)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (out, gathered) = site.gather(dir.path());
    let (master, _) = site.master.as_ref().expect("a master");

    let m = format!("control-plane/{MASTER}/os-image");
    gathered.expect(
        &format!("{m}/bootc-status.json"),
        &master.data("bootc/status.json"),
    );
    check_root_only_tools_ran_as_root(master, &["rpm-ostree", "bootc"]);
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "  - pool master: {MASTER_OS_IMAGE} (MachineConfig 99-master-okd-install-os-image in "
        )),
        "{}",
        both(&out)
    );
    assert!(
        text.contains(&format!("    {MASTER} booted it (rpm-ostree)\n")),
        "{text}"
    );
    assert!(
        !text.contains("Image-mode problem") && !text.contains("Image-mode note"),
        "{text}"
    );
}

#[test]
fn an_api_that_never_answered_is_gathered_and_named() {
    let Some(mut site) = Site::start(api_down_host, false) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (out, gathered) = site.gather(dir.path());

    let unreachable = gathered.text("resources/api-unreachable.txt");
    assert!(
        unreachable.starts_with("The API did not answer through ")
            && unreachable.contains("localhost:6443 was refused"),
        "{unreachable}"
    );
    let resources: Vec<&String> = gathered
        .files
        .keys()
        .filter(|k| k.starts_with("resources/"))
        .collect();
    assert_eq!(resources, ["resources/api-unreachable.txt"]);
    assert!(gathered.text("gather.log").contains("No masters to gather"));
    assert!(
        !gathered
            .files
            .keys()
            .any(|k| k.starts_with("control-plane/"))
    );
    check_containers(&site.bootstrap, &gathered);
    check_nothing_secret(&gathered);
    check_root_only_tools_ran_as_root(&site.bootstrap, &BOOTSTRAP_ROOT_TOOLS);

    let (_, kas_log) = crash_looping_kas();
    let text = stdout(&out);
    let named = "Cause (kube-apiserver): the bootstrap kube-apiserver never answered";
    assert!(text.contains(named), "{}", both(&out));
    let last = format!("| {}", kas_log.lines().last().unwrap());
    assert!(text.contains(&last), "{text}");
}

/// The bootstrap host's tools that only work as root.
const BOOTSTRAP_ROOT_TOOLS: [&str; 7] = [
    "crictl",
    "podman",
    "oc",
    "etcdctl",
    "journalctl",
    "rpm-ostree",
    "ss",
];

/// A file of the host as the test wrote it.
fn on_host(host: &FakeHost, rel: &str) -> String {
    std::fs::read_to_string(host.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn check_records_journals_and_units(host: &FakeHost, g: &Gathered) {
    for service in [
        "node-image-pull",
        "node-image-overlay",
        "release-image",
        "bootkube",
    ] {
        let record = on_host(host, &format!("var/log/openshift/{service}.json"));
        g.expect(&format!("bootstrap/services/{service}.json"), &record);
    }
    for unit in [
        "node-image-pull",
        "node-image-overlay",
        "release-image",
        "crio",
        "kubelet",
        "bootkube",
        "approve-csr",
    ] {
        let journal = host.data(&format!("journal/{unit}.log"));
        g.expect(&format!("bootstrap/journals/{unit}.log"), &journal);
    }
    g.expect("bootstrap/journals/progress.log", "-- No entries --\n");
    let failed = g.text("failed-units.txt");
    assert!(failed.contains("* afterburn-checkin.service"), "{failed}");
    let status = g.text("unit-status/afterburn-checkin.service.txt");
    assert!(status.contains("Active: failed"), "{status}");
    let journal = host.data("journal/afterburn-checkin.log");
    g.expect("unit-status/afterburn-checkin.service.log", &journal);
    let log = g.text("gather.log");
    let steps = [
        "Asking the API for the cluster's resources",
        "Gathering master 127.0.0.1",
    ];
    assert!(steps.iter().all(|s| log.contains(s)), "{log}");
}

fn check_containers(host: &FakeHost, g: &Gathered) {
    let mut seen = 0;
    for (dir, runtime) in [("crictl", "containers"), ("podman", "pods")] {
        for entry in std::fs::read_dir(host.path(&format!("data/{dir}"))).unwrap() {
            let data = entry.unwrap().path();
            let id = data.file_name().unwrap().to_string_lossy().into_owned();
            let read = |file: &str| std::fs::read_to_string(data.join(file)).unwrap();
            let stem = format!("bootstrap/{runtime}/{}-{id}", read("name"));
            g.expect(&format!("{stem}.log"), &read("log"));
            g.expect(&format!("{stem}.inspect"), &read("inspect.json"));
            let list = g.text(&format!("bootstrap/{runtime}/{dir}-ps.txt"));
            assert!(list.contains(&id[..12]), "{id} in the {dir} list:\n{list}");
            seen += 1;
        }
    }
    assert!(seen > 20, "every container of both runtimes: {seen}");
    let log = "var/log/bootstrap-control-plane/kube-apiserver.log";
    let copy = "bootstrap/containers/bootstrap-control-plane/kube-apiserver.log";
    g.expect(copy, &on_host(host, log));
}

fn check_etcd_network_and_os(host: &FakeHost, g: &Gathered) {
    for (file, data) in [
        ("etcd/member-list.txt", "etcd/member-list"),
        ("etcd/endpoint-health.txt", "etcd/endpoint-health"),
        ("etcd/endpoint-status.txt", "etcd/endpoint-status"),
        ("network/ip-addr.txt", "net/ip-addr"),
        ("network/ip-route.txt", "net/ip-route"),
        ("network/ip-route-v6.txt", "net/ip-route-v6"),
        ("network/ss.txt", "net/ss"),
        ("network/hostname.txt", "net/hostname"),
        ("rpm-ostree/status", "rpm-ostree/status"),
        ("rpm-ostree/history", "rpm-ostree/history"),
    ] {
        g.expect(&format!("bootstrap/{file}"), &host.data(data));
    }
    let resolv = std::fs::read_to_string("/etc/resolv.conf").unwrap_or_default();
    g.expect("bootstrap/network/resolv.conf", &resolv);
    let conf = contract::REGISTRIES_CONF_DIR;
    g.expect(&format!("{conf}/registries.conf"), REGISTRIES_CONF);
    g.expect(
        &format!("{conf}/registries.conf.d/99-site.conf"),
        REGISTRIES_DROP_IN,
    );
}

fn check_assets_and_manifests(host: &FakeHost, g: &Gathered) {
    for asset in [
        "tls/root-ca.crt",
        "manifests/cluster-config.yaml",
        "openshift/99_openshift-machineconfig_99-master-ssh.yaml",
        "bootstrap-manifests/kube-apiserver-pod.yaml",
    ] {
        let text = on_host(host, &format!("opt/openshift/{asset}"));
        g.expect(&format!("rendered-assets/openshift/{asset}"), &text);
    }
    for stage in done_stages() {
        let marker = format!("rendered-assets/openshift/{stage}.done");
        assert!(g.has(&marker), "{marker}");
    }
    for sub in [
        "manifests/etcd-member-pod.yaml",
        "manifests/kube-controller-manager-pod.yaml",
        "bootstrap-configs/kube-apiserver-config.yaml",
        "bootstrap-manifests/kube-apiserver-pod.yaml",
    ] {
        let text = on_host(host, &format!("etc/kubernetes/{sub}"));
        g.expect(&format!("bootstrap/etc-kubernetes/{sub}"), &text);
    }
    for left_out in [
        "auth/kubeconfig",
        "auth/kubeconfig-loopback",
        ".kube/config",
        "tls/kube-apiserver-lb-server.key",
        "tls/aggregator-signer.pem",
        "manifests/openshift-config-secret-pull-secret.yaml",
        "mco-bootstrap/bootstrap/manifests/machineconfigcontroller-pull-secret",
    ] {
        let path = format!("rendered-assets/openshift/{left_out}");
        assert!(!g.has(&path), "{path} must stay on the host");
    }
    let secrets = |k: &&String| k.contains("bootstrap-secrets") || k.ends_with("/kubeconfig");
    let kept: Vec<&String> = g.files.keys().filter(secrets).collect();
    assert!(kept.is_empty(), "{kept:?} must stay on the host");
}

fn check_resources(host: &FakeHost, g: &Gathered) {
    for kind in [
        "clusteroperators",
        "clusterversion",
        "events",
        "pods",
        "csr",
        "nodes",
        "machineosconfigs",
        "machineosbuilds",
        "apiservices",
        "services",
    ] {
        g.expect(
            &format!("resources/{kind}.json"),
            &host.data(&format!("oc/{kind}.json")),
        );
    }
    g.expect("resources/nodes.list", "master-0\n");
    g.expect("resources/masters.list", &format!("{MASTER}\n"));
    let kas_pod = "-n openshift-kube-apiserver kube-apiserver-master-0";
    let containers = format!(
        "{kas_pod} -c setup\n{kas_pod} -c kube-apiserver\n{kas_pod} -c kube-apiserver-cert-syncer\n\
         -n openshift-etcd etcd-master-0 -c etcd\n"
    );
    g.expect("resources/containers", &containers);
    g.expect("resources/api-pods", &format!("{kas_pod}\n"));
    g.expect("resources/secrets-names.txt", &host.data("oc/secrets.txt"));
    let annotated = g.text("resources/secrets-names-with-annotations.txt");
    let filtered = annotated.contains("pull-secret") && !annotated.contains("-token-");
    assert!(filtered, "{annotated}");
    assert_eq!(
        g.gunzip("resources/openapi.json.gz"),
        host.data("oc/openapi.json")
    );
    assert!(!g.has("resources/api-unreachable.txt"));
}

fn check_master(host: &FakeHost, g: &Gathered) {
    let m = format!("control-plane/{MASTER}");
    let failed = g.text(&format!("{m}/failed-units.txt"));
    assert!(failed.contains("0 loaded units listed."), "{failed}");
    for (file, data) in [
        ("journals/kubelet.log", "journal/kubelet.log"),
        ("journals/crio.log", "journal/crio.log"),
        ("journals/ignition.log", "journal/ignition.log"),
        ("network/ip-addr.txt", "net/ip-addr"),
        ("network/hostname.txt", "net/hostname"),
        ("rpm-ostree/status", "rpm-ostree/status"),
    ] {
        g.expect(&format!("{m}/{file}"), &host.data(data));
    }
    let journal = g.gunzip(&format!("{m}/journals/journal.log.gz"));
    assert!(journal.contains("GET result: OK"), "{journal}");
    let rbac = master_static_pod();
    g.expect(
        &format!("{m}/containers/{}.inspect", rbac.file_stem()),
        &rbac.inspect(),
    );
    let list = g.text(&format!("{m}/containers/crictl-ps.txt"));
    assert!(list.contains("kube-rbac-proxy-crio"), "{list}");
}

/// No private key, kubeconfig client key or pull secret anywhere, compressed files included.
fn check_nothing_secret(g: &Gathered) {
    let marker = ["PRIVATE", "KEY-----"].join(" ");
    for (rel, bytes) in &g.files {
        let text = if rel.ends_with(".gz") {
            g.gunzip(rel)
        } else {
            String::from_utf8_lossy(bytes).into_owned()
        };
        for secret in [marker.as_str(), PULL_TOKEN, "client-key-data"] {
            assert!(!text.contains(secret), "{rel} holds {secret}");
        }
    }
}

/// The tools that need root got it through sudo: no stand-in among `tools` saw core.
fn check_root_only_tools_ran_as_root(host: &FakeHost, tools: &[&str]) {
    let calls = host.calls();
    for tool in tools {
        let users: Vec<&str> = calls
            .iter()
            .filter(|c| c.split_whitespace().nth(1) == Some(*tool))
            .filter_map(|c| c.split_whitespace().next())
            .collect();
        assert!(!users.is_empty(), "{tool} was never called: {calls:#?}");
        assert!(
            users.iter().all(|u| *u == "root"),
            "{tool} called as {users:?}"
        );
    }
}
