//! TLS disagreements between kubeconfig and server are named precisely.

use std::time::Duration;

use testkit::api::Signer;
use testkit::api::objects::configmap;
use testkit::api::pki::kubeconfig_yaml;
use wait_for::{Phase, WaitError, wait_bootstrap_complete};

use crate::support::{Fixture, Recorder, never};

async fn api_failure(fx: &Fixture) -> WaitError {
    api_failure_with(fx, 5).await
}

/// [`api_failure`] ending with exit code `code` (10 when a cause is named).
async fn api_failure_with(fx: &Fixture, code: i32) -> WaitError {
    let mut opts = fx.bootstrap_opts();
    opts.api_timeout = Duration::from_millis(1000);
    let cluster = fx.cluster().await;
    let rec = Recorder::default();
    let err = wait_bootstrap_complete(&cluster, &opts, &rec.sink(), never())
        .await
        .unwrap_err();
    assert_eq!(err.phase(), Some(Phase::Api));
    assert_eq!(err.exit_code(), code);
    // The status the spinner showed is the same sentence as the diagnosis.
    let seen = err
        .diagnosis()
        .and_then(|d| d.last_seen.clone())
        .unwrap_or_default();
    assert_eq!(rec.statuses(Phase::Api), [seen]);
    err
}

#[tokio::test]
async fn wrong_ca_names_server_certificate_and_trusted_ca() {
    let fx = Fixture::new(true).await;
    let other = Signer::new("some-other-installation-signer");
    fx.rewrite_kubeconfig(&kubeconfig_yaml(
        &fx.server.url(),
        &other.cert_pem(),
        &fx.pki.admin,
        Some(&fx.pki.api_host()),
    ));
    let err = api_failure(&fx).await;
    let d = err.diagnosis().expect("diagnosis");
    assert_eq!(
        d.last_seen.as_deref(),
        Some(
            "x509: unknown authority: server certificate \"CN=api.test.example.com\" issued by \
             \"CN=kube-apiserver-lb-signer, OU=openshift\", kubeconfig trusts \
             \"CN=some-other-installation-signer, OU=openshift\""
        )
    );
    assert!(
        d.likely_cause
            .starts_with("the kubeconfig and the server disagree"),
        "{}",
        d.likely_cause
    );
}

#[tokio::test]
async fn wrong_server_name_lists_the_certificate_names() {
    let fx = Fixture::new(true).await;
    fx.rewrite_kubeconfig(&kubeconfig_yaml(
        &fx.server.url(),
        &fx.pki.server_ca.cert_pem(),
        &fx.pki.admin,
        Some("api.other.example.com"),
    ));
    let err = api_failure(&fx).await;
    let seen = err
        .diagnosis()
        .and_then(|d| d.last_seen.clone())
        .unwrap_or_default();
    assert_eq!(
        seen,
        "x509: server certificate \"CN=api.test.example.com\" (issued by \
         \"CN=kube-apiserver-lb-signer, OU=openshift\") is valid for [api.test.example.com, \
         127.0.0.1], not for \"api.other.example.com\""
    );
}

#[tokio::test]
async fn client_certificate_from_another_ca_is_rejected_plainly() {
    let fx = Fixture::new(true).await;
    let stranger = Signer::new("stranger-signer").issue_client("system:admin", "system:masters");
    fx.rewrite_kubeconfig(&kubeconfig_yaml(
        &fx.server.url(),
        &fx.pki.server_ca.cert_pem(),
        &stranger,
        Some(&fx.pki.api_host()),
    ));
    let err = api_failure(&fx).await;
    let d = err.diagnosis().expect("diagnosis");
    let seen = d.last_seen.clone().unwrap_or_default();
    assert!(
        seen.starts_with(
            "the API server rejected the kubeconfig's client certificate \
             \"CN=system:admin, O=system:masters\" (issued by \"CN=stranger-signer, OU=openshift\")"
        ),
        "{seen}"
    );
    assert!(
        d.likely_cause
            .contains("does not accept this kubeconfig's client certificate")
    );
}

#[tokio::test]
async fn http_401_is_reported_as_client_certificate_rejection() {
    let fx = Fixture::new(true).await;
    fx.server.force_status(Some(401));
    let err = api_failure(&fx).await;
    let seen = err
        .diagnosis()
        .and_then(|d| d.last_seen.clone())
        .unwrap_or_default();
    assert!(seen.contains("client certificate"), "{seen}");
    assert!(seen.ends_with("HTTP 401 Unauthorized"), "{seen}");
}

