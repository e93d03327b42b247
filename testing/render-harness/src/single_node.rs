//! The master config a single node packs for itself, checked as the installed system will
//! meet it.
//!
//! `bootstrap-in-place.sh` has `cluster-bootstrap bootstrap-in-place` translate
//! `master-update.fcc` into `/opt/openshift/master.ign`, which `install-to-disk.sh` writes to
//! the disk. After the reboot there is no bootstrap host: the node runs whatever that config
//! holds. So the config must be valid, and applied with the real Ignition to an empty root it
//! must give the control-plane pods, everything those pods mount from the host, the etcd
//! data, and the post-reboot script with every file it reads.

use std::net::IpAddr;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::check::read_objects;
use crate::host::{ignition_apply, output_of, seed_accounts, which};
use crate::{Finding, Host, Kubelet, Payload, Sandbox};

/// Where bootkube.sh leaves the master config on a single node.
pub(crate) const SINGLE_NODE_MASTER_IGN: &str = "/opt/openshift/master.ign";
/// How long the installed node's control plane may take to answer.
const BOOT_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);
/// Objects the bootstrap created that the installed node's API server must still have: the
/// cluster's state travelled in the etcd data.
const CARRIED_STATE: &[&[&str]] = &[
    &["clusterversion.config.openshift.io", "version"],
    &["namespace", "openshift-config"],
    &["configmap", "cluster-config-v1", "--namespace=kube-system"],
];

/// The static pods the installed node must start with (node paths).
pub(crate) const CONTROL_PLANE_PODS: &[&str] = &[
    "/etc/kubernetes/manifests/etcd-pod.yaml",
    "/etc/kubernetes/manifests/kube-apiserver-pod.yaml",
    "/etc/kubernetes/manifests/kube-controller-manager-pod.yaml",
    "/etc/kubernetes/manifests/kube-scheduler-pod.yaml",
];
/// The script the installed node runs first, and where master-update.fcc puts it.
pub(crate) const POST_REBOOT_SCRIPT: &str = "/usr/local/bin/bootstrap-in-place-post-reboot.sh";
/// What else the installed node needs: the etcd member's data and the admin kubeconfig of
/// the post-reboot script.
const OTHER_PATHS: &[&str] = &[
    "/var/lib/etcd/member/snap/db",
    "/etc/kubernetes/bootstrap-secrets/kubeconfig",
    "/etc/systemd/system/multi-user.target.wants/bootstrap-in-place-post-reboot.service",
];

/// Everything wrong with the master config on `host`; the installed root is left in
/// `<host dir>/installed-node/root` for a person to look at.
pub(crate) fn check_master_ign(host: &Host) -> Vec<Finding> {
    let ign = host.path(SINGLE_NODE_MASTER_IGN);
    if !ign.is_file() {
        return vec![finding(format!(
            "bootstrap-in-place wrote no {SINGLE_NODE_MASTER_IGN}"
        ))];
    }
    if let Some(problem) = validate(&ign) {
        return vec![finding(problem)];
    }
    let root = installed_host(host).root;
    let _ = std::fs::remove_dir_all(&root);
    if let Err(e) = apply(&ign, &root) {
        return vec![finding(format!("Ignition could not apply master.ign: {e}"))];
    }
    installed_problems(&root).into_iter().map(finding).collect()
}

/// The installed root left by [`check_master_ign`], as a host of its own.
pub(crate) fn installed_host(host: &Host) -> Host {
    Host::new(
        &host
            .root
            .parent()
            .unwrap_or(&host.root)
            .join("installed-node"),
    )
}

