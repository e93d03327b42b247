//! The programs a bootstrap machine has on its PATH that this machine lacks: `oc`, `kubectl`,
//! `crictl`, and `journalctl` and `systemctl` for the units the harness runs, plus the podman
//! wrapper that notes every call the scripts make.
//!
//! kubectl is the payload's own (the hyperkube image carries it); `oc` is kubectl with the
//! one `oc adm` verb the bootstrap scripts use translated; `crictl` answers from the
//! containers of the kubelet stand-in, which carry CRI's labels.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::error::Error;
use crate::host::{output_of, which};
use crate::kubelet::SANDBOX_LABEL;
use crate::{Payload, Result};

/// A directory of programs to put first on the scripts' PATH.
#[derive(Debug, Clone)]
pub(crate) struct Tools {
    /// The directory.
    pub dir: PathBuf,
    /// kubectl inside it.
    pub kubectl: PathBuf,
}

impl Tools {
    /// Writes the tools into `dir`: kubectl copied out of the payload's hyperkube image (once
    /// into `kubectl_cache`, shared by every run), `oc`, `crictl` for containers labelled with
    /// `sandbox`, the podman wrapper noting calls into `calls` and labelling every container
    /// it runs with `sandbox`, and the node-image-pull unit's stand-ins (the host's pull
    /// secret is `pull_secret`).
    pub(crate) fn install(
        dir: &Path,
        kubectl_cache: &Path,
        payload: &Payload,
        sandbox: &str,
        calls: &Path,
        logs: &Path,
        pull_secret: &Path,
    ) -> Result<Tools> {
        std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
        std::fs::create_dir_all(kubectl_cache).map_err(Error::io(kubectl_cache))?;
        let kubectl = kubectl_cache.join("kubectl");
        if !kubectl.is_file() {
            let partial = kubectl_cache.join(format!("kubectl.{}", std::process::id()));
            copy_kubectl(payload, &partial)?;
            std::fs::rename(&partial, &kubectl).map_err(Error::io(&kubectl))?;
        }
        script(
            dir,
            "kubectl",
            &KUBECTL.replace("@KUBECTL@", &kubectl.display().to_string()),
        )?;
        script(dir, "oc", OC)?;
        let logs_dir = logs.display().to_string();
        script(dir, "journalctl", &JOURNALCTL.replace("@LOGS@", &logs_dir))?;
        script(dir, "systemctl", &SYSTEMCTL.replace("@LOGS@", &logs_dir))?;
        script(
            dir,
            "release-image",
            &RELEASE_IMAGE.replace(
                "@DONE@",
                &logs.join(RELEASE_IMAGE_DONE).display().to_string(),
            ),
        )?;
        let node_image = dir.with_file_name("node-image");
        script(
            dir,
            "node-image-pull",
            &NODE_IMAGE_PULL
                .replace("@WORK@", &node_image.display().to_string())
                .replace("@DONE@", &logs.join(NODE_IMAGE_DONE).display().to_string())
                .replace("@PULL_SECRET@", &pull_secret.display().to_string()),
        )?;
        script(dir, "ostree", OSTREE)?;
        script(dir, "rpm-ostree", RPM_OSTREE)?;
        let label = format!("{SANDBOX_LABEL}={sandbox}");
        script(dir, "crictl", &CRICTL.replace("@SANDBOX_LABEL@", &label))?;
        let real = which("podman").ok_or(Error::MissingTool {
            program: "podman",
            hint: "the payload's load.sh installs it (apt-get install podman runc)",
        })?;
        let wrapper = PODMAN
            .replace("@CALLS@", &calls.display().to_string())
            .replace("@REAL@", &real.display().to_string())
            .replace("@LABEL@", &format!("{SANDBOX_LABEL}={sandbox}"));
        script(dir, "podman", &wrapper)?;
        let _ = std::fs::remove_file(calls);
        Ok(Tools {
            dir: dir.to_path_buf(),
            kubectl: dir.join("kubectl"),
        })
    }

