//! The host booted: real systemd as PID 1 of a systemd-nspawn container, on a private
//! network of its own.
//!
//! Two network namespaces per host, both named after it: the host's (`okdrh-NAME`), which
//! the container joins, and the lab's (`okdrh-NAME-lab`), the site's side of the link, where
//! servers the host talks to run. A veth pair joins them (`eth0` in the host, `lab0` in the
//! lab); nothing routes out of the lab, so no packet leaves the machine.
//!
//! The machine CI runs on has no systemd as PID 1: nspawn runs with `--register=no
//! --keep-unit`, and the container's systemd is reached with `nsenter` into its leader's
//! namespaces (`ip netns exec` would remount /sys, and nspawn then fails on cgroups).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::coreos::SiteNetwork;
use crate::error::{Error, Result};
use crate::run::{command_line, output_of};

/// The prefix of every namespace and machine name the real host makes, so that they are
/// told apart from anyone else's and a crashed run's are easy to find.
pub const PREFIX: &str = "okdrh-";
/// The host's address on the lab network.
pub const HOST_ADDRESS: &str = "198.18.0.10";
/// The lab's address: the host's gateway and name server.
pub const LAB_ADDRESS: &str = "198.18.0.1";
/// The nftables table of [`Lab::redirect`].
const REDIRECT_TABLE: &str = "okd_redirect";
const PREFIX_LEN: u8 = 24;

/// The site's network of a host, as [`crate::coreos::prepare`] writes it.
pub fn site_network() -> SiteNetwork {
    SiteNetwork {
        address: format!("{HOST_ADDRESS}/{PREFIX_LEN}"),
        gateway: LAB_ADDRESS.to_string(),
    }
}

/// The two namespaces of a host and the link between them; removed when dropped.
#[derive(Debug)]
pub struct Lab {
    /// The host's name, which the namespaces are named after.
    pub name: String,
    /// The host's network namespace.
    pub host_netns: String,
    /// The lab's network namespace.
    pub lab_netns: String,
}

impl Lab {
    /// Makes the namespaces of host `name` (left-overs of an earlier run removed first).
    pub fn create(name: &str) -> Result<Lab> {
        let lab = Lab {
            name: name.to_string(),
            host_netns: format!("{PREFIX}{name}"),
            lab_netns: format!("{PREFIX}{name}-lab"),
        };
        lab.remove();
        let ip = |args: &[&str]| output_of(Command::new("ip").args(args)).map(drop);
        ip(&["netns", "add", &lab.host_netns])?;
        ip(&["netns", "add", &lab.lab_netns])?;
        ip(&[
            "link",
            "add",
            "eth0",
            "netns",
            &lab.host_netns,
            "type",
            "veth",
            "peer",
            "name",
            "lab0",
            "netns",
            &lab.lab_netns,
        ])?;
        ip(&["-n", &lab.host_netns, "link", "set", "lo", "up"])?;
        ip(&["-n", &lab.lab_netns, "link", "set", "lo", "up"])?;
        let lab_address = format!("{LAB_ADDRESS}/{PREFIX_LEN}");
        ip(&[
            "-n",
            &lab.lab_netns,
            "address",
            "add",
            &lab_address,
            "dev",
            "lab0",
        ])?;
        ip(&["-n", &lab.lab_netns, "link", "set", "lab0", "up"])?;
        Ok(lab)
    }

