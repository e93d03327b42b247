//! A real OpenSSH server on the sandbox's bootstrap address, so that `okd-install gather
//! bootstrap` collects from the real bootstrap exactly as from a bootstrap machine.
//!
//! As on the node, the user `core` logs in with the keys bootstrap.ign gives it (the
//! install-config's `sshKey` and the generated bootstrap key) and is root by sudo. The account
//! and the sudoers drop-in exist only inside the sandbox's mount namespace: private copies of
//! the machine's `/etc/passwd`, `/etc/shadow`, `/etc/group` and `/etc/sudoers.d` with `core`
//! added are bind-mounted over the originals there; the machine's own are never changed. The
//! login's PATH starts with the harness's tools (crictl, oc, journalctl, systemctl stand-ins),
//! and sudo keeps it, so the gather script that okd-install generated runs unchanged.

use std::net::IpAddr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::Error;
use crate::host::output_of;
use crate::{Result, Sandbox};

/// The port sshd listens on: the sandbox has a network namespace of its own, so the real one.
pub const SSH_PORT: u16 = 22;
/// The user the gather logs in as.
pub const CORE: &str = "core";
const SUDOERS: &str = "core ALL=(ALL) NOPASSWD: ALL\nDefaults:core !secure_path\n";

/// sshd running in a sandbox; ended when dropped.
pub struct SandboxSshd {
    child: Child,
    /// Its log.
    pub log: PathBuf,
}

impl Drop for SandboxSshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl SandboxSshd {
    /// Starts sshd in `sandbox` on `address`:22 for `core` with `authorized_keys`; `dir` is
    /// its own directory (config, host key, account copies, core's home), `path` the login's
    /// PATH, `log` its log.
    pub fn start(
        sandbox: &Sandbox,
        address: IpAddr,
        authorized_keys: &[String],
        dir: &Path,
        path: &str,
        log: &Path,
    ) -> Result<SandboxSshd> {
        std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
        let home = dir.join("home/core");
        std::fs::create_dir_all(&home).map_err(Error::io(&home))?;
        let (uid, gid) = private_accounts(sandbox, dir, &home)?;
        output_of(Command::new("chown").arg(format!("{uid}:{gid}")).arg(&home))?;
        let host_key = dir.join("host_key");
        if !host_key.exists() {
            output_of(
                Command::new("ssh-keygen")
                    .args(["-q", "-t", "ed25519", "-N", "", "-C", "bootstrap", "-f"])
                    .arg(&host_key),
            )?;
        }
        let keys = dir.join("authorized_keys");
        std::fs::write(&keys, authorized_keys.join("\n") + "\n").map_err(Error::io(&keys))?;
        for (p, mode) in [(dir.to_path_buf(), 0o711), (keys.clone(), 0o644)] {
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode))
                .map_err(Error::io(&p))?;
        }
        let listen = match address {
            IpAddr::V4(a) => a.to_string(),
            IpAddr::V6(a) => format!("[{a}]"),
        };
        let config = dir.join("sshd_config");
        let text = format!(
            "Port {SSH_PORT}\nListenAddress {listen}\nListenAddress 127.0.0.1\n\
             HostKey {host_key}\nAuthorizedKeysFile {keys}\nPidFile none\nUsePAM no\n\
             StrictModes no\nPermitRootLogin no\nAllowUsers {CORE}\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nLogLevel VERBOSE\nSetEnv PATH={path}\n\
             Subsystem sftp internal-sftp\n",
            host_key = host_key.display(),
            keys = keys.display(),
        );
        std::fs::write(&config, text).map_err(Error::io(&config))?;
        let _ = std::fs::create_dir_all("/run/sshd");
        let out = std::fs::File::create(log).map_err(Error::io(log))?;
        let mut cmd = sandbox.command("/usr/sbin/sshd");
        cmd.args(["-D", "-e", "-f"])
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(out);
        let mut child = cmd.spawn().map_err(|source| Error::Spawn {
            command: "sshd".into(),
            source,
        })?;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            if text.contains("Server listening") {
                break;
            }
            if child.try_wait().ok().flatten().is_some() || Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::content(log, &format!("sshd did not start: {text}")));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(SandboxSshd {
            child,
            log: log.to_path_buf(),
        })
    }
}