    /// PATH with the tools first.
    pub(crate) fn path(&self) -> String {
        format!(
            "{}:{}",
            self.dir.display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }
}

/// `podman cp` of the multicall binary out of a created (never started) hyperkube container;
/// called `kubectl`, it is kubectl.
fn copy_kubectl(payload: &Payload, to: &Path) -> Result<()> {
    let image = payload.image_for("hyperkube")?.ok_or(Error::MissingTool {
        program: "kubectl",
        hint: "the release names no hyperkube image",
    })?;
    let name = format!("okd-harness-kubectl-{}", std::process::id());
    let mut create = payload.podman();
    create.args(["create", "--name", &name, &image]);
    output_of(&mut create)?;
    let mut cp = payload.podman();
    cp.arg("cp").arg(format!("{name}:/usr/bin/kubectl")).arg(to);
    let copied = output_of(&mut cp);
    let _ = payload
        .podman()
        .args(["rm", "--force", &name])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    copied.map(|_| ())
}

fn script(dir: &Path, name: &str, text: &str) -> Result<()> {
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(Error::io(&path))?;
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .map_err(Error::io(&path))
}

const KUBECTL: &str = r#"#!/usr/bin/env bash
# kubectl of the payload's hyperkube image, copied out of it once.
exec -a kubectl '@KUBECTL@' "$@"
"#;

const OC: &str = r#"#!/usr/bin/env bash
# oc stand-in of the okd-install harness: kubectl from the payload, with `oc adm certificate`
# spelled as kubectl spells it.
here="$(dirname "$0")"
args=()
for arg in "$@"; do args+=("$arg"); done
for i in "${!args[@]}"; do
    if [ "${args[$i]}" = adm ] && [ "${args[$((i + 1))]:-}" = certificate ]; then
        unset 'args[i]'
        break
    fi
done
exec "$here/kubectl" "${args[@]}"
"#;

const CRICTL: &str = r#"#!/usr/bin/env bash
# crictl stand-in of the okd-install harness: answers from the containers the kubelet stand-in
# runs (podman containers labelled with CRI's names). Supports `ps [-a] [-q] [--name RE]` and
# `logs [--tail N] ID`.
set -euo pipefail
command="${1:-}"
shift || true
case "$command" in
ps)
    all=() state=() quiet=false name='.*'
    while [ "$#" -gt 0 ]; do
        case "$1" in
        --state) state=(--filter "status=$2"); shift ;;
        --state=*) state=(--filter "status=${1#--state=}") ;;
        -a | --all) all=(--all) ;;
        -q | --quiet) quiet=true ;;
        --name) name="$2"; shift ;;
        --name=*) name="${1#--name=}" ;;
        *) ;;
        esac
        shift
    done
    podman ps "${all[@]}" "${state[@]}" --filter 'label=@SANDBOX_LABEL@' \
        --format '{{.ID}} {{index .Labels "io.kubernetes.container.name"}} {{.State}} {{index .Labels "io.kubernetes.pod.name"}}' |
        while read -r id container state pod; do
            if [[ "$container" =~ $name ]]; then
                if $quiet; then echo "$id"; else echo "$id $container $state $pod"; fi
            fi
        done
    ;;
logs)
    exec podman logs "$@"
    ;;
inspect)
    # `inspect --output go-template --template T ID`: the gather asks for the container's
    # name; plain `inspect ID` is podman's inspect.
    template='' id=''
    while [ "$#" -gt 0 ]; do
        case "$1" in
        --template) template="$2"; shift ;;
        --output | -o) shift ;;
        *) id="$1" ;;
        esac
        shift
    done
    if [ -n "$template" ]; then
        exec podman inspect --format '{{index .Config.Labels "io.kubernetes.container.name"}}' "$id"
    fi
    # Plain `inspect ID` answers in CRI's shape, as crictl does: the container status with
    # its Kubernetes labels. The attempt is always 0: the kubelet stand-in starts the same
    # container again where the kubelet would create the next attempt.
    label() { printf '{{index .Config.Labels "io.kubernetes.%s"}}' "$1"; }
    when() { printf '{{.State.%s.UTC.Format "2006-01-02T15:04:05.999999999Z07:00"}}' "$1"; }
    exec podman inspect --format "{\"status\": {\"id\": \"{{.Id}}\", \
\"metadata\": {\"name\": \"$(label container.name)\", \"attempt\": 0}, \
\"state\": \"{{if .State.Running}}CONTAINER_RUNNING{{else if eq .State.Status \"exited\" \"stopped\"}}CONTAINER_EXITED{{else}}CONTAINER_CREATED{{end}}\", \
\"startedAt\": \"$(when StartedAt)\", \"finishedAt\": \"$(when FinishedAt)\", \
\"exitCode\": {{.State.ExitCode}}, \
\"reason\": \"{{if .State.Running}}{{else if eq .State.ExitCode 0}}Completed{{else}}Error{{end}}\", \
\"image\": {\"image\": \"{{.ImageName}}\"}, \
\"labels\": {\"io.kubernetes.pod.name\": \"$(label pod.name)\", \
\"io.kubernetes.pod.namespace\": \"$(label pod.namespace)\", \
\"io.kubernetes.container.name\": \"$(label container.name)\"}}}" "$id"
    ;;
