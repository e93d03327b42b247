//! wait-for bootstrap-complete against the test server.

use std::time::{Duration, Instant};

use testkit::api::Action;
use testkit::api::objects::{
    NODE_BOOTSTRAPPER, cluster_operator, condition, configmap, csr, etcd, etcd_with_pivot_override,
    master_node, stable_operator,
};
use wait_for::{Event, Phase, WaitError, wait_bootstrap_complete};

use crate::support::{Fixture, Recorder, never};

fn bootstrap_cm(status: Option<&str>) -> serde_json::Value {
    match status {
        Some(s) => configmap("kube-system", "bootstrap", &[("status", s)]),
        None => configmap("kube-system", "bootstrap", &[]),
    }
}

#[tokio::test]
async fn api_comes_up_late_then_everything_completes() {
    let fx = Fixture::new(false).await;
    fx.server.apply(bootstrap_cm(Some("complete")));
    fx.server.apply(etcd("True"));
    fx.server.timeline(vec![(600, Action::Start)]);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let summary = wait_bootstrap_complete(&cluster, &fx.bootstrap_opts(), &rec.sink(), never())
        .await
        .expect("bootstrap completes");
    assert_eq!(summary.api_version.as_deref(), Some("v1.34.1-okd-test"));
    assert!(
        rec.has_status(Phase::Api, "connection refused"),
        "{:?}",
        rec.statuses(Phase::Api)
    );
    let phases: Vec<Phase> = summary.phases.iter().map(|p| p.phase).collect();
    assert_eq!(
        phases,
        [
            Phase::Api,
            Phase::BootstrapConfigMap,
            Phase::EtcdBootstrapMemberRemoved
        ]
    );
    assert!(summary.phases[0].elapsed >= Duration::from_millis(600));
}

#[tokio::test]
async fn configmap_flip_to_complete_is_seen_within_a_second() {
    let fx = Fixture::new(true).await;
    fx.server.apply(bootstrap_cm(None));
    fx.server.apply(etcd("True"));
    let server = fx.server.clone();
    let flip = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        server.apply(bootstrap_cm(Some("complete")));
        Instant::now()
    });
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    wait_bootstrap_complete(&cluster, &fx.bootstrap_opts(), &rec.sink(), never())
        .await
        .expect("bootstrap completes");
    let flipped = flip.await.expect("flip task");
    let seen = rec.done_at(Phase::BootstrapConfigMap).expect("phase done");
    let lag = seen.duration_since(flipped);
    assert!(
        lag < Duration::from_secs(1),
        "completion seen {lag:?} after the change"
    );
    assert_eq!(
        rec.statuses(Phase::BootstrapConfigMap),
        ["configmap present, no status yet"]
    );
}

#[tokio::test]
async fn dropped_watch_is_resumed() {
    let fx = Fixture::new(true).await;
    fx.server.apply(bootstrap_cm(None));
    fx.server.apply(etcd("True"));
    fx.server.timeline(vec![
        (800, Action::DropWatches),
        (1100, Action::Apply(bootstrap_cm(Some("progressing")))),
        (1400, Action::Apply(bootstrap_cm(Some("complete")))),
    ]);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    wait_bootstrap_complete(&cluster, &fx.bootstrap_opts(), &rec.sink(), never())
        .await
        .expect("bootstrap completes");
    let statuses = rec.statuses(Phase::BootstrapConfigMap);
    assert!(
        statuses
            .iter()
            .any(|s| s.contains("resuming from resourceVersion")),
        "{statuses:?}"
    );
    assert!(
        statuses.contains(&"bootstrap status: progressing".to_string()),
        "{statuses:?}"
    );
}

#[tokio::test]
async fn expired_resource_version_relists() {
    let fx = Fixture::new(true).await;
    fx.server.apply(bootstrap_cm(None));
    fx.server.apply(etcd("True"));
    fx.server.timeline(vec![
        (800, Action::Apply(master_node("m0", true))),
        (850, Action::Apply(master_node("m1", true))),
        (900, Action::Compact),
        (950, Action::DropWatches),
        (1600, Action::Apply(bootstrap_cm(Some("complete")))),
    ]);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    wait_bootstrap_complete(&cluster, &fx.bootstrap_opts(), &rec.sink(), never())
        .await
        .expect("bootstrap completes");
    let statuses = rec.statuses(Phase::BootstrapConfigMap);
    assert!(
        statuses.iter().any(|s| s.contains("410 Gone")),
        "{statuses:?}"
    );
}

