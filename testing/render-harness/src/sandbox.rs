//! A private mount and network namespace that plays the bootstrap machine.
//!
//! The generated scripts and the rendered pods name real node paths (`/opt/openshift`,
//! `/etc/kubernetes`, `/var/lib/etcd`, ...) and talk to the cluster by name
//! (`api-int.<cluster domain>`) and to the bootstrap address. Inside a sandbox those paths
//! are bind mounts of the scratch root, `/etc/hosts` maps the cluster's API names to the
//! bootstrap address, `/etc/resolv.conf` names the sandbox's own name server (which answers
//! every other name with NXDOMAIN, as a site's DNS does for a record nobody made), and that
//! address sits on the loopback device of a network namespace of
//! its own: the scripts and every pod run unchanged, and no packet leaves the machine.
//!
//! Both namespaces are kept by name (`ip netns` for the network, a bind-mounted namespace
//! file under [`STATE_DIR`] for the mounts), so that every process of the run, and a person
//! debugging a kept run, enters the same ones with `nsenter`.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::Error;
use crate::host::output_of;
use crate::kubelet::SANDBOX_LABEL;
use crate::{Host, Payload, Result};

/// Where mount namespace files live; a private bind mount of itself, as the kernel requires
/// for a file that holds a namespace.
pub(crate) const STATE_DIR: &str = "/run/okd-harness";

/// Node paths the sandbox takes from the scratch root (directories unless listed in
/// [`NODE_FILES`]). Everything else (podman, its storage, the tools in `/usr/bin`) is the
/// machine's own.
const NODE_DIRS: &[&str] = &[
    "/opt/openshift",
    "/etc/kubernetes",
    "/etc/mcc",
    "/etc/mcs",
    "/etc/ssl/mcs",
    "/var/lib/etcd",
    "/var/log/openshift",
    "/usr/local/bin",
];
/// Single files the sandbox takes from the scratch root.
const NODE_FILES: &[&str] = &["/etc/hosts", "/etc/resolv.conf"];

/// The sandbox's name server: on the loopback device of its network namespace.
const NAME_SERVER: &str = "127.0.0.53";

/// A name server that knows no name: every query gets NXDOMAIN, as a site's DNS server
/// answers for a record nobody created. The sandbox's names are in its `/etc/hosts`, which
/// every resolver reads first; without this server a name missing there would fail with
/// "network is unreachable" (no server to ask), which no bootstrap host ever says.
const NXDOMAIN_SERVER: &str = r#"
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], 53))
while True:
    query, peer = s.recvfrom(4096)
    if len(query) < 12:
        continue
    end = 12
    while end < len(query) and query[end] != 0:
        end += query[end] + 1
    end += 5
    flags = bytes([0x80 | (query[2] & 0x79), 0x83])
    s.sendto(query[:2] + flags + query[4:6] + bytes(6) + query[12:end], peer)
"#;

/// A named pair of namespaces; [`Sandbox::remove`] takes them down.
#[derive(Debug, Clone)]
pub struct Sandbox {
    /// The network namespace's name (`ip netns`), also the stem of the mount namespace file.
    pub name: String,
    /// The bootstrap machine's addresses (one per IP family of the machine network).
    pub addresses: Vec<IpAddr>,
}

impl Sandbox {
    /// Creates the namespaces `name` for `host`: the bootstrap `addresses` on the loopback
    /// device, `hosts` (name, address) in `/etc/hosts`, and the node paths bound to the
    /// scratch root. A sandbox of the same name left by an earlier run is removed first.
    pub fn create(
        name: &str,
        host: &Host,
        addresses: &[IpAddr],
        hosts: &[(String, IpAddr)],
    ) -> Result<Sandbox> {
        let sandbox = Sandbox {
            name: name.to_string(),
            addresses: addresses.to_vec(),
        };
        sandbox.remove_namespaces();
        sandbox.create_network()?;
        write_hosts(host, hosts)?;
        write_resolv_conf(host)?;
        sandbox.create_mounts(host)?;
        sandbox.start_name_server()?;
        Ok(sandbox)
    }