    /// `program` run in the lab's network namespace (the machine's mounts).
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new("nsenter");
        cmd.arg(format!("--net=/run/netns/{}", self.lab_netns))
            .arg("--")
            .arg(program);
        cmd
    }

    /// Sends the host's new connections to port `from` of the lab address to port `to`
    /// instead, as a site's load balancer or proxy stands in front of its registry (the
    /// fault front of [`crate::front`] put in the registry's place, the host's names and
    /// files untouched); with `None`, lets them go where they were addressed again. One
    /// redirection at a time, in the lab's namespace (nftables' NAT, before routing, so the
    /// front's own connections to the registry go straight through).
    pub fn redirect(&self, from: u16, to: Option<u16>) -> Result<()> {
        // Declaring the table first makes its deletion succeed when there is none.
        let mut script = format!("table ip {REDIRECT_TABLE}; delete table ip {REDIRECT_TABLE}");
        if let Some(to) = to {
            script.push_str(&format!(
                "; table ip {REDIRECT_TABLE} {{ chain prerouting {{ type nat hook prerouting \
                 priority dstnat; policy accept; ip daddr {LAB_ADDRESS} tcp dport {from} \
                 dnat to {LAB_ADDRESS}:{to}; }}; }}"
            ));
        }
        output_of(self.command("nft").arg(script)).map(drop)
    }

    fn remove(&self) {
        for netns in [&self.host_netns, &self.lab_netns] {
            if Path::new("/run/netns").join(netns).exists() {
                let pids = output_of(Command::new("ip").args(["netns", "pids", netns]))
                    .unwrap_or_default();
                for pid in pids.split_whitespace() {
                    let _ = Command::new("kill").args(["-KILL", pid]).status();
                }
                let _ = Command::new("ip").args(["netns", "delete", netns]).status();
            }
        }
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        self.remove();
    }
}

/// The state of one unit, as `systemctl show` reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnitStatus {
    /// `loaded`, `not-found`, `masked`, ...
    pub load: String,
    /// `active`, `activating`, `inactive`, `failed`, ...
    pub active: String,
    /// `running`, `listening`, `exited`, `dead`, `start`, ...
    pub sub: String,
    /// Whether its start conditions held the last time it was started (`yes`/`no`).
    pub condition: String,
    /// `enabled`, `disabled`, `static`, ...
    pub file_state: String,
}

impl std::fmt::Display for UnitStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {}/{} (condition {}, {})",
            self.load, self.active, self.sub, self.condition, self.file_state
        )
    }
}

/// The size of a host's root file system: room for the root and what the boot writes.
const ROOT_SIZE: &str = "4g";
/// The file [`Machine::fill_disk`] fills the host's disk with, in its /var.
const FILL: &str = "var/okd-real-host-fill";
/// What a full disk keeps free for the moment it is filled (MiB): the host writes on.
const FILL_MARGIN_MIB: u64 = 4;

/// The host's root: a tmpfs mounted for it, unmounted when dropped.
#[derive(Debug)]
pub struct RootMount {
    /// Where it is mounted.
    pub path: PathBuf,
}

impl RootMount {
    /// Mounts a tmpfs at `path` (created), big enough for the root and what the boot writes.
    pub fn new(path: &Path) -> Result<RootMount> {
        std::fs::create_dir_all(path).map_err(Error::io(path))?;
        output_of(
            Command::new("mount")
                .args(["-t", "tmpfs", "-o"])
                .arg(format!("size={ROOT_SIZE},mode=0755"))
                .arg("okd-real-host")
                .arg(path),
        )?;
        Ok(RootMount {
            path: path.to_path_buf(),
        })
    }
}

impl Drop for RootMount {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("--lazy")
            .arg(&self.path)
            .status();
    }
}

/// A booted host; powered off, its namespaces removed, its root unmounted, when dropped.
pub struct Machine {
    /// The machine's name (its host name).
    pub name: String,
    /// The root it booted.
    pub root: PathBuf,
    /// nspawn's own output.
    pub log: PathBuf,
    nspawn: Child,
    leader: u32,
    /// The network; dropped after the container.
    pub lab: Lab,
    /// The root's file system; dropped last.
    _root_mount: RootMount,
}

