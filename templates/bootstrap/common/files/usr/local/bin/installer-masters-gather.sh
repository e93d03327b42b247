#!/usr/bin/env bash
# Collect diagnostics on a control-plane host: installer-masters-gather.sh [--id ID]
#
# Run by installer-gather.sh on the bootstrap host (over ssh, or locally on a single node
# after its reboot). Output goes to ${ARTIFACTS_DIR:-/tmp/artifacts-<ID>}:
# failed-units.txt, unit-status/, journals/, network/, containers/. Best effort throughout.
set -uo pipefail

ID=""
while [ "$#" -gt 0 ]; do
    case "$1" in
        --id)
            ID="${2:?--id needs a value}"
            shift 2
            ;;
        --id=*)
            ID="${1#--id=}"
            shift
            ;;
        *)
            echo "usage: installer-masters-gather.sh [--id ID]" >&2
            exit 2
            ;;
    esac
done
ID="${ID:-$(date -u +%Y%m%d%H%M%S)}"
ARTIFACTS="${ARTIFACTS_DIR:-/tmp/artifacts-${ID}}"
mkdir -p "${ARTIFACTS}/unit-status" "${ARTIFACTS}/journals" "${ARTIFACTS}/network" "${ARTIFACTS}/containers"

echo "Gathering failed units"
systemctl --failed --no-legend --plain --no-pager >"${ARTIFACTS}/failed-units.txt"
while read -r unit _; do
    [ -n "${unit}" ] || continue
    systemctl status --full --no-pager "${unit}" >"${ARTIFACTS}/unit-status/${unit}.txt" 2>&1
    journalctl --boot --no-pager --unit "${unit}" >"${ARTIFACTS}/unit-status/${unit}.log" 2>&1
done <"${ARTIFACTS}/failed-units.txt"

echo "Gathering journals"
for service in kubelet crio machine-config-daemon-host pivot openshift-azure-routes openshift-gcp-routes; do
    journalctl --boot --no-pager --output=short --unit "${service}" >"${ARTIFACTS}/journals/${service}.log" 2>&1
done

echo "Gathering network state"
ip addr >"${ARTIFACTS}/network/ip-addr.txt" 2>&1
ip route >"${ARTIFACTS}/network/ip-route.txt" 2>&1
hostname >"${ARTIFACTS}/network/hostname.txt" 2>&1
cp /etc/resolv.conf "${ARTIFACTS}/network/" 2>/dev/null

echo "Gathering container logs"
for id in $(crictl ps --all --quiet 2>/dev/null); do
    name="$(crictl inspect --output go-template --template '{{.status.metadata.name}}' "${id}" 2>/dev/null)"
    crictl logs "${id}" >"${ARTIFACTS}/containers/${name:-unknown}-${id}.log" 2>&1
    crictl inspect "${id}" >"${ARTIFACTS}/containers/${name:-unknown}-${id}.inspect" 2>&1
done
for id in $(podman ps --all --quiet 2>/dev/null); do
    podman logs "${id}" >"${ARTIFACTS}/containers/podman-${id}.log" 2>&1
    podman inspect "${id}" >"${ARTIFACTS}/containers/podman-${id}.inspect" 2>&1
done
echo "Done: ${ARTIFACTS}"
