#!/usr/bin/env bash
# Gather hook for bootkube.sh (library; source it).
#
# When cluster-bootstrap gives up, the interesting state (pods that never came up, the
# bootstrap API server's view of the cluster) is gone after the next restart. This hook
# takes a log bundle right away and leaves it next to the service records, so that
# `okd-install gather bootstrap` and a human on the host both find it.

# cluster_bootstrap_gather: write /var/log/openshift/cluster-bootstrap-failure-<time>.tar.gz.
# Never fails: a failed gather must not hide the failure it was meant to explain.
cluster_bootstrap_gather() {
    local bin_dir="${BIN_DIR:-/usr/local/bin}"
    local records_dir="${SERVICE_RECORDS_DIR:-/var/log/openshift}"
    local id
    id="cluster-bootstrap-failure-$(date -u +%Y%m%dT%H%M%SZ)"
    mkdir -p "${records_dir}" || return 0
    echo "Gathering diagnostics into ${records_dir}/${id}.tar.gz"
    # Root here has no key for the masters: trying them would only delay the restart.
    GATHER_MASTERS=no TAR_FILE="${records_dir}/${id}.tar.gz" "${bin_dir}/installer-gather.sh" --id "${id}" || \
        echo "Gathering diagnostics failed; continuing" >&2
    return 0
}
