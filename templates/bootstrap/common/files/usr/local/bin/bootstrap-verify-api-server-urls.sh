#!/usr/bin/env bash
# API name checks for bootkube.sh (library; source it after bootstrap-service-record.sh).
#
# A cluster whose api / api-int names do not resolve, or do not lead to an API server,
# finishes bootstrapping on the bootstrap host but breaks as soon as that host is gone.
# These checks record such problems as failed stages, which the log bundle analysis
# reports; they never stop bootkube.

# api_server_addresses HOST: print HOST's addresses on one line; fails when it has none.
api_server_addresses() {
    local addresses
    addresses="$(getent ahosts "$1" | awk '{print $1}' | sort -u | tr '\n' ' ')" || return 1
    [ -n "${addresses}" ] || return 1
    printf '%s\n' "${addresses}"
}

# start_name_check STAGE HOST: open STAGE and resolve HOST, leaving its addresses in
# API_SERVER_ADDRESSES; when it has none, record that as STAGE's failure and return 1.
start_name_check() {
    local stage="$1" host="$2"
    record_service_stage_start "${stage}"
    if ! API_SERVER_ADDRESSES="$(api_server_addresses "${host}")"; then
        echo "${host} does not resolve" >&2
        record_service_stage_failure "${host} does not resolve to any address"
        return 1
    fi
    echo "${host} resolves to ${API_SERVER_ADDRESSES}"
}

# resolve_api_server_name STAGE HOST: record whether HOST resolves, without asking for an
# API server behind it (none answers yet). Run before cb-bootstrap waits for the masters:
# they fetch their Ignition config from api-int, so a bootstrap stalled there for want of
# that name shows why in its service record. Always returns 0.
resolve_api_server_name() {
    if start_name_check "$1" "$2"; then
        record_service_stage_success
    fi
    return 0
}

# verify_api_server_url STAGE HOST: resolve HOST and ask the API server behind it whether
# it is ready. Always returns 0.
verify_api_server_url() {
    local host="$2"
    start_name_check "$1" "${host}" || return 0
    # Only a health probe: no credentials are sent, so the serving certificate is not
    # checked here (its CA is not one the host trusts).
    if ! curl --silent --show-error --fail --insecure --max-time 10 \
        --output /dev/null "https://${host}:6443/readyz"; then
        echo "The API server behind ${host} is not ready" >&2
        record_service_stage_failure "https://${host}:6443/readyz did not answer ready (addresses: ${API_SERVER_ADDRESSES})"
        return 0
    fi
    record_service_stage_success
}
