#!/usr/bin/env bash
# API name checks for bootkube.sh (library; source it after bootstrap-service-record.sh).
#
# A cluster whose api / api-int names do not resolve, or do not lead to an API server,
# finishes bootstrapping on the bootstrap host but breaks as soon as that host is gone.
# These checks record such problems as failed stages, which the log bundle analysis
# reports; they never stop bootkube.

# verify_api_server_url STAGE HOST: resolve HOST and ask the API server behind it whether
# it is ready. Always returns 0.
verify_api_server_url() {
    local stage="$1" host="$2" addresses
    record_service_stage_start "${stage}"
    if ! addresses="$(getent ahosts "${host}" | awk '{print $1}' | sort -u | tr '\n' ' ')" || [ -z "${addresses}" ]; then
        echo "${host} does not resolve" >&2
        record_service_stage_failure "${host} does not resolve to any address"
        return 0
    fi
    echo "${host} resolves to ${addresses}"
    # Only a health probe: no credentials are sent, so the serving certificate is not
    # checked here (its CA is not one the host trusts).
    if ! curl --silent --show-error --fail --insecure --max-time 10 \
        --output /dev/null "https://${host}:6443/readyz"; then
        echo "The API server behind ${host} is not ready" >&2
        record_service_stage_failure "https://${host}:6443/readyz did not answer ready (addresses: ${addresses})"
        return 0
    fi
    record_service_stage_success
}
