#!/usr/bin/env bash
# Tell the installer that bootstrapping is complete (progress.service).
#
# `okd-install wait-for bootstrap-complete` watches for ConfigMap kube-system/bootstrap with
# status=complete. It is created once bootkube.sh has left .bootkube.done behind, with
# `create` (not apply) so that an existing ConfigMap is never changed; finding it already
# there counts as done (a restart after a successful create).
set -euo pipefail

KUBECONFIG_FILE="${1:?usage: report-progress.sh KUBECONFIG}"
OPENSHIFT_ROOT="${OPENSHIFT_ROOT:-/opt/openshift}"
BIN_DIR="${BOOTSTRAP_BIN_DIR:-/usr/local/bin}"

# shellcheck source=/dev/null
. "${BIN_DIR}/bootstrap-service-record.sh"

create_bootstrap_configmap() {
    local output
    if output="$(oc --kubeconfig="${KUBECONFIG_FILE}" --request-timeout=30s \
        create configmap bootstrap --namespace kube-system --from-literal status=complete 2>&1)"; then
        echo "${output}"
        return 0
    fi
    case "${output}" in
        *AlreadyExists* | *"already exists"*)
            echo "ConfigMap kube-system/bootstrap exists already"
            return 0
            ;;
    esac
    echo "Creating ConfigMap kube-system/bootstrap failed: ${output}" >&2
    return 1
}

record_service_stage_start "wait-for-bootstrap-complete"
until [ -f "${OPENSHIFT_ROOT}/.bootkube.done" ]; do
    sleep 5
done
record_service_stage_success

record_service_stage_start "report-bootstrap-complete"
echo "Reporting install progress..."
until create_bootstrap_configmap; do
    sleep 5
done
record_service_stage_success