/// Copies of the machine's account files and sudoers drop-ins with `core` added, bound over
/// the originals inside the sandbox's mount namespace only: `core`'s uid and gid.
fn private_accounts(sandbox: &Sandbox, dir: &Path, home: &Path) -> Result<(u32, u32)> {
    let read = |p: &str| std::fs::read_to_string(p).map_err(Error::io(p));
    let mut passwd = read("/etc/passwd")?;
    let mut group = read("/etc/group")?;
    let mut shadow = read("/etc/shadow")?;
    let taken = |text: &str, field: usize| -> Vec<u32> {
        text.lines()
            .filter_map(|l| l.split(':').nth(field)?.parse().ok())
            .collect()
    };
    let existing = |text: &str| -> Option<(u32, u32)> {
        text.lines().find_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.first() == Some(&CORE))
                .then(|| Some((f.get(2)?.parse().ok()?, f.get(3)?.parse().ok()?)))?
        })
    };
    // The machine may have a `core` already (other tests create one): the sandbox gets its
    // own, with the home directory of this run.
    let (uid, gid) = existing(&passwd).unwrap_or_else(|| {
        let used = taken(&passwd, 2);
        let groups = taken(&group, 2);
        let id = (1000..60000)
            .find(|i| !used.contains(i) && !groups.contains(i))
            .unwrap_or(60001);
        (id, id)
    });
    passwd = passwd
        .lines()
        .filter(|l| !l.starts_with("core:"))
        .map(|l| format!("{l}\n"))
        .collect();
    passwd.push_str(&format!(
        "{CORE}:x:{uid}:{gid}:CoreOS Admin:{}:/bin/bash\n",
        home.display()
    ));
    if !group
        .lines()
        .any(|l| l.split(':').nth(2) == Some(&gid.to_string()))
    {
        group.push_str(&format!("{CORE}:x:{gid}:\n"));
    }
    shadow = shadow
        .lines()
        .filter(|l| !l.starts_with("core:"))
        .map(|l| format!("{l}\n"))
        .collect();
    // `*`: no password, but not locked, so a key logs in.
    shadow.push_str(&format!("{CORE}:*:19000:0:99999:7:::\n"));
    let etc = dir.join("etc");
    let sudoers = etc.join("sudoers.d");
    std::fs::create_dir_all(&sudoers).map_err(Error::io(&sudoers))?;
    for entry in std::fs::read_dir("/etc/sudoers.d")
        .into_iter()
        .flatten()
        .flatten()
    {
        let _ = std::fs::copy(entry.path(), sudoers.join(entry.file_name()));
    }
    let drop_in = sudoers.join("90-okd-harness-core");
    std::fs::write(&drop_in, SUDOERS).map_err(Error::io(&drop_in))?;
    std::fs::set_permissions(&drop_in, std::fs::Permissions::from_mode(0o440))
        .map_err(Error::io(&drop_in))?;
    for (name, text, mode) in [
        ("passwd", &passwd, 0o644),
        ("group", &group, 0o644),
        ("shadow", &shadow, 0o640),
    ] {
        let path = etc.join(name);
        std::fs::write(&path, text).map_err(Error::io(&path))?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
            .map_err(Error::io(&path))?;
    }
    let mut script = String::from("set -e\n");
    for target in ["passwd", "group", "shadow", "sudoers.d"] {
        script.push_str(&format!(
            "mount --bind '{}' '/etc/{target}'\n",
            etc.join(target).display()
        ));
    }
    let mut cmd = Command::new("nsenter");
    cmd.arg(format!("--mount={}", sandbox.mount_namespace().display()))
        .args(["--", "sh", "-c"])
        .arg(script);
    output_of(&mut cmd)?;
    Ok((uid, gid))
}

/// The SSH keys bootstrap.ign gives `core`.
pub fn core_keys(ignition: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(ignition).unwrap_or_default();
    let config: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    config["passwd"]["users"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|u| u["name"] == CORE)
        .flat_map(|u| {
            u["sshAuthorizedKeys"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect::<Vec<_>>()
        })
        .collect()
}
