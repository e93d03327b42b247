//! Boot media booted the way machines boot them, for the tests: a QEMU machine under TCG
//! (nested KVM on the CI machine kind does not start a Linux kernel) with SeaBIOS, QEMU's
//! iPXE ROM or a CD-ROM's bootloader, the Debian kernel, a dracut initramfs in which Debian's
//! Ignition module runs the real Ignition's stages, and the real host's Debian root.
//!
//! 1. [`parts`]: the kernel and the initramfs, cached by a hash of their inputs.
//! 2. [`standins`]: what a CoreOS initramfs or live system has and Debian's lacks, each a
//!    small stand-in naming the CoreOS component, failing loudly outside what it covers.
//! 3. [`disk`]: the live root, the real host's root as an ext4 image, cached.
//! 4. [`Machine`]: the VM, bounded in time, on QEMU's restricted user network; the test reads
//!    its state through a shell on the second serial port.
//! 5. [`serve`]: what the test serves on loopback (HTTP, a Machine Config Server stand-in).
//! 6. [`metal`]: the stand-in for CoreOS's metal image, on a disk with the real
//!    coreos-installer, for a live system that installs itself.
//!
//! Needs root (the root's files keep their owners), QEMU, iPXE's ROMs, the Debian kernel,
//! dracut with its network modules and ignition ([`missing`] says what is absent).

pub mod cache;
pub mod disk;
pub mod machine;
pub mod metal;
pub mod parts;
mod run;
pub mod serve;
pub mod standins;

pub use machine::{Boot, Forward, Machine, Network, Spec};

/// What this machine lacks to boot a VM, each with how to get it; empty when it has
/// everything (the real host's root is made with mmdebstrap, so its needs count too).
pub fn missing() -> Vec<String> {
    let mut missing = Vec::new();
    if !real_host::is_root() {
        missing.push("root (the live root's files keep their owners)".to_string());
    }
    let files = [
        ("/usr/bin/qemu-system-x86_64", "qemu-system-x86"),
        ("/usr/lib/ipxe/qemu/efi-virtio.rom", "ipxe-qemu"),
        ("/usr/bin/dracut", "dracut"),
        (
            "/usr/lib/dracut/modules.d/45url-lib/module-setup.sh",
            "dracut-network",
        ),
        ("/usr/sbin/dhclient", "isc-dhcp-client"),
        ("/usr/bin/busybox", "busybox-static"),
        ("/usr/bin/openssl", "openssl"),
        ("/usr/sbin/mke2fs", "e2fsprogs"),
        ("/usr/bin/xorriso", "xorriso"),
        ("/usr/bin/mmdebstrap", "mmdebstrap"),
        ("/usr/bin/grub-mkimage", "grub-common"),
        ("/usr/lib/grub/i386-pc/boot.img", "grub-pc-bin"),
        ("/usr/sbin/sfdisk", "fdisk"),
        (machine::OVMF, "ovmf"),
        ("/usr/lib/grub/x86_64-efi/linux.mod", "grub-efi-amd64-bin"),
        ("/usr/sbin/mkfs.fat", "dosfstools"),
        ("/usr/bin/mcopy", "mtools"),
        (real_host::firstboot::IGNITION, "ignition"),
        ("/usr/lib/ISOLINUX/isolinux.bin", "isolinux"),
        (
            "/usr/lib/syslinux/modules/bios/ldlinux.c32",
            "syslinux-common",
        ),
    ];
    missing.extend(
        files
            .iter()
            .filter(|(path, _)| !std::path::Path::new(path).exists())
            .map(|(path, package)| format!("{path} (apt-get install {package})")),
    );
    if metal::coreos_installer().is_none() {
        missing.push("coreos-installer (cargo install --locked coreos-installer)".into());
    }
    if parts::Kernel::find().is_err() {
        missing.push("the Debian kernel in /boot (apt-get install linux-image-amd64)".into());
    }
    missing
}
