#!/usr/bin/env bash
# Single-node bootstrap-in-place steps (library; sourced by bootkube.sh after cb-bootstrap).
#
# Instead of handing over to other machines, the live host packs the state of its temporary
# control plane into the final master config: it stops the bootstrap etcd so its data is
# consistent, fetches the rendered master config from the local machine-config server,
# takes a log bundle, and lets cluster-bootstrap merge master-update.fcc (etcd data, the
# control-plane pods, certificates and configs, the bundle, the post-reboot service) into
# master.ign, which install-to-disk.sh then writes to the installation disk.
#
# Uses run_stage, run_with_assets, OPENSHIFT_ROOT, ETC_KUBERNETES, BIN_DIR and
# CLUSTER_BOOTSTRAP_IMAGE from bootkube.sh.

ETCD_DATA_DIR="${ETCD_DATA_DIR:-/var/lib/etcd}"
MASTER_CONFIG_URL="http://localhost:22624/config/master"
MASTER_CONFIG_ACCEPT="application/vnd.coreos.ignition+json;version=3.2.0"

# Move the bootstrap etcd member's static pod out of the kubelet's sight and wait until its
# container is gone. The manifest is kept in bootstrap-etcd/; master-update.fcc takes the
# pod from the etcd render's output.
stage_stop_etcd() {
    local manifest
    mkdir -p "${ETC_KUBERNETES}/bootstrap-etcd"
    for manifest in "${ETC_KUBERNETES}"/manifests/etcd*.yaml; do
        if [ -f "${manifest}" ]; then
            mv "${manifest}" "${ETC_KUBERNETES}/bootstrap-etcd/"
        fi
    done
    until [ -z "$(crictl ps --quiet --name '^etcd$')" ]; do
        echo "Waiting for the bootstrap etcd container to stop"
        sleep 5
    done
}

stage_master_ignition() {
    until curl --fail --silent --show-error --header "Accept: ${MASTER_CONFIG_ACCEPT}" \
        --output "${OPENSHIFT_ROOT}/original-master.ign" "${MASTER_CONFIG_URL}"; do
        echo "The machine-config server has no master config yet; asking again in 5s"
        sleep 5
    done
    # The config is fetched: the bootstrap machine-config server and the bootstrap CVO are
    # done here and must not travel to the installed system.
    mkdir -p "${ETC_KUBERNETES}/bootstrap-in-place-removed"
    for manifest in machineconfigoperator-bootstrap-pod.yaml bootstrap-pod.yaml; do
        if [ -f "${ETC_KUBERNETES}/manifests/${manifest}" ]; then
            mv "${ETC_KUBERNETES}/manifests/${manifest}" "${ETC_KUBERNETES}/bootstrap-in-place-removed/"
        fi
    done
    TAR_FILE="${OPENSHIFT_ROOT}/log-bundle-bootstrap.tar.gz" "${BIN_DIR}/installer-gather.sh" --id bootstrap ||
        echo "Gathering the bootstrap log bundle failed; continuing without it" >&2
    if [ ! -f "${OPENSHIFT_ROOT}/log-bundle-bootstrap.tar.gz" ]; then
        # master-update.fcc embeds the bundle, so an empty one stands in.
        tar --create --gzip --file "${OPENSHIFT_ROOT}/log-bundle-bootstrap.tar.gz" --files-from /dev/null
    fi
    pack_master_config
}

# Translate master-update.fcc into master.ign. Local paths in it are relative to the asset
# directory; what lives elsewhere on the host is mounted into it, read-only
# (cluster-bootstrap only reads them).
pack_master_config() {
    podman run --quiet --rm --net=none --security-opt label=disable \
        --volume "${OPENSHIFT_ROOT}:/assets" \
        --volume "${BIN_DIR}:/assets/bin:ro" \
        --volume "${ETCD_DATA_DIR}:/assets/etcd-data:ro" \
        --volume "${ETC_KUBERNETES}:/assets/kubernetes:ro" \
        "${CLUSTER_BOOTSTRAP_IMAGE}" \
        bootstrap-in-place \
        --asset-dir=/assets \
        --input=/assets/bootstrap-in-place/master-update.fcc \
        --output=/assets/master.ign
}

run_stage stop-etcd stage_stop_etcd
run_stage master-ignition stage_master_ignition