/// Boots the control plane of the installed single node: the static pods master.ign put in
/// its `/etc/kubernetes/manifests`, run by a kubelet stand-in in a sandbox of their own with
/// the node's address, must bring back an API server that answers through the kubeconfig the
/// post-reboot script uses and holds the cluster the bootstrap made (the etcd data came
/// along). The sandbox is removed unless `keep`.
pub(crate) fn boot_installed(
    installed: &Host,
    payload: &Payload,
    sandbox: (&str, &[IpAddr], &[(String, IpAddr)]),
    kubectl: &Path,
    keep: bool,
) -> Vec<Finding> {
    let (name, addresses, hosts) = sandbox;
    let sandbox = match Sandbox::create(name, installed, addresses, hosts) {
        Ok(sandbox) => sandbox,
        Err(e) => {
            return vec![finding(format!(
                "cannot make the installed node's sandbox: {e}"
            ))];
        }
    };
    let placeholders = payload.placeholders().unwrap_or_default();
    let kubelet = Kubelet::start(
        &sandbox,
        installed,
        payload,
        ("installed", addresses[0]),
        "/etc/kubernetes/manifests",
        placeholders,
        Some(installed.log.with_file_name("kubelet-installed.log")),
    );
    let kubeconfig = "/etc/kubernetes/bootstrap-secrets/kubeconfig";
    let kubectl_in = |args: &[&str]| {
        let mut cmd = sandbox.command(kubectl);
        cmd.arg(format!("--kubeconfig={kubeconfig}"))
            .arg("--request-timeout=20s")
            .args(args);
        output_of(&mut cmd)
    };
    let deadline = std::time::Instant::now() + BOOT_LIMIT;
    let ready = loop {
        let last = match kubectl_in(&["get", "--raw", "/readyz"]) {
            Ok(out) if out.trim() == "ok" => break Ok(()),
            Ok(out) => out,
            Err(e) => e.to_string(),
        };
        if std::time::Instant::now() > deadline {
            break Err(last);
        }
        std::thread::sleep(std::time::Duration::from_secs(3));
    };
    let mut findings = Vec::new();
    if let Err(last) = ready {
        findings.push(finding(format!(
            "the installed node's control plane did not come up within {}s through {kubeconfig}: {}",
            BOOT_LIMIT.as_secs(),
            crate::error::tail(&last, 3)
        )));
    }
    if findings.is_empty() {
        for object in CARRIED_STATE {
            let args: Vec<&str> = ["get", "--output=name"]
                .iter()
                .chain(object.iter())
                .copied()
                .collect();
            if let Err(e) = kubectl_in(&args) {
                findings.push(finding(format!(
                    "the installed node's API server has no {}, which the bootstrap created: {}",
                    object.join(" "),
                    crate::error::tail(&e.to_string(), 2)
                )));
            }
        }
    }
    let journal = kubelet.stop();
    if !findings.is_empty() {
        findings.push(finding(format!(
            "its kubelet stand-in: {}",
            journal.join("; ")
        )));
    }
    if !keep {
        sandbox.remove(payload);
    }
    findings
}

/// `ignition-validate`'s complaint about `ign`, if any (a missing tool is a problem too: the
/// check must not pass silently).
fn validate(ign: &Path) -> Option<String> {
    let Some(validate) = which("ignition-validate") else {
        return Some("ignition-validate is not installed (apt-get install ignition)".into());
    };
    output_of(Command::new(validate).arg(ign))
        .err()
        .map(|e| format!("ignition-validate rejects master.ign: {e}"))
}

/// The real Ignition writes `ign` into the empty `root` (sections a running system cannot
/// change, users and units, are left to the files they would create).
fn apply(ign: &Path, root: &Path) -> crate::Result<()> {
    seed_accounts(root)?;
    let apply = ignition_apply()?;
    output_of(
        Command::new(&apply.0)
            .args(["--offline", "--ignore-unsupported", "--root"])
            .arg(root)
            .arg(ign),
    )
    .map(|_| ())
}

