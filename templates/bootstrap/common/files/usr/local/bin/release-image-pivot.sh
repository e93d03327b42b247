#!/usr/bin/env bash
# Move the bootstrap host onto the operating system of the release (release-image-pivot.service).
#
# OKD bootstrap hosts boot a generic Fedora or CentOS Stream CoreOS image. The node software
# the bootstrap control plane relies on (kubelet, CRI-O and their configuration) comes with
# the machine-OS image inside the release payload, so before kubelet.service and
# bootkube.service start, the host rebases onto that image and reboots into it, once.
#
# The script runs on every boot and decides from what rpm-ostree reports, so a restart or a
# kill at any point is safe:
#   - the booted deployment is the release's OS image: nothing to do;
#   - that image is already deployed for the next boot (an earlier run was interrupted
#     before its reboot): reboot into it;
#   - the pivot marker exists although neither holds: the host came back on another
#     deployment after the pivot; fail rather than reboot in a loop;
#   - otherwise: rebase (bounded retries), write the marker, reboot.
# Each step is a stage in the service record (bootstrap-service-record.sh).
set -euo pipefail

BIN_DIR="${BOOTSTRAP_BIN_DIR:-/usr/local/bin}"
OPENSHIFT_ROOT="${OPENSHIFT_ROOT:-/opt/openshift}"
PULL_SECRET_FILE="${PULL_SECRET_FILE:-/root/.docker/config.json}"
# rpm-ostree reads registry credentials from here, not from root's docker configuration.
# Under /run, so the copy of the pull secret is gone after the reboot.
OSTREE_AUTH_FILE="${OSTREE_AUTH_FILE:-/run/ostree/auth.json}"
MAX_ATTEMPTS="${RELEASE_PIVOT_MAX_ATTEMPTS:-10}"
MAX_DELAY=60
MARKER="${OPENSHIFT_ROOT}/.pivot-done"
CHOICE_FILE="${OPENSHIFT_ROOT}/machine-os-image.env"

# Release components that may hold the bootable OS image, tried in this order:
#   stream-coreos  CentOS Stream CoreOS, the OKD payloads from 4.19 on;
#   fedora-coreos  the earlier Fedora CoreOS based OKD payloads;
#   rhel-coreos    OpenShift payloads.
# machine-os-content is deliberately not a candidate: it is the older OS container format
# (an ostree repository packed into an image), which rpm-ostree cannot boot from a registry.
MACHINE_OS_COMPONENTS=(stream-coreos fedora-coreos rhel-coreos)
# The image is named by the release (by digest) and fetched over TLS; no signature policy
# for OS images exists on a bootstrap host, hence the unverified transport.
TRANSPORT="ostree-unverified-registry"

# shellcheck source=/dev/null
. "${BIN_DIR}/bootstrap-service-record.sh"
# shellcheck source=/dev/null
. "${BIN_DIR}/release-image.sh"

# Write stdin to $1 through a temporary file in the same directory, with mode $2.
write_atomically() {
    local target="$1" mode="$2" tmp
    mkdir -p "$(dirname "${target}")"
    tmp="$(mktemp "${target}.XXXXXX")"
    cat >"${tmp}"
    chmod "${mode}" "${tmp}"
    mv -f "${tmp}" "${target}"
}

# Set MACHINE_OS_COMPONENT and MACHINE_OS_IMAGE from the first candidate the release has.
resolve_machine_os_image() {
    local component image
    for component in "${MACHINE_OS_COMPONENTS[@]}"; do
        if image="$(image_for "${component}")" && [ -n "${image}" ]; then
            MACHINE_OS_COMPONENT="${component}"
            MACHINE_OS_IMAGE="${image}"
            echo "The release's OS image is ${component}: ${image}"
            printf 'MACHINE_OS_COMPONENT=%s\nMACHINE_OS_IMAGE=%s\n' "${component}" "${image}" |
                write_atomically "${CHOICE_FILE}" 0644
            return 0
        fi
        echo "No ${component} image in the release"
    done
    echo "Could not resolve any of ${MACHINE_OS_COMPONENTS[*]} from ${RELEASE_IMAGE_DIGEST}" >&2
    return 1
}

# Whether a deployment, given by its container image reference ($1) and manifest digest
# ($2, may be empty), is the release's OS image.
is_release_os() {
    local ref="$1" digest="$2"
    case "${ref}" in
        *"registry:${MACHINE_OS_IMAGE}" | *"docker://${MACHINE_OS_IMAGE}") return 0 ;;
    esac
    case "${MACHINE_OS_IMAGE}" in
        *@sha256:*) [ -n "${digest}" ] && [ "${digest}" = "${MACHINE_OS_IMAGE##*@}" ] ;;
        *) return 1 ;;
    esac
}

