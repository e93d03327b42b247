//! What the render stages must have left on the host.

use std::path::Path;

use crate::{Host, Payload, RenderRun, render_stages};

/// One thing missing or wrong after the renders, with the stage responsible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The bootkube stage whose output it is.
    pub stage: &'static str,
    /// What is wrong.
    pub problem: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.stage, self.problem)
    }
}

/// Files a stage must leave, as node paths.
const OUTPUTS: &[(&str, &str)] = &[
    (
        "api-bootstrap",
        "/opt/openshift/manifests/99_feature-gate.yaml",
    ),
    (
        "api-bootstrap",
        "/opt/openshift/manifests/0000_10_config-operator_01_featuregates.crd.yaml",
    ),
    (
        "auth-api-bootstrap",
        "/opt/openshift/manifests/authorization.openshift.io_rolebindingrestrictions.yaml",
    ),
    (
        "config-bootstrap",
        "/opt/openshift/config-bootstrap/cloud-provider-config-generated.yaml",
    ),
    (
        "cvo-bootstrap",
        "/opt/openshift/bootstrap-manifests/bootstrap-pod.yaml",
    ),
    ("cvo-bootstrap", "/etc/kubernetes/kubeconfig"),
    (
        "etcd-bootstrap",
        "/etc/kubernetes/manifests/etcd-member-pod.yaml",
    ),
    ("etcd-bootstrap", "/opt/openshift/tls/etcd-ca-bundle.crt"),
    ("etcd-bootstrap", "/opt/openshift/tls/etcd-client.crt"),
    (
        "kube-apiserver-bootstrap",
        "/etc/kubernetes/bootstrap-configs/kube-apiserver-config.yaml",
    ),
    (
        "kube-apiserver-bootstrap",
        "/opt/openshift/bootstrap-manifests/kube-apiserver-pod.yaml",
    ),
    (
        "kube-controller-manager-bootstrap",
        "/etc/kubernetes/bootstrap-configs/kube-controller-manager-config.yaml",
    ),
    (
        "kube-controller-manager-bootstrap",
        "/etc/kubernetes/bootstrap-configs/cluster-policy-controller-config.yaml",
    ),
    (
        "kube-controller-manager-bootstrap",
        "/opt/openshift/bootstrap-manifests/kube-controller-manager-pod.yaml",
    ),
    (
        "kube-scheduler-bootstrap",
        "/etc/kubernetes/bootstrap-configs/kube-scheduler-config.yaml",
    ),
    (
        "kube-scheduler-bootstrap",
        "/opt/openshift/bootstrap-manifests/kube-scheduler-pod.yaml",
    ),
    (
        "mco-bootstrap",
        "/etc/kubernetes/manifests/machineconfigoperator-bootstrap-pod.yaml",
    ),
    ("mco-bootstrap", "/etc/mcs/kubeconfig"),
    ("mco-bootstrap", "/etc/ssl/mcs/tls.crt"),
    ("mco-bootstrap", "/etc/ssl/mcs/tls.key"),
];

/// The render stages of the 4.19 `bootkube.sh` and the flags each one's container (named in
/// [`ignition::BOOTKUBE_RENDER_STAGES`]) must be given: those of
/// upstream's release-4.19 invocation, every one defined by the 4.19 binary (an unknown flag
/// makes the binary exit, so the run itself proves that). Several change nothing for some
/// inputs (a payload version the operator only reports, a feature-gate path that selects the
/// default set), so the calls are checked as well as the outputs.
const INVOCATIONS: &[(&str, &[&str])] = &[
    (
        "api-bootstrap",
        &[
            "--asset-output-dir",
            "--rendered-manifest-dir",
            "--cluster-profile",
            "--payload-version",
        ],
    ),
    (
        "auth-api-bootstrap",
        &[
            "--asset-output-dir",
            "--rendered-manifest-dir",
            "--cluster-profile",
            "--payload-version",
        ],
    ),
    (
        "config-bootstrap",
        &[
            "--skip-api-rendering",
            "--cluster-infrastructure-input-file",
            "--cloud-provider-config-output-file",
            "--config-output-file",
            "--asset-input-dir",
            "--asset-output-dir",
            "--rendered-manifest-files",
            "--payload-version",
        ],
    ),
    (
        "cvo-bootstrap",
        &[
            "--output-dir",
            "--release-image",
            "--feature-gate-manifest-path",
        ],
    ),
    (
        "etcd-bootstrap",
        &[
            "--asset-output-dir",
            "--cluster-configmap-file",
            "--etcd-image",
            "--infra-config-file",
            "--network-config-file",
        ],
    ),
    (
        "kube-apiserver-bootstrap",
        &[
            "--manifest-etcd-serving-ca",
            "--manifest-etcd-server-urls",
            "--manifest-image",
            "--manifest-operator-image",
            "--asset-input-dir",
            "--asset-output-dir",
            "--config-output-file",
            "--cluster-config-file",
            "--cluster-auth-file",
            "--infra-config-file",
            "--rendered-manifest-files",
            "--payload-version",
            "--operand-kubernetes-version",
        ],
    ),
    (
        "kube-controller-manager-bootstrap",
        &[
            "--cluster-policy-controller-image",
            "--manifest-image",
            "--asset-input-dir",
            "--asset-output-dir",
            "--config-output-file",
            "--cpc-config-output-file",
            "--cluster-config-file",
            "--rendered-manifest-files",
            "--payload-version",
        ],
    ),
    (
        "kube-scheduler-bootstrap",
        &[
            "--manifest-image",
            "--asset-input-dir",
            "--asset-output-dir",
            "--config-output-file",
        ],
    ),
    ("ingress-operator-bootstrap", &["--prefix", "--output-dir"]),
    (
        "node-tuning-bootstrap",
        &["--asset-input-dir", "--asset-output-dir"],
    ),
    (
        "mco-bootstrap",
        &[
            "--user",
            "--root-ca",
            "--kube-ca",
            "--config-file",
            "--dest-dir",
            "--pull-secret",
            "--release-image",
            "--image-references",
            "--payload-version",
        ],
    ),
    (
        "cco-bootstrap",
        &[
            "--user",
            "--dest-dir",
            "--manifests-dir",
            "--cloud-credential-operator-image",
        ],
    ),
];

