#!/usr/bin/env bash
# Lay the release's node image over the booted /usr (node-image-overlay.service).
#
# node-image-pull.sh checked the image out; its /usr is bind-mounted read-only over the
# host's, keeping the booted kernel's modules, and its default /etc is copied into /etc.
# Nothing is written to disk and no reboot happens, so this works on live systems too.
set -euo pipefail

BIN_DIR="${BOOTSTRAP_BIN_DIR:-/usr/local/bin}"
SYSTEM_REPO="${SYSTEM_REPO:-/ostree/repo}"
LIVE_DIR="${NODE_IMAGE_LIVE_DIR:-/var/ostreecontainer}"
HOST_USR="${HOST_USR:-/usr}"
HOST_ETC="${HOST_ETC:-/etc}"

# shellcheck source=/dev/null
. "${BIN_DIR}/bootstrap-service-record.sh"

record_service_stage_start "overlay-node-image"
checkout="${SYSTEM_REPO}/tmp/node-image"
if [ ! -d "${checkout}" ]; then
    checkout="${LIVE_DIR}/checkout"
fi
if [ ! -d "${checkout}/usr" ]; then
    echo "No node image checkout at ${SYSTEM_REPO}/tmp/node-image or ${LIVE_DIR}/checkout" >&2
    exit 1
fi
echo "Mounting ${checkout}/usr over ${HOST_USR}"
# The running kernel's modules are the booted image's, not the node image's.
mount -o bind,ro "${HOST_USR}/lib/modules" "${checkout}/usr/lib/modules"
mount -o rbind,ro "${checkout}/usr" "${HOST_USR}"
rsync --archive "${checkout}/usr/etc/" "${HOST_ETC}/"
record_service_stage_success

record_service_stage_start "reload-host-services"
# The node image brings its own SELinux policy and may bring a newer sshd.
semodule -R
systemctl --no-block try-restart sshd.service
record_service_stage_success
