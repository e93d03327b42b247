#!/usr/bin/env bash
# Approve node certificate requests while the bootstrap control plane runs (approve-csr.service).
#
# During bootstrap no machine-approver runs yet, but the masters' kubelets need their client
# and serving certificates to join. Every pending request is approved until bootkube.sh
# finishes; after that the cluster's own approver takes over and this loop stops.
set -euo pipefail

KUBECONFIG_FILE="${1:?usage: approve-csr.sh KUBECONFIG}"
OPENSHIFT_ROOT="${OPENSHIFT_ROOT:-/opt/openshift}"

# Names of requests without any condition, i.e. neither approved nor denied yet.
pending_csrs() {
    oc --kubeconfig="${KUBECONFIG_FILE}" --request-timeout=30s get csr \
        --output go-template='{{range .items}}{{if not .status.conditions}}{{.metadata.name}}{{"\n"}}{{end}}{{end}}'
}

while [ ! -f "${OPENSHIFT_ROOT}/.bootkube.done" ]; do
    if csrs="$(pending_csrs)"; then
        for csr in ${csrs}; do
            oc --kubeconfig="${KUBECONFIG_FILE}" --request-timeout=30s adm certificate approve "${csr}" || \
                echo "Approving ${csr} failed; will try again" >&2
        done
    fi
    sleep 20
done
echo "Bootstrap is complete; no longer approving certificate requests"
