//! `okd-install wait-for bootstrap-complete | install-complete` against testkit's
//! TLS test API server. The server runs on its own multi-threaded runtime in the test process;
//! the binary is a separate process with its own runtime, connecting over real TLS with the
//! client certificate from the kubeconfig written here.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use testkit::api::objects::{
    cluster_operator, cluster_version, condition, configmap, console_route, etcd, stable_operator,
    warning_event,
};
use testkit::api::{Action, Signer, TestApiServer, TestPki};

use crate::common::json_lines;
use crate::support::{both, okd, repo_root, stderr};

/// A test API server with its runtime, an asset directory and a kubeconfig outside it.
struct Api {
    runtime: tokio::runtime::Runtime,
    server: TestApiServer,
    dir: tempfile::TempDir,
    kubeconfig: PathBuf,
}

impl Api {
    /// A server that is listening (`running`) or has only reserved its port.
    fn new(running: bool) -> Api {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("test server runtime");
        let pki = TestPki::generate("ops.example.com");
        let server = runtime.block_on(pki.server(running));
        let dir = tempfile::tempdir().expect("asset dir");
        let yaml = pki.admin_kubeconfig(&server);
        let kubeconfig = dir.path().join("admin.kubeconfig");
        std::fs::write(&kubeconfig, yaml).expect("write kubeconfig");
        Api {
            runtime,
            server,
            dir,
            kubeconfig,
        }
    }

    fn apply(&self, object: Value) {
        self.server.apply(object);
    }

    /// Starts a scripted timeline (milliseconds from now) on the server's runtime.
    fn timeline(&self, steps: Vec<(u64, Action)>) {
        let _guard = self.runtime.enter();
        drop(self.server.timeline(steps));
    }

    /// Runs `okd-install wait-for <milestone> --kubeconfig K <args>`.
    fn wait_for(&self, milestone: &str, args: &[&str]) -> Output {
        okd(self.dir.path())
            .args(["wait-for", milestone, "--kubeconfig"])
            .arg(&self.kubeconfig)
            .args(args)
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .expect("run okd-install wait-for")
    }

    fn dir(&self) -> &Path {
        self.dir.path()
    }
}

const FAST_BOOTSTRAP: &[&str] = &[
    "--api-timeout",
    "0.2",
    "--bootstrap-timeout",
    "0.2",
    "--etcd-timeout",
    "0.2",
];

/// Short install-complete budgets; `cluster` and `operators` in minutes.
fn fast_install(cluster: &'static str, operators: &'static str) -> Vec<&'static str> {
    vec![
        "--cluster-timeout",
        cluster,
        "--operators-timeout",
        operators,
        "--settle-seconds",
        "0.2",
        "--console-timeout",
        "0.05",
    ]
}

fn bootstrap_done(api: &Api) {
    api.apply(configmap(
        "kube-system",
        "bootstrap",
        &[("status", "complete")],
    ));
    api.apply(etcd("True"));
}

fn initialized() -> Value {
    cluster_version(vec![
        condition("Available", "True", "", "Done applying 4.20.0-okd"),
        condition("Failing", "False", "", ""),
        condition("Progressing", "False", "", "Cluster version is 4.20.0-okd"),
    ])
}

/// Everything install-complete needs except what a test changes afterwards; returns the
/// router CA the cluster publishes.
fn installed(api: &Api) -> String {
    let router_ca = Signer::new("ingress-operator@1").cert_pem();
    api.apply(initialized());
    api.apply(configmap(
        "openshift-config-managed",
        "default-ingress-cert",
        &[("ca-bundle.crt", &router_ca)],
    ));
    api.apply(stable_operator("dns"));
    api.apply(stable_operator("console"));
    api.apply(console_route(
        "console-openshift-console.apps.ops.example.com",
        true,
    ));
    router_ca
}

/// The decoded `certificate-authority-data` of a kubeconfig.
fn kubeconfig_ca(path: &Path) -> String {
    use base64::Engine;
    let yaml = std::fs::read_to_string(path).expect("read kubeconfig");
    let data = yaml
        .lines()
        .find_map(|l| l.trim().strip_prefix("certificate-authority-data:"))
        .expect("certificate-authority-data in the kubeconfig")
        .trim()
        .trim_matches('"');
    let pem = base64::engine::general_purpose::STANDARD
        .decode(data)
        .expect("base64 CA data");
    String::from_utf8(pem).expect("PEM text")
}

