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
    addresses="$(getent ahosts "$1" | awk '{print $1}' | sort -u | paste -sd ' ' -)" || return 1
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

# api_server_ready HOST: one anonymous /readyz probe of the API server behind HOST. Prints
# what it answered ("HTTP 500", or "no answer" when the connection failed); succeeds only on
# 200. The probe sends no credentials, so the serving certificate is not checked (its CA is
# not one the host trusts).
api_server_ready() {
    local status
    status="$(curl --silent --insecure --max-time 10 --output /dev/null \
        --write-out '%{http_code}' "https://$1:6443/readyz")" || true
    case "${status}" in
    "" | 000) echo "no answer" ;;
    *) echo "HTTP ${status}" ;;
    esac
    [ "${status}" = 200 ]
}

# verify_api_server_url STAGE HOST: resolve HOST and wait for the API server behind it to
# say it is ready. A load balancer drops the bootstrap host and sends traffic to the
# masters' API servers some seconds after cluster-bootstrap's teardown, so one refused
# probe proves nothing: ask every 5 seconds for up to API_READY_WAIT seconds (120 unless
# set) and record a failure only when none of them answered ready. Always returns 0.
verify_api_server_url() {
    local host="$2" answer deadline
    start_name_check "$1" "${host}" || return 0
    deadline=$((SECONDS + ${API_READY_WAIT:-120}))
    until answer="$(api_server_ready "${host}")"; do
        if [ "${SECONDS}" -ge "${deadline}" ]; then
            echo "The API server behind ${host} is not ready (last answer: ${answer})" >&2
            record_service_stage_failure "https://${host}:6443/readyz did not answer ready within ${API_READY_WAIT:-120}s (last answer: ${answer}; addresses: ${API_SERVER_ADDRESSES})"
            return 0
        fi
        echo "The API server behind ${host} is not ready yet (${answer}); asking again in 5s"
        sleep 5
    done
    echo "The API server behind ${host} is ready"
    record_service_stage_success
}
