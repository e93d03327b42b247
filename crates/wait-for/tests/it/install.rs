//! wait-for install-complete against the test server.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use testkit::api::objects::{
    cluster_operator, cluster_version, condition, configmap, console_route, stable_operator,
};
use testkit::api::{Action, Signer};
use wait_for::{Phase, WaitError, wait_install_complete};

use crate::support::{Fixture, Recorder, never};

fn initialized() -> serde_json::Value {
    cluster_version(vec![
        condition("Available", "True", "", "Done applying 4.20.0-okd"),
        condition("Failing", "False", "", ""),
        condition("Progressing", "False", "", "Cluster version is 4.20.0-okd"),
    ])
}

fn progressing(msg: &str) -> serde_json::Value {
    cluster_version(vec![
        condition("Available", "False", "", ""),
        condition("Failing", "False", "", ""),
        condition("Progressing", "True", "", msg),
    ])
}

fn ca_data(kubeconfig: &std::path::Path) -> String {
    let yaml = std::fs::read_to_string(kubeconfig).expect("read kubeconfig");
    let line = yaml
        .lines()
        .find(|l| l.trim_start().starts_with("certificate-authority-data:"))
        .expect("ca data line");
    let b64 = line
        .split_once(':')
        .expect("key: value")
        .1
        .trim()
        .trim_matches('"');
    String::from_utf8(STANDARD.decode(b64).expect("base64")).expect("utf8")
}

#[cfg(unix)]
fn mode(p: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).expect("metadata").permissions().mode() & 0o777
}

#[tokio::test]
async fn install_completes_and_kubeconfig_gains_the_router_ca() {
    let fx = Fixture::new(true).await;
    let router = Signer::new("ingress-operator@1700000000");
    fx.server.apply(progressing(
        "Working towards 4.20.0-okd: 512 of 900 done (56% complete)",
    ));
    fx.server.apply(configmap(
        "openshift-config-managed",
        "default-ingress-cert",
        &[("ca-bundle.crt", &router.cert_pem())],
    ));
    fx.server.apply(stable_operator("dns"));
    fx.server.apply(stable_operator("console"));
    fx.server.apply(console_route(
        "console-openshift-console.apps.test.example.com",
        true,
    ));
    fx.server
        .timeline(vec![(700, Action::Apply(initialized()))]);
    let before = std::fs::read_to_string(&fx.kubeconfig).expect("read");
    let original_ca = ca_data(&fx.kubeconfig);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let summary = wait_install_complete(&cluster, &fx.install_opts(), &rec.sink(), never())
        .await
        .expect("install completes");
    assert_eq!(
        summary.console_url.as_deref(),
        Some("https://console-openshift-console.apps.test.example.com")
    );
    assert!(rec.has_status(
        Phase::ClusterInitialized,
        "Progressing: Working towards 4.20.0-okd: 512 of 900 done (56% complete)"
    ));
    // Router CA first, then the original bundle, byte for byte.
    let new_ca = ca_data(&fx.kubeconfig);
    assert_eq!(
        new_ca,
        format!("{}\n{}", router.cert_pem().trim_end(), original_ca)
    );
    let backup = summary.kubeconfig_backup.expect("backup kept");
    let name = backup.file_name().unwrap().to_string_lossy().to_string();
    assert!(name.starts_with("kubeconfig.bak-"), "{name}");
    assert_eq!(std::fs::read_to_string(&backup).expect("backup"), before);
    #[cfg(unix)]
    {
        assert_eq!(mode(&fx.kubeconfig), 0o600);
        assert_eq!(mode(&backup), 0o600);
    }
    // The rewritten kubeconfig still works, and a re-run does not prepend twice.
    let again = wait_for::Cluster::from_kubeconfig(&fx.kubeconfig)
        .await
        .expect("reload");
    let summary2 = wait_install_complete(&again, &fx.install_opts(), &rec.sink(), never())
        .await
        .expect("second run");
    assert!(summary2.kubeconfig_backup.is_none());
    assert_eq!(ca_data(&fx.kubeconfig), new_ca);
}

#[tokio::test]
async fn cluster_not_initialized_exits_6_with_the_failing_message() {
    let fx = Fixture::new(true).await;
    fx.server.apply(cluster_version(vec![
        condition("Available", "False", "", ""),
        condition(
            "Failing",
            "True",
            "ClusterOperatorDegraded",
            "Cluster operator authentication is degraded",
        ),
        condition("Progressing", "True", "", "Unable to apply 4.20.0-okd"),
    ]));
    fx.server.apply(cluster_operator(
        "authentication",
        vec![condition(
            "Degraded",
            "True",
            "OAuthServerRouteEndpointAccessibleController_SyncError",
            "route not reachable",
        )],
    ));
    let mut opts = fx.install_opts();
    opts.cluster_timeout = Duration::from_millis(800);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let err = wait_install_complete(&cluster, &opts, &rec.sink(), never())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            WaitError::Timeout {
                phase: Phase::ClusterInitialized,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.exit_code(), 6);
    let d = err.diagnosis().expect("diagnosis");
    assert_eq!(
        d.last_seen.as_deref(),
        Some("Failing: Cluster operator authentication is degraded")
    );
    assert_eq!(d.unhealthy_operators.len(), 1);
    assert!(
        d.next_command
            .ends_with("describe clusteroperator authentication"),
        "{}",
        d.next_command
    );
}

