//! Faults put into a real bootstrap at their real cause, and taken away again.
//!
//! Each entry of [`FAULTS`] names the [`Cause`] that `okd-install wait-for bootstrap-complete`
//! and `gather bootstrap`'s analysis must name for it (a fault without a diagnosis cannot be
//! added: `expected` is not optional), says how it is injected on the real bootstrap and how it
//! is removed for the recovery. The harness never edits what okd-install wrote, except where
//! the fault is in the user's own input (a manifest the user added, the time the configs were
//! made): a fault is a missing image in the store, a name missing from the sandbox's resolver,
//! a port someone else holds in the sandbox's network namespace.
//!
//! [`crate::bootstrap_example`] with [`crate::BootstrapOptions::fault`] injects it, waits until
//! the host shows the fault's own error line (or bootkube.sh has ended), saves the evidence
//! (unit and container logs, `wait-for` in text and JSON), removes the fault and, with
//! `recover`, lets the same bootstrap run to its end.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use contract::Cause;

use crate::error::Error;
use crate::host::output_of;
use crate::{Host, Payload, Result, Sandbox};

/// Prefix of every image the faults build, so that they are told apart from the payload's
/// (which are never removed, retagged or changed).
pub const FAULT_IMAGE_PREFIX: &str = "localhost/okd-harness-faults";

/// One fault of the table.
#[derive(Debug, Clone, Copy)]
pub struct Fault {
    /// The name `--fault` takes.
    pub name: &'static str,
    /// What `wait-for` and `gather`'s analysis must name.
    pub expected: Cause,
    /// How it is injected, for a person.
    pub injected: &'static str,
    /// How it is removed for the recovery.
    pub removed: &'static str,
    /// Text (case-insensitive) of the host's own error line: a line of a unit's or a
    /// container's log holding one of these is the fault showing.
    pub symptoms: &'static [&'static str],
    /// Whether the recovery is run by the fault run itself (the clock faults need configs
    /// made again, a second run).
    pub recovers_in_place: bool,
    pub(crate) kind: Kind,
}