#[tokio::test]
async fn kubeconfig_without_ca_is_refused_before_connecting() {
    let fx = Fixture::new(true).await;
    fx.server.apply(configmap(
        "kube-system",
        "bootstrap",
        &[("status", "complete")],
    ));
    let yaml = std::fs::read_to_string(&fx.kubeconfig).expect("read");
    let without_ca: String = yaml
        .lines()
        .filter(|l| !l.contains("certificate-authority-data"))
        .map(|l| format!("{l}\n"))
        .collect();
    fx.rewrite_kubeconfig(&without_ca);
    let err = wait_for::Cluster::from_kubeconfig(&fx.kubeconfig)
        .await
        .unwrap_err();
    assert_eq!(err.exit_code(), 1);
    assert!(
        err.to_string().contains("clusters[0].cluster: neither certificate-authority-data nor certificate-authority is set"),
        "{err}"
    );
}

#[tokio::test]
async fn expired_server_certificate_says_when() {
    let pki = testkit::api::TestPki::generate("test.example.com");
    let expired = pki.server_ca.issue_expired_server(
        "api.test.example.com",
        &["api.test.example.com"],
        &["127.0.0.1".parse().expect("ip")],
    );
    let server = testkit::api::TestApiServer::start(
        &expired.cert_pem,
        &expired.key_pem,
        &pki.client_ca.cert_pem(),
    )
    .await;
    let fx = Fixture::new(false).await;
    fx.rewrite_kubeconfig(&kubeconfig_yaml(
        &server.url(),
        &pki.server_ca.cert_pem(),
        &pki.admin,
        Some(&pki.api_host()),
    ));
    let err = api_failure_with(&fx, 10).await;
    let d = err.diagnosis().expect("diagnosis");
    let seen = d.last_seen.clone().unwrap_or_default();
    // Go's crypto/x509 words, as the payload's kubectl says them for the same certificate.
    assert!(
        seen.starts_with("x509: certificate has expired or is not yet valid: current time "),
        "{seen}"
    );
    assert!(
        seen.contains(" is after 2001-01-01T00:00:00Z: server certificate \"CN=api.test.example.com\" valid from 2000-01-01T00:00:00Z to 2001-01-01T00:00:00Z"),
        "{seen}"
    );
    let f = d.finding.as_ref().expect("a named cause");
    assert_eq!(f.cause, contract::Cause::CertificatesExpired);
    assert_eq!(f.evidence, seen);
    assert_eq!(contract::Cause::recognise(&seen, None), Some(f.cause));
}

#[tokio::test]
async fn a_server_certificate_not_valid_yet_is_the_clock_not_the_ca() {
    let pki = testkit::api::TestPki::generate("test.example.com");
    let future = pki.server_ca.issue_future_server(
        "api.test.example.com",
        &["api.test.example.com"],
        &["127.0.0.1".parse().expect("ip")],
    );
    let server = testkit::api::TestApiServer::start(
        &future.cert_pem,
        &future.key_pem,
        &pki.client_ca.cert_pem(),
    )
    .await;
    let fx = Fixture::new(false).await;
    fx.rewrite_kubeconfig(&kubeconfig_yaml(
        &server.url(),
        &pki.server_ca.cert_pem(),
        &pki.admin,
        Some(&pki.api_host()),
    ));
    let err = api_failure_with(&fx, 10).await;
    let d = err.diagnosis().expect("diagnosis");
    let f = d.finding.as_ref().expect("a named cause");
    assert_eq!(f.cause, contract::Cause::CertificatesNotYetValid);
    assert!(
        f.evidence
            .contains(" is before 2099-01-01T00:00:00Z: server certificate "),
        "{}",
        f.evidence
    );
    assert!(
        d.to_string()
            .contains("cause (certificates-not-yet-valid): "),
        "{d}"
    );
}

#[tokio::test]
async fn unresolvable_api_name_is_a_dns_problem() {
    let fx = Fixture::new(false).await;
    fx.rewrite_kubeconfig(&kubeconfig_yaml(
        "https://api.cluster.nonexistent.invalid:6443",
        &fx.pki.server_ca.cert_pem(),
        &fx.pki.admin,
        None,
    ));
    let err = api_failure_with(&fx, 10).await;
    let d = err.diagnosis().expect("diagnosis");
    let seen = d.last_seen.clone().unwrap_or_default();
    assert!(seen.starts_with("DNS lookup failed"), "{seen}");
    let f = d.finding.as_ref().expect("a named cause");
    assert_eq!(f.cause, contract::Cause::ApiDns);
    assert_eq!(
        f.summary,
        "api.cluster.nonexistent.invalid does not resolve where okd-install runs"
    );
    assert!(
        d.likely_cause
            .starts_with("api.cluster.nonexistent.invalid does not resolve"),
        "{}",
        d.likely_cause
    );
}