# Print "<image reference> <manifest digest> <checksum>" of the first deployment jq selects
# with $2 from the rpm-ostree status JSON in $1 (a missing field prints as "-").
deployment_image() {
    jq -r "[${2}] | first // {} | [
        .\"container-image-reference\", .\"base-commit-meta\".\"ostree.manifest-digest\", .checksum
    ] | map(. // \"-\") | join(\" \")" <<<"$1"
}

# Decide what this boot has to do: sets PIVOT_ACTION to nothing, reboot, rebase or looped.
pivot_action() {
    local status image ref digest checksum
    status="$(rpm-ostree status --json)"
    image="$(deployment_image "${status}" '.deployments[] | select(.booted)')"
    read -r ref digest checksum <<<"${image}"
    echo "Booted deployment ${checksum}: container image ${ref}, manifest digest ${digest}"
    if is_release_os "${ref}" "${digest#-}"; then
        PIVOT_ACTION=nothing
        return 0
    fi
    image="$(deployment_image "${status}" '.deployments[0] | select(.booted | not)')"
    read -r ref digest checksum <<<"${image}"
    if is_release_os "${ref}" "${digest#-}"; then
        PIVOT_ACTION=reboot
    elif [ -e "${MARKER}" ]; then
        PIVOT_ACTION=looped
    else
        PIVOT_ACTION=rebase
    fi
}

# Hand the pull secret to rpm-ostree.
install_ostree_auth() {
    write_atomically "${OSTREE_AUTH_FILE}" 0600 <"${PULL_SECRET_FILE}"
}

# Rebase onto the release's OS image; rpm-ostree pulls it, so network and registry
# trouble shows up here. Tries MAX_ATTEMPTS times, waiting longer after each failure.
# --bypass-driver: should an administrator have let Zincati run (see its drop-in), its
# registration as update driver must not block the pivot, which is not an OS update.
rebase_with_retries() {
    local attempt=1 delay=5
    until rpm-ostree rebase --experimental --bypass-driver "${TRANSPORT}:${MACHINE_OS_IMAGE}"; do
        if [ "${attempt}" -ge "${MAX_ATTEMPTS}" ]; then
            return 1
        fi
        echo "Rebase attempt ${attempt} of ${MAX_ATTEMPTS} failed; trying again in ${delay}s"
        sleep "${delay}"
        attempt=$((attempt + 1))
        delay=$((delay * 2))
        if [ "${delay}" -gt "${MAX_DELAY}" ]; then
            delay="${MAX_DELAY}"
        fi
    done
}

# The marker says the host has been moved to (or already ran) the release's OS image.
write_marker() {
    printf 'MACHINE_OS_COMPONENT=%s\nMACHINE_OS_IMAGE=%s\n' \
        "${MACHINE_OS_COMPONENT}" "${MACHINE_OS_IMAGE}" | write_atomically "${MARKER}" 0644
}

reboot_into_release_os() {
    record_service_stage_start "reboot"
    write_marker
    # Recorded before asking for the reboot: the reboot stops this script.
    record_service_stage_success
    echo "Rebooting into ${MACHINE_OS_IMAGE}"
    shutdown --reboot now "Rebooting the bootstrap host into the release's OS image"
}

record_service_stage_start "resolve-machine-os-image"
resolve_machine_os_image
record_service_stage_success

record_service_stage_start "inspect-deployments"
pivot_action
if [ "${PIVOT_ACTION}" = looped ]; then
    record_service_stage_failure "${MARKER} says the host was moved to ${MACHINE_OS_IMAGE}, but it booted another deployment and none of that image is staged; not rebooting again"
    exit 1
fi
record_service_stage_success

case "${PIVOT_ACTION}" in
    nothing)
        echo "Running the release's OS image already; nothing to do"
        if [ ! -e "${MARKER}" ]; then
            write_marker
        fi
        ;;
    reboot)
        echo "The release's OS image is deployed for the next boot already"
        reboot_into_release_os
        ;;
    rebase)
        record_service_stage_start "rebase-host-os"
        echo "Rebasing the host onto ${MACHINE_OS_IMAGE}"
        install_ostree_auth
        if ! rebase_with_retries; then
            record_service_stage_failure "rpm-ostree rebase to ${MACHINE_OS_IMAGE} failed ${MAX_ATTEMPTS} times"
            exit 1
        fi
        record_service_stage_success
        reboot_into_release_os
        ;;
esac