/// How a fault is put in place.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    /// The configs name a release image that is not in the store (nor anywhere).
    ReleaseImageAbsent,
    /// The release image says `component` is at a pull spec that is not in the store.
    ComponentAbsent(&'static str),
    /// The sandbox's resolver does not know `<prefix>.<cluster>.<domain>`.
    Unresolvable(&'static str),
    /// Something else listens on this port in the sandbox's network namespace.
    PortTaken(u16),
    /// The user added these manifests (file name, content) before `create ignition-configs`.
    UserManifests(&'static [(&'static str, &'static str)]),
    /// The configs were made with the clock this many seconds off.
    Clock(i64),
    /// `/opt/openshift` (on a node, `/var/opt/openshift`: the `/var` partition) is a tmpfs with
    /// room for what Ignition wrote and this many KiB more.
    SmallDisk { headroom_kib: u64 },
}

/// A name of the cluster missing from the resolver, in the words of Go's resolver, curl and
/// our scripts; each names the host, so that another name failing (the update service, which
/// the sandbox cannot reach) is not taken for the fault.
const API_INT_LOOKUP: &[&str] = &[
    "lookup api-int.",
    "resolve host: api-int.",
    "does not resolve",
];
const API_LOOKUP: &[&str] = &["lookup api.", "resolve host: api.", "does not resolve"];
const PULL: &[&str] = &[
    "initializing source",
    "pinging container registry",
    "manifest unknown",
];
const USER_MANIFESTS: &[(&str, &str)] = &[
    (
        "99-user-bad-name.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_A_DNS_Name\n  namespace: kube-system\ndata:\n  a: b\n",
    ),
    (
        "99-user-widget.yaml",
        "apiVersion: widgets.example.com/v1\nkind: Widget\nmetadata:\n  name: my-widget\n  namespace: default\nspec:\n  size: 3\n",
    ),
];

/// Every fault the harness can inject.
pub const FAULTS: &[Fault] = &[
    Fault {
        name: "release-image-pull",
        expected: Cause::ReleaseImagePull,
        injected: "the configs name a release image pull spec that is in no store and no \
                   registry (localhost/okd-harness-faults/release-absent:4.19): podman's pull \
                   is refused by localhost:443",
        removed: "that pull spec is built locally from the payload's release image (a new image \
                  of the harness, the payload's is not retagged); bootkube.sh, restarted by the \
                  systemd stand-in, finds it",
        symptoms: PULL,
        recovers_in_place: true,
        kind: Kind::ReleaseImageAbsent,
    },
    Fault {
        name: "node-image-pull",
        expected: Cause::NodeImagePull,
        injected: "the release image (a copy of the payload's, built by the harness) says \
                   stream-coreos, the node image, is at a pull spec that is in no store: \
                   node-image-pull.sh's pull is refused by localhost:443 and bootkube.sh never \
                   starts",
        removed: "that pull spec is built locally from the payload's node image; \
                  node-image-pull.sh, which retries its pull, finds it and bootkube.sh starts",
        symptoms: PULL,
        recovers_in_place: true,
        kind: Kind::ComponentAbsent("stream-coreos"),
    },
    Fault {
        name: "api-int-dns",
        expected: Cause::ApiIntDns,
        injected: "api-int.<cluster>.<domain> is left out of the sandbox's /etc/hosts, and the \
                   sandbox's name server answers NXDOMAIN for it, as a site's DNS without the \
                   record does",
        removed: "the name is put back into the sandbox's /etc/hosts",
        symptoms: API_INT_LOOKUP,
        recovers_in_place: true,
        kind: Kind::Unresolvable("api-int"),
    },
    Fault {
        name: "api-dns",
        expected: Cause::ApiDns,
        injected: "api.<cluster>.<domain> is left out of the sandbox's /etc/hosts, where wait-for \
                   runs (api-int still resolves, so the control plane comes up)",
        removed: "the name is put back into the sandbox's /etc/hosts",
        symptoms: API_LOOKUP,
        recovers_in_place: true,
        kind: Kind::Unresolvable("api"),
    },
    Fault {
        name: "etcd-start",
        expected: Cause::EtcdStart,
        injected: "another process listens on 0.0.0.0:2379 in the sandbox's network namespace \
                   before the kubelet stand-in starts etcd",
        removed: "that process is ended; the kubelet stand-in restarts etcd with its back-off",
        symptoms: &["address already in use"],
        recovers_in_place: true,
        kind: Kind::PortTaken(2379),
    },
    Fault {
        name: "mcs-port",
        expected: Cause::MachineConfigServerPort,
        injected: "another process listens on 0.0.0.0:22623 in the sandbox's network namespace",
        removed: "that process is ended; the kubelet stand-in restarts the machine-config server",
        symptoms: &["address already in use"],
        recovers_in_place: true,
        kind: Kind::PortTaken(22623),
    },
    Fault {
        name: "render-fails",
        expected: Cause::RenderStage,
        injected: "the release image (a copy of the payload's, built by the harness) says \
                   cluster-kube-scheduler-operator is at a pull spec that is in no store: the \
                   kube-scheduler render stage cannot start its image",
        removed: "that pull spec is built locally from the payload's operator image; bootkube.sh, \
                  restarted by the systemd stand-in, renders on",
        symptoms: PULL,
        recovers_in_place: true,
        kind: Kind::ComponentAbsent("cluster-kube-scheduler-operator"),
    },
    Fault {
        name: "bad-user-manifest",
        expected: Cause::UserManifest,
        injected: "after `create manifests` the user adds to manifests/ a ConfigMap whose name the \
                   API server rejects (Not_A_DNS_Name) and a Widget of widgets.example.com, whose \
                   CRD never comes; then `create ignition-configs`",
        removed: "the two manifests are taken out of the bootstrap host's /opt/openshift/manifests \
                  and bootkube.service is restarted (as a person would: systemctl restart)",
        symptoms: &["Not_A_DNS_Name", "widgets.example.com"],
        recovers_in_place: true,
        kind: Kind::UserManifests(USER_MANIFESTS),
    },
    Fault {
        name: "clock-behind",
        expected: Cause::CertificatesNotYetValid,
        injected: "the configs are made with SOURCE_DATE_EPOCH two days ahead of the host's clock: \
                   every certificate starts in the future",
        removed: "`okd-install create ignition-configs` again without SOURCE_DATE_EPOCH, and a \
                  new bootstrap from those configs",
        symptoms: &[
            "certificate has expired or is not yet valid",
            "not yet valid",
        ],
        recovers_in_place: false,
        kind: Kind::Clock(2 * 24 * 3600),
    },
    Fault {
        name: "clock-ahead",
        expected: Cause::CertificatesExpired,
        injected: "the configs are made with SOURCE_DATE_EPOCH two days behind the host's clock: \
                   the short-lived (one day) certificates have expired",
        removed: "`okd-install create ignition-configs` again without SOURCE_DATE_EPOCH, and a \
                  new bootstrap from those configs",
        symptoms: &["certificate has expired or is not yet valid", "expired"],
        recovers_in_place: false,
        kind: Kind::Clock(-2 * 24 * 3600),
    },
    Fault {
        name: "disk-full",
        expected: Cause::DiskFull,
        injected: "the bootstrap host's /opt/openshift (on a node it lives on /var) is a tmpfs \
                   with room for what Ignition wrote and 256 KiB more: the first render that \
                   writes its manifests there fills it",
        removed: "the tmpfs is grown to 1 GiB (mount -o remount,size=1g, as a person would \
                  grow /var); bootkube.sh, restarted by the systemd stand-in, renders again",
        symptoms: &["no space left on device"],
        recovers_in_place: true,
        kind: Kind::SmallDisk { headroom_kib: 256 },
    },
];

/// The size the disk-full fault's tmpfs grows to when the fault is removed.
const GROWN_DISK: &str = "1g";

/// The fault named `name`.
pub fn fault(name: &str) -> Option<&'static Fault> {
    FAULTS.iter().find(|f| f.name == name)
}

/// What a fault did to a run.
#[derive(Debug, Clone, Default)]
pub struct FaultReport {
    /// The fault's name.
    pub name: String,
    /// The host's own error line (file it came from, then the line), when it showed.
    pub host_error_line: Option<(String, String)>,
    /// `okd-install wait-for bootstrap-complete --log-level debug` while the fault was in place:
    /// exit code, standard output and standard error.
    pub wait_for_text: Option<(i32, String, String)>,
    /// The same with `--output json`.
    pub wait_for_json: Option<(i32, String, String)>,
    /// `okd-install gather bootstrap --log-level debug` from inside the sandbox while the
    /// fault was in place, in text and with `--output json`.
    pub gather: Option<[(i32, String, String); 2]>,
    /// The log bundle it brought back.
    pub bundle: Option<PathBuf>,
    /// `okd-install analyze BUNDLE --output json`.
    pub analyze_json: Option<(i32, String, String)>,
    /// Whether the fault was removed.
    pub removed: bool,
    /// Where the evidence was saved.
    pub evidence: Option<PathBuf>,
}

/// A fault in place on a run; [`Injected::remove`] takes it away.
pub(crate) struct Injected {
    pub(crate) fault: &'static Fault,
    listener: Option<Child>,
    /// The sandbox's `/etc/hosts` as it was.
    hosts: Option<String>,
    /// Images this fault built (its own, removed when the run ends).
    pub(crate) images: Vec<String>,
}

impl Fault {
    /// The release image to make the configs with, building what the fault needs: `None`
    /// for the payload's own.
    pub(crate) fn release_image(&self, payload: &Payload) -> Result<Option<String>> {
        match self.kind {
            Kind::ReleaseImageAbsent => Ok(Some(absent_release())),
            Kind::ComponentAbsent(component) => Ok(Some(release_without(payload, component)?)),
            _ => Ok(None),
        }
    }

    /// `SOURCE_DATE_EPOCH` to make the configs with.
    pub(crate) fn source_date_epoch(&self) -> Option<i64> {
        match self.kind {
            Kind::Clock(offset) => Some(now() + offset),
            _ => None,
        }
    }

    /// Manifests the user adds between `create manifests` and `create ignition-configs`.
    pub fn user_manifests(&self) -> &'static [(&'static str, &'static str)] {
        match self.kind {
            Kind::UserManifests(files) => files,
            _ => &[],
        }
    }

    /// Prepares the machine before the sandbox `sandbox_name` is made from it: the disk-full
    /// fault's small tmpfs goes under `/opt/openshift` here, so that the sandbox's bind
    /// mount and the harness see the same file system.
    pub(crate) fn prepare_host(&self, host: &Host, sandbox_name: &str) -> Result<()> {
        match self.kind {
            Kind::SmallDisk { headroom_kib } => small_disk(host, sandbox_name, headroom_kib),
            _ => Ok(()),
        }
    }

    /// Puts the fault in place on a sandbox that is set up but where nothing runs yet.
    pub(crate) fn inject(&'static self, sandbox: &Sandbox, host: &Host) -> Result<Injected> {
        let mut injected = Injected {
            fault: self,
            listener: None,
            hosts: None,
            images: Vec::new(),
        };
        match self.kind {
            Kind::Unresolvable(prefix) => {
                let path = host.path("/etc/hosts");
                let text = std::fs::read_to_string(&path).map_err(Error::io(&path))?;
                let kept: String = text
                    .lines()
                    .filter(|l| {
                        !l.split_whitespace()
                            .skip(1)
                            .any(|n| n.starts_with(&format!("{prefix}.")))
                    })
                    .map(|l| format!("{l}\n"))
                    .collect();
                std::fs::write(&path, kept).map_err(Error::io(&path))?;
                injected.hosts = Some(text);
            }
            Kind::PortTaken(port) => {
                injected.listener = Some(listen(sandbox, port)?);
            }
            Kind::ReleaseImageAbsent | Kind::ComponentAbsent(_) => {
                injected.images.push(match self.kind {
                    Kind::ComponentAbsent(c) => absent_component(c),
                    _ => absent_release(),
                });
            }
            Kind::UserManifests(_) | Kind::Clock(_) | Kind::SmallDisk { .. } => {}
        }
        Ok(injected)
    }
}