/// What the installed system at `root` lacks.
fn installed_problems(root: &Path) -> Vec<String> {
    let at = |node: &str| root.join(node.trim_start_matches('/'));
    let mut problems = Vec::new();
    for pod in CONTROL_PLANE_PODS {
        if !at(pod).is_file() {
            problems.push(format!("no static pod {pod}"));
            continue;
        }
        for path in host_paths(&at(pod)) {
            if !at(&path).exists() {
                problems.push(format!(
                    "{pod} mounts {path}, which master.ign does not create"
                ));
            }
        }
    }
    for path in OTHER_PATHS {
        // A link counts as there (its target is a path of the installed system, not of ours).
        if at(path).symlink_metadata().is_err() {
            problems.push(format!("no {path}"));
        }
    }
    let script = at(POST_REBOOT_SCRIPT);
    match std::fs::read_to_string(&script) {
        Ok(text) => {
            for path in script_inputs(&text) {
                if !at(&path).exists() {
                    problems.push(format!(
                        "{POST_REBOOT_SCRIPT} reads {path}, which master.ign does not create"
                    ));
                }
            }
        }
        Err(_) => problems.push(format!("no {POST_REBOOT_SCRIPT}")),
    }
    problems
}

/// The host paths a pod mounts and the kubelet requires to exist: those of type Directory
/// or File (no type means no check, and CRI-O creates a missing directory; the *OrCreate
/// types create theirs; the OS image provides the rest, such as /etc/ssl/certs).
fn host_paths(pod: &Path) -> Vec<String> {
    read_objects(pod)
        .iter()
        .flat_map(|p| p["spec"]["volumes"].as_array().cloned().unwrap_or_default())
        .filter(|v| matches!(v["hostPath"]["type"].as_str(), Some("Directory" | "File")))
        .filter_map(|v: Value| v["hostPath"]["path"].as_str().map(str::to_string))
        .collect()
}

/// The default locations a script reads: `NAME="${VAR:-/path}"` lines, and the files its
/// `. FILE` lines source through those names.
fn script_inputs(script: &str) -> Vec<String> {
    let mut defaults: Vec<(String, String)> = Vec::new();
    for line in script.lines() {
        let Some((name, rest)) = line.split_once("=\"${") else {
            continue;
        };
        let Some(path) = rest
            .split_once(":-")
            .and_then(|(_, r)| r.strip_suffix("}\""))
        else {
            continue;
        };
        let name = name.trim().trim_start_matches("export ");
        if path.starts_with('/') {
            defaults.push((name.to_string(), path.to_string()));
        }
    }
    let mut inputs = Vec::new();
    for (name, path) in &defaults {
        // Directories the script creates or files it writes are not inputs; the kubeconfig,
        // the bundle and the sourced helpers are.
        if name == "OPENSHIFT_ROOT" || name == "ETC_KUBERNETES" || name == "BIN_DIR" {
            continue;
        }
        inputs.push(path.clone());
    }
    for line in script.lines() {
        let Some(sourced) = line.trim().strip_prefix(". \"${") else {
            continue;
        };
        if let Some((name, file)) = sourced.split_once("}/")
            && let Some((_, dir)) = defaults.iter().find(|(n, _)| n == name)
        {
            inputs.push(format!("{dir}/{}", file.trim_end_matches('"')));
        }
    }
    inputs
}

fn finding(problem: String) -> Finding {
    Finding {
        stage: "bootstrap-in-place",
        problem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_post_reboot_scripts_inputs_are_its_default_paths_and_sourced_helpers() {
        let script = r#"
export KUBECONFIG="${KUBECONFIG:-/etc/kubernetes/bootstrap-secrets/kubeconfig}"
OPENSHIFT_ROOT="${OPENSHIFT_ROOT:-/opt/openshift}"
BIN_DIR="${BOOTSTRAP_BIN_DIR:-/usr/local/bin}"
BOOTSTRAP_KAS_MANIFEST="${ETC_KUBERNETES}/manifests/kube-apiserver-pod.yaml"
PRE_REBOOT_BUNDLE="${PRE_REBOOT_BUNDLE:-/var/log/log-bundle-bootstrap.tar.gz}"
. "${BIN_DIR}/bootstrap-service-record.sh"
"#;
        assert_eq!(
            script_inputs(script),
            [
                "/etc/kubernetes/bootstrap-secrets/kubeconfig",
                "/var/log/log-bundle-bootstrap.tar.gz",
                "/usr/local/bin/bootstrap-service-record.sh",
            ]
        );
    }
}
