//! The live root: the real host's Debian root ([`real_host::RootImage`]) made the CoreOS-like
//! host Ignition expects ([`real_host::coreos::prepare`], [`real_host::standins`]), plus the
//! test's shell on the second serial port and the stand-in for CoreOS's live installer
//! ([`standins::LIVE_ROOT_STAND_INS`]), as an ext4 image (`mke2fs -d`) labelled
//! [`LIVE_ROOT_LABEL`], cached. Each VM opens it with `snapshot=on`: its writes go to a
//! temporary overlay and the cached image never changes.

use std::path::{Path, PathBuf};
use std::process::Command;

use real_host::{Result, RootImage};

use crate::cache;
use crate::run::output_of;
use crate::standins::{self, LIVE_ROOT_LABEL, LIVE_ROOT_STAND_INS, io};

/// The image's size in MiB (sparse: the root fills about 900 MB of it).
const SIZE_MIB: u64 = 3 << 10;

/// Not CoreOS's: the test's window into the machine. A root shell on the second serial port
/// (the first is the console), started early and again whenever it ends, that says
/// [`SHELL_READY`] when it starts; the test writes commands and reads their output
/// ([`crate::Machine::run`]). Its input is a pipe, so the shell is not interactive and
/// prints no prompts into the output. The port is held open (fd 3) from before the word
/// ready until the shell ends: a serial port with nobody holding it open drops what arrives,
/// and a command the test wrote between the word and `cat` opening the port was lost
/// (seen on a loaded machine).
const SHELL_UNIT: &str = "\
[Unit]
Description=okd-install VM test: a root shell on ttyS1 for the test (not part of CoreOS)
DefaultDependencies=no
After=systemd-udevd.service local-fs.target
Before=sysinit.target

[Service]
ExecStart=/bin/sh -c 'exec 3<>/dev/ttyS1; stty raw -echo 115200 <&3 || exit 1; cat <&3 | /bin/sh >&3 2>&3 & echo okd-vm-shell-ready >&3; wait'
Restart=always

[Install]
WantedBy=sysinit.target
";
const SHELL_NAME: &str = "okd-vm-shell.service";

/// What the shell prints when it starts.
pub const SHELL_READY: &str = "okd-vm-shell-ready";

/// The live root disk image for the cached real-host root, made when absent.
pub fn live_root() -> Result<PathBuf> {
    let image = RootImage::ensure()?;
    let name = image
        .tarball
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let key = cache::key(&[
        name.as_bytes(),
        SHELL_UNIT.as_bytes(),
        &SIZE_MIB.to_le_bytes(),
        &standins::key_input(LIVE_ROOT_STAND_INS),
        // The code that prepares the root is an input too.
        include_str!("disk.rs").as_bytes(),
        include_str!("../../real-host/src/coreos.rs").as_bytes(),
        include_str!("../../real-host/src/standins.rs").as_bytes(),
    ]);
    cache::cached(&format!("live-root-{key}.ext4"), |out| make(&image, out))
}

fn make(image: &RootImage, out: &Path) -> Result<()> {
    let work = tempfile::tempdir_in(cache::cache_dir()).map_err(io(&cache::cache_dir()))?;
    let root = work.path().join("root");
    image.unpack(&root)?;
    // The user network's DHCP gives the address: NetworkManager's default DHCP profile.
    real_host::coreos::prepare(&root, &real_host::machine::site_network())?;
    let site = root.join("etc/NetworkManager/system-connections/site.nmconnection");
    std::fs::remove_file(&site).map_err(io(&site))?;
    real_host::standins::install(&root)?;
    standins::install(&root, LIVE_ROOT_STAND_INS)?;
    let unit = root.join("etc/systemd/system").join(SHELL_NAME);
    std::fs::write(&unit, SHELL_UNIT).map_err(io(&unit))?;
    let wants = root.join("etc/systemd/system/sysinit.target.wants");
    std::fs::create_dir_all(&wants).map_err(io(&wants))?;
    let link = wants.join(SHELL_NAME);
    std::os::unix::fs::symlink(format!("/etc/systemd/system/{SHELL_NAME}"), &link)
        .map_err(io(&link))?;
    ext4_image(&root, LIVE_ROOT_LABEL, out, SIZE_MIB)
}

/// An ext4 image of `size_mib` MiB (sparse) at `out`, labelled `label`, filled from `dir`
/// (`mke2fs -d`; its files keep their owners, the root directory is root's).
pub(crate) fn ext4_image(dir: &Path, label: &str, out: &Path, size_mib: u64) -> Result<()> {
    output_of(
        Command::new("mke2fs")
            .args([
                "-q",
                "-t",
                "ext4",
                "-L",
                label,
                "-E",
                "root_owner=0:0",
                "-d",
            ])
            .arg(dir)
            .arg(out)
            .arg(format!("{size_mib}M")),
    )
    .map(drop)
}
