//! The cause in the catalogue wait-for names too (`contract::Cause`), from bundles holding
//! the real control plane's own error lines: each line below was written by the real tool
//! (the 4.19 payload's binaries and podman, run by hand on 2026-11-26, or our bootstrap
//! scripts' record messages), and each case checks the cause, the unit, the stage decoded
//! from the service records and the evidence line, and that no neighbouring cause is named.

use bundle_analysis::{Analysis, analyze_bundle};
use contract::Cause;
use contract::cause::Finding;

use crate::bundle::{Bundle, failed_in, record, succeeded};
use crate::evidence::Container;
use crate::scenario::{
    Ending, bootkube_run, control_plane_with, crash_looping, etcd, renders_before,
};

/// podman 4.9 pulling from a registry that refuses connections.
const PULL_REFUSED: &str = r#"Error: initializing source docker://registry.example.com:5000/okd/release@sha256:0a1b: pinging container registry registry.example.com:5000: Get "https://registry.example.com:5000/v2/": dial tcp 192.0.2.50:5000: connect: connection refused"#;
/// podman 4.9 pulling from a registry whose name does not resolve.
const PULL_NO_HOST: &str = r#"Error: initializing source docker://quay.io/okd/scos-content@sha256:4f8a: pinging container registry quay.io: Get "https://quay.io/v2/": dial tcp: lookup quay.io on 10.255.255.53:53: no such host"#;
/// The payload's etcd 3.5 (zap logger) with a data directory it cannot create.
const ETCD_DATA_DIR: &str = r#"{"level":"warn","ts":"2026-11-26T14:03:21.460Z","caller":"etcdmain/etcd.go:176","msg":"failed to start etcd","error":"cannot access data directory: mkdir /var/lib/etcd/member: read-only file system"}"#;
/// The payload's kubectl (Go crypto/x509) against a certificate valid from 2099.
const X509_NOT_YET: &str = "Unable to connect to the server: tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-11-26T14:08:31Z is before 2099-01-01T00:00:00Z";
/// The same against a certificate that ended in 2001.
const X509_EXPIRED: &str = "Unable to connect to the server: tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-11-26T14:08:33Z is after 2001-01-01T00:00:00Z";
/// The payload's machine-config-server (bootstrap) with port 22623 taken.
const MCS_PORT: &str = "F1126 14:08:07.400182       1 api.go:89] Machine Config Server exited with error: listen tcp :22623: bind: address already in use";
/// podman writing a layer onto a full /var.
const ENOSPC: &str = r#"Error: writing blob: storing blob to file "/var/tmp/container_images_storage2817/1": write /var/tmp/container_images_storage2817/1: no space left on device"#;
/// bootstrap-verify-api-server-urls.sh's record message for check-api-int-url.
const API_INT: &str = "api-int.okd.example.com does not resolve to any address";

const SERVED: &[&str] = &["192.0.2.11", "192.0.2.12", "192.0.2.13"];

fn analyse(bundle: Bundle) -> Analysis {
    let dir = tempfile::tempdir().unwrap();
    let path = bundle.write(dir.path(), "bundle.tar.gz");
    analyze_bundle(&path).unwrap()
}

/// The finding, checked to name `cause` at `unit` / `stage` with `evidence` as its line.
fn expect(a: &Analysis, cause: Cause, unit: &str, stage: Option<&str>, evidence: &str) -> Finding {
    let report = a.render();
    let f = a
        .finding
        .clone()
        .unwrap_or_else(|| panic!("no finding in\n{report}"));
    assert_eq!(f.cause, cause, "{report}");
    assert_eq!(f.unit.as_deref(), Some(unit), "{report}");
    assert_eq!(f.stage.as_deref(), stage, "{report}");
    assert_eq!(f.evidence, evidence, "{report}");
    // A pull's remedy is the registry fault's own, when the line reads as one.
    let want_remedy = contract::registry_error::read_pull(evidence)
        .filter(|e| e.image.is_some())
        .map_or_else(|| cause.remedy().to_string(), |e| e.remedy());
    assert_eq!(f.remedy, want_remedy, "{report}");
    // The report opens with the few lines of the finding.
    let head: Vec<&str> = report.lines().take(f.lines().len()).collect();
    assert_eq!(head, f.lines(), "{report}");
    f
}

fn booted(id: &str) -> Bundle {
    Bundle::new(id)
        .service("node-image-pull", succeeded())
        .service("node-image-overlay", succeeded())
}

#[test]
fn a_release_image_pull_names_the_unit_stage_and_podman_line() {
    let bundle = booted("release").service(
        "release-image",
        failed_in("pull-release-image", PULL_REFUSED),
    );
    let a = analyse(bundle);
    expect(
        &a,
        Cause::ReleaseImagePull,
        "release-image.service",
        Some("pull-release-image"),
        PULL_REFUSED,
    );
}

#[test]
fn the_same_pull_error_in_the_node_image_unit_is_the_node_image() {
    let bundle = Bundle::new("node").service(
        "node-image-pull",
        failed_in("pull-node-image", PULL_NO_HOST),
    );
    let a = analyse(bundle);
    expect(
        &a,
        Cause::NodeImagePull,
        "node-image-pull.service",
        Some("pull-node-image"),
        PULL_NO_HOST,
    );
}

/// A bootstrap host whose etcd crash-loops with `log`, bootkube failed in wait-for-etcd.
fn etcd_host(id: &str, log: &str) -> Bundle {
    let mut containers = control_plane_with(SERVED, crash_looping(&etcd(), 1, 4, 1, log));
    containers.extend(renders_before(None));
    let mut bundle = booted(id).service("release-image", succeeded()).service(
        "bootkube",
        bootkube_run(
            "wait-for-etcd",
            Ending::Failed("etcd did not become healthy"),
        ),
    );
    for c in &containers {
        let dir = match c.runtime {
            crate::evidence::Runtime::Crio => "bootstrap/containers",
            crate::evidence::Runtime::Podman => "bootstrap/pods",
        };
        bundle = bundle.container(dir, c);
    }
    bundle
}