#[tokio::test]
async fn server_restart_mid_wait() {
    let fx = Fixture::new(true).await;
    fx.server.apply(bootstrap_cm(None));
    fx.server.apply(etcd("True"));
    fx.server.timeline(vec![
        (500, Action::Stop),
        (1200, Action::Apply(bootstrap_cm(Some("complete")))),
        (1800, Action::Start),
    ]);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    wait_bootstrap_complete(&cluster, &fx.bootstrap_opts(), &rec.sink(), never())
        .await
        .expect("bootstrap completes after the restart");
    let statuses = rec.statuses(Phase::BootstrapConfigMap);
    assert!(
        statuses.iter().any(|s| s == "connection refused"),
        "{statuses:?}"
    );
}

fn expect_timeout(err: &WaitError, phase: Phase) {
    assert!(
        matches!(err, WaitError::Timeout { phase: p, .. } if *p == phase),
        "{err}"
    );
    assert_eq!(err.exit_code(), 5);
}

#[tokio::test]
async fn api_timeout_blames_the_bootstrap_host() {
    let fx = Fixture::new(false).await;
    let mut opts = fx.bootstrap_opts();
    opts.api_timeout = Duration::from_millis(1200);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let err = wait_bootstrap_complete(&cluster, &opts, &rec.sink(), never())
        .await
        .unwrap_err();
    expect_timeout(&err, Phase::Api);
    let d = err.diagnosis().expect("diagnosis");
    assert_eq!(d.last_seen.as_deref(), Some("connection refused"));
    assert!(
        d.likely_cause.contains("nothing answered"),
        "{}",
        d.likely_cause
    );
    assert!(
        d.likely_cause.contains("load balancer"),
        "{}",
        d.likely_cause
    );
    assert_eq!(
        d.next_command,
        format!(
            "okd-install gather bootstrap --dir {} --bootstrap 192.0.2.10 --master 192.0.2.11 \
             --master 192.0.2.12 --master 192.0.2.13",
            fx.dir.path().display()
        )
    );
    let events = rec.events.borrow();
    let (_, failed) = events.last().expect("events");
    assert!(
        matches!(failed, Event::Failed { exit_code: 5, .. }),
        "{failed:?}"
    );
    let json = serde_json::to_value(failed).expect("serialize");
    assert_eq!(json["event"], "failed");
    assert_eq!(json["phase"], "api");
    assert_eq!(json["exit_code"], 5);
    assert_eq!(json["diagnosis"]["last_seen"], "connection refused");
    assert_eq!(json["diagnosis"]["next_command"], d.next_command.as_str());
    assert!(
        json["diagnosis"]["unhealthy_operators"]
            .as_array()
            .is_some_and(Vec::is_empty)
    );
}

#[tokio::test]
async fn configmap_timeout_blames_control_plane_and_dumps_operators() {
    let fx = Fixture::new(true).await;
    fx.server.apply(stable_operator("dns"));
    fx.server.apply(cluster_operator(
        "kube-apiserver",
        vec![
            condition("Available", "False", "NoPods", "0 of 3 pods running"),
            condition("Degraded", "True", "Crash", "static pod crashed"),
            condition("Upgradeable", "False", "", ""),
        ],
    ));
    let mut opts = fx.bootstrap_opts();
    opts.bootstrap_timeout = Duration::from_millis(800);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let err = wait_bootstrap_complete(&cluster, &opts, &rec.sink(), never())
        .await
        .unwrap_err();
    expect_timeout(&err, Phase::BootstrapConfigMap);
    let d = err.diagnosis().expect("diagnosis");
    assert_eq!(
        d.last_seen.as_deref(),
        Some("configmap kube-system/bootstrap not created yet")
    );
    assert!(
        d.likely_cause.contains("control-plane hosts"),
        "{}",
        d.likely_cause
    );
    let dump: Vec<String> = d
        .unhealthy_operators
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        dump,
        [
            "cluster operator kube-apiserver Available is False with NoPods: 0 of 3 pods running",
            "cluster operator kube-apiserver Degraded is True with Crash: static pod crashed",
        ]
    );
}

#[tokio::test]
async fn etcd_timeout_reports_the_condition() {
    let fx = Fixture::new(true).await;
    fx.server.apply(bootstrap_cm(Some("complete")));
    fx.server.apply(etcd("False"));
    let mut opts = fx.bootstrap_opts();
    opts.etcd_timeout = Duration::from_millis(700);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let err = wait_bootstrap_complete(&cluster, &opts, &rec.sink(), never())
        .await
        .unwrap_err();
    expect_timeout(&err, Phase::EtcdBootstrapMemberRemoved);
    let d = err.diagnosis().expect("diagnosis");
    assert!(
        d.last_seen
            .as_deref()
            .unwrap_or_default()
            .starts_with("EtcdBootstrapMemberRemoved=False")
    );
    assert!(
        d.likely_cause.contains("bootstrap etcd member"),
        "{}",
        d.likely_cause
    );
}

