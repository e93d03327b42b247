//! The diagnosis: one bundle fixture per failure, each with the component the analysis must
//! name and the output it must show.
//!
//! Every fixture starts from the same bootstrap host (node image, release image and the
//! renders done, etcd, API server and machine-config server running, three masters known
//! to the API) and breaks one thing, the way that failure shows in a real gather.

use bundle_analysis::{Analysis, Cause, Component, JOURNAL_TAIL_LINES, analyze_bundle};

use crate::bundle::{Bundle, record, succeeded};
use crate::evidence::Container;
use crate::scenario::{
    Ending, bootkube_journal, bootkube_run, control_plane, control_plane_with, crash_looping,
    csr_json, etcd, etcd_members, kube_apiserver, kube_controller_manager, list, nodes_json,
    renders_before,
};

const MASTERS: &[(&str, &str)] = &[
    ("master-0", "192.0.2.11"),
    ("master-1", "192.0.2.12"),
    ("master-2", "192.0.2.13"),
];

/// The bootstrap host before anything breaks: bootkube ends `bootkube` (stage and ending),
/// `containers` run on it, and the API answers with `MASTERS`.
fn host(id: &str, bootkube: Vec<serde_json::Value>, containers: &[Container]) -> Bundle {
    let mut bundle = Bundle::new(id)
        .service("node-image-pull", succeeded())
        .service("node-image-overlay", succeeded())
        .service("release-image", succeeded())
        .service("bootkube", bootkube)
        .file("bootstrap/etcd/member-list.txt", etcd_members());
    for c in containers {
        let dir = match c.runtime {
            crate::evidence::Runtime::Crio => "bootstrap/containers",
            crate::evidence::Runtime::Podman => "bootstrap/pods",
        };
        bundle = bundle.container(dir, c);
    }
    bundle
}

/// The API's answers with these masters registered.
fn api_answers(bundle: Bundle, masters: &[(&str, &str)]) -> Bundle {
    let names: Vec<&str> = masters.iter().map(|(n, _)| *n).collect();
    bundle
        .file("resources/nodes.json", nodes_json(masters))
        .file("resources/csr.json", csr_json(&names))
}

fn served() -> Vec<&'static str> {
    MASTERS.iter().map(|(_, a)| *a).collect()
}

fn analyse(bundle: Bundle) -> Analysis {
    let dir = tempfile::tempdir().unwrap();
    let path = bundle.write(dir.path(), "bundle.tar.gz");
    analyze_bundle(&path).unwrap()
}

/// The cause, checked to be `component`, to say `said`, and to show the end of `log`.
fn expect_cause<'a>(
    analysis: &'a Analysis,
    component: Component,
    said: &str,
    log: &str,
) -> &'a Cause {
    let report = analysis.render();
    let c = analysis
        .cause
        .as_ref()
        .unwrap_or_else(|| panic!("no cause in\n{report}"));
    assert_eq!(c.component, component, "{report}");
    assert!(c.summary.contains(said), "{said:?} not in {:?}", c.summary);
    assert_eq!(c.log_tail, end_of(log), "{report}");
    c
}

/// Asserts that one of the cause's facts says `fact`.
fn expect_evidence(c: &Cause, fact: &str) {
    assert!(
        c.evidence.iter().any(|e| e.contains(fact)),
        "{fact:?} not in {:#?}",
        c.evidence
    );
}

