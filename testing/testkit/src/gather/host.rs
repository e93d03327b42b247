//! A bootstrap or control-plane host simulated on this machine, for running the real gather
//! scripts over the real sshd as `core`.
//!
//! A [`FakeHost`] is a directory: `bin/` holds stand-ins for the tools a CoreOS host has and
//! this machine lacks (crictl, podman, oc, etcdctl, journalctl, systemctl, rpm-ostree, bootc,
//! and ip, ss, hostname for a fixed network state), `data/` their canned answers, and the host's own
//! files (`opt/openshift`, `etc/kubernetes`, `var/log/...`) sit below it. Like on a real host
//! those files are root's and private, and the root-only stand-ins refuse other users: a
//! gather that forgets sudo gets errors, not data. Every stand-in call is logged with the
//! user that made it ([`FakeHost::calls`]).
//!
//! [`core_with_sudo`] prepares the login user `core` with passwordless sudo, as on CoreOS;
//! that needs root, so without it the tests print a skip line (and fail with `CI=true`).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::evidence::{Container, Runtime};

/// The stand-in tools, by name.
const STANDINS: &[(&str, &str)] = &[
    ("common.sh", include_str!("standins/common.sh")),
    ("crictl", include_str!("standins/crictl")),
    ("podman", include_str!("standins/podman")),
    ("etcdctl", include_str!("standins/etcdctl")),
    ("oc", include_str!("standins/oc")),
    ("journalctl", include_str!("standins/journalctl")),
    ("systemctl", include_str!("standins/systemctl")),
    ("rpm-ostree", include_str!("standins/rpm-ostree")),
    ("bootc", include_str!("standins/bootc")),
    ("ip", include_str!("standins/ip")),
    ("ss", include_str!("standins/ss")),
    ("hostname", include_str!("standins/hostname")),
];

/// Data the tools answer from that only root may read (the rest, e.g. the failed units and
/// the host name, unprivileged callers see too).
const ROOT_ONLY_DATA: &[&str] = &[
    "crictl",
    "podman",
    "etcd",
    "oc",
    "journal",
    "rpm-ostree",
    "bootc",
];

/// The user the gather logs in as.
pub const CORE: &str = "core";

const SUDOERS_FILE: &str = "/etc/sudoers.d/90-okd-install-tests-core";

/// Passwordless sudo for core, and its PATH kept (the stand-ins are found through it).
const SUDOERS: &str = "core ALL=(ALL) NOPASSWD: ALL\nDefaults:core !secure_path\n";

fn succeeds(cmd: &mut Command) -> bool {
    cmd.output().is_ok_and(|o| o.status.success())
}

/// Makes sure the user `core` exists, can log in with a key (no password, not locked) and
/// has passwordless sudo. Needs root and sudo; otherwise prints why the test is skipped and
/// returns false, or panics with `CI=true`.
pub fn core_with_sudo() -> bool {
    let uid = super::sshd::run(Command::new("id").arg("-u"));
    if uid.trim() != "0" {
        return crate::require(
            false,
            "the gather-as-core tests create the user core with passwordless sudo and need root",
        );
    }
    if !crate::require(
        Path::new("/usr/bin/sudo").exists(),
        "sudo is missing: install the Debian package sudo",
    ) {
        return false;
    }
    if !succeeds(Command::new("getent").args(["passwd", CORE])) {
        super::sshd::run(Command::new("useradd").args([
            "--create-home",
            "--shell",
            "/bin/bash",
            CORE,
        ]));
    }
    // A locked account ("!" in shadow) cannot log in even with a key when PAM is off.
    super::sshd::run(Command::new("usermod").args(["--password", "*", CORE]));
    if std::fs::read_to_string(SUDOERS_FILE).ok().as_deref() != Some(SUDOERS) {
        let staged = format!("{SUDOERS_FILE}.tmp");
        std::fs::write(&staged, SUDOERS).expect("write the sudoers drop-in");
        std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o440))
            .expect("chmod the sudoers drop-in");
        super::sshd::run(Command::new("visudo").args(["-c", "-q", "-f", &staged]));
        std::fs::rename(&staged, SUDOERS_FILE).expect("install the sudoers drop-in");
    }
    true
}

/// A simulated host; removed when dropped.
pub struct FakeHost {
    dir: tempfile::TempDir,
}

impl Default for FakeHost {
    fn default() -> Self {
        Self::new()
    }
}

impl FakeHost {
    /// An empty host: stand-ins installed, no containers, no journal, no failed unit.
    pub fn new() -> FakeHost {
        let dir = tempfile::Builder::new()
            .prefix("fake-host-")
            .tempdir()
            .expect("fake host dir");
        let host = FakeHost { dir };
        set_mode(host.root(), 0o755);
        for (name, text) in STANDINS {
            host.write(&format!("bin/{name}"), text, 0o755);
        }
        host.write("data/calls.log", "", 0o666);
        for sub in ROOT_ONLY_DATA {
            std::fs::create_dir(host.path(&format!("data/{sub}"))).expect("data dir");
            set_mode(&host.path(&format!("data/{sub}")), 0o700);
        }
        host.write("data/systemd/failed", "", 0o644);
        host
    }