#[tokio::test]
async fn pivot_waits_for_three_ready_masters_and_reports_stages() {
    let fx = Fixture::new(true).await;
    fx.server.apply(bootstrap_cm(Some("complete")));
    fx.server.apply(etcd("True"));
    fx.server.apply(master_node("master-0", true));
    fx.server.apply(master_node("master-1", false));
    fx.server.apply(configmap(
        "kube-system",
        "bootstrap-pivot",
        &[("stage", "waiting-for-masters")],
    ));
    fx.server.timeline(vec![
        (700, Action::Apply(master_node("master-1", true))),
        (
            1400,
            Action::Apply(configmap(
                "kube-system",
                "bootstrap-pivot",
                &[("stage", "etcd-moved")],
            )),
        ),
        (2100, Action::Apply(master_node("master-2", true))),
    ]);
    let mut opts = fx.bootstrap_opts();
    opts.pivot = true;
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let summary = wait_bootstrap_complete(&cluster, &opts, &rec.sink(), never())
        .await
        .expect("pivot completes");
    // Polls run every second; under load the first one may already see master-1 Ready.
    let statuses = rec.statuses(Phase::ControlPlaneNodes);
    let two = "2/3 control-plane nodes Ready [master-0, master-1]; pivot stage:";
    assert!(
        statuses.contains(&format!("{two} waiting-for-masters")),
        "{statuses:?}"
    );
    assert!(
        statuses.contains(&format!("{two} etcd-moved")),
        "{statuses:?}"
    );
    assert!(
        statuses.contains(
            &"3/3 control-plane nodes Ready [master-0, master-1, master-2]; pivot stage: etcd-moved"
                .to_string()
        ),
        "{statuses:?}"
    );
    // The etcd fixture carries no override: nothing to remove, nothing patched.
    assert_eq!(
        statuses.last().map(String::as_str),
        Some("the etcd override of the bootstrap pivot is not set (removed already, or never set)")
    );
    assert!(!summary.etcd_override_removed);
    assert!(fx.server.patches().is_empty());
    assert_eq!(summary.pivot_stage.as_deref(), Some("etcd-moved"));
    let phases: Vec<Phase> = summary.phases.iter().map(|p| p.phase).collect();
    assert!(phases.contains(&Phase::ControlPlaneNodes));
}

#[tokio::test]
async fn pivot_timeout_says_how_many_masters_are_ready() {
    let fx = Fixture::new(true).await;
    fx.server.apply(bootstrap_cm(Some("complete")));
    fx.server.apply(master_node("master-0", true));
    fx.server.apply(master_node("master-1", true));
    let mut opts = fx.bootstrap_opts();
    opts.pivot = true;
    opts.bootstrap_timeout = Duration::from_millis(1500);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let err = wait_bootstrap_complete(&cluster, &opts, &rec.sink(), never())
        .await
        .unwrap_err();
    expect_timeout(&err, Phase::ControlPlaneNodes);
    let d = err.diagnosis().expect("diagnosis");
    assert_eq!(
        d.last_seen.as_deref(),
        Some("2/3 control-plane nodes Ready [master-0, master-1]")
    );
}

#[tokio::test]
async fn ctrl_c_interrupts_with_exit_code_8() {
    let fx = Fixture::new(true).await;
    fx.server.apply(bootstrap_cm(Some("progressing")));
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let cancel = tokio::time::sleep(Duration::from_millis(500));
    let err = wait_bootstrap_complete(&cluster, &fx.bootstrap_opts(), &rec.sink(), cancel)
        .await
        .unwrap_err();
    assert_eq!(err.exit_code(), 8);
    assert_eq!(err.phase(), Some(Phase::BootstrapConfigMap));
    let d = err.diagnosis().expect("diagnosis");
    assert_eq!(
        d.last_seen.as_deref(),
        Some("bootstrap status: progressing")
    );
    assert!(
        d.next_command
            .starts_with("okd-install wait-for bootstrap-complete --dir ")
    );
}