exec)
    id="$1"
    shift
    exec podman exec "$id" "$@"
    ;;
*)
    echo "crictl stand-in: '$command' is not supported" >&2
    exit 1
    ;;
esac
"#;

/// The file the release-image stand-in leaves in the logs directory once the image is there.
pub(crate) const RELEASE_IMAGE_DONE: &str = "release-image.done";

const RELEASE_IMAGE: &str = r#"#!/usr/bin/env bash
# release-image.service stand-in of the okd-install harness: the payload's images are in
# podman's store already, so the release image is looked up there first; when it is not, it
# is pulled, retried as release-image-download.sh retries it (the pull of a pull spec no
# registry has fails as on a bootstrap machine). The unit's service record is written with
# the host's own bootstrap-service-record.sh.
set -euo pipefail
SERVICE_NAME=release-image
# shellcheck source=/dev/null
. /usr/local/bin/bootstrap-service-record.sh
RELEASE_IMAGE="$(sed -n "s/^RELEASE_IMAGE='\(.*\)'$/\1/p" /usr/local/bin/release-image.sh | head -n 1)"
record_service_stage_start "pull-release-image"
echo "Fetching the release image ${RELEASE_IMAGE}"
until podman image exists "${RELEASE_IMAGE}" || podman pull --quiet "${RELEASE_IMAGE}"; do
    echo "The release image ${RELEASE_IMAGE} could not be fetched; trying again in 5s"
    sleep 5
done
record_service_stage_success
touch '@DONE@'
"#;

/// The file the node-image-pull stand-in leaves in the logs directory once the node image is
/// checked out (node-image-overlay.service, which bootkube.service comes after, would start).
pub(crate) const NODE_IMAGE_DONE: &str = "node-image-pull.done";

const NODE_IMAGE_PULL: &str = r#"#!/usr/bin/env bash
# node-image-pull.service stand-in of the okd-install harness: the host's own
# node-image-pull.sh, run as on a live system (the harness machine was not booted from an
# ostree deployment), with its live directory, deployment root and kernel command line in
# @WORK@. ostree and rpm-ostree are the harness's stand-ins beside this script.
set -euo pipefail
export SERVICE_NAME=node-image-pull
export PULL_SECRET_FILE='@PULL_SECRET@'
export OSTREE_LIVE_MARKER='@WORK@/ostree-live'
export NODE_IMAGE_LIVE_DIR='@WORK@/live'
export OSTREE_DEPLOY_ROOT='@WORK@/deploy'
export KERNEL_CMDLINE='@WORK@/cmdline'
export NODE_IMAGE_RETRY_DELAY=5
mkdir -p "${NODE_IMAGE_LIVE_DIR}" "${OSTREE_DEPLOY_ROOT}/scos/deploy/0/etc"
touch "${OSTREE_LIVE_MARKER}"
echo 'root=live:harness' >"${KERNEL_CMDLINE}"
if [ ! -e /usr/local/bin/node-image-pull.sh ]; then
    echo "This bootstrap host has no node-image-pull.sh: nothing to pull"
else
    /usr/local/bin/node-image-pull.sh
fi
touch '@DONE@'
"#;

const OSTREE: &str = r#"#!/usr/bin/env bash
# ostree stand-in of the okd-install harness: this machine has no ostree, and the payload's
# node image is not an ostree container. `container image pull` is a real podman pull (the
# store first, as the payload is loaded there), so a pull that fails does in the words of
# the containers-image library ostree-ext uses too. A repository is a directory whose
# refs/ files each hold the image a ref names; a checkout is that image's file system,
# exported by podman.
set -euo pipefail
repo=''
args=()
for arg in "$@"; do
    case "$arg" in
    --repo=*) repo="${arg#--repo=}" ;;
    *) args+=("$arg") ;;
    esac