    /// The host's root directory.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `rel` below the root.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// Writes `rel` (below the root) with `mode`; directories it creates get 0755, existing
    /// ones keep theirs.
    pub fn write(&self, rel: &str, text: impl AsRef<[u8]>, mode: u32) {
        let path = self.path(rel);
        let mut dir = self.root().to_path_buf();
        for part in Path::new(rel)
            .parent()
            .into_iter()
            .flat_map(Path::components)
        {
            dir.push(part);
            if !dir.exists() {
                std::fs::create_dir(&dir)
                    .unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
                set_mode(&dir, 0o755);
            }
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        set_mode(&path, mode);
    }

    /// A file of the host that only root reads (0600), like every file of the asset tree.
    pub fn private_file(&self, rel: &str, text: impl AsRef<[u8]>) {
        self.write(rel, text, 0o600);
    }

    /// Makes the directories `rels` (below the root) root's alone, as the kubeconfig and key
    /// directories of a bootstrap host are.
    pub fn private_dirs(&self, rels: &[&str]) {
        for rel in rels {
            set_mode(&self.path(rel), 0o700);
        }
    }

    /// Adds a container for the stand-in crictl or podman.
    pub fn container(&self, c: &Container) {
        let dir = match c.runtime {
            Runtime::Crio => format!("data/crictl/{}", c.id()),
            Runtime::Podman => format!("data/podman/{}", c.id()),
        };
        let state = if c.running { "running" } else { "exited" };
        for (file, text) in [
            ("name", c.name.clone()),
            ("state", state.to_string()),
            ("ps-line", format!("{}\n", c.ps_line())),
            ("inspect.json", c.inspect()),
            ("log", c.log.clone()),
        ] {
            self.write(&format!("{dir}/{file}"), text, 0o644);
        }
    }

    /// The journal of `unit` (or of the syslog identifier, e.g. `ignition`).
    pub fn journal(&self, unit: &str, text: &str) {
        self.write(&format!("data/journal/{unit}.log"), text, 0o644);
    }

    /// A unit in the failed state.
    pub fn failed_unit(&self, unit: &str, description: &str) {
        let path = self.path("data/systemd/failed");
        let mut text = std::fs::read_to_string(&path).unwrap_or_default();
        text.push_str(&format!("{unit} {description}\n"));
        self.write("data/systemd/failed", text, 0o644);
    }

    /// What the stand-in oc answers for `oc get <kind> -o json` (`version` and `openapi` for
    /// the raw paths, `secrets.txt` and `secrets-annotations.txt` for the two secret lists).
    pub fn api_object(&self, file: &str, text: &str) {
        self.write(&format!("data/oc/{file}"), text, 0o644);
    }

    /// Makes the API refuse every request with `error`.
    pub fn api_down(&self, error: &str) {
        self.write("data/oc/down", error, 0o644);
    }

    /// What etcdctl in the bootstrap etcd pod answers.
    pub fn etcd(&self, member_list: &str, endpoint_health: &str, endpoint_status: &str) {
        self.write("data/etcd/member-list", member_list, 0o644);
        self.write("data/etcd/endpoint-health", endpoint_health, 0o644);
        self.write("data/etcd/endpoint-status", endpoint_status, 0o644);
    }

    /// What rpm-ostree answers for `status` and `ex history`.
    pub fn rpm_ostree(&self, status: &str, history: &str) {
        self.write("data/rpm-ostree/status", status, 0o644);
        self.write("data/rpm-ostree/history", history, 0o644);
    }

    /// What rpm-ostree answers for `status --json`.
    pub fn rpm_ostree_json(&self, status: &str) {
        self.write("data/rpm-ostree/status.json", status, 0o644);
    }

    /// What bootc answers for `status --json`.
    pub fn bootc(&self, status: &str) {
        self.write("data/bootc/status.json", status, 0o644);
    }

    /// Takes the stand-in `tool` away, as on a host that does not have it.
    pub fn without_tool(&self, tool: &str) {
        let path = self.path(&format!("bin/{tool}"));
        std::fs::remove_file(&path).unwrap_or_else(|e| panic!("rm {}: {e}", path.display()));
    }

    /// The network state: `ip addr`, `ip route`, `ip -6 route`, `ss` and the host name.
    pub fn network(&self, addr: &str, route: &str, route_v6: &str, ss: &str, hostname: &str) {
        for (file, text) in [
            ("ip-addr", addr),
            ("ip-route", route),
            ("ip-route-v6", route_v6),
            ("ss", ss),
            ("hostname", hostname),
        ] {
            self.write(&format!("data/net/{file}"), text, 0o644);
        }
    }

    /// The canned answer `data/<rel>`, as the test wrote it.
    pub fn data(&self, rel: &str) -> String {
        read(&self.path(&format!("data/{rel}")))
    }

    /// The stand-in calls so far, one `user tool args` line each.
    pub fn calls(&self) -> Vec<String> {
        self.data("calls.log").lines().map(str::to_string).collect()
    }

    /// The PATH a login on this host gets: the stand-ins first.
    pub fn path_env(&self) -> String {
        format!(
            "{}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            self.path("bin").display()
        )
    }
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .unwrap_or_else(|e| panic!("chmod {}: {e}", path.display()));
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}