/// The etcd-start fault after its removal, as the retired payload harness gathered it: etcd's log still
/// holds the bind error of its first runs, bootkube's journal a retry and its records a
/// first run that failed at wait-for-etcd, but every service succeeded in the end. A
/// recovered bootstrap names no cause.
/// bootkube's records: a first run failed at wait-for-etcd with `line`, the second ran on.
fn recovered_bootkube(line: &str) -> Vec<serde_json::Value> {
    let mut records = vec![
        record("service start", "", "", ""),
        record("stage start", "wait-for-etcd", "", ""),
        record("stage end", "wait-for-etcd", "failure", line),
        record("service end", "", "failure", line),
    ];
    records.extend(succeeded());
    records
}

#[test]
fn a_recovered_bootstrap_names_no_cause() {
    let bind = r#"{"level":"fatal","ts":"2026-11-27T03:11:19.040Z","caller":"etcdmain/etcd.go:271","msg":"discovery failed","error":"listen tcp 0.0.0.0:2379: bind: address already in use"}"#;
    assert_eq!(Cause::recognise(bind, None), Some(Cause::EtcdStart));
    let log =
        format!("{bind}\n{{\"level\":\"info\",\"msg\":\"serving client traffic securely\"}}\n");
    let mut bundle = booted("recovered")
        .service("release-image", succeeded())
        .service("bootkube", recovered_bootkube(bind))
        .file(
            "bootstrap/journals/bootkube.log",
            format!("Waiting for etcd: {bind}\n"),
        );
    for c in control_plane_with(SERVED, vec![etcd().log(&log)]) {
        bundle = bundle.container("bootstrap/containers", &c);
    }
    let a = analyse(bundle);
    assert_eq!(a.finding, None, "{}", a.render());
    assert!(a.render().starts_with("No problem found"), "{}", a.render());
}

#[test]
fn etcd_that_cannot_start_is_etcd_start_not_an_image_pull() {
    let log = format!("{{\"level\":\"info\",\"msg\":\"starting etcd\"}}\n{ETCD_DATA_DIR}\n");
    let a = analyse(etcd_host("etcd", &log));
    expect(
        &a,
        Cause::EtcdStart,
        "bootkube.service",
        Some("wait-for-etcd"),
        ETCD_DATA_DIR,
    );
}

/// The real etcd-start fault (port 2379 taken), from /work/fault-evidence/etcd-start: the
/// etcd container's log ends with these two lines (the fatal one with a Go stack trace).
const ETCD_BIND_WARN: &str = r#"{"level":"warn","ts":"2026-11-26T15:06:36.885Z","caller":"etcdmain/etcd.go:176","msg":"failed to start etcd","error":"listen tcp 0.0.0.0:2379: bind: address already in use"}"#;
const ETCD_BIND_FATAL: &str = r#"{"level":"fatal","ts":"2026-11-26T15:06:36.885Z","caller":"etcdmain/etcd.go:271","msg":"discovery failed","error":"listen tcp 0.0.0.0:2379: bind: address already in use","stacktrace":"go.etcd.io/etcd/etcdmain.startEtcdOrProxyV2\n\tgo.etcd.io/etcd/etcdmain/etcd.go:271"}"#;

/// [`ETCD_BIND_FATAL`] as the evidence quotes it: without the Go stack trace.
const ETCD_BIND_FATAL_TIDY: &str = r#"{"level":"fatal","ts":"2026-11-26T15:06:36.885Z","caller":"etcdmain/etcd.go:271","msg":"discovery failed","error":"listen tcp 0.0.0.0:2379: bind: address already in use"}"#;

#[test]
fn the_real_etcd_start_fault_is_named_without_the_stack_trace() {
    let log = format!("{ETCD_BIND_WARN}\n{ETCD_BIND_FATAL}\n");
    let a = analyse(etcd_host("etcd-bind", &log));
    let fatal = ETCD_BIND_FATAL_TIDY;
    expect(
        &a,
        Cause::EtcdStart,
        "bootkube.service",
        Some("wait-for-etcd"),
        fatal,
    );
}

/// As the real etcd-start fault's bundle held it (a fault run of the retired payload harness, November 2026): etcd's log
/// beside an inspection that does not parse (there, `sudo` had written a warning before the
/// JSON), so no component carries the log, and bootkube's own lines say only that etcd is not
/// healthy yet. The container's log still names the cause, with etcd's own line.
#[test]
fn an_etcd_log_names_the_cause_when_no_component_carries_it() {
    let log = format!("{ETCD_BIND_WARN}\n{ETCD_BIND_FATAL}\n");
    let bundle = booted("etcd-log-only")
        .service("release-image", succeeded())
        .service(
            "bootkube",
            bootkube_run(
                "wait-for-etcd",
                Ending::Failed(
                    "The bootstrap etcd member is not healthy yet; checking again in 5s",
                ),
            ),
        )
        .file("bootstrap/containers/etcd-c947500f3bbc.log", &log)
        .file(
            "bootstrap/containers/etcd-c947500f3bbc.inspect",
            "sudo: unable to resolve host vm: Temporary failure in name resolution\n[\n",
        );
    let a = analyse(bundle);
    let fatal = ETCD_BIND_FATAL_TIDY;
    expect(
        &a,
        Cause::EtcdStart,
        "bootkube.service",
        Some("wait-for-etcd"),
        fatal,
    );
}

