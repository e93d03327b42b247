//! What the API itself can tell about why the bootstrap stalls: the Warning events its
//! components recorded (the kubelet's failed pulls, a pod's x509 complaints). A failed pull
//! is worded by `contract::registry_error`, the reader the analysis of the host's records
//! uses, so `wait-for` with and without `--bootstrap` says a fault the same way.
//!
//! The API alone cannot see a bootstrap host whose API never came up; the binary adds the
//! host's own records over SSH for that (see `okd-install wait-for --bootstrap`).

use std::time::Duration;

use contract::cause::{Cause, Finding};
use contract::create_failure::CreateFailure;
use contract::registry_error::{self, MirrorRule, PullContext, PulledImage};
use k8s_openapi::api::core::v1::Event as KubeEvent;
use kube::Api;
use kube::api::ListParams;

use crate::client::Cluster;

/// Longest wait for the event list: the diagnosis must not hang on a slow API.
const LIST_TIMEOUT: Duration = Duration::from_secs(5);

/// The newest Warning event whose message names a cause, as a finding whose unit is the
/// object the event is about.
pub(crate) async fn event_finding(cluster: &Cluster) -> Option<Finding> {
    let api: Api<KubeEvent> = Api::all(cluster.client.clone());
    let params = ListParams::default().fields("type=Warning").limit(500);
    let list = tokio::time::timeout(LIST_TIMEOUT, api.list(&params))
        .await
        .ok()?
        .ok()?;
    let mut events = list.items;
    events.sort_by_key(|e| e.last_timestamp.clone().map(|t| t.0));
    events
        .iter()
        .rev()
        .find_map(|e| finding_of(e, &cluster.mirror_rules))
}

/// The finding one event names, if any; `rules` route a pull error that names no registry.
fn finding_of(event: &KubeEvent, rules: &[MirrorRule]) -> Option<Finding> {
    let message = event.message.as_deref()?.trim();
    let cause = Cause::recognise(message, None)?;
    let object = &event.involved_object;
    let unit = match (&object.kind, &object.namespace, &object.name) {
        (Some(kind), Some(ns), Some(name)) => Some(format!("{} {ns}/{name}", kind.to_lowercase())),
        (Some(kind), None, Some(name)) => Some(format!("{} {name}", kind.to_lowercase())),
        _ => None,
    };
    Some(worded(cause, message, rules).at(unit, None))
}