impl Machine {
    /// Boots the root at `root_mount` as `name` on `lab` with systemd-nspawn; returns once
    /// its systemd runs.
    pub fn boot(name: &str, root_mount: RootMount, lab: Lab, log: &Path) -> Result<Machine> {
        let root = root_mount.path.clone();
        let out = std::fs::File::create(log).map_err(Error::io(log))?;
        let err = out.try_clone().map_err(Error::io(log))?;
        let machine_name = format!("{PREFIX}{name}");
        let mut cmd = Command::new("systemd-nspawn");
        cmd.args(["--quiet", "--boot", "--register=no", "--keep-unit"])
            .arg(format!("--directory={}", root.display()))
            .arg(format!("--machine={machine_name}"))
            .arg(format!(
                "--network-namespace-path=/run/netns/{}",
                lab.host_netns
            ))
            // A bootstrap machine is a whole machine: every capability, its own resolv.conf
            // (NetworkManager writes it), its own time zone.
            .args(["--capability=all", "--resolv-conf=off", "--timezone=off"])
            // nspawn's system call filter refuses the kernel keyring, which crun asks for
            // every container it starts (podman run of the release image's lookup).
            .arg("--system-call-filter=@keyring")
            .arg("--console=pipe")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        let nspawn = cmd.spawn().map_err(|source| Error::Spawn {
            command: command_line(&cmd),
            source,
        })?;
        let mut machine = Machine {
            name: machine_name,
            root,
            log: log.to_path_buf(),
            leader: 0,
            nspawn,
            lab,
            _root_mount: root_mount,
        };
        machine.leader = machine.find_leader()?;
        machine.wait_for("the container's systemd to answer", 60, |m| {
            let state = m.output(&["systemctl", "is-system-running"]);
            match state {
                Ok(s) if !s.trim().is_empty() => Ok(true),
                Err(Error::Command { output, .. })
                    if ["starting", "degraded", "running", "initializing"]
                        .iter()
                        .any(|s| output.trim().starts_with(s)) =>
                {
                    Ok(true)
                }
                _ => Ok(false),
            }
        })?;
        Ok(machine)
    }