#[test]
fn an_etcd_that_rejects_a_certificate_not_valid_yet_is_the_clock() {
    let line = format!(
        "{{\"level\":\"warn\",\"msg\":\"rejected connection\",\"error\":\"{X509_NOT_YET}\"}}"
    );
    let a = analyse(etcd_host("clock-behind", &format!("{line}\n")));
    let f = expect(
        &a,
        Cause::CertificatesNotYetValid,
        "bootkube.service",
        Some("wait-for-etcd"),
        &line,
    );
    assert!(f.lines()[0].starts_with("cause (certificates-not-yet-valid): "));
}

#[test]
fn an_expired_certificate_is_told_from_one_not_valid_yet() {
    let a = analyse(etcd_host("clock-ahead", &format!("{X509_EXPIRED}\n")));
    expect(
        &a,
        Cause::CertificatesExpired,
        "bootkube.service",
        Some("wait-for-etcd"),
        X509_EXPIRED,
    );
}

#[test]
fn a_full_disk_outranks_the_pull_it_broke() {
    let bundle = booted("disk").service("release-image", failed_in("pull-release-image", ENOSPC));
    let a = analyse(bundle);
    expect(
        &a,
        Cause::DiskFull,
        "release-image.service",
        Some("pull-release-image"),
        ENOSPC,
    );
}

/// The disk-full fault on the real bootstrap: bootkube.sh's render stage api-bootstrap fails
/// writing its manifests, and the systemd stand-in has just started bootkube again when the
/// logs are gathered. The restarted run is in no stage yet; the stage named is the one the
/// failed run stopped in.
#[test]
fn a_render_stage_that_fills_the_disk_is_named_after_bootkube_restarted() {
    const LINE: &str = "error: failed to substitute and copy files: failed writing assets to \"/assets/api-bootstrap/manifests\": write /assets/api-bootstrap/manifests/0000_10_config-operator_01_nodes-Default.crd.yaml: no space left on device";
    let mut records = failed_in("api-bootstrap", LINE);
    records.push(record("service start", "", "", ""));
    let bundle = booted("disk-render")
        .service("release-image", succeeded())
        .service("bootkube", records);
    let a = analyse(bundle);
    expect(
        &a,
        Cause::DiskFull,
        "bootkube.service",
        Some("api-bootstrap"),
        LINE,
    );
    let report = a.render();
    assert!(!report.contains("unknown stage"), "{report}");
}

/// A bootstrap stalled in cb-bootstrap (no master came) whose machine-config-server ran
/// `runs` times from attempt `first` and could not bind :22623, with `journal` as the end of
/// bootkube's journal.
fn mcs_without_its_port(first: u32, runs: u32, journal: &str) -> Bundle {
    let mcs = Container::crio(
        "openshift-machine-config-operator",
        &crate::scenario::bootstrap_pod("bootstrap-machine-config-operator"),
        "machine-config-server",
    );
    let log = format!(
        "I1126 14:08:07.399116       1 api.go:68] Launching server on :22623\n{MCS_PORT}\n"
    );
    let mut containers = control_plane_with(SERVED, crash_looping(&mcs, first, runs, 255, &log));
    containers.extend(renders_before(None));
    let mut bundle = booted("mcs")
        .service("release-image", succeeded())
        .service("bootkube", bootkube_run("cb-bootstrap", Ending::Running))
        .file("bootstrap/journals/bootkube.log", journal);
    for c in &containers {
        let dir = match c.runtime {
            crate::evidence::Runtime::Crio => "bootstrap/containers",
            crate::evidence::Runtime::Podman => "bootstrap/pods",
        };
        bundle = bundle.container(dir, c);
    }
    bundle
}

/// A crash loop, and the mcs-port fault as the real bootstrap showed it: a minute in, the
/// server had exited once (no crash loop yet) and cluster-bootstrap was still retrying
/// manifests whose namespaces and CRDs the cluster-version operator had not brought yet.
/// Those retries are no refused user manifest; the server's own line is the cause.
#[test]
fn a_machine_config_server_without_its_port_is_named() {
    let waiting = "Failed to create \"0000_00_cluster-version-operator_01_admingate_configmap.yaml\" configmaps.v1./admin-gates -n openshift-config-managed: namespaces \"openshift-config-managed\" not found\n\
                   Failed to create \"99_openshift-machineconfig_99-master-ssh.yaml\" machineconfigs.v1.machineconfiguration.openshift.io/99-master-ssh -n : the server could not find the requested resource\n";
    for (first, runs, journal) in [(1, 4, ""), (0, 1, waiting)] {
        let a = analyse(mcs_without_its_port(first, runs, journal));
        expect(
            &a,
            Cause::MachineConfigServerPort,
            "bootkube.service",
            Some("cb-bootstrap"),
            MCS_PORT,
        );
    }
}

#[test]
fn a_failed_render_stage_is_named_with_its_stage() {
    let line = "F1126 14:10:00.000000       1 render.go:88] error: failed to render config: infrastructure.config.openshift.io \"cluster\" is invalid: spec.platformSpec.type: Unsupported value: \"Nonesuch\"";
    let mut containers = renders_before(Some("config-bootstrap"));
    containers.push(
        Container::podman("config-render")
            .exited(1)
            .log(&format!("{line}\n")),
    );
    let mut bundle = booted("render")
        .service("release-image", succeeded())
        .service(
            "bootkube",
            bootkube_run(
                "config-bootstrap",
                Ending::Failed("config-render exited with status 1"),
            ),
        );
    for c in &containers {
        bundle = bundle.container("bootstrap/pods", c);
    }
    let a = analyse(bundle);
    expect(
        &a,
        Cause::RenderStage,
        "bootkube.service",
        Some("config-bootstrap"),
        line,
    );
}

