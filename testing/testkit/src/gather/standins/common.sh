# Sourced by every stand-in: where the host's canned data lives, the call log, and the
# check that a root-only tool runs as root (the gather must use sudo for those).
DATA="$(cd "$(dirname "$0")/.." && pwd)/data"
TOOL="$(basename "$0")"
printf '%s %s %s\n' "$(id -un)" "${TOOL}" "$*" >>"${DATA}/calls.log"

# needs_root MESSAGE: fail like the real tool does for an unprivileged user.
needs_root() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "$1" >&2
        exit 1
    fi
}
