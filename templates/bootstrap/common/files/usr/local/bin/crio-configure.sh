#!/usr/bin/env bash
# Configure CRI-O for the bootstrap control plane (crio-configure.service, before crio).
#
# The bootstrap kubelet has no cluster credentials, so CRI-O itself must authenticate its
# pulls with the install pull secret, and its sandbox (pause) image must be the one of
# this release rather than the OS default, started with that image's own command. The OCI
# hook directories are those the machine-config operator gives every node, so a hook a
# node relies on also runs for the bootstrap pods.
set -euo pipefail

BIN_DIR="${BOOTSTRAP_BIN_DIR:-/usr/local/bin}"
CRIO_DROPIN_DIR="${CRIO_DROPIN_DIR:-/etc/crio/crio.conf.d}"
PULL_SECRET_FILE=/root/.docker/config.json

# shellcheck source=/dev/null
. "${BIN_DIR}/bootstrap-service-record.sh"
# shellcheck source=/dev/null
. "${BIN_DIR}/release-image.sh"

record_service_stage_start "configure-crio"
pause_image="$(image_for pod)"
mkdir -p "${CRIO_DROPIN_DIR}"
target="${CRIO_DROPIN_DIR}/50-okd-bootstrap.conf"
tmp="$(mktemp "${target}.XXXXXX")"
cat >"${tmp}" <<CONF
# Written by crio-configure.sh on the bootstrap host.
[crio.runtime]
hooks_dir = [
    "/usr/share/containers/oci/hooks.d",
    "/etc/containers/oci/hooks.d",
]

[crio.image]
global_auth_file = "${PULL_SECRET_FILE}"
pause_image = "${pause_image}"
pause_command = "/usr/bin/pod"
pause_image_auth_file = "${PULL_SECRET_FILE}"
CONF
chmod 0644 "${tmp}"
mv -f "${tmp}" "${target}"
echo "CRI-O uses pause image ${pause_image}"
record_service_stage_success