#[test]
fn api_int_not_resolving_is_named_even_when_bootkube_finished() {
    let bootkube = vec![
        record("service start", "", "", ""),
        record("stage start", "check-api-int-url", "", ""),
        record("stage end", "check-api-int-url", "failure", API_INT),
        record("service end", "", "success", ""),
    ];
    let bundle = booted("api-int")
        .service("release-image", succeeded())
        .service("bootkube", bootkube);
    let a = analyse(bundle);
    expect(
        &a,
        Cause::ApiIntDns,
        "bootkube.service",
        Some("check-api-int-url"),
        API_INT,
    );
}

/// The cluster-version operator's sync error for a release manifest whose CRD the
/// monitoring operator brings later: every bootstrap logs it (from the api-int-dns fault run).
const CVO_AWAITS_CRD: &str = r#"I1127 06:00:13.810222       1 sync_worker.go:1213] Update error 316 of 325: UpdatePayloadResourceTypeMissing Could not update servicemonitor "openshift-machine-config-operator/machine-config-operator" (316 of 325): the server does not recognize this resource, check extension API servers (*errors.withStack: failed to get resource type: no matches for kind "ServiceMonitor" in version "monitoring.coreos.com/v1")"#;

/// bootkube.sh checks api-int before cb-bootstrap waits for the masters, which need that
/// name to fetch their config, and goes on when it does not resolve: the bootstrap stalls
/// there with that record as its only error line, while the cluster-version operator's
/// ordinary sync errors are no user manifest.
#[test]
fn api_int_not_resolving_while_the_masters_are_awaited_is_named() {
    // The check's result and message, recorded just before cb-bootstrap started.
    let stalled = |result: &str, message: &str| {
        let mut bootkube = bootkube_run("cb-bootstrap", Ending::Running);
        let waiting = bootkube.pop().unwrap();
        bootkube.push(record("stage start", "check-api-int-url", "", ""));
        bootkube.push(record("stage end", "check-api-int-url", result, message));
        bootkube.push(waiting);
        let cvo = Container::crio(
            "openshift-cluster-version",
            &crate::scenario::bootstrap_pod("bootstrap-cluster-version-operator"),
            "cluster-version-operator",
        )
        .log(&format!("{CVO_AWAITS_CRD}\n"));
        let mut bundle = booted("api-int-waiting")
            .service("release-image", succeeded())
            .service("bootkube", bootkube);
        for c in &control_plane_with(&[], vec![cvo]) {
            bundle = bundle.container("bootstrap/containers", c);
        }
        analyse(bundle)
    };
    let a = stalled("failure", API_INT);
    expect(
        &a,
        Cause::ApiIntDns,
        "bootkube.service",
        Some("check-api-int-url"),
        API_INT,
    );
    assert!(
        a.render().contains("still running (stage cb-bootstrap)"),
        "bootkube went past the check: {}",
        a.render()
    );
    let a = stalled("success", "");
    assert_eq!(a.finding, None, "{}", a.render());
}

#[test]
fn a_healthy_bundle_names_no_cause() {
    let bundle = booted("ok")
        .service("release-image", succeeded())
        .service("bootkube", succeeded());
    assert_eq!(analyse(bundle).finding, None);
}

#[test]
fn a_render_stage_that_cannot_pull_its_image_is_the_render_stage() {
    // What podman says when the release names an operator image no store has (the retired
    // payload harness's render-fails fault), as the stage's record message carries it.
    let pull = r#"Error: initializing source docker://localhost/okd-harness-faults/absent-scheduler-operator:4.19: pinging container registry localhost: Get "https://localhost/v2/": dial tcp [::1]:443: connect: connection refused"#;
    let bundle = booted("render-pull")
        .service("release-image", succeeded())
        .service(
            "bootkube",
            bootkube_run("kube-scheduler-bootstrap", Ending::Failed(pull)),
        );
    let a = analyse(bundle);
    let f = expect(
        &a,
        Cause::RenderStage,
        "bootkube.service",
        Some("kube-scheduler-bootstrap"),
        pull,
    );
    assert!(
        f.summary.starts_with(Cause::RenderStage.summary())
            && f.summary.contains(
                "the image of render stage kube-scheduler-bootstrap \
                 `localhost/okd-harness-faults/absent-scheduler-operator:4.19`"
            )
            && f.summary.contains("`localhost` refused the connection"),
        "{}",
        f.summary
    );
    // The Problem line says the same pull, and its Next the same fix.
    let report = a.render();
    let problem = format!(
        "Problem: bootkube.service failed at stage kube-scheduler-bootstrap (started 1 \
         time(s)): {}.",
        f.summary
    );
    assert!(
        report.lines().any(|l| l == problem),
        "{problem}\nnot in\n{report}"
    );
    let next = format!("  Next: {}.", f.remedy);
    assert!(
        report.lines().any(|l| l == next),
        "{next}\nnot in\n{report}"
    );
}

/// The registry `mirror.example.com:5000` and the release image pulled through it.
const MIRROR: &str = "mirror.example.com:5000";
const RELEASE_VIA_MIRROR: &str = "mirror.example.com:5000/okd/release@sha256:4f8a0d1e";

