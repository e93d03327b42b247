#!/usr/bin/env bash
# Tell the installer that bootstrapping is complete (progress.service).
#
# `okd-install wait-for bootstrap-complete` watches for ConfigMap kube-system/bootstrap with
# status=complete. It is created once bootkube.sh has left .bootkube.done behind, with
# `create` (not apply) so that an existing ConfigMap is never changed; finding it already
# there counts as done (a restart after a successful create).
#
# On a highly available control plane the report also waits until the API is served by
# three endpoints (default/kubernetes): the installer takes the ConfigMap as its cue to
# remove the bootstrap host, which must not happen while the bootstrap API server is one of
# only two.
set -euo pipefail

KUBECONFIG_FILE="${1:?usage: report-progress.sh KUBECONFIG}"
OPENSHIFT_ROOT="${OPENSHIFT_ROOT:-/opt/openshift}"
BIN_DIR="${BOOTSTRAP_BIN_DIR:-/usr/local/bin}"
HA_API_ENDPOINTS="${HA_API_ENDPOINTS:-3}"
POLL_DELAY="${REPORT_POLL_DELAY:-5}"

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

# Print the control-plane topology of the cluster's Infrastructure status; fail when the
# API cannot say.
control_plane_topology() {
    local topology
    topology="$(oc --kubeconfig="${KUBECONFIG_FILE}" --request-timeout=30s \
        get infrastructures.config.openshift.io cluster --output 'jsonpath={.status.controlPlaneTopology}')" || return 1
    [ -n "${topology}" ] || return 1
    printf '%s\n' "${topology}"
}

# Succeed when default/kubernetes lists at least HA_API_ENDPOINTS addresses.
ha_api_available() {
    local addresses count
    addresses="$(oc --kubeconfig="${KUBECONFIG_FILE}" --request-timeout=30s \
        get endpoints kubernetes --namespace default \
        --output 'jsonpath={range .subsets[*]}{range .addresses[*]}{.ip}{" "}{end}{end}')" || return 1
    count="$(wc -w <<<"${addresses}")"
    echo "The API is served from ${count} address(es): ${addresses:-none}"
    [ "${count}" -ge "${HA_API_ENDPOINTS}" ]
}

record_service_stage_start "wait-for-bootstrap-complete"
until [ -f "${OPENSHIFT_ROOT}/.bootkube.done" ]; do
    sleep "${POLL_DELAY}"
done
record_service_stage_success

record_service_stage_start "wait-for-ha-api"
until topology="$(control_plane_topology)"; do
    echo "The Infrastructure status has no control-plane topology yet; asking again in ${POLL_DELAY}s"
    sleep "${POLL_DELAY}"
done
if [ "${topology}" = HighlyAvailable ]; then
    echo "Waiting for ${HA_API_ENDPOINTS} API endpoints on default/kubernetes"
    until ha_api_available; do
        sleep "${POLL_DELAY}"
    done
else
    echo "Control-plane topology ${topology}: no API endpoints to wait for"
fi
record_service_stage_success

record_service_stage_start "report-bootstrap-complete"
echo "Telling okd-install that the bootstrap is done (ConfigMap kube-system/bootstrap)"
until create_bootstrap_configmap; do
    sleep "${POLL_DELAY}"
done
record_service_stage_success