impl Injected {
    /// Takes the fault away; `true` when bootkube.service must be restarted as a person
    /// would after such a fix.
    pub(crate) fn remove(&mut self, host: &Host, payload: &Payload) -> Result<bool> {
        match self.fault.kind {
            Kind::Unresolvable(_) => {
                if let Some(text) = self.hosts.take() {
                    let path = host.path("/etc/hosts");
                    std::fs::write(&path, text).map_err(Error::io(&path))?;
                }
                Ok(false)
            }
            Kind::PortTaken(_) => {
                if let Some(mut child) = self.listener.take() {
                    let _ = child.kill();
                    let _ = child.wait();
                }
                Ok(false)
            }
            Kind::ReleaseImageAbsent => {
                build_image(payload, &payload.release_image, &absent_release(), None)?;
                Ok(false)
            }
            Kind::ComponentAbsent(component) => {
                let real = payload
                    .image_for(component)?
                    .ok_or_else(|| Error::content(Path::new("image-references"), component))?;
                build_image(payload, &real, &absent_component(component), None)?;
                Ok(false)
            }
            Kind::UserManifests(files) => {
                for (name, _) in files {
                    let path = host.path(&format!("/opt/openshift/manifests/{name}"));
                    let _ = std::fs::remove_file(&path);
                }
                Ok(true)
            }
            Kind::Clock(_) => Ok(false),
            Kind::SmallDisk { .. } => {
                let dir = host.path("/opt/openshift");
                output_of(
                    Command::new("mount")
                        .args(["-o", &format!("remount,size={GROWN_DISK}")])
                        .arg(&dir),
                )?;
                Ok(false)
            }
        }
    }