#[tokio::test]
async fn json_event_stream_has_a_stable_shape() {
    let fx = Fixture::new(true).await;
    fx.server.apply(bootstrap_cm(None));
    fx.server.apply(etcd("True"));
    fx.server
        .timeline(vec![(300, Action::Apply(bootstrap_cm(Some("complete"))))]);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    wait_bootstrap_complete(&cluster, &fx.bootstrap_opts(), &rec.sink(), never())
        .await
        .expect("bootstrap completes");
    let lines: Vec<serde_json::Value> = rec
        .events
        .borrow()
        .iter()
        .map(|(_, e)| {
            let line = serde_json::to_string(e).expect("serialize");
            assert!(!line.contains('\n'), "one object per line");
            serde_json::from_str(&line).expect("valid JSON")
        })
        .collect();
    let shape: Vec<String> = lines
        .iter()
        .map(|l| {
            let mut keys: Vec<&str> = l
                .as_object()
                .expect("object")
                .keys()
                .map(String::as_str)
                .collect();
            keys.sort_unstable();
            format!("{}:{}", l["event"].as_str().unwrap_or("?"), keys.join(","))
        })
        .collect();
    assert_eq!(
        shape,
        [
            "phase_started:event,phase,timeout_ms",
            "phase_done:detail,elapsed_ms,event,phase",
            "phase_started:event,phase,timeout_ms",
            "status:elapsed_ms,event,message,phase",
            "phase_done:detail,elapsed_ms,event,phase",
            "phase_started:event,phase,timeout_ms",
            "phase_done:detail,elapsed_ms,event,phase",
        ]
    );
    assert_eq!(lines[0]["phase"], "api");
    assert_eq!(lines[0]["timeout_ms"], 8000);
    assert_eq!(lines[3]["phase"], "bootstrap_config_map");
    assert_eq!(lines[3]["message"], "configmap present, no status yet");
}

fn pivot_cm(stage: &str, extra: &[(&str, &str)]) -> serde_json::Value {
    let mut data = vec![("stage", stage)];
    data.extend_from_slice(extra);
    configmap("kube-system", "bootstrap-pivot", &data)
}

const CLIENT_SIGNER: &str = "kubernetes.io/kube-apiserver-client-kubelet";

fn approved(server: &testkit::api::TestApiServer, name: &str) -> bool {
    server
        .object("certificatesigningrequests", "", name)
        .and_then(|c| c["status"]["conditions"].as_array().cloned())
        .is_some_and(|c| {
            c.iter()
                .any(|c| c["type"] == "Approved" && c["status"] == "True")
        })
}

