//! Builders for the objects the waits look at, as JSON the test server stores verbatim.

use serde_json::{Value, json};

/// A condition entry; `lastTransitionTime` is set to the Unix epoch unless given, which
/// reads as "long ago" to the settle check.
pub fn condition(type_: &str, status: &str, reason: &str, message: &str) -> Value {
    json!({"type": type_, "status": status, "reason": reason, "message": message,
           "lastTransitionTime": "1970-01-01T00:00:00Z"})
}

/// ConfigMap `namespace/name` with string data.
pub fn configmap(namespace: &str, name: &str, data: &[(&str, &str)]) -> Value {
    let data: serde_json::Map<String, Value> = data
        .iter()
        .map(|(k, v)| ((*k).to_string(), Value::String((*v).to_string())))
        .collect();
    let mut cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
                        "metadata": {"name": name, "namespace": namespace}});
    if !data.is_empty() {
        cm["data"] = Value::Object(data);
    }
    cm
}

/// A control-plane node (label `node-role.kubernetes.io/master`), Ready or not.
pub fn master_node(name: &str, ready: bool) -> Value {
    json!({"apiVersion": "v1", "kind": "Node",
           "metadata": {"name": name, "labels": {"node-role.kubernetes.io/master": ""}},
           "status": {"conditions": [{"type": "Ready", "status": if ready {"True"} else {"False"},
                                      "reason": "KubeletReady", "message": ""}]}})
}

/// ClusterVersion `version` with the given conditions.
pub fn cluster_version(conditions: Vec<Value>) -> Value {
    json!({"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion",
           "metadata": {"name": "version"}, "status": {"conditions": conditions}})
}

/// ClusterOperator `name` with the given conditions.
pub fn cluster_operator(name: &str, conditions: Vec<Value>) -> Value {
    json!({"apiVersion": "config.openshift.io/v1", "kind": "ClusterOperator",
           "metadata": {"name": name}, "status": {"conditions": conditions}})
}

/// A healthy ClusterOperator that stopped progressing long ago.
pub fn stable_operator(name: &str) -> Value {
    cluster_operator(
        name,
        vec![
            condition("Available", "True", "AsExpected", ""),
            condition("Degraded", "False", "AsExpected", ""),
            condition("Progressing", "False", "AsExpected", ""),
        ],
    )
}

/// `etcds.operator.openshift.io/cluster` with `EtcdBootstrapMemberRemoved` set as given.
pub fn etcd(bootstrap_member_removed: &str) -> Value {
    json!({"apiVersion": "operator.openshift.io/v1", "kind": "Etcd",
           "metadata": {"name": "cluster"},
           "status": {"conditions": [condition("EtcdBootstrapMemberRemoved",
                                               bootstrap_member_removed, "", "")]}})
}

/// Route `openshift-console/console` for `host`, admitted or not.
pub fn console_route(host: &str, admitted: bool) -> Value {
    json!({"apiVersion": "route.openshift.io/v1", "kind": "Route",
           "metadata": {"name": "console", "namespace": "openshift-console"},
           "spec": {"host": host},
           "status": {"ingress": [{"host": host, "conditions": [
               {"type": "Admitted", "status": if admitted {"True"} else {"False"}}]}]}})
}

/// `etcds.operator.openshift.io/cluster` as the bootstrap pivot leaves it: the unsupported
/// override that lets etcd run with fewer members is set.
pub fn etcd_with_pivot_override(bootstrap_member_removed: &str) -> Value {
    let mut e = etcd(bootstrap_member_removed);
    e["spec"] = json!({"managementState": "Managed", "unsupportedConfigOverrides":
                       {"useUnsupportedUnsafeNonHANonProductionUnstableEtcd": true}});
    e
}

/// The requester of a kubelet's first (client) certificate request.
pub const NODE_BOOTSTRAPPER: &str =
    "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper";

/// A CertificateSigningRequest `name` by `username` for `signer`; `approved` adds an
/// Approved condition, otherwise it is pending.
pub fn csr(name: &str, username: &str, signer: &str, approved: bool) -> Value {
    let mut c = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
           "metadata": {"name": name},
           "spec": {"request": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K",
                    "signerName": signer, "username": username,
                    "usages": ["digital signature", "client auth"]},
           "status": {}});
    if approved {
        c["status"]["conditions"] = json!([condition("Approved", "True", "Test", "")]);
    }
    c
}

/// A Warning event about `kind` `namespace/name`, as the kubelet records a failed pull.
pub fn warning_event(namespace: &str, kind: &str, name: &str, message: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{name}.warning"), "namespace": namespace},
        "involvedObject": {"kind": kind, "namespace": namespace, "name": name},
        "type": "Warning", "reason": "Failed", "message": message,
        "lastTimestamp": "2026-12-07T10:00:00Z",
    })
}
