//! What a CoreOS host has before Ignition runs that a Debian root made of packages lacks,
//! each as a small equivalent: without them the host would fail earlier than CoreOS would,
//! for a reason of its own.
//!
//! None of this is OKD's: it is the operating system the bootstrap config is written for.
//! What the release's node image adds (rpm, rpm-ostree, oc, CRI-O, the kubelet) is in
//! [`crate::standins`] instead.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};
use crate::run::output_of;

/// The first boot: systemd sees `uninitialized` and applies the presets Ignition wrote, in
/// PID 1, as on a CoreOS first boot (an offline `systemctl --root preset-all` would also
/// apply Debian's own disable lines).
const MACHINE_ID: &str = "uninitialized\n";

/// Units CoreOS does not run: systemd-networkd (Debian's first-boot presets enable it next to
/// NetworkManager; CoreOS runs NetworkManager only) and the first-boot wizard (CoreOS never
/// prompts: Ignition configured the host; without a terminal the wizard fails the boot).
const MASKED: &[&str] = &[
    "systemd-networkd.service",
    "systemd-networkd.socket",
    "systemd-networkd-wait-online.service",
    "systemd-firstboot.service",
];

/// CoreOS's base config, which Ignition merges before the user's (`/usr/lib/ignition/base.d`
/// in the CoreOS initramfs): the core user and the groups that make it an administrator.
/// Debian's administrator group is `sudo` where CoreOS's is `wheel`.
const BASE_CONFIG: &str = r#"{"ignition":{"version":"3.0.0"},"passwd":{"users":[{"name":"core","groups":["adm","sudo","systemd-journal"]}]}}"#;

/// CoreOS lets its administrator group use sudo without a password.
const SUDOERS: &str = "%sudo ALL=(ALL) NOPASSWD: ALL\n";

/// CoreOS's sshd reads the keys Ignition writes to `~/.ssh/authorized_keys.d/ignition`.
const SSHD_KEYS: &str = "AuthorizedKeysFile .ssh/authorized_keys .ssh/authorized_keys.d/ignition\n";

/// CoreOS runs with SELinux, and Ignition relabels what it wrote with the policy's file
/// contexts (`setfiles`). This kernel has no SELinux, but labels are extended attributes all
/// the same: a one-line policy labels every written file, and the node image pull's
/// `chcon --reference=/usr/bin/ostree` finds the label CoreOS gives ostree.
const SELINUX_CONFIG: &str = "SELINUX=permissive\nSELINUXTYPE=targeted\n";
const FILE_CONTEXTS: &str = "/.*\tsystem_u:object_r:default_t:s0\n";
const OSTREE_LABEL: &str = "system_u:object_r:install_exec_t:s0";