#[tokio::test]
async fn pivot_timeline_approves_the_pivoted_kubelet_and_removes_the_etcd_override() {
    let fx = Fixture::new(true).await;
    fx.server.apply(bootstrap_cm(Some("complete")));
    fx.server.apply(etcd_with_pivot_override("True"));
    fx.server.apply(master_node("master-0", true));
    fx.server.apply(master_node("master-1", false));
    fx.server.apply(pivot_cm(
        "pivot-wait-for-masters",
        &[("etcdOverride", "set")],
    ));
    // Requests the wait must leave alone: decided already, or not from a kubelet.
    fx.server
        .apply(csr("csr-old", NODE_BOOTSTRAPPER, CLIENT_SIGNER, true));
    fx.server.apply(csr(
        "csr-other",
        "system:serviceaccount:default:builder",
        CLIENT_SIGNER,
        false,
    ));
    fx.server.timeline(vec![
        (400, Action::Apply(master_node("master-1", true))),
        (700, Action::Apply(pivot_cm("pivot-wait-for-bootkube", &[]))),
        (1000, Action::Apply(pivot_cm("pivot-coreos-installer", &[]))),
        (1300, Action::Apply(pivot_cm("reboot", &[]))),
        // The reinstalled host's kubelet asks for its client certificate.
        (
            1600,
            Action::Apply(csr("csr-pivot", NODE_BOOTSTRAPPER, CLIENT_SIGNER, false)),
        ),
    ]);
    // The kubelet: it joins as a Ready node only once its request is approved.
    let server = fx.server.clone();
    let kubelet = tokio::spawn(async move {
        while !approved(&server, "csr-pivot") {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        server.apply(master_node("master-2", true));
    });
    let mut opts = fx.bootstrap_opts();
    opts.pivot = true;
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let summary = wait_bootstrap_complete(&cluster, &opts, &rec.sink(), never())
        .await
        .expect("pivot completes");
    kubelet.await.expect("kubelet task");

    let statuses = rec.statuses(Phase::ControlPlaneNodes);
    let approval = "approved certificate signing request csr-pivot (kubelet client certificate \
                    for system:serviceaccount:openshift-machine-config-operator:node-bootstrapper)";
    let pos = |needle: &str| {
        statuses
            .iter()
            .position(|s| s.contains(needle))
            .unwrap_or_else(|| panic!("{needle:?} not in {statuses:?}"))
    };
    assert!(
        pos("2/3 control-plane nodes Ready [master-0, master-1]; pivot stage: reboot")
            < pos(approval)
    );
    assert!(pos(approval) < pos("3/3 control-plane nodes Ready [master-0, master-1, master-2]"));
    assert!(pos("3/3 control-plane nodes Ready") < pos("removed the etcd override"));
    assert!(
        statuses
            .iter()
            .any(|s| s.contains("pivot stage: pivot-coreos-installer")),
        "{statuses:?}"
    );
    assert_eq!(summary.approved_csrs, ["csr-pivot"]);
    assert!(summary.etcd_override_removed);
    assert_eq!(summary.pivot_stage.as_deref(), Some("reboot"));
    assert!(!approved(&fx.server, "csr-other"));

    // The server saw exactly one approval and the override removal, as merge patches.
    let patches = fx.server.patches();
    let paths: Vec<&str> = patches.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-pivot/approval",
            "/apis/operator.openshift.io/v1/etcds/cluster",
        ]
    );
    assert!(
        patches
            .iter()
            .all(|p| p.content_type == "application/merge-patch+json")
    );
    assert_eq!(
        patches[1].body,
        serde_json::json!({"spec": {"unsupportedConfigOverrides": null}})
    );
    let etcd = fx.server.object("etcds", "", "cluster").expect("etcd");
    assert!(
        etcd["spec"].get("unsupportedConfigOverrides").is_none(),
        "{etcd}"
    );
    assert_eq!(etcd["spec"]["managementState"], "Managed");

    // Then the etcd phase ran as usual.
    let phases: Vec<Phase> = summary.phases.iter().map(|p| p.phase).collect();
    assert_eq!(
        phases,
        [
            Phase::Api,
            Phase::BootstrapConfigMap,
            Phase::ControlPlaneNodes,
            Phase::EtcdBootstrapMemberRemoved
        ]
    );
    assert!(rec.done_at(Phase::ControlPlaneNodes) < rec.done_at(Phase::EtcdBootstrapMemberRemoved));
}

#[tokio::test]
async fn pivot_stuck_at_a_stage_is_named_in_the_diagnosis() {
    let fx = Fixture::new(true).await;
    fx.server.apply(bootstrap_cm(Some("complete")));
    fx.server.apply(etcd_with_pivot_override("False"));
    fx.server.apply(master_node("master-0", true));
    fx.server.apply(master_node("master-1", true));
    fx.server
        .apply(pivot_cm("pivot-pointer-config", &[("etcdOverride", "set")]));
    fx.server.timeline(vec![(
        300,
        Action::Apply(pivot_cm(
            "pivot-coreos-installer",
            &[
                ("etcdOverride", "set"),
                ("failure", "pivot-coreos-installer: exit status 1"),
            ],
        )),
    )]);
    let mut opts = fx.bootstrap_opts();
    opts.pivot = true;
    opts.bootstrap_timeout = Duration::from_millis(1800);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let err = wait_bootstrap_complete(&cluster, &opts, &rec.sink(), never())
        .await
        .unwrap_err();
    expect_timeout(&err, Phase::ControlPlaneNodes);
    let d = err.diagnosis().expect("diagnosis");
    assert_eq!(
        d.last_seen.as_deref(),
        Some(
            "2/3 control-plane nodes Ready [master-0, master-1]; pivot stage: \
             pivot-coreos-installer (failed: pivot-coreos-installer: exit status 1)"
        )
    );
    assert!(
        d.likely_cause
            .contains("its pivot is at stage pivot-coreos-installer"),
        "{}",
        d.likely_cause
    );
    assert!(
        d.likely_cause.contains("installation disk"),
        "{}",
        d.likely_cause
    );
    assert_eq!(d.next_command, fx.hint().gather_command());
    assert!(
        d.next_command
            .starts_with("okd-install gather bootstrap --dir ")
    );
    // Nothing was approved or patched: the override stays until three masters are Ready.
    assert!(fx.server.patches().is_empty(), "{:?}", fx.server.patches());
    let events = rec.events.borrow();
    let (_, failed) = events.last().expect("events");
    let json = serde_json::to_value(failed).expect("serialize");
    assert_eq!(json["exit_code"], 5);
    assert_eq!(json["phase"], "control_plane_nodes");
}