/// Every problem with what the renders left on `host`: a stage without its marker, a
/// missing output, a render called without a flag of its 4.19 invocation or with the wrong
/// release version, a ControllerConfig that does not name the release's node image.
pub fn check_outputs(host: &Host, payload: &Payload, run: &RenderRun) -> Vec<Finding> {
    let mut findings = Vec::new();
    for stage in render_stages() {
        if !host.assets().join(format!("{stage}.done")).exists() {
            findings.push(finding(stage, "no .done marker".into()));
        }
    }
    for (stage, node_path) in OUTPUTS {
        if !host.path(node_path).is_file() {
            findings.push(finding(stage, format!("{node_path} is missing")));
        }
    }
    findings.extend(check_controller_config(host, payload));
    findings.extend(check_invocations(&run.podman_calls, payload.release));
    findings.extend(check_versions(host, payload, &run.podman_calls));
    findings
}

/// The podman call that ran container `name`.
fn call_named<'a>(calls: &'a [Vec<String>], name: &str) -> Option<&'a Vec<String>> {
    calls
        .iter()
        .find(|c| c.windows(2).any(|w| w[0] == "--name" && w[1] == name))
}

/// The value of `--flag=value` or `--flag value` in a call.
fn flag_value<'a>(call: &'a [String], flag: &str) -> Option<&'a str> {
    call.iter().enumerate().find_map(|(i, arg)| {
        if arg == flag {
            call.get(i + 1).map(String::as_str)
        } else {
            arg.strip_prefix(flag)?.strip_prefix('=')
        }
    })
}

/// The container the render of `stage` runs in.
fn container_of(stage: &str) -> &'static str {
    ignition::BOOTKUBE_RENDER_STAGES
        .iter()
        .find(|(s, _)| *s == stage)
        .map(|(_, name)| *name)
        .unwrap_or("?")
}

/// Flags a release adds to a stage's 4.19 invocation, by the feature of the release table
/// that turns them on.
const RELEASE_FLAGS: &[(releases::Feature, &str, &[&str])] = &[
    (
        releases::Feature::CvoClusterVersionManifestPath,
        "cvo-bootstrap",
        &["--cluster-version-manifest-path"],
    ),
    (
        releases::Feature::EtcdRenderManifestFlags,
        "etcd-bootstrap",
        &["--rendered-manifest-files", "--payload-version"],
    ),
];

/// The flags `stage` must be given on `release`.
fn expected_flags(
    stage: &str,
    flags: &[&'static str],
    release: &releases::Release,
) -> Vec<&'static str> {
    let mut all = flags.to_vec();
    for (feature, on, extra) in RELEASE_FLAGS {
        if *on == stage && release.has(*feature) {
            all.extend(extra.iter());
        }
    }
    all
}

fn check_invocations(calls: &[Vec<String>], release: &releases::Release) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (stage, flags) in INVOCATIONS {
        let name = container_of(stage);
        let Some(call) = call_named(calls, name) else {
            findings.push(finding(stage, format!("no podman run of container {name}")));
            continue;
        };
        for flag in expected_flags(stage, flags, release) {
            if flag_value(call, flag).is_none() && !call.iter().any(|a| a == flag) {
                findings.push(finding(
                    stage,
                    format!(
                        "{name} ran without {flag}, which its {} invocation passes",
                        release.version
                    ),
                ));
            }
        }
    }
    findings
}