    /// Removes the images the fault built (never the payload's).
    pub(crate) fn remove_images(&self, payload: &Payload) {
        let mut images = self.images.clone();
        if let Kind::ComponentAbsent(c) = self.fault.kind {
            images.push(release_without_name(c));
        }
        for image in images {
            debug_assert!(image.starts_with(FAULT_IMAGE_PREFIX));
            let _ = payload
                .podman()
                .args(["rmi", "--force", "--ignore", &image])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }
}

impl Drop for Injected {
    fn drop(&mut self) {
        if let Some(mut child) = self.listener.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The tmpfs source name of `sandbox`'s small disk, by which [`release_small_disk`] finds it.
fn small_disk_source(sandbox: &str) -> String {
    format!("{sandbox}-small-disk")
}

/// Puts what Ignition wrote under `/opt/openshift` onto a tmpfs of that size (counted in
/// pages, as tmpfs counts) plus `headroom_kib`, mounted in its place.
fn small_disk(host: &Host, sandbox: &str, headroom_kib: u64) -> Result<()> {
    let dir = host.path("/opt/openshift");
    let written = dir.with_file_name("openshift.ignition");
    std::fs::rename(&dir, &written).map_err(Error::io(&dir))?;
    std::fs::create_dir(&dir).map_err(Error::io(&dir))?;
    let kib = page_kib(&written)? + headroom_kib;
    output_of(
        Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k,mode=0755")])
            .arg(small_disk_source(sandbox))
            .arg(&dir),
    )?;
    output_of(
        Command::new("cp")
            .arg("-a")
            .arg(written.join("."))
            .arg(&dir),
    )?;
    std::fs::remove_dir_all(&written).map_err(Error::io(&written))
}

/// KiB the regular files under `dir` take on a tmpfs: whole 4 KiB pages each.
fn page_kib(dir: &Path) -> Result<u64> {
    let mut kib = 0;
    for entry in std::fs::read_dir(dir).map_err(Error::io(dir))? {
        let entry = entry.map_err(Error::io(dir))?;
        let kind = entry.file_type().map_err(Error::io(entry.path()))?;
        if kind.is_dir() {
            kib += page_kib(&entry.path())?;
        } else if kind.is_file() {
            let len = entry.metadata().map_err(Error::io(entry.path()))?.len();
            kib += len.div_ceil(4096) * 4;
        }
    }
    Ok(kib)
}

/// Unmounts `sandbox`'s small disk from the machine, if the disk-full fault made one (its
/// copy in the sandbox's mount namespace goes with the namespace).
pub(crate) fn release_small_disk(sandbox: &str) {
    let source = small_disk_source(sandbox);
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    for line in mounts.lines() {
        let mut fields = line.split_whitespace();
        if fields.next() == Some(source.as_str())
            && let Some(point) = fields.next()
        {
            let _ = Command::new("umount").args(["--lazy", point]).status();
        }
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default()
}

fn absent_release() -> String {
    format!("{FAULT_IMAGE_PREFIX}/release-absent:4.19")
}

fn absent_component(component: &str) -> String {
    format!("{FAULT_IMAGE_PREFIX}/{component}-absent:4.19")
}

fn release_without_name(component: &str) -> String {
    format!("{FAULT_IMAGE_PREFIX}/release-without-{component}:4.19")
}

/// A copy of the payload's release image whose image-references send `component` to a pull
/// spec in no store.
fn release_without(payload: &Payload, component: &str) -> Result<String> {
    let text = payload.release_manifest("image-references")?;
    let mut refs: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::content(Path::new("image-references"), &e.to_string()))?;
    let mut found = false;
    if let Some(tags) = refs["spec"]["tags"].as_array_mut() {
        for tag in tags {
            if tag["name"] == component {
                tag["from"]["name"] = absent_component(component).into();
                found = true;
            }
        }
    }
    if !found {
        return Err(Error::content(
            Path::new("image-references"),
            &format!("no tag {component}"),
        ));
    }
    let image = release_without_name(component);
    let body = serde_json::to_string_pretty(&refs).unwrap_or_default();
    build_image(
        payload,
        &payload.release_image,
        &image,
        Some(("release-manifests/image-references", &body)),
    )?;
    Ok(image)
}

/// Builds `tag` from `from`, with one file replaced when given (path under `/`, content).
fn build_image(payload: &Payload, from: &str, tag: &str, file: Option<(&str, &str)>) -> Result<()> {
    let context = tempfile::tempdir().map_err(Error::io(std::env::temp_dir()))?;
    let mut containerfile = format!("FROM {from}\nLABEL okd-harness.fault=\"{tag}\"\n");
    if let Some((path, content)) = file {
        let local = context.path().join("file");
        std::fs::write(&local, content).map_err(Error::io(&local))?;
        containerfile.push_str(&format!("COPY file /{path}\n"));
    }
    let path = context.path().join("Containerfile");
    std::fs::write(&path, containerfile).map_err(Error::io(&path))?;
    let mut build = payload.podman();
    build
        .args([
            "build",
            "--quiet",
            "--pull=never",
            "--network=none",
            "-t",
            tag,
            "-f",
        ])
        .arg(&path)
        .arg(context.path());
    output_of(&mut build).map(|_| ())
}

/// A process that listens on `port` of every address in the sandbox, until killed.
fn listen(sandbox: &Sandbox, port: u16) -> Result<Child> {
    let program = format!(
        "import socket, time\n\
         s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n\
         s.bind(('0.0.0.0', {port}))\n\
         s.listen(16)\n\
         print('listening on 0.0.0.0:{port}', flush=True)\n\
         time.sleep(10**8)\n"
    );
    let mut cmd: Command = sandbox.command("/usr/bin/python3");
    cmd.args(["-c", &program])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().map_err(|source| Error::Spawn {
        command: format!("python3 listening on {port}"),
        source,
    })?;
    // Wait until it listens: the fault must be in place before anything starts.
    let mut line = String::new();
    if let Some(out) = child.stdout.take() {
        use std::io::BufRead;
        let _ = std::io::BufReader::new(out).read_line(&mut line);
    }
    if !line.contains("listening") {
        let _ = child.kill();
        let _ = child.wait();
        return Err(Error::content(
            Path::new("/run/netns"),
            &format!("could not hold port {port} in the sandbox"),
        ));
    }
    Ok(child)
}

/// The first line of `files` (name, text) that holds one of the fault's symptoms.
pub(crate) fn host_error_line(
    fault: &Fault,
    files: &[(String, String)],
) -> Option<(String, String)> {
    for (name, text) in files {
        for line in text.lines() {
            let lower = line.to_lowercase();
            if fault
                .symptoms
                .iter()
                .any(|s| lower.contains(&s.to_lowercase()))
            {
                return Some((name.clone(), line.trim().to_string()));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fault_has_a_distinct_name_and_a_symptom() {
        let mut seen = std::collections::BTreeSet::new();
        for fault in FAULTS {
            assert!(seen.insert(fault.name), "{} twice", fault.name);
            assert!(!fault.symptoms.is_empty(), "{}", fault.name);
            assert!(fault.expected.id().len() > 2);
        }
    }

    /// The README's troubleshooting table (written from `contract::Cause`) has a row for the
    /// cause of every fault, and its faults table a row naming each fault with its cause.
    #[test]
    fn the_readme_tables_have_every_fault() {
        let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
        let text = std::fs::read_to_string(&readme).expect("README.md");
        let start = text
            .find("\n## Troubleshooting")
            .expect("README.md has a Troubleshooting section");
        let rest = &text[start + 1..];
        let section = match rest[3..].find("\n## ") {
            Some(end) => &rest[..end + 3],
            None => rest,
        };
        let rows: Vec<&str> = section
            .lines()
            .filter(|l| l.trim_start().starts_with('|'))
            .collect();
        for fault in FAULTS {
            let id = fault.expected.id();
            assert!(
                rows.iter().any(|r| r.contains(id)),
                "README.md's troubleshooting table has no row for {id} (fault {})",
                fault.name
            );
            let row = format!("| `{}` | `{id}` |", fault.name);
            assert!(
                text.lines().any(|l| l.starts_with(&row)),
                "README.md's faults table has no row starting {row}"
            );
        }
    }

    #[test]
    fn the_host_error_line_is_the_first_line_with_a_symptom() {
        let f = fault("etcd-start").unwrap();
        let files = vec![
            ("a.log".to_string(), "fine\nstill fine\n".to_string()),
            (
                "etcd.log".to_string(),
                "x\n  listen tcp 0.0.0.0:2379: bind: Address already in use\n".to_string(),
            ),
        ];
        assert_eq!(
            host_error_line(f, &files),
            Some((
                "etcd.log".to_string(),
                "listen tcp 0.0.0.0:2379: bind: Address already in use".to_string()
            ))
        );
    }
}
