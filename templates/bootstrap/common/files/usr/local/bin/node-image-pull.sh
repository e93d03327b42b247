#!/usr/bin/env bash
# Fetch the release's node image and check it out for the overlay (node-image-pull.service).
#
# OKD 4.19 gives the bootstrap host its node OS without a reboot: the node image of the
# release (stream-coreos for OKD, rhel-coreos for OpenShift) is pulled into an ostree
# repository and checked out; node-image-overlay.sh then mounts the checkout's /usr over the
# booted /usr. This also works on a live ISO or PXE boot, where nothing can be deployed:
# there the repository and the checkout live in a tmpfs (var-ostreecontainer.mount).
#
# Each step is a stage in the service record (bootstrap-service-record.sh).
set -euo pipefail

BIN_DIR="${BOOTSTRAP_BIN_DIR:-/usr/local/bin}"
PULL_SECRET_FILE="${PULL_SECRET_FILE:-/root/.docker/config.json}"
LIVE_MARKER="${OSTREE_LIVE_MARKER:-/run/ostree-live}"
KERNEL_CMDLINE="${KERNEL_CMDLINE:-/proc/cmdline}"
SYSTEM_REPO="${SYSTEM_REPO:-/ostree/repo}"
LIVE_DIR="${NODE_IMAGE_LIVE_DIR:-/var/ostreecontainer}"
DEPLOY_ROOT="${OSTREE_DEPLOY_ROOT:-/ostree/deploy}"
RETRY_DELAY="${NODE_IMAGE_RETRY_DELAY:-10}"
NODE_IMAGE_REF=coreos/node-image
# Release components that may hold the node image, in this order: OKD on CentOS Stream
# CoreOS, then OpenShift.
NODE_IMAGE_COMPONENTS=(stream-coreos rhel-coreos)

# shellcheck source=/dev/null
. "${BIN_DIR}/bootstrap-service-record.sh"
# shellcheck source=/dev/null
. "${BIN_DIR}/release-image.sh"

# Print the node image's pull spec: the first candidate component the release names.
node_image() {
    local component
    for component in "${NODE_IMAGE_COMPONENTS[@]}"; do
        if image_for "${component}" 2>/dev/null; then
            return 0
        fi
    done
    return 1
}

record_service_stage_start "resolve-node-image"
until NODE_IMAGE="$(node_image)"; do
    echo "The release image names no node image yet (${NODE_IMAGE_COMPONENTS[*]}); asking again in ${RETRY_DELAY}s"
    sleep "${RETRY_DELAY}"
done
booted="$(rpm-ostree status --json | jq --raw-output '.deployments[0].version // "unknown"')"
echo "Booted CoreOS ${booted}; the release's node image is ${NODE_IMAGE}"
record_service_stage_success

# On a disk the system repository holds the pull (hard links, read-only checkout); a live
# system's repository is read-only, so a repository in the tmpfs takes it, seeded from the
# system repository so that shared layers are not fetched again.
record_service_stage_start "pull-node-image"
repo="${SYSTEM_REPO}"
checkout="${SYSTEM_REPO}/tmp/node-image"
link_args=(-H)
if [ -e "${LIVE_MARKER}" ]; then
    repo="${LIVE_DIR}/repo"
    checkout="${LIVE_DIR}/checkout"
    link_args=()
    echo "Live system: pulling into ${repo}"
    mkdir -p "${repo}"
    ostree init --mode=bare --repo="${repo}"
    if [ -d "${SYSTEM_REPO}/refs/heads/ostree/container" ]; then
        ostree pull-local --repo="${repo}" "${SYSTEM_REPO}"
    fi
else
    # The service runs with MountFlags=slave, so this remount stays private to it.
    mount -o remount,rw /sysroot
fi
until ostree container image pull --authfile "${PULL_SECRET_FILE}" \
    "${repo}" "ostree-unverified-image:docker://${NODE_IMAGE}"; do
    echo "Pulling ${NODE_IMAGE} failed; trying again in ${RETRY_DELAY}s"
    sleep "${RETRY_DELAY}"
done
# The pull leaves exactly one image ref behind; name it so the overlay can find it.
mapfile -t refs < <(ostree refs --repo="${repo}" | grep '^ostree/container/image/docker' || true)
if [ "${#refs[@]}" -ne 1 ]; then
    echo "Expected one container image ref in ${repo}, found ${#refs[@]}: ${refs[*]:-none}" >&2
    exit 1
fi
ostree refs --repo="${repo}" --create="${NODE_IMAGE_REF}" "${refs[0]}"
record_service_stage_success

# Files the host changed in /etc keep their booted version: the checkout skips them, so the
# overlay's /etc copy never undoes a change made by Ignition (a three-way merge in effect).
record_service_stage_start "checkout-node-image"
if [ -e "${LIVE_MARKER}" ]; then
    # A live system's /etc is its own mount, not the deployment's: show it to config-diff.
    for deployment_etc in "${DEPLOY_ROOT}"/*/deploy/*/etc; do
        mount -o bind,ro "${HOST_ETC:-/etc}" "${deployment_etc}"
    done
fi
etc_changes="$(ostree admin config-diff | awk '{ print "/usr/etc/" $NF }')"
rm -rf "${checkout}"
ostree checkout --repo="${repo}" "${link_args[@]}" \
    --skip-list=<(printf '%s\n' "${etc_changes}") \
    "${NODE_IMAGE_REF}" "${checkout}"
# The Assisted Installer boots from RAM: the repository is not needed once checked out.
if grep -q 'coreos.liveiso=' "${KERNEL_CMDLINE}" && [ "${repo}" != "${SYSTEM_REPO}" ]; then
    rm -rf "${repo}"
fi
echo "Node image ${NODE_IMAGE} checked out at ${checkout}"
record_service_stage_success