    /// The sandbox a single node's installed system boots in, beside this one.
    pub fn installed_node(&self) -> Sandbox {
        Sandbox {
            name: format!("{}-i", self.name),
            addresses: self.addresses.clone(),
        }
    }

    /// Removes this sandbox and the installed node's beside it, if there is one: what a run
    /// left.
    pub fn remove_run(&self, payload: &Payload) {
        self.remove(payload);
        self.installed_node().remove(payload);
        crate::faults::release_small_disk(&self.name);
    }

    /// The file that holds the mount namespace.
    pub fn mount_namespace(&self) -> PathBuf {
        Path::new(STATE_DIR).join(format!("{}.mnt", self.name))
    }

    /// `program` run inside both namespaces.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new("nsenter");
        cmd.arg(format!("--net=/run/netns/{}", self.name))
            .arg(format!("--mount={}", self.mount_namespace().display()))
            .arg("--")
            .arg(program);
        cmd
    }

    /// podman inside the sandbox, with the payload's containers.conf.
    pub fn podman(&self, payload: &Payload) -> Command {
        let mut cmd = self.command("podman");
        cmd.env("CONTAINERS_CONF", &payload.containers_conf);
        cmd
    }

    /// The command a person types to get a shell inside the sandbox.
    pub fn enter_line(&self) -> String {
        format!(
            "nsenter --net=/run/netns/{} --mount={} -- bash",
            self.name,
            self.mount_namespace().display()
        )
    }

    /// Ends every process of the sandbox (scripts left by a run that was itself killed
    /// included), removes every container its kubelet stand-in or scripts started, then the
    /// namespaces. Safe to call on a sandbox that is already gone.
    pub fn remove(&self, payload: &Payload) {
        // First where the containers run, while their monitors live: a clean stop.
        if Path::new(&format!("/run/netns/{}", self.name)).exists()
            && self.mount_namespace().exists()
        {
            self.remove_containers(|| self.podman(payload));
        }
        if let Ok(pids) = output_of(Command::new("ip").args(["netns", "pids", &self.name])) {
            let pids: Vec<&str> = pids.split_whitespace().collect();
            if !pids.is_empty() {
                let _ = Command::new("kill").arg("-KILL").args(&pids).status();
            }
        }
        // Then whatever a script started meanwhile, from the machine's own namespaces, until
        // none is left: podman needs a moment to notice a container whose monitor was killed.
        for _ in 0..10 {
            if self.remove_containers(|| payload.podman()) == 0 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
        self.remove_namespaces();
    }

    /// `podman rm --force` of every container labelled with this sandbox, with podman from
    /// `podman`; how many there were.
    fn remove_containers(&self, podman: impl Fn() -> Command) -> usize {
        let mut list = podman();
        list.args(["ps", "--all", "--quiet", "--filter"])
            .arg(format!("label={SANDBOX_LABEL}={}", self.name));
        let Ok(ids) = output_of(&mut list) else {
            return 0;
        };
        let ids: Vec<&str> = ids.split_whitespace().collect();
        if !ids.is_empty() {
            let _ = podman()
                .args(["rm", "--force", "--time", "5"])
                .args(&ids)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        ids.len()
    }

    fn remove_namespaces(&self) {
        let file = self.mount_namespace();
        if file.exists() {
            let _ = Command::new("umount").arg("--lazy").arg(&file).status();
            let _ = std::fs::remove_file(&file);
        }
        let _ = Command::new("ip")
            .args(["netns", "delete", &self.name])
            .stderr(Stdio::null())
            .status();
    }

    fn create_network(&self) -> Result<()> {
        output_of(Command::new("ip").args(["netns", "add", &self.name]))?;
        output_of(Command::new("ip").args(["-n", &self.name, "link", "set", "lo", "up"]))?;
        for address in &self.addresses {
            let (prefix, extra): (u8, &[&str]) = match address {
                IpAddr::V4(_) => (32, &[]),
                IpAddr::V6(_) => (128, &["nodad"]),
            };
            output_of(
                Command::new("ip")
                    .args(["-n", &self.name, "address", "add"])
                    .arg(format!("{address}/{prefix}"))
                    .args(["dev", "lo"])
                    .args(extra),
            )?;
        }
        Ok(())
    }

    /// The mount namespace: a private copy of the machine's mounts with the node paths bound
    /// to the scratch root. A missing mount point is created on the machine (an empty
    /// directory or file), since a bind mount needs one.
    fn create_mounts(&self, host: &Host) -> Result<()> {
        private_state_dir()?;
        let file = self.mount_namespace();
        std::fs::write(&file, b"").map_err(Error::io(&file))?;
        output_of(
            Command::new("unshare")
                .arg(format!("--mount={}", file.display()))
                .args(["--propagation", "private", "true"]),
        )?;
        let mut script = String::from("set -e\n");
        for dir in NODE_DIRS {
            let source = host.path(dir);
            std::fs::create_dir_all(&source).map_err(Error::io(&source))?;
            std::fs::create_dir_all(dir).map_err(Error::io(*dir))?;
            script.push_str(&format!("mount --bind '{}' '{dir}'\n", source.display()));
        }
        for node_file in NODE_FILES {
            let source = host.path(node_file);
            if !Path::new(node_file).exists() {
                std::fs::write(node_file, b"").map_err(Error::io(*node_file))?;
            }
            script.push_str(&format!(
                "mount --bind '{}' '{node_file}'\n",
                source.display()
            ));
        }
        let mut cmd = Command::new("nsenter");
        cmd.arg(format!("--mount={}", file.display()))
            .args(["--", "sh", "-c"])
            .arg(script);
        output_of(&mut cmd).map(|_| ())
    }

    /// Starts [`NXDOMAIN_SERVER`] in the network namespace; it ends with the namespace's
    /// processes when the sandbox is removed.
    fn start_name_server(&self) -> Result<()> {
        let mut cmd = self.command("/usr/bin/python3");
        cmd.args(["-c", NXDOMAIN_SERVER, NAME_SERVER])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        cmd.spawn().map(drop).map_err(|source| Error::Spawn {
            command: "python3 (the sandbox's name server)".into(),
            source,
        })
    }
}

/// The sandbox's `/etc/resolv.conf`: its own name server only.
fn write_resolv_conf(host: &Host) -> Result<()> {
    let path = host.path("/etc/resolv.conf");
    let text = format!("nameserver {NAME_SERVER}\noptions attempts:1 timeout:1\n");
    std::fs::write(&path, text).map_err(Error::io(&path))
}

/// Makes [`STATE_DIR`] a private mount of itself (once per boot), where namespace files may
/// be bound.
fn private_state_dir() -> Result<()> {
    std::fs::create_dir_all(STATE_DIR).map_err(Error::io(STATE_DIR))?;
    let mounted = std::fs::read_to_string("/proc/self/mountinfo")
        .unwrap_or_default()
        .lines()
        .any(|l| l.split_whitespace().nth(4) == Some(STATE_DIR));
    if !mounted {
        output_of(Command::new("mount").args(["--bind", STATE_DIR, STATE_DIR]))?;
    }
    output_of(Command::new("mount").args(["--make-private", STATE_DIR])).map(|_| ())
}

/// The sandbox's `/etc/hosts`: localhost and the cluster names it was given.
fn write_hosts(host: &Host, hosts: &[(String, IpAddr)]) -> Result<()> {
    let mut text = String::from("127.0.0.1 localhost\n::1 localhost\n");
    // The machine's own name (the sandbox shares its UTS namespace), as nss-myhostname
    // resolves it on a node: sudo and others look it up.
    if let Ok(name) = std::fs::read_to_string("/proc/sys/kernel/hostname") {
        text.push_str(&format!("127.0.1.1 {}\n", name.trim()));
    }
    for (name, address) in hosts {
        text.push_str(&format!("{address} {name}\n"));
    }
    let path = host.path("/etc/hosts");
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(Error::io(parent))?;
    }
    std::fs::write(&path, text).map_err(Error::io(&path))
}
