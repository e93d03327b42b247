#!/usr/bin/env bash
# Collect diagnostics on a control-plane host: installer-masters-gather.sh [--id ID]
#
# installer-gather.sh on the bootstrap host copies this here and runs it with sudo over ssh
# (or locally on a single node after its reboot), then fetches the output. It runs as root:
# the journal, the container runtimes and rpm-ostree need it. Output goes to
# ${ARTIFACTS_DIR:-/tmp/artifacts-<ID>}:
#   failed-units.txt, unit-status/   failed units, their status and journal
#   journals/                        node services, ignition.log (the config fetch from
#                                    :22623, every boot) and journal.log.gz (everything)
#   network/                         addresses, routes, sockets, hostname, resolv.conf
#   containers/                      crictl-ps.txt, podman-ps.txt, <name>-<id>.log and .inspect
#   rpm-ostree/                      OS deployments and their history
#   os-image/                        the booted image as rpm-ostree and bootc report it (JSON;
#                                    <tool>-absent.txt on a host without the tool)
# Best effort throughout: a failing command is logged and the next one runs.
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

# collect FILE CMD...: CMD's output (both streams) into FILE under the artifacts.
collect() {
    local file="${ARTIFACTS}/$1"
    shift
    "$@" >"${file}" 2>&1 || echo "  ${*}: exit status $? (see ${file#"${ARTIFACTS}"/})"
}

gather_failed_units() {
    echo "Gathering failed units"
    LANG=POSIX systemctl list-units --state=failed --no-pager >"${ARTIFACTS}/failed-units.txt" 2>&1
    local unit
    for unit in $(systemctl list-units --state=failed --no-legend --plain --no-pager 2>/dev/null | awk '{print $1}'); do
        # status exits non-zero for a failed unit, which is no news here.
        systemctl status --full --no-pager "${unit}" >"${ARTIFACTS}/unit-status/${unit}.txt" 2>&1
        collect "unit-status/${unit}.log" journalctl --no-pager --unit "${unit}"
    done
}

gather_journals() {
    echo "Gathering journals"
    local unit
    for unit in crio kubelet machine-config-daemon-host machine-config-daemon-firstboot \
        openshift-azure-routes openshift-gcp-routes pivot sssd; do
        collect "journals/${unit}.log" journalctl --boot --no-pager --output=short --unit "${unit}"
    done
    # Ignition ran in the initramfs of the first boot: whether (and from where) this host got
    # its config from the machine-config server.
    collect journals/ignition.log journalctl --no-pager --output=short --identifier ignition
    journalctl --no-pager --output=with-unit | gzip >"${ARTIFACTS}/journals/journal.log.gz"
}

gather_network() {
    echo "Gathering network state"
    collect network/ip-addr.txt ip addr
    collect network/ip-route.txt ip route
    collect network/ip-route-v6.txt ip -6 route
    collect network/ss.txt ss --all --numeric --processes --tcp --udp
    hostname >"${ARTIFACTS}/network/hostname.txt" 2>&1
    cp /etc/resolv.conf "${ARTIFACTS}/network/" 2>/dev/null
}

gather_containers() {
    echo "Gathering containers"
    local id name
    collect containers/crictl-ps.txt crictl ps --all
    for id in $(crictl ps --all --quiet 2>/dev/null); do
        name="$(crictl inspect --output go-template --template '{{.status.metadata.name}}' "${id}" 2>/dev/null)"
        collect "containers/${name:-unknown}-${id}.log" crictl logs "${id}"
        collect "containers/${name:-unknown}-${id}.inspect" crictl inspect "${id}"
    done
    collect containers/podman-ps.txt podman ps --all
    while read -r -u 3 id name; do
        [ -n "${id}" ] || continue
        collect "containers/${name:-unknown}-${id}.log" podman logs "${id}"
        collect "containers/${name:-unknown}-${id}.inspect" podman inspect "${id}"
    done 3< <(podman ps --all --format '{{.ID}} {{.Names}}' 2>/dev/null)
}

gather_os_state() {
    echo "Gathering OS deployments"
    collect rpm-ostree/status rpm-ostree status --verbose
    collect rpm-ostree/history rpm-ostree ex history
    # The analysis compares the booted image with the one this host's pool was told to boot.
    local tool
    for tool in rpm-ostree bootc; do
        if command -v "${tool}" >/dev/null 2>&1; then
            collect "os-image/${tool}-status.json" "${tool}" status --json
        else
            echo "${tool} is not installed on this host" | tee "${ARTIFACTS}/os-image/${tool}-absent.txt"
        fi
    done
}

rm -rf "${ARTIFACTS}"
mkdir -p "${ARTIFACTS}/unit-status" "${ARTIFACTS}/journals" "${ARTIFACTS}/network" \
    "${ARTIFACTS}/containers" "${ARTIFACTS}/rpm-ostree" "${ARTIFACTS}/os-image"
gather_failed_units
gather_journals
gather_network
gather_containers
gather_os_state
# The bootstrap host fetches this directory as core.
chmod --recursive a+rX "${ARTIFACTS}"
echo "Done: ${ARTIFACTS}"