/// Asserts a `  <phase title>: <duration>` summary line per phase, then the total.
fn assert_timing_lines(out: &Output, titles: &[&str]) {
    let err = stderr(out);
    for title in titles {
        assert!(
            err.lines().any(|l| l.contains(&format!("  {title}: "))),
            "no timing line for {title}:\n{}",
            both(out)
        );
    }
    assert!(
        err.lines().any(|l| l.contains("time elapsed: ")),
        "{}",
        both(out)
    );
}

#[test]
fn bootstrap_complete_succeeds_with_a_timing_line_per_phase() {
    let api = Api::new(false);
    bootstrap_done(&api);
    api.timeline(vec![(400, Action::Start)]);
    let out = api.wait_for("bootstrap-complete", FAST_BOOTSTRAP);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_timing_lines(
        &out,
        &[
            "Kubernetes API",
            "bootstrap configmap",
            "etcd bootstrap member removal",
        ],
    );
    assert!(
        stderr(&out).contains("bootstrap is complete"),
        "{}",
        both(&out)
    );
}

#[test]
fn api_never_up_exits_5_and_names_the_gather_command() {
    let api = Api::new(false);
    // --bootstrap also makes wait-for read the host's records over SSH: nothing listens on
    // the SSH port here, so it cannot, says so, and the cause stays unknown (exit code 5).
    let port = crate::sshd::free_port().to_string();
    let mut args = vec!["--bootstrap", "127.0.0.1", "--master", "10.0.0.10"];
    args.extend(["--api-timeout", "0.02", "--ssh-port", &port]);
    let out = api.wait_for("bootstrap-complete", &args);
    assert_eq!(out.status.code(), Some(5), "{}", both(&out));
    let err = stderr(&out);
    assert!(
        err.contains("cannot read the bootstrap host's records"),
        "{err}"
    );
    assert!(err.contains("the API alone cannot tell why"), "{err}");
    let command = format!(
        "okd-install gather bootstrap --dir {} --bootstrap 127.0.0.1 --master 10.0.0.10",
        api.dir().display()
    );
    assert!(
        err.lines().any(|l| l == format!("next: {command}")),
        "{}",
        both(&out)
    );
    assert!(err.contains("last seen: connection refused"), "{err}");
    assert!(err.contains("likely cause: "), "{err}");
    assert!(err.contains("Kubernetes API not done after 1.2s"), "{err}");
}

/// Without `--bootstrap`, wait-for reads the cause from the API's Warning events. The
/// kubelet's event of a blob missing names only the image; the install-config kept in DIR
/// says the nodes pull that image from a mirror, so the mirror is the one named as lacking
/// the blob, with the digest, and nothing of credentials, trust or mirror rules is advised.
#[test]
fn a_kubelet_event_of_a_blob_missing_on_the_mirror_names_the_mirror_from_dir() {
    let api = Api::new(true);
    let example = std::fs::read_to_string(repo_root().join("examples/disconnected-mirror.yaml"))
        .expect("the disconnected example");
    std::fs::write(api.dir().join("install-config.yaml"), example).expect("install-config");
    api.apply(warning_event(
        "openshift-etcd",
        "Pod",
        "etcd-bootstrap",
        "Failed to pull image \"quay.io/okd/scos-content@sha256:0\": rpc error: code = \
         Unknown desc = reading blob sha256:4d41aa: Error fetching blob: invalid status code \
         from registry 404 (Not Found)",
    ));
    let out = api.wait_for("bootstrap-complete", FAST_BOOTSTRAP);
    assert_ne!(out.status.code(), Some(0), "{}", both(&out));
    let err = stderr(&out);
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("sha256:4d41aa"))
        .collect();
    assert!(!said.is_empty(), "the blob is named: {err}");
    assert!(
        said.iter()
            .any(|l| l.contains("`registry.example.com:5000/okd/scos-content`")),
        "the mirror and repository are named: {err}"
    );
    for lead in [
        "`quay.io` has",
        "pull secret",
        "additionalTrustBundle",
        "imageDigestSources",
    ] {
        assert!(!err.contains(lead), "{lead}: {err}");
    }
}