/// The last lines of `log`, as the analysis must show them.
fn end_of(log: &str) -> Vec<String> {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(JOURNAL_TAIL_LINES)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

/// A log longer than the shown tail, ending in `last`.
fn long_log(prefix: &str, last: &str) -> String {
    let mut log: String = (1..=40)
        .map(|i| format!("I1120 08:20:{i:02}.000000       1 {prefix} step {i}\n"))
        .collect();
    log.push_str(last);
    log.push('\n');
    log
}

#[test]
fn a_crash_looping_static_pod_is_named_with_the_end_of_its_log() {
    let kcm_log = long_log(
        "controllermanager.go:187]",
        "E1120 08:21:00.000000       1 run.go:72] \"command failed\" err=\"failed to load the service account signing key: open /etc/kubernetes/secrets/service-account.key: no such file or directory\"",
    );
    let kcm = kube_controller_manager();
    let mut containers = control_plane_with(&served(), crash_looping(&kcm, 3, 3, 1, &kcm_log));
    containers.extend(renders_before(None));
    let bundle = host(
        "crash-loop",
        bootkube_run("cb-bootstrap", Ending::Running),
        &containers,
    );
    let analysis = analyse(api_answers(bundle, MASTERS));

    let said = format!(
        "kube-system/{} on bootstrap is crash-looping: container kube-controller-manager restarted 5 times",
        kcm.pod
    );
    let c = expect_cause(&analysis, Component::StaticPod, &said, &kcm_log);
    let latest = kcm.clone().attempt(5);
    let file = format!(
        "log-bundle-crash-loop/bootstrap/containers/{}.log",
        latest.file_stem()
    );
    assert_eq!(c.log_file.as_deref(), Some(file.as_str()));
    assert!(analysis.render().contains("Cause (static pod)"));
    assert!(analysis.crash_loops.is_empty(), "shown once, as the cause");
}

#[test]
fn an_api_that_never_answered_is_told_from_etcd() {
    let kas_log = long_log(
        "server.go:152]",
        "E1120 08:25:00.000000      17 run.go:72] \"command failed\" err=\"unable to load client CA provider: open /etc/kubernetes/secrets/kube-apiserver-complete-client-ca-bundle.crt: no such file or directory\"",
    );
    let mut containers = control_plane_with(
        &served(),
        crash_looping(&kube_apiserver(), 4, 3, 1, &kas_log),
    );
    containers.extend(renders_before(None));
    let waiting = "Still waiting for the Kubernetes API: Get \"https://localhost:6443/readyz\": dial tcp [::1]:6443: connect: connection refused";
    let failed = Ending::Failed("cluster-bootstrap exited with status 1");
    let bundle = host("api", bootkube_run("cb-bootstrap", failed), &containers)
        .file("bootstrap/journals/bootkube.log", bootkube_journal(false, &[waiting]))
        .file(
            "resources/api-unreachable.txt",
            "The API did not answer through /opt/openshift/auth/kubeconfig-loopback: The connection to the server localhost:6443 was refused - did you specify the right host or port?\n",
        );
    let analysis = analyse(bundle);

    let c = expect_cause(&analysis, Component::ApiServer, "never answered", &kas_log);
    assert_eq!(c.stage.as_deref(), Some("cb-bootstrap"));
    expect_evidence(c, "resources/api-unreachable.txt");
    expect_evidence(c, waiting);
    expect_evidence(c, "container kube-apiserver (pod openshift-kube-apiserver/");
    expect_evidence(c, "restarted 6 times");
}

/// The control plane with etcd crash-looping (its pod, etcdctl included, down), and the member
/// list the gather could not read then.
fn broken_etcd(etcd_log: &str) -> (Vec<Container>, String) {
    let containers = control_plane_with(&served(), crash_looping(&etcd(), 2, 4, 2, etcd_log))
        .into_iter()
        .filter(|c| c.name != "etcdctl")
        .collect();
    let members = "no running etcdctl container: the bootstrap etcd pod is not running\n";
    (containers, members.to_string())
}

#[test]
fn etcd_that_never_formed_is_named_with_the_end_of_its_log() {
    let etcd_log = long_log(
        "etcd.go:100]",
        "{\"level\":\"fatal\",\"msg\":\"listener failed\",\"error\":\"open /etc/ssl/etcd/etcd-all-certs/etcd-serving-bootstrap.okd.example.com.crt: no such file or directory\"}",
    );
    let (mut containers, members) = broken_etcd(&etcd_log);
    containers.extend(renders_before(None));
    let failed = Ending::Failed("etcd did not become healthy");
    let bundle = host("etcd", bootkube_run("wait-for-etcd", failed), &containers)
        .file("bootstrap/etcd/member-list.txt", members);
    let analysis = analyse(bundle);

    let c = expect_cause(
        &analysis,
        Component::Etcd,
        "the bootstrap etcd never formed",
        &etcd_log,
    );
    assert_eq!(c.stage.as_deref(), Some("wait-for-etcd"));
    expect_evidence(
        c,
        "bootstrap/etcd/member-list.txt: no running etcdctl container",
    );
    assert!(
        analysis
            .render()
            .contains("Cause (etcd): the bootstrap etcd never formed")
    );
}

#[test]
fn etcd_is_blamed_before_the_api_it_takes_down() {
    let etcd_log = long_log(
        "etcd.go:100]",
        "{\"level\":\"fatal\",\"msg\":\"failed to open data dir\",\"error\":\"permission denied\"}",
    );
    let (containers, members) = broken_etcd(&etcd_log);
    let failed = Ending::Failed("cluster-bootstrap exited with status 1");
    let bundle = host(
        "etcd-api",
        bootkube_run("cb-bootstrap", failed),
        &containers,
    )
    .file("bootstrap/etcd/member-list.txt", members)
    .file("resources/api-unreachable.txt", "The API did not answer\n");
    let analysis = analyse(bundle);
    let c = expect_cause(&analysis, Component::Etcd, "etcd never formed", &etcd_log);
    assert_eq!(c.stage.as_deref(), Some("cb-bootstrap"));
}

#[test]
fn a_failed_render_stage_is_named_with_the_end_of_its_container_output() {
    let stage = "kube-apiserver-bootstrap";
    let render_log = long_log(
        "render.go:121]",
        "F1120 08:07:00.000000       1 render.go:147] error: failed to render kube-apiserver: unable to parse --cluster-config-file: invalid serviceNetwork \"172.30.0.0/33\"",
    );
    let mut containers = renders_before(Some(stage));
    let failed = Container::podman("kube-apiserver-render")
        .exited(255)
        .log(&render_log);
    containers.push(failed.clone());
    let ending = Ending::Failed("kube-apiserver render failed");
    let analysis = analyse(host("render", bootkube_run(stage, ending), &containers));

    let said = "its container kube-apiserver-render exited with code 255";
    let c = expect_cause(&analysis, Component::RenderStage, said, &render_log);
    assert_eq!(c.stage.as_deref(), Some(stage));
    let file = format!(
        "log-bundle-render/bootstrap/pods/{}.log",
        failed.file_stem()
    );
    assert_eq!(c.log_file.as_deref(), Some(file.as_str()));
}

#[test]
fn a_render_container_that_left_nothing_is_still_named() {
    let stage = "mco-bootstrap";
    let ending = Ending::Failed(
        "Error: initializing source docker://quay.io/okd/scos-content: unauthorized",
    );
    let analysis = analyse(host(
        "render-gone",
        bootkube_run(stage, ending),
        &renders_before(Some(stage)),
    ));
    let c = expect_cause(&analysis, Component::RenderStage, "mco-render", "");
    expect_evidence(c, "no podman container mco-render");
}

#[test]
fn a_failed_node_image_overlay_is_named_with_the_end_of_its_journal() {
    let mount = "mount: /usr: mount point not mounted or bad option.";
    let journal = long_log(
        "node-image-overlay.sh:",
        &format!(
            "{mount}\nnode-image-overlay.service: Main process exited, code=exited, status=32/n/a"
        ),
    );
    let overlay = vec![
        record("service start", "", "", ""),
        record("service end", "", "failure", mount),
    ];
    let bundle = Bundle::new("overlay")
        .service("node-image-pull", succeeded())
        .service("node-image-overlay", overlay)
        .file("bootstrap/journals/node-image-overlay.log", &journal)
        .file(
            "failed-units.txt",
            "* node-image-overlay.service loaded failed failed Overlay the node image\n",
        );
    let analysis = analyse(bundle);
    expect_cause(
        &analysis,
        Component::NodeImage,
        "node-image-overlay.service",
        &journal,
    );
    assert!(analysis.render().contains("Cause (node image)"));
}

#[test]
fn a_failed_node_image_unit_without_records_is_still_named() {
    let journal = "Pulling quay.io/okd/scos-content@sha256:4f8a\nerror: Importing: Unauthorized\n";
    let bundle = Bundle::new("pull")
        .service("release-image", succeeded())
        .service(
            "bootkube",
            bootkube_run("openshift-manifests", Ending::Running),
        )
        .file("bootstrap/journals/node-image-pull.log", journal)
        .file(
            "failed-units.txt",
            "* node-image-pull.service loaded failed failed Pull the node image\n",
        );
    let analysis = analyse(bundle);
    expect_cause(
        &analysis,
        Component::NodeImage,
        "node-image-pull.service",
        journal,
    );
}

#[test]
fn masters_that_never_fetched_their_config_are_named() {
    let mut containers = control_plane(&[]);
    containers.extend(renders_before(None));
    let waiting = "Pod Status:openshift-kube-apiserver/kube-apiserver\tDoesNotExist";
    let bundle = host(
        "masters",
        bootkube_run("cb-bootstrap", Ending::Running),
        &containers,
    )
    .file(
        "bootstrap/journals/bootkube.log",
        bootkube_journal(true, &[waiting]),
    );
    let analysis = analyse(api_answers(bundle, &[]));

    let mcs = containers
        .iter()
        .find(|c| c.name == "machine-config-server")
        .unwrap();
    let c = expect_cause(&analysis, Component::MasterIgnition, "port 22623", &mcs.log);
    expect_evidence(c, "no request for the master pool");
    expect_evidence(c, "resources/csr.json");
}

#[test]
fn masters_that_fetched_their_config_are_not_blamed() {
    let mut containers = control_plane(&served());
    containers.extend(renders_before(None));
    let bundle = host(
        "fetched",
        bootkube_run("cb-bootstrap", Ending::Running),
        &containers,
    );
    let analysis = analyse(api_answers(bundle, &[]));
    assert_eq!(analysis.cause, None, "{}", analysis.render());
}

/// When crictl gave nothing, the podman render containers are all the bootstrap host shows:
/// they say nothing of kubelet, so a missing etcd pod is not blamed on it. One CRI-O container
/// is enough to tell that kubelet ran.
#[test]
fn render_containers_alone_do_not_say_kubelet_never_started_a_pod() {
    let bundle = |id, containers: &[Container]| {
        let running = bootkube_run("cb-bootstrap", Ending::Running);
        api_answers(host(id, running, containers), MASTERS)
    };
    let renders = renders_before(None);
    let analysis = analyse(bundle("podman-only", &renders));
    assert_eq!(analysis.cause, None, "{}", analysis.render());

    let mut with_kubelet = renders;
    with_kubelet.push(kube_apiserver());
    let analysis = analyse(bundle("no-etcd", &with_kubelet));
    let c = expect_cause(&analysis, Component::Etcd, "etcd never formed", "");
    expect_evidence(
        c,
        "no etcd container in bootstrap/containers/: kubelet never started the bootstrap etcd pod",
    );
}

#[test]
fn a_stopped_machine_config_server_is_why_masters_got_no_config() {
    let stopped = control_plane(&[])
        .into_iter()
        .filter(|c| c.name == "machine-config-server")
        .map(|c| c.exited(255))
        .collect();
    let mut containers = control_plane_with(&[], stopped);
    containers.extend(renders_before(None));
    let bundle = host(
        "mcs",
        bootkube_run("cb-bootstrap", Ending::Running),
        &containers,
    )
    .file("resources/nodes.json", list("NodeList", Vec::new()));
    let analysis = analyse(bundle);
    let mcs = containers
        .iter()
        .find(|c| c.name == "machine-config-server")
        .unwrap();
    let said = "machine-config-server (port 22623) is not running";
    expect_cause(&analysis, Component::MasterIgnition, said, &mcs.log);
}

#[test]
fn the_cause_serializes_with_its_component() {
    let mut containers = renders_before(Some("cvo-bootstrap"));
    containers.push(
        Container::podman("cvo-render")
            .exited(1)
            .log("error: no payload\n"),
    );
    let ending = Ending::Failed("render failed");
    let bundle = host("json", bootkube_run("cvo-bootstrap", ending), &containers);
    let value = serde_json::to_value(analyse(bundle)).unwrap();
    assert_eq!(value["cause"]["component"], "render-stage");
    assert_eq!(value["cause"]["stage"], "cvo-bootstrap");
    assert_eq!(value["cause"]["log_tail"][0], "error: no payload");
}