/// Each registry fault as podman 4.9 (containers/image) words it pulling the release image
/// from the mirror, with words the finding's summary must hold for it.
fn registry_faults() -> Vec<(String, &'static str)> {
    let ping = |tail: &str| {
        format!(
            "Error: initializing source docker://{RELEASE_VIA_MIRROR}: pinging container \
             registry {MIRROR}: Get \"https://{MIRROR}/v2/\": {tail}"
        )
    };
    let manifest = |tail: &str| {
        format!(
            "Error: initializing source docker://{RELEASE_VIA_MIRROR}: reading manifest \
             sha256:4f8a0d1e in {MIRROR}/okd/release: {tail}"
        )
    };
    vec![
        (
            ping("dial tcp 192.168.111.1:5000: connect: connection refused"),
            "refused the connection",
        ),
        (
            ping("dial tcp: lookup mirror.example.com on 10.0.0.1:53: no such host"),
            "does not resolve",
        ),
        (
            ping(
                "dial tcp: lookup mirror.example.com on 10.0.0.1:53: read udp \
                 10.0.0.9:40000->10.0.0.1:53: read: connection refused",
            ),
            "could not be looked up",
        ),
        (
            ping("dial tcp 192.168.111.1:5000: i/o timeout"),
            "did not answer in time",
        ),
        (
            ping(
                "tls: failed to verify certificate: x509: certificate signed by unknown authority",
            ),
            "a CA the host does not trust",
        ),
        (
            ping(
                "tls: failed to verify certificate: x509: certificate is valid for \
                 registry.example.com, not mirror.example.com",
            ),
            "certificate is for other names",
        ),
        (
            manifest("unauthorized: authentication required"),
            "wants credentials",
        ),
        (
            manifest("denied: requested access to the resource is denied"),
            "denied access",
        ),
        (
            manifest("manifest unknown"),
            "repository or the manifest is unknown",
        ),
        (
            format!(
                "Error: initializing source docker://{RELEASE_VIA_MIRROR}: registry {MIRROR} is \
                 blocked in /etc/containers/registries.conf or /etc/containers/registries.conf.d"
            ),
            "blocked in registries.conf",
        ),
    ]
}

/// The fault seen on the real host: node-image-pull, in the stage that looks the node image
/// up in the release, could not pull the release image through its mirror. Each registry
/// fault names the release image (never the node image), the mirror and its own reason, and
/// no other fault's reason; no two faults read the same.
#[test]
fn each_registry_fault_names_the_release_image_the_mirror_and_why() {
    let faults = registry_faults();
    let mut summaries = std::collections::BTreeSet::new();
    for (i, (line, reason)) in faults.iter().enumerate() {
        let bundle = Bundle::new(&format!("pull-{i}")).service(
            "node-image-pull",
            failed_in(contract::NODE_IMAGE_LOOKUP_STAGE, line),
        );
        let a = analyse(bundle);
        let f = expect(
            &a,
            Cause::ReleaseImagePull,
            "node-image-pull.service",
            Some(contract::NODE_IMAGE_LOOKUP_STAGE),
            line,
        );
        assert!(
            f.summary.starts_with(&format!(
                "the bootstrap host could not pull the release image `{RELEASE_VIA_MIRROR}`"
            )),
            "{}",
            f.summary
        );
        assert!(f.summary.contains(&format!("`{MIRROR}`")), "{}", f.summary);
        assert!(f.summary.contains(reason), "{}", f.summary);
        assert!(!f.summary.contains("node (OS) image"), "{}", f.summary);
        assert!(f.remedy.contains(MIRROR), "{}", f.remedy);
        for (_, other) in faults.iter().filter(|(_, r)| r != reason) {
            assert!(!f.summary.contains(other), "{other} in {}", f.summary);
        }
        assert!(summaries.insert(f.summary.clone()), "{} twice", f.summary);
    }
}

/// The release image named by its source registry, pulled through a mirror that refuses
/// connections: the mirror is named as the mirror, in release-image.service.
#[test]
fn a_mirror_that_refuses_is_named_as_the_mirror_of_the_release_image() {
    let line = format!(
        "Error: initializing source docker://quay.io/okd/scos-release@sha256:4f8a: pinging \
         container registry {MIRROR}: Get \"https://{MIRROR}/v2/\": dial tcp \
         192.168.111.1:5000: connect: connection refused"
    );
    let bundle =
        booted("mirror-refused").service("release-image", failed_in("pull-release-image", &line));
    let f = expect(
        &analyse(bundle),
        Cause::ReleaseImagePull,
        "release-image.service",
        Some("pull-release-image"),
        &line,
    );
    assert_eq!(
        f.summary,
        format!(
            "the bootstrap host could not pull the release image \
             `quay.io/okd/scos-release@sha256:4f8a` through the mirror `{MIRROR}` because \
             `{MIRROR}` refused the connection: nothing listens on its port (dialled \
             192.168.111.1:5000)"
        )
    );
    assert!(
        f.remedy
            .starts_with(&format!("start the registry `{MIRROR}`")),
        "{}",
        f.remedy
    );
}

#[test]
fn the_api_name_not_resolving_on_the_host_is_api_dns() {
    let line = "api.okd.example.com does not resolve to any address";
    let bootkube = vec![
        record("service start", "", "", ""),
        record("stage start", "check-api-url", "", ""),
        record("stage end", "check-api-url", "failure", line),
        record("service end", "", "success", ""),
    ];
    let bundle = booted("api")
        .service("release-image", succeeded())
        .service("bootkube", bootkube);
    let a = analyse(bundle);
    expect(
        &a,
        Cause::ApiDns,
        "bootkube.service",
        Some("check-api-url"),
        line,
    );
}

/// cluster-bootstrap's create loop (`Failed to create %q %s: %v`, `Created %q %s`) in the
/// bootkube journal.
fn journal_host(id: &str, journal: &str) -> Bundle {
    booted(id)
        .service("release-image", succeeded())
        .service("bootkube", bootkube_run("cb-bootstrap", Ending::Running))
        .file("bootstrap/journals/bootkube.log", journal)
}

