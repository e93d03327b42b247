#!/usr/bin/env bash
# Service records for the bootstrap services (library; source it, do not run it).
#
# Every bootstrap service keeps a JSON array in ${SERVICE_RECORDS_DIR}/${SERVICE_NAME}.json.
# Each entry says when a phase began or ended and how it ended, so that a log bundle tells
# which step of which service failed without reading whole journals. Entry keys:
# timestamp, preCommand, postCommand, stage, phase, result, errorLine, errorMessage
# (keys with empty values are left out).
#
# Sourcing records "service start" (or "pre-command start" / "post-command start" when
# PRE_COMMAND / POST_COMMAND is set) and installs an EXIT trap that records the matching end
# with result success or failure from the exit status, closing an open stage first. The
# caller must not replace that EXIT trap, nor the ERR trap (with errtrace on) that
# remembers the line of the last failing command.
#
# Stage API: record_service_stage_start NAME, record_service_stage_success,
# record_service_stage_failure [MESSAGE]. Starting a stage while one is open, or ending a
# stage when none is open, is a bug in the caller and aborts the script.

SERVICE_RECORDS_DIR="${SERVICE_RECORDS_DIR:-/var/log/openshift}"

# The systemd unit running this shell, from its cgroup (e.g. .../bootkube.service).
service_record_unit_name() {
    local unit=""
    if [ -r "/proc/$$/cgroup" ]; then
        unit="$(sed -n 's|^.*/\([^/]*\)\.service$|\1|p' "/proc/$$/cgroup" | tail -n 1)"
    fi
    if [ -z "${unit}" ]; then
        unit="$(basename "$0" .sh)"
    fi
    printf '%s\n' "${unit}"
}

SERVICE_NAME="${SERVICE_NAME:-$(service_record_unit_name)}"
SERVICE_RECORD_FILE="${SERVICE_RECORDS_DIR}/${SERVICE_NAME}.json"
SERVICE_RECORD_STAGE=""
SERVICE_RECORD_ERR_LINE=""
SERVICE_RECORD_EXITING=""

if [ -n "${PRE_COMMAND:-}" ]; then
    SERVICE_RECORD_PHASE="pre-command"
elif [ -n "${POST_COMMAND:-}" ]; then
    SERVICE_RECORD_PHASE="post-command"
else
    SERVICE_RECORD_PHASE="service"
fi

# Print a JSON string literal for $1.
service_record_json_string() {
    local s="$1"
    s="${s//\\/\\\\}"
    s="${s//\"/\\\"}"
    s="${s//$'\n'/\\n}"
    s="${s//$'\r'/\\r}"
    s="${s//$'\t'/\\t}"
    # Other control characters have no business in a record; drop them.
    s="$(printf '%s' "${s}" | LC_ALL=C tr -d '\000-\010\013\014\016-\037')"
    printf '"%s"' "${s}"
}

# Append one entry. Arguments are key/value pairs; pairs with an empty value are skipped.
service_record_append() {
    local entry key value tmp
    entry="{\"timestamp\":\"$(date -u +%Y-%m-%dT%H:%M:%SZ)\""
    while [ "$#" -ge 2 ]; do
        key="$1"
        value="$2"
        shift 2
        if [ -n "${value}" ]; then
            entry+=",\"${key}\":$(service_record_json_string "${value}")"
        fi
    done
    entry+="}"

    mkdir -p "${SERVICE_RECORDS_DIR}"
    tmp="$(mktemp "${SERVICE_RECORD_FILE}.XXXXXX")"
    # One entry per line; the closing bracket is always the last line.
    if [ -s "${SERVICE_RECORD_FILE}" ] && [ "$(sed -n '$p' "${SERVICE_RECORD_FILE}")" = "]" ]; then
        sed '$d' "${SERVICE_RECORD_FILE}" >"${tmp}"
        if [ "$(wc -l <"${tmp}")" -gt 1 ]; then
            printf ',' >>"${tmp}"
        fi
    else
        printf '[\n' >"${tmp}"
    fi
    printf '%s\n]\n' "${entry}" >>"${tmp}"
    chmod 0644 "${tmp}"
    mv -f "${tmp}" "${SERVICE_RECORD_FILE}"
}