    /// The container's PID 1, a child of nspawn.
    fn find_leader(&mut self) -> Result<u32> {
        let pid = self.nspawn.id();
        let children = format!("/proc/{pid}/task/{pid}/children");
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(30) {
            if let Ok(Some(status)) = self.nspawn.try_wait() {
                let said = std::fs::read_to_string(&self.log).unwrap_or_default();
                return Err(Error::Command {
                    command: "systemd-nspawn --boot".into(),
                    status: status.to_string(),
                    output: said,
                });
            }
            for child in std::fs::read_to_string(&children)
                .unwrap_or_default()
                .split_whitespace()
            {
                let comm =
                    std::fs::read_to_string(format!("/proc/{child}/comm")).unwrap_or_default();
                if comm.trim() == "systemd" {
                    return child.parse().map_err(|_| Error::Timeout {
                        what: "no container leader".into(),
                        seconds: 30,
                        detail: format!("unreadable pid {child}"),
                    });
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err(Error::Timeout {
            what: "systemd did not start in the container".into(),
            seconds: 30,
            detail: std::fs::read_to_string(&self.log).unwrap_or_default(),
        })
    }

    /// `args` run inside the host (its mounts, processes, network, name), as root with a
    /// clean environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new("nsenter");
        cmd.env_clear()
            .env(
                "PATH",
                "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            )
            .env("LANG", "C.UTF-8")
            .arg(format!("--target={}", self.leader))
            .args(["--mount", "--pid", "--net", "--uts", "--ipc", "--"])
            .args(args);
        cmd
    }

    /// What `args` printed inside the host, or an error with its output.
    pub fn output(&self, args: &[&str]) -> Result<String> {
        output_of(&mut self.command(args))
    }

    /// What `args` printed inside the host on either stream, whatever its exit status.
    pub fn said(&self, args: &[&str]) -> String {
        match self.command(args).output() {
            Ok(out) => format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(e) => format!("cannot run {}: {e}", args.join(" ")),
        }
    }

    /// The state of `unit`.
    pub fn unit(&self, unit: &str) -> Result<UnitStatus> {
        let text = self.output(&[
            "systemctl",
            "show",
            "--property=LoadState,ActiveState,SubState,ConditionResult,UnitFileState",
            unit,
        ])?;
        let map: BTreeMap<&str, &str> = text.lines().filter_map(|l| l.split_once('=')).collect();
        let get = |k: &str| map.get(k).copied().unwrap_or_default().to_string();
        Ok(UnitStatus {
            load: get("LoadState"),
            active: get("ActiveState"),
            sub: get("SubState"),
            condition: get("ConditionResult"),
            file_state: get("UnitFileState"),
        })
    }

    /// The unit's journal of this boot.
    pub fn journal(&self, unit: &str) -> String {
        self.said(&[
            "journalctl",
            "--boot",
            "--no-pager",
            "--output=cat",
            "--unit",
            unit,
        ])
    }

    /// Polls `done` every half second until it says yes, for at most `seconds`.
    pub fn wait_for(
        &self,
        what: &str,
        seconds: u64,
        mut done: impl FnMut(&Machine) -> Result<bool>,
    ) -> Result<()> {
        let start = Instant::now();
        let mut last = String::new();
        while start.elapsed() < Duration::from_secs(seconds) {
            match done(self) {
                Ok(true) => return Ok(()),
                Ok(false) => {}
                Err(e) => last = e.to_string(),
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        Err(Error::Timeout {
            what: format!("waited for {what}"),
            seconds,
            detail: if last.is_empty() {
                "it did not happen".into()
            } else {
                last
            },
        })
    }

    /// Fills the host's disk as a disk fills on a real machine: everything on the root's
    /// file system (/var, /home, /etc; /tmp, /run and /dev/shm are memory file systems of
    /// their own, as on CoreOS) finds no room left. The file system is shrunk to what it
    /// holds plus a few MiB (so that filling it takes no gigabytes of memory), and those are
    /// filled by one file in /var. [`Machine::free_disk`] undoes it.
    pub fn fill_disk(&self) -> Result<()> {
        let root = self.root.display().to_string();
        let used = self.root_bytes("used")?;
        let size = used + FILL_MARGIN_MIB * 1024 * 1024;
        output_of(Command::new("mount").args(["-o", &format!("remount,size={size}"), &root]))?;
        let fill = self.root.join(FILL);
        // The host writes while the file grows: a few rounds until no byte is left.
        for _ in 0..8 {
            let avail = self.root_bytes("avail")?;
            if avail == 0 {
                return Ok(());
            }
            let current = std::fs::metadata(&fill).map_or(0, |m| m.len());
            let _ = output_of(
                Command::new("fallocate")
                    .args(["--length", &(current + avail).to_string()])
                    .arg(&fill),
            );
        }
        match self.root_bytes("avail")? {
            0 => Ok(()),
            left => Err(Error::Command {
                command: format!("fallocate --length ... {}", fill.display()),
                status: "8 rounds".into(),
                output: format!("{left} bytes stay free on {root}"),
            }),
        }
    }

    /// Frees the disk [`Machine::fill_disk`] filled: the file removed, the file system its
    /// full size again.
    pub fn free_disk(&self) -> Result<()> {
        let fill = self.root.join(FILL);
        std::fs::remove_file(&fill).map_err(Error::io(&fill))?;
        output_of(
            Command::new("mount")
                .args(["-o", &format!("remount,size={ROOT_SIZE}")])
                .arg(&self.root),
        )
        .map(drop)
    }

    /// The bytes `field` (`used`, `avail`) of the root's file system, as df counts them.
    fn root_bytes(&self, field: &str) -> Result<u64> {
        let said = output_of(
            Command::new("df")
                .args([&format!("--output={field}"), "--block-size=1"])
                .arg(&self.root),
        )?;
        said.lines()
            .nth(1)
            .and_then(|l| l.trim().parse().ok())
            .ok_or_else(|| Error::Command {
                command: format!("df --output={field} {}", self.root.display()),
                status: "exit status 0".into(),
                output: said.clone(),
            })
    }

    /// Powers the host off (nspawn asks its systemd to halt on SIGTERM), killing it after
    /// 20 s.
    fn power_off(&mut self) {
        if let Ok(Some(_)) = self.nspawn.try_wait() {
            return;
        }
        let _ = Command::new("kill")
            .args(["-TERM", &self.nspawn.id().to_string()])
            .status();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(20) {
            if let Ok(Some(_)) = self.nspawn.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let _ = self.nspawn.kill();
        let _ = self.nspawn.wait();
    }
}

impl Drop for Machine {
    fn drop(&mut self) {
        self.power_off();
        let propagate = Path::new("/run/systemd/nspawn/propagate").join(&self.name);
        let _ = std::fs::remove_dir_all(propagate);
    }
}