#[test]
fn a_manifest_the_api_keeps_refusing_is_the_users() {
    let refused = r#"Failed to create "99-user-widget.yaml" widgets.v1.widgets.example.com/my-widget -n default: no matches for kind "Widget" in version "widgets.example.com/v1""#;
    let journal = format!(
        "Created \"0000_00_cluster-version-operator_00_namespace.yaml\" namespaces.v1./openshift-cluster-version -n \n{refused}\n"
    );
    let a = analyse(journal_host("manifest", &journal));
    let report = a.render();
    let f = a.finding.clone().unwrap_or_else(|| panic!("{report}"));
    assert_eq!(f.cause, Cause::UserManifest, "{report}");
    assert_eq!(f.unit.as_deref(), Some("bootkube.service"));
    assert_eq!(f.stage.as_deref(), Some("cb-bootstrap"));
    assert_eq!(f.evidence, refused);
    // Named with the file, the object and the reason, and the fix for that very kind (see
    // manifests.rs for the retries and the other reasons).
    for named in [
        "99-user-widget.yaml",
        "my-widget",
        "namespace default",
        "Widget in widgets.example.com/v1",
    ] {
        assert!(f.summary.contains(named), "{named}: {}", f.summary);
    }
    assert!(
        f.remedy.starts_with(
            "add the CustomResourceDefinition that defines Widget in widgets.example.com"
        ),
        "{}",
        f.remedy
    );
    let head: Vec<&str> = report.lines().take(f.lines().len()).collect();
    assert_eq!(head, f.lines(), "{report}");
}

/// Still waiting when the logs were gathered: cluster-bootstrap retries these until the
/// cluster-version operator brings the namespace and serves the CRD; no user manifest is
/// named for them.
#[test]
fn a_manifest_waiting_for_its_namespace_is_no_cause() {
    let journal = "Failed to create \"configmap-admin-kubeconfig-client-ca.yaml\" configmaps.v1./admin-kubeconfig-client-ca -n openshift-config: namespaces \"openshift-config\" not found\n\
                   \"99_openshift-machineconfig_99-worker-ssh.yaml\": failed to create machineconfigs.v1.machineconfiguration.openshift.io/99-worker-ssh -n : the server could not find the requested resource\n";
    let a = analyse(journal_host("waiting", journal));
    assert_eq!(a.finding, None, "{}", a.render());
}

#[test]
fn a_manifest_refused_until_its_crd_came_is_no_cause() {
    let journal = "Failed to create \"99_openshift-machineconfig_99-master-ssh.yaml\" machineconfigs.v1.machineconfiguration.openshift.io/99-master-ssh -n : no matches for kind \"MachineConfig\" in version \"machineconfiguration.openshift.io/v1\"\n\
                   Created \"99_openshift-machineconfig_99-master-ssh.yaml\" machineconfigs.v1.machineconfiguration.openshift.io/99-master-ssh -n \n";
    let a = analyse(journal_host("transient", journal));
    assert_eq!(a.finding, None, "{}", a.render());
}

/// A mirror's certificate outside its validity on the host's clock keeps its certificate
/// cause (a clock is the usual reason), worded as the mirror's certificate for the release
/// image, each direction its own.
#[test]
fn a_mirror_certificate_out_of_its_time_names_the_image_and_the_mirror() {
    for (when, cause, reason) in [
        (
            "after 2026-11-27T14:00:00Z",
            Cause::CertificatesExpired,
            "certificate has expired on the host's clock",
        ),
        (
            "before 2026-11-29T14:00:00Z",
            Cause::CertificatesNotYetValid,
            "certificate is not valid yet on the host's clock",
        ),
    ] {
        let line = format!(
            "Error: initializing source docker://{RELEASE_VIA_MIRROR}: pinging container \
             registry {MIRROR}: Get \"https://{MIRROR}/v2/\": tls: failed to verify \
             certificate: x509: certificate has expired or is not yet valid: current time \
             2026-11-28T10:00:00Z is {when}"
        );
        let bundle = booted(&format!("cert-{}", cause.id()))
            .service("release-image", failed_in("pull-release-image", &line));
        let f = expect(
            &analyse(bundle),
            cause,
            "release-image.service",
            Some("pull-release-image"),
            &line,
        );
        assert!(
            f.summary
                .contains(&format!("the release image `{RELEASE_VIA_MIRROR}`"))
                && f.summary.contains(&format!("`{MIRROR}`'s {reason}")),
            "{}",
            f.summary
        );
    }
}

/// The real host's fault (#40, #44) as its bundle holds it: the mirror does not run,
/// node-image-pull is still in the stage that looks the node image up in the release and
/// asks again and again, nothing has failed. The finding names the release image through
/// its mirror and the mirror refusing connections, never the node image.
#[test]
fn a_node_image_lookup_waiting_on_a_refusing_mirror_names_the_release_image() {
    let pull = format!(
        "Error: initializing source docker://{RELEASE_VIA_MIRROR}: pinging container registry \
         {MIRROR}: Get \"https://{MIRROR}/v2/\": dial tcp 192.168.111.1:5000: connect: \
         connection refused"
    );
    let retry = "The release's node image of OS image stream rhel-coreos is not known yet; \
                 asking again in 10s";
    let journal = format!("{pull}\n{retry}\n{pull}\n{retry}\n");
    let records = vec![
        record("service start", "", "", ""),
        record("stage start", contract::NODE_IMAGE_LOOKUP_STAGE, "", ""),
    ];
    let bundle = Bundle::new("lookup-refused")
        .service("node-image-pull", records)
        .file("bootstrap/journals/node-image-pull.log", journal);
    let a = analyse(bundle);
    let f = expect(
        &a,
        Cause::ReleaseImagePull,
        "node-image-pull.service",
        Some(contract::NODE_IMAGE_LOOKUP_STAGE),
        &pull,
    );
    assert!(
        f.summary.starts_with(&format!(
            "the bootstrap host could not pull the release image `{RELEASE_VIA_MIRROR}`, in \
             which it looks up the node image, because `{MIRROR}` refused the connection"
        )),
        "{}",
        f.summary
    );
    assert!(
        f.remedy
            .starts_with(&format!("start the registry `{MIRROR}`"))
    );
}