# The last lines the unit wrote to the journal, as the default error message.
service_record_journal_tail() {
    journalctl --unit "${SERVICE_NAME}.service" --lines 3 --output cat --no-pager 2>/dev/null || true
}

# Common keys of every entry of this script.
service_record_entry() {
    service_record_append \
        preCommand "${PRE_COMMAND:-}" \
        postCommand "${POST_COMMAND:-}" \
        "$@"
}

service_record_abort() {
    echo "bootstrap-service-record: $*" >&2
    exit 1
}

record_service_stage_start() {
    local name="${1:-}"
    if [ -z "${name}" ]; then
        service_record_abort "record_service_stage_start needs a stage name"
    fi
    if [ -n "${SERVICE_RECORD_STAGE}" ]; then
        service_record_abort "stage '${name}' started while stage '${SERVICE_RECORD_STAGE}' is still open"
    fi
    SERVICE_RECORD_STAGE="${name}"
    service_record_entry stage "${name}" phase "stage start"
}

record_service_stage_success() {
    if [ -z "${SERVICE_RECORD_STAGE}" ]; then
        service_record_abort "record_service_stage_success called with no open stage"
    fi
    service_record_entry stage "${SERVICE_RECORD_STAGE}" phase "stage end" result success
    SERVICE_RECORD_STAGE=""
}

record_service_stage_failure() {
    local message="${1:-}" line
    if [ -z "${SERVICE_RECORD_STAGE}" ]; then
        service_record_abort "record_service_stage_failure called with no open stage"
    fi
    if [ -n "${SERVICE_RECORD_EXITING}" ]; then
        # Closing the stage on exit: the failing command is what the ERR trap saw.
        line="${SERVICE_RECORD_ERR_LINE}"
    else
        # An explicit call: "<line> <function> <file>" of the call site.
        line="$(caller 0 || true)"
    fi
    if [ -z "${message}" ]; then
        message="$(service_record_journal_tail)"
    fi
    service_record_entry stage "${SERVICE_RECORD_STAGE}" phase "stage end" result failure \
        errorLine "${line}" errorMessage "${message}"
    SERVICE_RECORD_STAGE=""
}

service_record_on_exit() {
    local status="$1" message=""
    SERVICE_RECORD_EXITING=1
    if [ "${status}" -ne 0 ]; then
        message="$(service_record_journal_tail)"
        if [ -z "${SERVICE_RECORD_ERR_LINE}" ]; then
            SERVICE_RECORD_ERR_LINE="exit status ${status}"
        fi
    fi
    if [ -n "${SERVICE_RECORD_STAGE}" ]; then
        if [ "${status}" -eq 0 ]; then
            record_service_stage_success
        else
            record_service_stage_failure "${message}"
        fi
    fi
    if [ "${status}" -eq 0 ]; then
        service_record_entry phase "${SERVICE_RECORD_PHASE} end" result success
    else
        service_record_entry phase "${SERVICE_RECORD_PHASE} end" result failure \
            errorLine "${SERVICE_RECORD_ERR_LINE}" errorMessage "${message}"
    fi
}

# Remember where the last failing command was, for the failure entries. errtrace makes the
# trap see failures inside functions too, where bootstrap scripts do most of their work.
set -o errtrace
trap 'SERVICE_RECORD_ERR_LINE="${BASH_SOURCE[0]:-$0}:${LINENO} (${FUNCNAME[0]:-main})"' ERR
trap 'service_record_on_exit "$?"' EXIT

service_record_entry phase "${SERVICE_RECORD_PHASE} start"
