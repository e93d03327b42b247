#!/usr/bin/env bash
# Finish a single-node install on the first boot from disk (bootstrap-in-place-post-reboot.service).
#
# master-update.fcc installs this script as /usr/local/bin/bootstrap-in-place-post-reboot.sh.
# The node came up with the bootstrap control plane's etcd data and static pods. There is
# no separate bootstrap host to report completion, so this script does it, hands the
# leader leases of the bootstrap CVO and cluster-policy-controller to the real ones,
# approves the node's certificates, waits for the operator-managed API server to replace
# the bootstrap one and for the cluster version to become available, then removes every
# bootstrap leftover. Each one-time step leaves a marker so a restart skips it.
set -euo pipefail

export KUBECONFIG="${KUBECONFIG:-/etc/kubernetes/bootstrap-secrets/kubeconfig}"
OPENSHIFT_ROOT="${OPENSHIFT_ROOT:-/opt/openshift}"
ETC_KUBERNETES="${ETC_KUBERNETES:-/etc/kubernetes}"
BIN_DIR="${BOOTSTRAP_BIN_DIR:-/usr/local/bin}"
BOOTSTRAP_KAS_MANIFEST="${ETC_KUBERNETES}/manifests/kube-apiserver-pod.yaml"
PRE_REBOOT_BUNDLE="${PRE_REBOOT_BUNDLE:-/var/log/log-bundle-bootstrap.tar.gz}"

# shellcheck source=/dev/null
. "${BIN_DIR}/bootstrap-service-record.sh"

mkdir -p "${OPENSHIFT_ROOT}"

# once MARKER FUNCTION: run FUNCTION as a stage unless MARKER exists; then create MARKER.
once() {
    local marker="${OPENSHIFT_ROOT}/$1" function="$2"
    if [ -f "${marker}" ]; then
        return 0
    fi
    record_service_stage_start "${function#step_}"
    "${function}"
    touch "${marker}"
    record_service_stage_success
}

step_wait_for_api() {
    until oc get --raw=/readyz >/dev/null 2>&1; do
        echo "Waiting for the API server"
        sleep 5
    done
}

step_report_bootstrap_complete() {
    local output
    until output="$(oc create configmap bootstrap --namespace kube-system --from-literal status=complete 2>&1)" ||
        [[ "${output}" == *AlreadyExists* || "${output}" == *"already exists"* ]]; do
        echo "Creating ConfigMap kube-system/bootstrap failed: ${output}" >&2
        sleep 5
    done
}

step_release_cvo_lease() {
    until oc delete leases.coordination.k8s.io version --namespace openshift-cluster-version --ignore-not-found; do
        sleep 5
    done
}

step_release_cpc_lease() {
    until oc delete leases.coordination.k8s.io cluster-policy-controller-lock --namespace kube-system --ignore-not-found; do
        sleep 5
    done
}

step_restore_cvo_overrides() {
    if [ ! -f "${OPENSHIFT_ROOT}/original_cvo_overrides.patch" ]; then
        return 0
    fi
    until oc patch clusterversion.config.openshift.io version --type=merge \
        --patch-file="${OPENSHIFT_ROOT}/original_cvo_overrides.patch"; do
        sleep 10
    done
}

node_ready() {
    oc get nodes --output jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' 2>/dev/null |
        grep --quiet '^True$'
}

step_approve_csrs() {
    local csr
    until node_ready; do
        for csr in $(oc get csr --output go-template='{{range .items}}{{if not .status.conditions}}{{.metadata.name}}{{"\n"}}{{end}}{{end}}' 2>/dev/null); do
            oc adm certificate approve "${csr}" || true
        done
        sleep 10
    done
}

step_wait_for_kas_operator() {
    until oc wait --namespace openshift-kube-apiserver-operator --for=condition=Ready pod \
        --selector app=kube-apiserver-operator --timeout=60s; do
        sleep 5
    done
}

restart_kubelet() {
    systemctl daemon-reload
    systemctl restart kubelet.service
}

step_replace_bootstrap_kas() {
    restart_kubelet
    # The operator's installer overwrites the manifest with the revisioned API server pod.
    while grep --quiet 'bootstrap-kube-apiserver' "${BOOTSTRAP_KAS_MANIFEST}" 2>/dev/null; do
        echo "Waiting for the API server operator to replace the bootstrap API server"
        sleep 10
    done
    restart_kubelet
}

step_wait_for_cluster_version() {
    until oc wait clusterversion/version --for=condition=Available=True --timeout=120s; do
        echo "Cluster operators that are not available yet:"
        oc get clusteroperators --no-headers 2>/dev/null | awk '$3 != "True" {print "  " $1}' || true
    done
}

step_cleanup() {
    rm -rf "${ETC_KUBERNETES}"/bootstrap-*
    rm -f "${BIN_DIR}/installer-gather.sh" "${BIN_DIR}/installer-masters-gather.sh"
    rm -f "${PRE_REBOOT_BUNDLE}"
    systemctl disable bootkube.service 2>/dev/null || true
    systemctl disable bootstrap-in-place-post-reboot.service || true
}

once post-reboot-wait-for-api.done step_wait_for_api
once post-reboot-report.done step_report_bootstrap_complete
once release_cvo_lease.done step_release_cvo_lease
once release_cpc_lease.done step_release_cpc_lease
once post-reboot-cvo-overrides.done step_restore_cvo_overrides
once post-reboot-approve-csrs.done step_approve_csrs
once post-reboot-kas-operator.done step_wait_for_kas_operator
once post-reboot-replace-kas.done step_replace_bootstrap_kas
once post-reboot-cluster-version.done step_wait_for_cluster_version
record_service_stage_start "cleanup"
step_cleanup
record_service_stage_success
# Markers and the rest of the bootstrap tree go last, so a failure above can resume.
rm -rf "${OPENSHIFT_ROOT}"
echo "Single-node installation finished"