/// The real host's release image and the component image its node image lookup runs.
const HOST_RELEASE: &str = "quay.io/okd/scos-release@sha256:0f5a0ecfc822";
const HOST_COMPONENT: &str = "quay.io/okd/scos-content@sha256:ead662e1ea91";
const HOST_MIRROR: &str = "registry.example.com:5000";
const QUAY_NXDOMAIN: &str = "pinging container registry quay.io: Get \"https://quay.io/v2/\": \
     dial tcp: lookup quay.io on 198.18.0.1:53: no such host";

/// podman's line (as the real host's journal holds it) for `image` pulled through its one
/// mirror, which failed with `mirror`, then from quay.io, which does not resolve.
fn via_mirror(image: &str, mirror: &str) -> String {
    let path = image.split_once('/').map_or(image, |(_, p)| p);
    format!(
        "Error: initializing source docker://{image}: (Mirrors also failed: \
         [{HOST_MIRROR}/{path}: {mirror}]): {image}: {QUAY_NXDOMAIN}"
    )
}

/// node-image-pull in its lookup stage, retrying, its journal saying which release image it
/// looks the node image up in, then `line`.
fn lookup_host(id: &str, line: &str) -> Bundle {
    let journal = format!(
        "Nov 28 11:57:39 okdrh node-image-pull.sh[1139]: {}{HOST_RELEASE}\n\
         Nov 28 11:57:50 okdrh node-image-pull.sh[1197]: {line}\n\
         Nov 28 11:57:50 okdrh node-image-pull.sh[1139]: The release's node image of OS image \
         stream centos-10 is not known yet; asking again in 10s\n",
        contract::NODE_IMAGE_LOOKUP_SAYS
    );
    Bundle::new(id)
        .service(
            "node-image-pull",
            vec![
                record("service start", "", "", ""),
                record("stage start", contract::NODE_IMAGE_LOOKUP_STAGE, "", ""),
            ],
        )
        .file("bootstrap/journals/node-image-pull.log", journal)
}

/// Each registry fault of the real host (#44), in the stage that looks the node image up:
/// the release image when the line names it, else the component image the lookup runs; the
/// mirror and why it failed, and the source too; the same words in the cause, the Problem
/// line and the component's cause, and the same fix in every "what to do" and "Next"; no
/// two faults read the same anywhere.
#[test]
fn the_real_hosts_faults_name_the_image_the_mirror_and_why_in_every_line() {
    let ping = |tail: &str| {
        format!(
            "pinging container registry {HOST_MIRROR}: Get \"https://{HOST_MIRROR}/v2/\": {tail}"
        )
    };
    let unauthorized = "reading manifest sha256:ead662e1ea91 in \
         registry.example.com:5000/okd/scos-content: unauthorized: authentication required";
    let cases = [
        (
            HOST_RELEASE,
            ping(
                "dial tcp: lookup registry.example.com on 198.18.0.1:53: read udp \
                  198.18.0.10:47544->198.18.0.1:53: read: connection refused",
            ),
            "the release image",
            "name could not be looked up: the host's resolver (198.18.0.1:53) refused the query",
        ),
        (
            HOST_COMPONENT,
            ping("dial tcp 198.18.0.1:5000: connect: connection refused"),
            "the release's component image",
            "refused the connection: nothing listens on its port (dialled 198.18.0.1:5000)",
        ),
        (
            HOST_COMPONENT,
            ping("x509: certificate signed by unknown authority"),
            "the release's component image",
            "certificate is signed by a CA the host does not trust",
        ),
        (
            HOST_COMPONENT,
            ping("dial tcp: lookup registry.example.com on 198.18.0.1:53: no such host"),
            "the release's component image",
            "does not resolve on the host (asked the resolver 198.18.0.1:53)",
        ),
        (
            HOST_RELEASE,
            "reading manifest sha256:0f5a0ecfc822 in registry.example.com:5000/okd/scos-release: \
             manifest unknown: manifest unknown"
                .to_string(),
            "the release image",
            "does not hold `registry.example.com:5000/okd/scos-release@sha256:0f5a0ecfc822`",
        ),
        (
            HOST_COMPONENT,
            unauthorized.to_string(),
            "the release's component image",
            "wants credentials",
        ),
    ];
    let mut seen = std::collections::BTreeSet::new();
    for (i, (image, mirror, noun, why)) in cases.iter().enumerate() {
        let line = via_mirror(image, mirror);
        let a = analyse(lookup_host(&format!("host-{i}"), &line));
        let report = a.render();
        let f = a.finding.clone().unwrap_or_else(|| panic!("{report}"));
        assert_eq!(f.cause, Cause::ReleaseImagePull, "{report}");
        assert!(f.evidence.ends_with(&line), "{report}");
        let pull = format!("the bootstrap host could not pull {noun} `{image}`");
        assert!(f.summary.starts_with(&pull), "{report}");
        assert!(
            f.summary.contains(&format!("its mirror `{HOST_MIRROR}`")) && f.summary.contains(why),
            "{report}"
        );
        assert!(
            f.summary
                .contains("its own registry `quay.io` does not resolve"),
            "{report}"
        );
        assert!(f.remedy.contains(&format!("`{HOST_MIRROR}`")), "{report}");
        let problem = format!(
            "Problem: node-image-pull.service had not finished (in stage {}) when the logs were \
             gathered: {}.",
            contract::NODE_IMAGE_LOOKUP_STAGE,
            f.summary
        );
        let cause = format!(
            "Cause (node image): {} (node-image-pull.service, stage {}).",
            f.summary,
            contract::NODE_IMAGE_LOOKUP_STAGE
        );
        let next = format!("  Next: {}.", f.remedy);
        for want in [&problem, &cause, &next] {
            assert!(
                report.lines().any(|l| l == want),
                "{want}\nnot in\n{report}"
            );
        }
        assert_eq!(
            report.lines().filter(|l| *l == next).count(),
            2,
            "the Problem's and the cause's Next: {report}"
        );
        assert!(!report.contains("node (OS) image"), "{report}");
        assert!(!report.contains("operating system) image"), "{report}");
        assert!(seen.insert(f.summary.clone()), "{} twice", f.summary);
    }
}