/// CoreOS turns the anchors in `/etc/pki/ca-trust/source/anchors` (where the bootstrap config
/// puts the additional trust bundle) into the system trust at boot; Debian's trust comes from
/// `/usr/local/share/ca-certificates`. This unit links one to the other before anything that
/// may fetch runs.
const CA_TRUST_SCRIPT: &str = "\
#!/bin/sh
# The CoreOS trust anchors as Debian's local certificates, then the system bundle remade.
set -e
mkdir -p /usr/local/share/ca-certificates/anchors
for anchor in /etc/pki/ca-trust/source/anchors/*; do
    [ -f \"$anchor\" ] || continue
    ln -sf \"$anchor\" \"/usr/local/share/ca-certificates/anchors/$(basename \"$anchor\" .crt).crt\"
done
exec update-ca-certificates
";
const CA_TRUST_SCRIPT_PATH: &str = "usr/libexec/coreos-update-ca-trust";
const CA_TRUST_UNIT: &str = "\
[Unit]
Description=Turn the CoreOS trust anchors into the system trust (Debian's update-ca-certificates)
DefaultDependencies=no
# After /tmp is set up, where update-ca-certificates writes its scratch file.
After=local-fs.target systemd-tmpfiles-setup.service
Before=sysinit.target network-pre.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/libexec/coreos-update-ca-trust

[Install]
WantedBy=sysinit.target
";
const CA_TRUST_NAME: &str = "coreos-update-ca-trust.service";

/// Not CoreOS's but the test machine's: the host is a container on a machine that gives it
/// no CAP_SYS_RESOURCE and a read-only /proc/sys, so the containers podman starts on it
/// (the release image's lookup) can neither get cgroups of their own (crun raises the
/// locked-memory limit to load its device filter, which only that capability allows) nor
/// have podman's default sysctl written. podman on the host runs them without both.
const NESTED_CONTAINERS_CONF: &str = "\
# okd-install real-host test: the machine under this host allows containers no cgroups and no sysctls.
[containers]
cgroups = \"disabled\"
default_sysctls = []
";

/// The host's network as the site gives it: the bootstrap address on `eth0`, the lab side
/// of the link as gateway and name server. On a real host this comes from DHCP or from the
/// site's NetworkManager profiles; NetworkManager applies it here as there.
#[derive(Debug, Clone)]
pub struct SiteNetwork {
    /// The host's address with its prefix, e.g. `198.18.0.10/24`.
    pub address: String,
    /// The gateway and name server.
    pub gateway: String,
}

impl SiteNetwork {
    fn keyfile(&self) -> String {
        format!(
            "[connection]\nid=site\ntype=ethernet\ninterface-name=eth0\n\n\
             [ipv4]\nmethod=manual\naddress1={},{}\ndns={};\n\n[ipv6]\nmethod=disabled\n",
            self.address, self.gateway, self.gateway
        )
    }
}

/// Makes the unpacked Debian `root` the CoreOS-like host Ignition expects, on `network`.
pub fn prepare(root: &Path, network: &SiteNetwork) -> Result<()> {
    write(root, "etc/machine-id", MACHINE_ID, 0o444)?;
    // CoreOS ships no host name: the machine's name (here the container's) stays.
    remove(root, "etc/hostname")?;
    // NetworkManager writes it from the site's name server.
    remove(root, "etc/resolv.conf")?;
    for unit in MASKED {
        let link = root.join("etc/systemd/system").join(unit);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("/dev/null", &link).map_err(Error::io(&link))?;
    }
    write(root, "etc/sudoers.d/coreos-sudo-group", SUDOERS, 0o440)?;
    write(
        root,
        "etc/ssh/sshd_config.d/40-ignition-keys.conf",
        SSHD_KEYS,
        0o644,
    )?;
    write(root, "etc/selinux/config", SELINUX_CONFIG, 0o644)?;
    write(
        root,
        "etc/selinux/targeted/contexts/files/file_contexts",
        FILE_CONTEXTS,
        0o644,
    )?;
    output_of(
        Command::new("chcon")
            .arg(OSTREE_LABEL)
            .arg(root.join("usr/bin/ostree")),
    )?;
    write(root, CA_TRUST_SCRIPT_PATH, CA_TRUST_SCRIPT, 0o755)?;
    write(
        root,
        &format!("etc/systemd/system/{CA_TRUST_NAME}"),
        CA_TRUST_UNIT,
        0o644,
    )?;
    let wants = root.join("etc/systemd/system/sysinit.target.wants");
    std::fs::create_dir_all(&wants).map_err(Error::io(&wants))?;
    let link = wants.join(CA_TRUST_NAME);
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(format!("/etc/systemd/system/{CA_TRUST_NAME}"), &link)
        .map_err(Error::io(&link))?;
    write(
        root,
        "etc/containers/containers.conf.d/90-nested-in-a-test-container.conf",
        NESTED_CONTAINERS_CONF,
        0o644,
    )?;
    write(
        root,
        "etc/NetworkManager/system-connections/site.nmconnection",
        &network.keyfile(),
        0o600,
    )
}

/// What Ignition's files stage needs of a root besides what it writes: the SELinux policy
/// it relabels with and account databases that know root. For a scratch root that only
/// receives a config (a pointer config's merge), not a whole host.
pub fn scratch_root(root: &Path) -> Result<()> {
    write(root, "etc/selinux/config", SELINUX_CONFIG, 0o644)?;
    write(
        root,
        "etc/selinux/targeted/contexts/files/file_contexts",
        FILE_CONTEXTS,
        0o644,
    )?;
    write(root, "etc/passwd", "root:x:0:0:root:/root:/bin/sh\n", 0o644)?;
    // The groups the base config puts core in.
    write(
        root,
        "etc/group",
        "root:x:0:\nadm:x:4:\nsudo:x:27:\nsystemd-journal:x:999:\n",
        0o644,
    )
}

/// The directory that plays the CoreOS initramfs's `/usr/lib/ignition` (Ignition's system
/// config directory), made under `work`.
pub fn ignition_system_dir(work: &Path) -> Result<PathBuf> {
    let dir = work.join("usr-lib-ignition");
    let base = dir.join("base.d");
    std::fs::create_dir_all(&base).map_err(Error::io(&base))?;
    let file = base.join("00-core.ign");
    std::fs::write(&file, BASE_CONFIG).map_err(Error::io(&file))?;
    Ok(dir)
}

/// Writes `text` at `relative` under `root` with `mode`, creating its directory.
pub(crate) fn write(root: &Path, relative: &str, text: &str, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let path = root.join(relative);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(Error::io(parent))?;
    }
    let _ = std::fs::remove_file(&path);
    std::fs::write(&path, text).map_err(Error::io(&path))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).map_err(Error::io(&path))
}

fn remove(root: &Path, relative: &str) -> Result<()> {
    let path = root.join(relative);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Io { path, error: e }),
        _ => Ok(()),
    }
}