#[tokio::test]
async fn operators_not_stable_exit_7() {
    let fx = Fixture::new(true).await;
    fx.server.apply(initialized());
    fx.server.apply(configmap(
        "openshift-config-managed",
        "default-ingress-cert",
        &[("ca-bundle.crt", &Signer::new("ingress").cert_pem())],
    ));
    fx.server.apply(stable_operator("dns"));
    fx.server.apply(cluster_operator(
        "kube-apiserver",
        vec![condition(
            "Progressing",
            "True",
            "NodeInstaller",
            "3 nodes are at revision 7",
        )],
    ));
    let mut opts = fx.install_opts();
    opts.operators_timeout = Duration::from_millis(1500);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let err = wait_install_complete(&cluster, &opts, &rec.sink(), never())
        .await
        .unwrap_err();
    assert_eq!(err.exit_code(), 7);
    let d = err.diagnosis().expect("diagnosis");
    assert_eq!(
        d.last_seen.as_deref(),
        Some("these cluster operators were not stable: [kube-apiserver]")
    );
    assert!(
        d.next_command
            .ends_with("describe clusteroperator kube-apiserver")
    );
}

#[tokio::test]
async fn operator_must_stay_settled_and_missing_console_is_only_a_warning() {
    let fx = Fixture::new(true).await;
    fx.server.apply(initialized());
    fx.server.apply(configmap(
        "openshift-config-managed",
        "default-ingress-cert",
        &[("ca-bundle.crt", &Signer::new("ingress").cert_pem())],
    ));
    let now = time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .expect("format");
    let mut just_settled = condition("Progressing", "False", "", "");
    just_settled["lastTransitionTime"] = now.into();
    fx.server
        .apply(cluster_operator("network", vec![just_settled]));
    let mut opts = fx.install_opts();
    opts.settle = Duration::from_millis(1200);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let summary = wait_install_complete(&cluster, &opts, &rec.sink(), never())
        .await
        .expect("install completes without a console");
    let stable = summary
        .phases
        .iter()
        .find(|p| p.phase == Phase::OperatorsStable)
        .expect("phase");
    assert!(
        stable.elapsed >= Duration::from_millis(1000),
        "{:?}",
        stable.elapsed
    );
    assert!(rec.has_status(Phase::OperatorsStable, "[network]"));
    assert!(summary.console_url.is_none());
    assert_eq!(
        summary.warnings,
        ["route openshift-console/console does not exist"]
    );
}

#[tokio::test]
async fn missing_router_ca_exits_6_and_leaves_the_kubeconfig_alone() {
    let fx = Fixture::new(true).await;
    fx.server.apply(initialized());
    let before = std::fs::read_to_string(&fx.kubeconfig).expect("read");
    let mut opts = fx.install_opts();
    opts.router_ca_timeout = Duration::from_millis(600);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let err = wait_install_complete(&cluster, &opts, &rec.sink(), never())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            WaitError::Timeout {
                phase: Phase::RouterCa,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.exit_code(), 6);
    let d = err.diagnosis().expect("diagnosis");
    assert_eq!(
        d.last_seen.as_deref(),
        Some("configmap openshift-config-managed/default-ingress-cert not found yet")
    );
    assert!(
        d.next_command
            .contains("-n openshift-config-managed get configmap default-ingress-cert")
    );
    assert_eq!(
        std::fs::read_to_string(&fx.kubeconfig).expect("read"),
        before
    );
}

#[tokio::test]
async fn console_route_not_admitted_in_time_is_a_warning() {
    let fx = Fixture::new(true).await;
    fx.server.apply(initialized());
    fx.server.apply(configmap(
        "openshift-config-managed",
        "default-ingress-cert",
        &[("ca-bundle.crt", &Signer::new("ingress").cert_pem())],
    ));
    fx.server.apply(stable_operator("console"));
    fx.server
        .apply(console_route("console.apps.test.example.com", false));
    let mut opts = fx.install_opts();
    opts.console_timeout = Duration::from_millis(700);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let summary = wait_install_complete(&cluster, &opts, &rec.sink(), never())
        .await
        .expect("a missing console is not fatal");
    assert!(summary.console_url.is_none());
    assert_eq!(
        summary.warnings,
        ["console route not admitted within 700ms: console route exists, not admitted yet"]
    );
}