#[test]
fn install_complete_succeeds_and_names_the_console() {
    let api = Api::new(true);
    let router_ca = installed(&api);
    let out = api.wait_for("install-complete", &fast_install("0.2", "0.2"));
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert_timing_lines(
        &out,
        &[
            "cluster initialization",
            "router CA in kubeconfig",
            "cluster operators stable",
            "console route",
        ],
    );
    let err = stderr(&out);
    assert!(err.contains("the cluster is installed"), "{err}");
    assert!(
        err.contains("web console: https://console-openshift-console.apps.ops.example.com"),
        "{err}"
    );
    let kubeconfig = std::fs::canonicalize(&api.kubeconfig).unwrap();
    assert!(
        err.contains(&format!("export KUBECONFIG={}", kubeconfig.display())),
        "{err}"
    );
    let ca = kubeconfig_ca(&api.kubeconfig);
    assert!(
        ca.starts_with(router_ca.trim_end()),
        "the router CA is prepended to the kubeconfig's CA data:\n{ca}"
    );
}

#[test]
fn operators_not_stable_exit_7() {
    let api = Api::new(true);
    let _ = installed(&api);
    api.apply(cluster_operator(
        "kube-apiserver",
        vec![condition(
            "Progressing",
            "True",
            "NodeInstaller",
            "2 nodes are at revision 5",
        )],
    ));
    let out = api.wait_for("install-complete", &fast_install("0.2", "0.02"));
    assert_eq!(out.status.code(), Some(7), "{}", both(&out));
    let err = stderr(&out);
    assert!(
        err.contains("these cluster operators were not stable: [kube-apiserver]"),
        "{err}"
    );
    assert!(
        err.contains("describe clusteroperator kube-apiserver"),
        "{err}"
    );
}

#[test]
fn cluster_that_never_initializes_exits_6() {
    let api = Api::new(true);
    api.apply(cluster_version(vec![
        condition("Available", "False", "", ""),
        condition(
            "Failing",
            "True",
            "ClusterOperatorDegraded",
            "Cluster operator ingress is degraded",
        ),
        condition("Progressing", "True", "", "Unable to apply 4.20.0-okd"),
    ]));
    let out = api.wait_for("install-complete", &fast_install("0.015", "0.2"));
    assert_eq!(out.status.code(), Some(6), "{}", both(&out));
    let err = stderr(&out);
    assert!(
        err.contains("last seen: Failing: Cluster operator ingress is degraded"),
        "{err}"
    );
    assert!(!err.contains("the cluster is installed"), "{err}");
}

/// The log lines of a console (`LEVEL message`), without the lines that continue a message.
fn console_log_lines(console: &str) -> Vec<&str> {
    let levels = ["TRACE", "DEBUG", "INFO", "WARN", "ERROR"];
    console
        .lines()
        .filter_map(|l| {
            let (level, message) = l.trim_start().split_once(' ')?;
            levels.contains(&level).then_some(message)
        })
        .collect()
}

/// The target of the log-file record that ends with `message`: the file writes
/// `<time> <LEVEL> [<spans>:] <target>: <message>`, the console only `<LEVEL> <message>`.
fn target_in_log_file<'a>(log: &'a str, message: &str) -> Option<&'a str> {
    let suffix = format!(": {message}");
    log.lines().find_map(|l| {
        let head = l.strip_suffix(&suffix)?;
        head.rsplit(' ').next()
    })
}

/// A workspace crate's name as its log target starts (`okd_install`, `wait_for`, ...).
fn is_workspace_crate(target: &str) -> bool {
    let krate = target.split("::").next().unwrap_or_default();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    !krate.is_empty()
        && dir
            .join(krate.replace('_', "-"))
            .join("Cargo.toml")
            .is_file()
}