done
set -- "${args[@]}"
case "${1:-}" in
init) mkdir -p "${repo}/refs" ;;
pull-local) ;;
admin) ;; # config-diff: the harness changed nothing in /etc
container)
    shift 3 # container image pull
    auth=()
    if [ "$1" = --authfile ]; then auth=(--authfile "$2"); shift 2; fi
    repo="$1"
    image="${2#ostree-unverified-image:docker://}"
    podman image exists "${image}" || podman pull --quiet "${auth[@]}" "${image}" >/dev/null
    ref="ostree/container/image/docker/$(printf '%s' "${image}" | tr '/:@' '___')"
    mkdir -p "${repo}/refs/$(dirname "${ref}")"
    printf '%s
' "${image}" >"${repo}/refs/${ref}"
    ;;
refs)
    if [[ "${2:-}" == --create=* ]]; then
        name="${2#--create=}"
        mkdir -p "${repo}/refs/$(dirname "${name}")"
        cp "${repo}/refs/$3" "${repo}/refs/${name}"
    else
        (cd "${repo}/refs" && find . -type f | sed 's|^\./||')
    fi
    ;;
checkout)
    positional=()
    for arg in "${@:2}"; do
        case "$arg" in -*) ;; *) positional+=("$arg") ;; esac
    done
    image="$(cat "${repo}/refs/${positional[0]}")"
    mkdir -p "${positional[1]}"
    container="$(podman create --quiet "${image}" /bin/true)"
    podman export "${container}" | tar -x -C "${positional[1]}"
    podman rm --force "${container}" >/dev/null
    ;;
*)
    echo "ostree stand-in: '$*' is not supported" >&2
    exit 1
    ;;
esac
"#;

const RPM_OSTREE: &str = r#"#!/usr/bin/env bash
# rpm-ostree stand-in of the okd-install harness: this machine was not booted from an ostree
# deployment; `status --json` names one, as a live system's does.
if [ "${1:-}" = status ]; then
    echo '{"deployments":[{"version":"okd-harness"}]}'
    exit 0
fi
echo "rpm-ostree stand-in: '$*' is not supported" >&2
exit 1
"#;

const JOURNALCTL: &str = r#"#!/usr/bin/env bash
# journalctl stand-in of the okd-install harness: the journal of a unit the harness runs is
# its log in @LOGS@ (`--unit bootkube.service` reads bootkube.log; the kubelet stand-in's is
# kubelet.log). Other options are accepted and ignored; without --unit, every log.
unit=''
while [ "$#" -gt 0 ]; do
    case "$1" in
    -u | --unit) unit="$2"; shift ;;
    --unit=*) unit="${1#--unit=}" ;;
    *) ;;
    esac
    shift
done
if [ -z "$unit" ]; then
    cat '@LOGS@'/*.log 2>/dev/null
    exit 0
fi
name="${unit%.service}"
if [ -f "@LOGS@/${name}.log" ]; then
    cat "@LOGS@/${name}.log"
else
    echo "-- No entries --"
fi
"#;

const SYSTEMCTL: &str = r#"#!/usr/bin/env bash
# systemctl stand-in of the okd-install harness: the harness restarts its units itself, so no
# unit is ever in the failed state; `status UNIT` shows the end of the unit's log in @LOGS@.
case "${1:-}" in
list-units) exit 0 ;;
status)
    for arg in "$@"; do
        case "$arg" in
        status | -*) ;;
        *)
            name="${arg%.service}"
            echo "* ${name}.service (run by the okd-install harness's systemd stand-in)"
            tail -n 20 "@LOGS@/${name}.log" 2>/dev/null
            ;;
        esac
    done
    ;;
*) echo "systemctl stand-in: '${1:-}' is not supported" >&2; exit 1 ;;
esac
"#;

const PODMAN: &str = r#"#!/usr/bin/env bash
# podman wrapper of the okd-install harness: notes the command line (arguments NUL-separated,
# one call a line), then runs podman, labelling the containers it runs so that the harness
# can find and remove them.
{ printf '%s\0' "$@"; printf '\n'; } >>'@CALLS@'
if [ "${1:-}" = run ] || [ "${1:-}" = create ]; then
    verb="$1"
    shift
    exec '@REAL@' "$verb" --label '@LABEL@' "$@"
fi
exec '@REAL@' "$@"
"#;