/// Two mirrors: podman's line break between their parts leaves two journal lines; the
/// finding names each mirror's fault, and quotes both lines as one.
#[test]
fn each_mirror_of_a_two_line_error_is_named() {
    let first = format!(
        "Error: initializing source docker://{HOST_RELEASE}: (Mirrors also failed: \
         [{HOST_MIRROR}/okd/scos-release@sha256:0f5a0ecfc822: pinging container registry \
         {HOST_MIRROR}: Get \"https://{HOST_MIRROR}/v2/\": dial tcp 198.18.0.1:5000: connect: \
         connection refused]"
    );
    let second = format!(
        "[backup.example.com/okd/scos-release@sha256:0f5a0ecfc822: reading manifest \
         sha256:0f5a0ecfc822 in backup.example.com/okd/scos-release: manifest unknown]): \
         {HOST_RELEASE}: {QUAY_NXDOMAIN}"
    );
    let line = format!("{first}\nNov 28 11:57:50 okdrh node-image-pull.sh[1197]: {second}");
    let a = analyse(lookup_host("two-mirrors", &line));
    let report = a.render();
    let f = a.finding.clone().unwrap_or_else(|| panic!("{report}"));
    assert!(
        f.evidence.ends_with(&format!("{first}\n{second}")),
        "{report}"
    );
    for words in [
        format!("its mirror `{HOST_MIRROR}` refused the connection"),
        "its mirror `backup.example.com` does not hold".to_string(),
        "its own registry `quay.io` does not resolve".to_string(),
    ] {
        assert!(f.summary.contains(&words), "{words} in {}", f.summary);
    }
    assert!(
        f.remedy
            .contains(&format!("start the registry `{HOST_MIRROR}`"))
            && f.remedy
                .contains("mirror the image to `backup.example.com`"),
        "{}",
        f.remedy
    );
}

/// A mirror's 401 reads the same whether the pull secret has no credentials for it or
/// wrong ones; the registries the gathered pull secret names (never its credentials) tell
/// them apart, each with its own words and fix, and without that file the words say both.
#[test]
fn a_mirrors_401_is_told_apart_by_the_pull_secrets_registries() {
    let line = via_mirror(
        HOST_COMPONENT,
        "reading manifest sha256:ead662e1ea91 in registry.example.com:5000/okd/scos-content: \
         unauthorized: authentication required",
    );
    let with = |registries: Option<&str>| {
        let mut bundle = lookup_host("401", &line);
        if let Some(r) = registries {
            bundle = bundle.file(contract::PULL_SECRET_REGISTRIES_FILE, r);
        }
        let a = analyse(bundle);
        a.finding
            .clone()
            .unwrap_or_else(|| panic!("{}", a.render()))
    };
    let none = with(Some("quay.io\n"));
    let refused = with(Some("quay.io\nregistry.example.com:5000\n"));
    let unknown = with(None);
    assert!(
        none.summary.contains(&format!(
            "its mirror `{HOST_MIRROR}` wants credentials: the pull secret has none for it (401)"
        )),
        "{}",
        none.summary
    );
    assert!(
        refused.summary.contains(&format!(
            "its mirror `{HOST_MIRROR}` refused the pull secret's credentials for it (401)"
        )),
        "{}",
        refused.summary
    );
    assert!(
        unknown
            .summary
            .contains("the pull secret has none for it, or it refused them"),
        "{}",
        unknown.summary
    );
    assert!(
        none.remedy
            .starts_with(&format!("add credentials for `{HOST_MIRROR}`"))
    );
    assert!(
        refused
            .remedy
            .starts_with(&format!("correct the credentials for `{HOST_MIRROR}`"))
    );
    assert_ne!(none.remedy, unknown.remedy);
}

/// The pull's last answer is the current fault: on the real host a mirror's certificate
/// not valid yet was fixed, and the next pull got another answer; the certificate's older
/// line, though its cause ranks above a pull's, is no longer the cause.
#[test]
fn a_pull_answered_again_is_named_by_its_last_answer() {
    let old = via_mirror(
        HOST_COMPONENT,
        &format!(
            "pinging container registry {HOST_MIRROR}: Get \"https://{HOST_MIRROR}/v2/\": \
             x509: certificate has expired or is not yet valid: current time \
             2026-11-28T12:30:05Z is before 2026-11-29T12:28:12Z"
        ),
    );
    let new = via_mirror(
        HOST_COMPONENT,
        "reading manifest sha256:ead662e1ea91 in registry.example.com:5000/okd/scos-content: \
         manifest unknown: manifest unknown",
    );
    let line = format!("{old}\nNov 28 11:58:00 okdrh node-image-pull.sh[1200]: {new}");
    let a = analyse(lookup_host("answered-again", &line));
    let f = a
        .finding
        .clone()
        .unwrap_or_else(|| panic!("{}", a.render()));
    assert_eq!(f.cause, Cause::ReleaseImagePull, "{}", a.render());
    assert!(f.evidence.ends_with(&new), "{}", f.evidence);
    assert!(f.summary.contains("does not hold"), "{}", f.summary);
}

/// Still looking the node image up, with no registry answer in the bundle: the component's
/// cause says the lookup is what did not finish, not that the node image failed to pull.
#[test]
fn a_lookup_without_a_registry_answer_is_named_as_the_lookup() {
    let a = analyse(lookup_host("lookup-quiet", "Pulling the release image"));
    let report = a.render();
    let cause = a.cause.clone().unwrap_or_else(|| panic!("{report}"));
    assert!(
        cause
            .summary
            .starts_with("node-image-pull.service could not look the release's node image up"),
        "{report}"
    );
    assert!(
        !report.contains("node image could not be pulled"),
        "{report}"
    );
}
