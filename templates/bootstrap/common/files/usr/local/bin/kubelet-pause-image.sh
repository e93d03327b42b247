#!/usr/bin/env bash
# Pick the pause image for the bootstrap kubelet (kubelet.service ExecStartPre).
#
# Writes KUBELET_PAUSE_IMAGE into /etc/kubernetes/kubelet-pause-image-override, which the
# kubelet unit reads as an environment file, unless that file exists already (an earlier
# start, or an administrator's choice).
set -euo pipefail

# Read by bootstrap-service-record.sh: this is a pre-command of kubelet.service.
# shellcheck disable=SC2034
PRE_COMMAND="kubelet-pause-image"
BIN_DIR="${BOOTSTRAP_BIN_DIR:-/usr/local/bin}"
OVERRIDE_FILE="${ETC_KUBERNETES:-/etc/kubernetes}/kubelet-pause-image-override"

# shellcheck source=/dev/null
. "${BIN_DIR}/bootstrap-service-record.sh"

if [ -s "${OVERRIDE_FILE}" ]; then
    echo "Keeping the pause image set in ${OVERRIDE_FILE}"
    exit 0
fi

# shellcheck source=/dev/null
. "${BIN_DIR}/release-image.sh"

record_service_stage_start "resolve-pause-image"
pause_image="$(image_for pod)"
mkdir -p "$(dirname "${OVERRIDE_FILE}")"
tmp="$(mktemp "${OVERRIDE_FILE}.XXXXXX")"
printf 'KUBELET_PAUSE_IMAGE=%s\n' "${pause_image}" >"${tmp}"
mv -f "${tmp}" "${OVERRIDE_FILE}"
echo "The bootstrap kubelet uses pause image ${pause_image}"
record_service_stage_success