/// `--payload-version` must be the release's version (release-metadata) and
/// `--operand-kubernetes-version` its hyperkube's Kubernetes version (image-references); the
/// FeatureGate status the API render wrote must carry the release version too.
fn check_versions(host: &Host, payload: &Payload, calls: &[Vec<String>]) -> Vec<Finding> {
    let (version, kubernetes) = match payload.versions() {
        Ok(v) => v,
        Err(e) => {
            return vec![finding(
                "api-bootstrap",
                format!("cannot read the release versions: {e}"),
            )];
        }
    };
    let mut findings = Vec::new();
    for (stage, flags) in INVOCATIONS {
        let name = container_of(stage);
        let Some(call) = call_named(calls, name) else {
            continue;
        };
        for (flag, want) in [
            ("--payload-version", &version),
            ("--operand-kubernetes-version", &kubernetes),
        ] {
            if flags.contains(&flag)
                && let Some(got) = flag_value(call, flag)
                && got != want
            {
                findings.push(finding(
                    stage,
                    format!("{name} got {flag}={got}, the release says {want}"),
                ));
            }
        }
    }
    let gate = host.path("/opt/openshift/manifests/99_feature-gate.yaml");
    let versions: Vec<String> = read_objects(&gate)
        .iter()
        .flat_map(|g| {
            g["status"]["featureGates"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|g| g["version"].as_str().map(str::to_string))
        .collect();
    if !versions.iter().any(|v| v == &version) {
        findings.push(finding(
            "api-bootstrap",
            format!(
                "the FeatureGate status lists versions {versions:?}, not the release's {version}"
            ),
        ));
    }
    findings
}

fn finding(stage: &'static str, problem: String) -> Finding {
    Finding { stage, problem }
}

/// The bootstrap controller's ControllerConfig must name the release's node image as the
/// base OS image: that is the OS the nodes' first boot pivots to.
fn check_controller_config(host: &Host, payload: &Payload) -> Vec<Finding> {
    let stage = "mco-bootstrap";
    let expected = match payload.image_for("stream-coreos") {
        Ok(Some(image)) => image,
        Ok(None) => {
            return vec![finding(
                stage,
                "the release names no stream-coreos image".into(),
            )];
        }
        Err(e) => {
            return vec![finding(
                stage,
                format!("cannot read the release's images: {e}"),
            )];
        }
    };
    let dir = host.path("/etc/mcc/bootstrap");
    let Some(config) = find_object(&dir, "ControllerConfig") else {
        return vec![finding(
            stage,
            format!("no ControllerConfig in {}", dir.display()),
        )];
    };
    let actual = config["spec"]["baseOSContainerImage"]
        .as_str()
        .unwrap_or_default();
    if actual == expected {
        Vec::new()
    } else {
        vec![finding(
            stage,
            format!(
                "ControllerConfig spec.baseOSContainerImage is {actual:?}, not the release's node image {expected:?}"
            ),
        )]
    }
}

/// The first YAML or JSON object of `kind` among the files of `dir`.
fn find_object(dir: &Path, kind: &str) -> Option<serde_json::Value> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    entries
        .iter()
        .find_map(|path| read_objects(path).into_iter().find(|d| d["kind"] == kind))
}

/// The objects of a YAML (or JSON) file; none when it cannot be read or parsed.
pub(crate) fn read_objects(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| serde_saphyr::from_multiple(&text).ok())
        .unwrap_or_default()
}

/// The kube-controller-manager bootstrap pod's network flags against the install-config at
/// `install_config`: the 4.19 operator writes one `--cluster-cidr` and one
/// `--service-cluster-ip-range` per CIDR of the Network config it is given (so a dual-stack
/// cluster gets each flag twice, by the operator's design, from any correct input); what
/// must hold is that the CIDRs are exactly the install-config's, each once.
pub(crate) fn controller_manager_networks(host: &Host, install_config: &Path) -> Vec<Finding> {
    let pod_file = host.path("/opt/openshift/bootstrap-manifests/kube-controller-manager-pod.yaml");
    let pod = read_objects(&pod_file)
        .into_iter()
        .next()
        .unwrap_or_default();
    let config = read_objects(install_config)
        .into_iter()
        .next()
        .unwrap_or_default();
    let args: Vec<String> = pod["spec"]["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["name"] == "kube-controller-manager")
        .flat_map(|c| {
            ["command", "args"]
                .iter()
                .flat_map(|k| c[*k].as_array().cloned().unwrap_or_default())
                .collect::<Vec<_>>()
        })
        .filter_map(|a| a.as_str().map(str::to_string))
        .flat_map(|a| a.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect();
    let cidrs = |key: &str, field: &str| -> Vec<String> {
        config["networking"][key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| {
                if field.is_empty() {
                    n.as_str()
                } else {
                    n[field].as_str()
                }
            })
            .map(str::to_string)
            .collect()
    };
    let mut findings = Vec::new();
    for (flag, wanted) in [
        ("--cluster-cidr=", cidrs("clusterNetwork", "cidr")),
        ("--service-cluster-ip-range=", cidrs("serviceNetwork", "")),
    ] {
        let mut given: Vec<String> = args
            .iter()
            .filter_map(|a| a.trim_matches(['"', '\'']).strip_prefix(flag))
            .flat_map(|v| v.split(',').map(str::to_string).collect::<Vec<_>>())
            .collect();
        given.sort();
        let mut wanted = wanted;
        wanted.sort();
        if given != wanted {
            findings.push(Finding {
                stage: "kube-controller-manager-bootstrap",
                problem: format!(
                    "{}: {flag} gives {given:?}, the install-config says {wanted:?}",
                    pod_file.display()
                ),
            });
        }
    }
    findings
}
