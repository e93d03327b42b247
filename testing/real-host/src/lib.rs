//! A real bootstrap host for the tests: a bootstrap config booted the way a CoreOS machine
//! boots it, with real programs from Debian packages wherever Debian has them.
//!
//! 1. [`RootImage`]: a Debian root made with mmdebstrap from [`root::PACKAGES`], cached.
//! 2. [`coreos::prepare`]: what CoreOS has before Ignition runs and Debian lacks, each as a
//!    small equivalent (first-boot machine id, base config, sudo group, SELinux labels, trust
//!    anchors, the site's network profile).
//! 3. [`standins::install`]: what only the release's node image (or CoreOS's own packages)
//!    has, each a small stand-in in one place, failing loudly outside what it covers.
//! 4. [`firstboot::apply`]: the real Ignition's stages write the config into the root.
//! 5. [`Machine::boot`]: real systemd under systemd-nspawn on a private network ([`Lab`]).
//!
//! Needs root, systemd-nspawn, mmdebstrap, Debian's ignition and setfiles, and a system
//! D-Bus on the machine ([`missing`] says what is absent).

pub mod coreos;
pub mod error;
pub mod firstboot;
pub mod front;
pub mod images;
pub mod machine;
pub mod mirror;
pub mod pointer;
pub mod registry;
pub mod release;
pub mod root;
mod run;
mod server;
pub mod standins;
pub mod token;

use std::path::Path;

pub use error::{Error, Result};
pub use machine::{HOST_ADDRESS, LAB_ADDRESS, Lab, Machine, PREFIX, UnitStatus};
pub use root::RootImage;
pub use standins::STAND_INS;

/// What this machine lacks to boot a real host, each with how to get it; empty when it
/// has everything.
pub fn missing() -> Vec<String> {
    let mut missing = Vec::new();
    if !is_root() {
        missing.push("root (systemd-nspawn and network namespaces need it)".to_string());
    }
    let host = [
        ("systemd-nspawn", "systemd-container"),
        ("mmdebstrap", "mmdebstrap"),
        ("setfiles", "policycoreutils"),
        ("chcon", "coreutils"),
        // The lab's redirection of the host's pulls to a fault front (Lab::redirect).
        ("nft", "nftables"),
    ];
    missing.extend(missing_programs(&host));
    missing.extend(missing_programs(registry::PROGRAMS));
    if !Path::new(firstboot::IGNITION).is_file() {
        missing.push(format!(
            "{} (apt-get install ignition)",
            firstboot::IGNITION
        ));
    }
    if !Path::new("/run/dbus/system_bus_socket").exists() {
        missing.push(
            "a system D-Bus, which systemd-nspawn talks to (apt-get install dbus; \
             mkdir -p /run/dbus && dbus-daemon --system --fork)"
                .to_string(),
        );
    }
    missing
}

/// Each of `programs` (name, Debian package) not on `PATH`, with how to get it.
fn missing_programs(programs: &[(&str, &str)]) -> Vec<String> {
    programs
        .iter()
        .filter(|(program, _)| !on_path(program))
        .map(|(program, package)| format!("{program} (apt-get install {package})"))
        .collect()
}

/// Whether the test runs as root.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1))
        == Some("0")
}

/// Whether `program` is on PATH or in the system directories (a test's PATH may lack sbin).
fn on_path(program: &str) -> bool {
    let mut dirs: Vec<std::path::PathBuf> = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect())
        .unwrap_or_default();
    dirs.extend(["/usr/sbin", "/usr/bin", "/sbin", "/bin"].map(std::path::PathBuf::from));
    dirs.iter().any(|dir| dir.join(program).is_file())
}

/// Where a host booted by [`boot`] keeps its files.
#[derive(Debug, Clone)]
pub struct HostDirs {
    /// The root it boots.
    pub root: std::path::PathBuf,
    /// Ignition's state, cache and log.
    pub ignition: std::path::PathBuf,
    /// nspawn's output.
    pub console: std::path::PathBuf,
}

impl HostDirs {
    /// The layout under `work`.
    pub fn new(work: &Path) -> HostDirs {
        HostDirs {
            root: work.join("root"),
            ignition: work.join("ignition"),
            console: work.join("console.log"),
        }
    }
}

/// Makes host `name` from `image`, writes `config` into it with the real Ignition and boots
/// it on a private network; its files live under `work`, its root in a memory file system
/// mounted there (unpacked in seconds and gone at once when the host is dropped, where
/// removing 1.2 GB of files from a disk takes half a minute).
pub fn boot(image: &RootImage, name: &str, config: &Path, work: &Path) -> Result<Machine> {
    boot_on(image, Lab::create(name)?, config, work)
}

/// Like [`boot`], on a lab network made already (where a registry may run).
pub fn boot_on(image: &RootImage, lab: Lab, config: &Path, work: &Path) -> Result<Machine> {
    let name = lab.name.clone();
    let dirs = HostDirs::new(work);
    let mount = machine::RootMount::new(&dirs.root)?;
    image.unpack(&dirs.root)?;
    coreos::prepare(&dirs.root, &machine::site_network())?;
    standins::install(&dirs.root)?;
    std::fs::create_dir_all(&dirs.ignition).map_err(Error::io(&dirs.ignition))?;
    firstboot::apply(config, &dirs.root, &dirs.ignition)?;
    Machine::boot(&name, mount, lab, &dirs.console)
}
