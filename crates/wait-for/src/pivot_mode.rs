//! Bootstrap pivot mode: what `wait-for bootstrap-complete` does for the host that turns from
//! bootstrap into the third control-plane node.
//!
//! The pivot script on that host publishes its step in ConfigMap `kube-system/bootstrap-pivot`
//! (`data.stage`, `data.failure`, `data.etcdOverride`). After its reboot the host's kubelet
//! asks for certificates; on platforms without Machine objects nothing else approves them, so
//! the wait approves kubelet requests while it waits for the third Ready master. Once three
//! are Ready it removes the etcd override the script set, because the installer holds admin
//! credentials and the freshly installed master does not.

use k8s_openapi::api::certificates::v1::{
    CertificateSigningRequest, CertificateSigningRequestCondition,
};
use kube::Api;
use kube::api::{DynamicObject, ListParams, Patch, PatchParams};
use serde_json::{Value, json};

use crate::report::{Class, Reporter};
use crate::resources::etcd_resource;

/// Requester of a kubelet's client certificate before the node has one.
pub(crate) const NODE_BOOTSTRAPPER: &str =
    "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper";
const CLIENT_SIGNER: &str = "kubernetes.io/kube-apiserver-client-kubelet";
const SERVING_SIGNER: &str = "kubernetes.io/kubelet-serving";
use contract::pivot::ETCD_OVERRIDE_KEY;

/// Which kind of kubelet certificate a pending request is for, if the wait may approve it.
fn approvable(csr: &CertificateSigningRequest) -> Option<&'static str> {
    let decided = csr
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| {
            c.iter()
                .any(|c| matches!(c.type_.as_str(), "Approved" | "Denied" | "Failed"))
        });
    if decided {
        return None;
    }
    let user = csr.spec.username.as_deref().unwrap_or_default();
    match csr.spec.signer_name.as_str() {
        CLIENT_SIGNER if user == NODE_BOOTSTRAPPER || user.starts_with("system:node:") => {
            Some("kubelet client certificate")
        }
        SERVING_SIGNER if user.starts_with("system:node:") => Some("kubelet serving certificate"),
        _ => None,
    }
}

fn approval_patch() -> Value {
    let condition = CertificateSigningRequestCondition {
        type_: "Approved".into(),
        status: "True".into(),
        reason: Some("OkdInstallBootstrapPivot".into()),
        message: Some(
            "approved by okd-install wait-for bootstrap-complete for the pivoted bootstrap host"
                .into(),
        ),
        ..Default::default()
    };
    json!({"status": {"conditions": [condition]}})
}

/// Approve every pending kubelet certificate request; each approval becomes a status event.
/// Returns the names approved.
pub(crate) async fn approve_pending_csrs(rep: &Reporter<'_>) -> Vec<String> {
    let api: Api<CertificateSigningRequest> = Api::all(rep.cluster.client.clone());
    let Some(list) = rep.request(api.list(&ListParams::default())).await else {
        return Vec::new();
    };
    let params = PatchParams::default();
    let mut approved = Vec::new();
    for csr in &list.items {
        let (Some(name), Some(kind)) = (csr.metadata.name.as_deref(), approvable(csr)) else {
            continue;
        };
        let patch = Patch::Merge(approval_patch());
        let done = api.patch_approval(name, &params, &patch);
        if rep.request(done).await.is_some() {
            let user = csr.spec.username.as_deref().unwrap_or_default();
            rep.note(format!(
                "approved certificate signing request {name} ({kind} for {user})"
            ));
            approved.push(name.to_string());
        }
    }
    approved
}

/// Remove the pivot's etcd override. `Some(true)`: removed, `Some(false)`: nothing to remove,
/// `None`: a request failed (already reported), try again.
pub(crate) async fn remove_etcd_override(rep: &Reporter<'_>) -> Option<bool> {
    let api: Api<DynamicObject> = Api::all_with(rep.cluster.client.clone(), &etcd_resource());
    let Some(etcd) = rep.request(api.get_opt("cluster")).await? else {
        rep.note("etcds.operator.openshift.io/cluster not found: no etcd override to remove");
        return Some(false);
    };
    let overrides = etcd
        .data
        .pointer("/spec/unsupportedConfigOverrides")
        .and_then(Value::as_object);
    let Some(overrides) = overrides.filter(|o| o.contains_key(ETCD_OVERRIDE_KEY)) else {
        rep.note(
            "the etcd override of the bootstrap pivot is not set (removed already, or never set)",
        );
        return Some(false);
    };
    // Only the pivot's key is ours: other unsupported overrides someone set stay.
    let body = if overrides.len() == 1 {
        json!({"spec": {"unsupportedConfigOverrides": null}})
    } else {
        json!({"spec": {"unsupportedConfigOverrides": {ETCD_OVERRIDE_KEY: null}}})
    };
    let (patch, params) = (Patch::Merge(body), PatchParams::default());
    rep.request(api.patch("cluster", &params, &patch)).await?;
    rep.observe(
        format!(
            "removed the etcd override {ETCD_OVERRIDE_KEY} (etcds.operator.openshift.io/cluster): \
             etcd needs a quorum of the three control-plane members again"
        ),
        Class::Observation,
    );
    Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csr(user: &str, signer: &str, condition: Option<&str>) -> CertificateSigningRequest {
        let mut v = json!({"metadata": {"name": "c"},
                           "spec": {"request": "", "signerName": signer, "username": user}});
        if let Some(c) = condition {
            v["status"] = json!({"conditions": [{"type": c, "status": "True"}]});
        }
        serde_json::from_value(v).expect("csr")
    }

    #[test]
    fn only_pending_kubelet_requests_are_approvable() {
        let node = "system:node:master-2";
        assert_eq!(
            approvable(&csr(NODE_BOOTSTRAPPER, CLIENT_SIGNER, None)),
            Some("kubelet client certificate")
        );
        assert_eq!(
            approvable(&csr(node, SERVING_SIGNER, None)),
            Some("kubelet serving certificate")
        );
        assert!(approvable(&csr(node, CLIENT_SIGNER, None)).is_some());
        for decided in ["Approved", "Denied", "Failed"] {
            assert_eq!(approvable(&csr(node, SERVING_SIGNER, Some(decided))), None);
        }
        // The bootstrapper may only ask for a client certificate.
        assert_eq!(
            approvable(&csr(NODE_BOOTSTRAPPER, SERVING_SIGNER, None)),
            None
        );
        assert_eq!(
            approvable(&csr("system:serviceaccount:default:x", CLIENT_SIGNER, None)),
            None
        );
        assert_eq!(approvable(&csr(node, "example.com/other", None)), None);
    }
}
