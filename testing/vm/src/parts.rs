//! The boot parts every VM shares: the Debian kernel (`linux-image-amd64`, as installed on
//! the machine) and a dracut initramfs with Debian's Ignition module and the stand-ins of
//! [`crate::standins`], cached by a hash of everything that goes into it.

use std::path::{Path, PathBuf};
use std::process::Command;

use real_host::{Error, Result};

use crate::cache;
use crate::run::output_of;
use crate::standins::{self, io};

/// dracut's modules: systemd in the initramfs, Ignition and what it depends on, the network
/// (dracut's legacy one, with dhclient) for the fetch stage, and the root's block device.
pub const DRACUT_MODULES: &[&str] = &[
    "systemd",
    "systemd-initrd",
    "dracut-systemd",
    "ignition",
    "qemu",
    "network",
    "network-legacy",
    "url-lib",
    "base",
    "fs-lib",
    "rootfs-block",
    "udev-rules",
    "kernel-modules",
];

/// Drivers of the VM's devices: virtio disks and network, the CD-ROM and its file system, the
/// root's ext4.
pub const DRIVERS: &[&str] = &[
    "virtio_blk",
    "virtio_net",
    "virtio_pci",
    "virtio_scsi",
    "qemu_fw_cfg",
    "ext4",
    "sr_mod",
    "cdrom",
    "isofs",
    "ata_piix",
];

/// The Debian kernel installed on the machine.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// Its release, e.g. `6.1.0-57-amd64`.
    pub version: String,
    /// `/boot/vmlinuz-VERSION`.
    pub vmlinuz: PathBuf,
}

impl Kernel {
    /// The newest `/boot/vmlinuz-*-amd64` whose modules (with `modules.dep`) are installed.
    pub fn find() -> Result<Kernel> {
        let boot = Path::new("/boot");
        let mut versions: Vec<String> = std::fs::read_dir(boot)
            .map_err(io(boot))?
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.strip_prefix("vmlinuz-").map(str::to_string)
            })
            .filter(|v| {
                v.ends_with("-amd64")
                    && Path::new(&format!("/lib/modules/{v}/modules.dep")).is_file()
            })
            .collect();
        versions.sort_by(|a, b| version_order(a, b));
        let version = versions.pop().ok_or_else(|| Error::Answer {
            what: "the Debian kernel".into(),
            detail: "no /boot/vmlinuz-*-amd64 with its modules; apt-get install linux-image-amd64"
                .into(),
        })?;
        Ok(Kernel {
            vmlinuz: boot.join(format!("vmlinuz-{version}")),
            version,
        })
    }
}

/// Kernel releases compared by their numbers (`6.1.0-57` after `6.1.0-9`).
fn version_order(a: &str, b: &str) -> std::cmp::Ordering {
    let numbers = |v: &str| -> Vec<u64> {
        v.split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse().ok())
            .collect()
    };
    numbers(a).cmp(&numbers(b))
}

/// The initramfs for `kernel`, made with dracut when the cache has none for these inputs: the
/// kernel, the versions of dracut and ignition, the module and driver lists, the stand-ins
/// and CoreOS's base config.
pub fn initramfs(kernel: &Kernel) -> Result<PathBuf> {
    let work = tempfile::tempdir().map_err(io(Path::new("/tmp")))?;
    let tree = work.path().join("tree");
    standins::install(&tree, standins::STAND_INS)?;
    let system = real_host::coreos::ignition_system_dir(work.path())?;
    let base = std::fs::read(system.join("base.d/00-core.ign")).map_err(io(&system))?;
    let target = tree.join("usr/lib/ignition/base.d");
    std::fs::create_dir_all(&target).map_err(io(&target))?;
    std::fs::write(target.join("00-core.ign"), &base).map_err(io(&target))?;
    let versions = output_of(Command::new("dpkg-query").args([
        "-W",
        "-f",
        "${Package} ${Version}\n",
        "dracut-core",
        "dracut-network",
        "ignition",
        "systemd",
    ]))?;
    let scripts = standins::key_input(standins::STAND_INS);
    let key = cache::key(&[
        kernel.version.as_bytes(),
        &std::fs::metadata(&kernel.vmlinuz)
            .map_err(io(&kernel.vmlinuz))?
            .len()
            .to_le_bytes(),
        versions.as_bytes(),
        DRACUT_MODULES.join(" ").as_bytes(),
        DRIVERS.join(" ").as_bytes(),
        &scripts,
        &base,
    ]);
    cache::cached(&format!("initramfs-{}-{key}.img", kernel.version), |out| {
        let mut cmd = Command::new("dracut");
        cmd.args([
            "--quiet",
            "--force",
            "--no-hostonly",
            "--no-hostonly-cmdline",
            "--no-early-microcode",
            "--kver",
            &kernel.version,
            "--modules",
            &DRACUT_MODULES.join(" "),
            "--add-drivers",
            &DRIVERS.join(" "),
            "--include",
        ])
        .arg(&tree)
        .arg("/")
        .arg(out);
        output_of(&mut cmd).map(drop)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_releases_sort_by_their_numbers() {
        let mut v = vec!["6.1.0-57-amd64", "6.1.0-9-amd64", "6.10.0-1-amd64"];
        v.sort_by(|a, b| version_order(a, b));
        assert_eq!(v, ["6.1.0-9-amd64", "6.1.0-57-amd64", "6.10.0-1-amd64"]);
    }
}