/// The finding for `message`: a failed pull (the kubelet's, of a pod's image) worded by the
/// registry-error reader as the analysis words the host's pulls, with the image, each
/// registry tried and why (a registry the line does not name is the one `rules` send the
/// image to first); anything else with the cause's own words.
fn worded(cause: Cause, message: &str, rules: &[MirrorRule]) -> Finding {
    let registry_answer = registry_error::read_pull(message).is_some_and(|p| p.image.is_some());
    match cause {
        Cause::ReleaseImagePull
        | Cause::NodeImagePull
        | Cause::CertificatesExpired
        | Cause::CertificatesNotYetValid
            if registry_answer =>
        {
            let context = PullContext {
                image: None,
                rules: rules.to_vec(),
            };
            Finding::pull_in(cause, message, &PulledImage::Payload, None, &context)
        }
        // A line of cluster-bootstrap's create loop, in the words the bundle's analysis
        // uses for it (the file, the object and the API server's reason).
        Cause::UserManifest => {
            let mut f = Finding::new(cause, message);
            if let Some((_, failure)) = CreateFailure::parse(message) {
                f.summary = failure.summary();
            }
            f
        }
        _ => Finding::new(cause, message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same refusal wait-for sees in an event is said in the analysis' words.
    #[test]
    fn a_create_loop_line_is_said_as_the_analysis_says_it() {
        let line = r#""99-user-widget.yaml": failed to create widgets.v1.widgets.example.com/my-widget -n default: no matches for kind "Widget" in version "widgets.example.com/v1""#;
        let f = finding_of(&event(line), &[]).expect("a finding");
        assert_eq!(f.cause, Cause::UserManifest);
        let (_, failure) = CreateFailure::parse(line).unwrap();
        assert_eq!(f.summary, failure.summary());
        assert!(
            f.summary.contains("99-user-widget.yaml")
                && f.summary.contains("Widget in widgets.example.com/v1")
        );
    }

    fn event(message: &str) -> KubeEvent {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "e1", "namespace": "openshift-etcd"},
            "involvedObject": {"kind": "Pod", "namespace": "openshift-etcd", "name": "etcd-bootstrap"},
            "type": "Warning",
            "reason": "Failed",
            "message": message,
        }))
        .expect("event")
    }

    #[test]
    fn a_kubelet_pull_failure_names_the_release_image_and_the_pod() {
        // The kubelet's Failed event wraps the runtime's pull error (podman/c-image words).
        let e = event(
            "Failed to pull image \"quay.io/okd/scos-content@sha256:0\": initializing source \
             docker://quay.io/okd/scos-content@sha256:0: pinging container registry quay.io: \
             Get \"https://quay.io/v2/\": dial tcp: lookup quay.io on 10.255.255.53:53: no such host",
        );
        let f = finding_of(&e, &[]).expect("finding");
        assert_eq!(f.cause, Cause::ReleaseImagePull);
        assert_eq!(f.unit.as_deref(), Some("pod openshift-etcd/etcd-bootstrap"));
        // Worded by the reader the analysis uses: the image, the registry and why.
        assert_eq!(
            f.summary,
            "the bootstrap host could not pull a payload image of the release \
             `quay.io/okd/scos-content@sha256:0` because `quay.io` does not resolve on the \
             host (asked the resolver 10.255.255.53:53); no mirror was tried for it"
        );
        assert!(f.remedy.starts_with("create the DNS record for `quay.io`"));
        assert!(finding_of(&event("Back-off restarting failed container"), &[]).is_none());
    }

    /// The kubelet's event for a pull through a mirror (the CRI-O words of an OpenShift
    /// node): the mirror's fault and the source's, as `analyze` says them of the host.
    #[test]
    fn a_mirrored_pull_event_names_each_registry_as_the_analysis_does() {
        let message = "Failed to pull image \"quay.io/okd/scos-content@sha256:0\": rpc error: \
             code = Unknown desc = initializing source docker://quay.io/okd/scos-content@sha256:0: \
             (Mirrors also failed: [registry.example.com:5000/okd/scos-content@sha256:0: reading \
             manifest sha256:0 in registry.example.com:5000/okd/scos-content: manifest unknown: \
             manifest unknown]): quay.io/okd/scos-content@sha256:0: pinging container registry \
             quay.io: Get \"https://quay.io/v2/\": dial tcp: lookup quay.io on 10.0.0.1:53: no \
             such host";
        let f = finding_of(&event(message), &[]).expect("finding");
        assert_eq!(f.cause, Cause::ReleaseImagePull);
        let pull = registry_error::read_pull(message).expect("read");
        assert_eq!(
            f.summary,
            PulledImage::Payload.summary(Some(&pull)),
            "the analysis' words"
        );
        assert!(
            f.summary
                .contains("its mirror `registry.example.com:5000` does not hold"),
            "{}",
            f.summary
        );
        assert_eq!(f.remedy, pull.remedy());
        assert!(
            f.remedy
                .starts_with("mirror the image to `registry.example.com:5000`")
        );
    }

    /// A layer missing on the registry, as the kubelet's event wraps CRI-O's error: the
    /// class is the blob's, with the digest; the fix speaks of no credentials, trust or
    /// mirror rules, which the event is not about.
    #[test]
    fn a_blob_missing_on_the_registry_gets_no_unsupported_advice() {
        let message = "Failed to pull image \"quay.io/okd/scos-content@sha256:0\": rpc error: \
             code = Unknown desc = reading blob sha256:4d41aa: Error fetching blob: invalid \
             status code from registry 404 (Not Found)";
        let f = finding_of(&event(message), &[]).expect("finding");
        assert_eq!(f.cause, Cause::ReleaseImagePull);
        let pull = registry_error::read(message).expect("read");
        assert_eq!(pull.fault, registry_error::RegistryFault::BlobUnknown);
        assert!(f.summary.contains("sha256:4d41aa"), "{}", f.summary);
        for lead in ["pull secret", "additionalTrustBundle", "imageDigestSources"] {
            assert!(
                !f.summary.contains(lead) && !f.remedy.contains(lead),
                "{lead}: {f:?}"
            );
        }
    }

    /// The same blob missing, on a cluster whose install-config mirrors the image: the line
    /// names no registry, so the mirror the rules send the pull to first is the one named,
    /// never the image's own registry, which the node did not ask.
    #[test]
    fn a_blob_missing_on_the_mirror_names_the_mirror_from_the_rules() {
        let message = "Failed to pull image \"quay.io/okd/scos-content@sha256:0\": rpc error: \
             code = Unknown desc = reading blob sha256:4d41aa: Error fetching blob: invalid \
             status code from registry 404 (Not Found)";
        let rules = [MirrorRule {
            source: "quay.io/okd/scos-content".into(),
            mirrors: vec!["mirror.example.com:5000/okd/scos-content".into()],
            digest_only: true,
        }];
        let f = finding_of(&event(message), &rules).expect("finding");
        assert!(
            f.summary.contains("mirror.example.com:5000"),
            "{}",
            f.summary
        );
        assert!(
            !f.summary.contains("`quay.io`") && !f.remedy.contains("`quay.io`"),
            "{f:?}"
        );
        let unrouted = finding_of(&event(message), &[]).expect("finding");
        assert!(!unrouted.summary.contains("mirror.example.com"));
    }
}