/// Every log line of `console` was written by a crate of this workspace, as the debug log in
/// `dir` (which records each line's target) shows; and that log holds the kube client's own
/// lines about the failed requests, so there was library noise to keep off the console.
fn assert_console_is_ours(console: &str, dir: &Path) {
    let log = std::fs::read_to_string(dir.join(".okd-install.log")).expect("the debug log");
    for message in console_log_lines(console) {
        let target = target_in_log_file(&log, message)
            .unwrap_or_else(|| panic!("{message:?} is not in the debug log:\n{log}"));
        assert!(
            is_workspace_crate(target),
            "console line from {target}: {message}\n{console}"
        );
    }
    assert!(
        log.lines()
            .any(|l| l.contains(" kube_client::") && l.contains("failed with error")),
        "no line of the kube client in the debug log:\n{log}"
    );
}

/// Panics on the first line that `text` holds twice.
fn assert_no_line_twice(text: &str) {
    let mut seen = std::collections::HashSet::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        assert!(seen.insert(line), "said twice: {line:?}\n{text}");
    }
}

#[test]
fn a_failed_wait_says_each_status_and_the_failure_once_and_nothing_of_the_libraries() {
    let api = Api::new(false);
    // Six seconds of retries, one request every two: the kube client logs every failure.
    let out = api.wait_for("bootstrap-complete", &["--api-timeout", "0.1"]);
    assert_eq!(out.status.code(), Some(5), "{}", both(&out));
    let err = stderr(&out);
    assert_console_is_ours(&err, api.dir());
    assert_no_line_twice(&err);
    let log = std::fs::read_to_string(api.dir().join(".okd-install.log")).unwrap();
    let retries = log
        .lines()
        .filter(|l| l.contains("failed with error"))
        .count();
    assert!(retries >= 2, "the request was not retried:\n{log}");
    let status: Vec<&str> = err
        .lines()
        .filter(|l| l.ends_with("Kubernetes API: connection refused"))
        .collect();
    assert_eq!(status.len(), 1, "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("ERROR")).collect();
    assert_eq!(
        errors,
        ["ERROR Kubernetes API not done after 6.0s"],
        "{err}"
    );
    assert!(
        err.lines().any(|l| l == "last seen: connection refused"),
        "{err}"
    );
}

#[test]
fn a_failed_wait_in_json_says_each_status_and_the_failure_once() {
    let api = Api::new(false);
    let args = ["--api-timeout", "0.05", "--output", "json"];
    let out = api.wait_for("bootstrap-complete", &args);
    assert_eq!(out.status.code(), Some(5), "{}", both(&out));
    let lines = json_lines(&out);
    let statuses: Vec<&str> = lines
        .iter()
        .filter(|l| l["event"] == "status")
        .filter_map(|l| l["message"].as_str())
        .collect();
    assert_eq!(statuses, ["connection refused"], "{}", both(&out));
    let kinds = events(&lines);
    assert_eq!(
        kinds.iter().filter(|k| *k == "failed").count(),
        1,
        "{kinds:?}"
    );
    // The failure is followed only by its diagnosis (no cause named here).
    assert_eq!(
        kinds
            .iter()
            .rev()
            .take(2)
            .map(String::as_str)
            .collect::<Vec<_>>(),
        ["diagnosis", "failed"],
        "{kinds:?}"
    );
    let err = stderr(&out);
    assert_console_is_ours(&err, api.dir());
    assert_eq!(
        err.lines().collect::<Vec<_>>(),
        ["ERROR Kubernetes API not done after 3.0s"],
        "standard error holds the failure once, its diagnosis is in the JSON event"
    );
}

/// The `event` field of every line.
fn events(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .map(|l| l["event"].as_str().unwrap_or("<none>").to_string())
        .collect()
}

#[test]
fn json_output_is_one_object_per_line() {
    let api = Api::new(true);
    api.apply(configmap("kube-system", "bootstrap", &[]));
    api.apply(etcd("True"));
    api.timeline(vec![(
        300,
        Action::Apply(configmap(
            "kube-system",
            "bootstrap",
            &[("status", "complete")],
        )),
    )]);
    let mut args = FAST_BOOTSTRAP.to_vec();
    args.extend(["--output", "json"]);
    let out = api.wait_for("bootstrap-complete", &args);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let lines = json_lines(&out);
    let kinds = events(&lines);
    assert_eq!(
        kinds.first().map(String::as_str),
        Some("phase_started"),
        "{kinds:?}"
    );
    assert_eq!(
        kinds.last().map(String::as_str),
        Some("summary"),
        "{kinds:?}"
    );
    assert_eq!(lines[0]["phase"], "api");
    assert_eq!(lines[0]["timeout_ms"], 12000);
    let done: Vec<&str> = lines
        .iter()
        .filter(|l| l["event"] == "phase_done")
        .filter_map(|l| l["phase"].as_str())
        .collect();
    assert_eq!(
        done,
        [
            "api",
            "bootstrap_config_map",
            "etcd_bootstrap_member_removed"
        ]
    );
    assert!(
        lines
            .iter()
            .any(|l| l["event"] == "status" && l["message"] == "configmap present, no status yet"),
        "{kinds:?}"
    );
}

#[test]
fn json_output_of_a_failure_ends_with_the_failed_event() {
    let api = Api::new(false);
    let port = crate::sshd::free_port().to_string();
    let args = [
        "--api-timeout",
        "0.01",
        "--output",
        "json",
        "--bootstrap",
        "127.0.0.1",
        "--ssh-port",
        &port,
        "--master",
        "10.0.0.10",
    ];
    let out = api.wait_for("bootstrap-complete", &args);
    assert_eq!(out.status.code(), Some(5), "{}", both(&out));
    let lines = json_lines(&out);
    // The very last event is the diagnosis: no cause named, the gather command to run.
    let diagnosis = lines.last().expect("at least one event");
    assert_eq!(diagnosis["event"], "diagnosis", "{}", both(&out));
    assert_eq!(diagnosis["cause"], Value::Null);
    assert_eq!(diagnosis["exit_code"], 5);
    let last = &lines[lines.len() - 2];
    assert_eq!(last["event"], "failed", "{}", both(&out));
    assert_eq!(last["exit_code"], 5);
    assert_eq!(last["phase"], "api");
    let next = last["diagnosis"]["next_command"]
        .as_str()
        .unwrap_or_default();
    assert!(
        next.ends_with("--bootstrap 127.0.0.1 --master 10.0.0.10"),
        "{next}"
    );
    assert!(
        !stderr(&out).contains("likely cause:"),
        "the text diagnosis is not printed in JSON mode: {}",
        both(&out)
    );
}

#[test]
fn sigint_during_a_wait_exits_8_and_says_how_to_resume() {
    let api = Api::new(true);
    api.apply(configmap(
        "kube-system",
        "bootstrap",
        &[("status", "progressing")],
    ));
    let child = std::process::Command::new(crate::support::bin_path())
        .arg("--dir")
        .arg(api.dir())
        .args([
            "--log-level",
            "debug",
            "wait-for",
            "bootstrap-complete",
            "--kubeconfig",
        ])
        .arg(&api.kubeconfig)
        .args(FAST_BOOTSTRAP)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start okd-install wait-for");
    // Interrupt only once the configmap's status has been seen (a debug line), so that the
    // diagnosis has something to report as last seen whatever the machine's speed.
    let (status, seen) = crate::common::interrupt_after(child, "progressing");
    assert_eq!(status.code(), Some(8), "{seen}");
    assert!(
        seen.contains("interrupted during bootstrap configmap"),
        "{seen}"
    );
    assert!(
        seen.contains("last seen: bootstrap status: progressing"),
        "{seen}"
    );
    let resume = format!(
        "next: okd-install wait-for bootstrap-complete --dir {}",
        api.dir().display()
    );
    assert!(seen.lines().any(|l| l == resume), "{seen}");
}

#[test]
fn a_missing_kubeconfig_fails_naming_it() {
    let api = Api::new(false);
    let missing = api.dir().join("nowhere/kubeconfig");
    let out = okd(api.dir())
        .args(["wait-for", "install-complete", "--kubeconfig"])
        .arg(&missing)
        .output()
        .expect("run okd-install wait-for");
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert!(
        stderr(&out).contains(&missing.display().to_string()),
        "{}",
        both(&out)
    );
}
