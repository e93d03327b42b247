//! Every stand-in of the VM's initramfs, in one place: what a CoreOS initramfs or live system
//! has and Debian's initramfs lacks. Each is a small file set laid into the initramfs by
//! dracut (`--include`); it says which CoreOS component it stands for, does only what
//! [`StandIn::covers`] says, and fails loudly (exit 70 and one line on the console naming
//! what was not covered) on anything else, which stops the boot in the emergency target, so
//! no test can pass because a stand-in answered something it does not know.
//!
//! Everything else in the initramfs is real: the kernel, systemd, udev, dracut's own
//! modules, and Ignition with Debian's dracut module running its stages.

use std::path::Path;

use real_host::{Error, Result};

/// One stand-in.
#[derive(Debug, Clone, Copy)]
pub struct StandIn {
    /// The CoreOS component it stands for.
    pub real: &'static str,
    /// What it does; every other case fails.
    pub covers: &'static str,
    /// Its files: path (in the initramfs, the live root or the boot partition), text (a
    /// symlink's target for mode `0o120777`), mode.
    pub(crate) files: &'static [(&'static str, &'static str, u32)],
}

/// The label of the VM's disk that carries the live root ([`crate::disk`]).
pub const LIVE_ROOT_LABEL: &str = "okd-live-root";

/// The stand-ins of the VM's initramfs.
pub const STAND_INS: &[StandIn] = &[
    StandIn {
        real: "CoreOS's ignition-setup-user.service (fedora-coreos-config's 35coreos-ignition \
               dracut module)",
        covers: "a config carried as the last initrd (the live ISO's embed area, PXE's \
                 ROLE.ign.img), unpacked by the kernel as /config.ign, or on an installed \
                 system's boot the boot partition's ignition/config.ign (where \
                 coreos-installer writes it): copied to /usr/lib/ignition/user.ign, where \
                 Ignition reads it on the metal platform",
        files: &[
            (
                "usr/sbin/coreos-ignition-setup-user",
                r#"#!/bin/sh
# Stand-in for ignition-setup-user, CoreOS's copy of the user's config to Ignition: the
# initrd's /config.ign on a live boot, the boot partition's ignition/config.ign on an
# installed system's first boot; see testing/vm/src/standins.rs.
mkdir -p /usr/lib/ignition
if [ -f /config.ign ]; then
    cp /config.ign /usr/lib/ignition/user.ign
    echo "okd-vm stand-in for ignition-setup-user: /config.ign copied to /usr/lib/ignition/user.ign"
    exit 0
fi
if ! is-live-image; then
    boot=/dev/disk/by-label/boot
    mnt=/mnt/boot_partition
    waited=0
    while [ ! -e "$boot" ] && [ "$waited" -lt 120 ]; do
        sleep 1
        waited=$((waited + 1))
    done
    mkdir -p "$mnt"
    if [ -e "$boot" ] && mount -o ro "$boot" "$mnt"; then
        if [ -f "$mnt/ignition/config.ign" ]; then
            cp "$mnt/ignition/config.ign" /usr/lib/ignition/user.ign
            umount "$mnt"
            echo "okd-vm stand-in for ignition-setup-user: the boot partition's ignition/config.ign copied to /usr/lib/ignition/user.ign"
            exit 0
        fi
        umount "$mnt"
    fi
fi
echo "stand-in for ignition-setup-user: neither /config.ign in the initramfs nor ignition/config.ign on a partition labelled boot; this is not covered (only a config carried as the last initrd or written by coreos-installer)" >/dev/console
exit 70
"#,
                0o755,
            ),
            (
                "usr/lib/systemd/system/coreos-ignition-setup-user.service",
                "[Unit]
Description=Stand-in for CoreOS's ignition-setup-user: the user's config to Ignition
DefaultDependencies=no
ConditionPathExists=/etc/initrd-release
Before=ignition-fetch-offline.service
OnFailure=emergency.target
OnFailureJobMode=isolate

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/sbin/coreos-ignition-setup-user
StandardOutput=journal+console
",
                0o644,
            ),
            (
                "usr/lib/systemd/system/ignition-complete.target.requires/coreos-ignition-setup-user.service",
                "../coreos-ignition-setup-user.service",
                0o120_777,
            ),
        ],
    },
    StandIn {
        real: "CoreOS's live root (the 20live dracut module: the root file system read from \
               the live ISO, or fetched from coreos.live.rootfs_url on a PXE boot)",
        covers: "a boot with coreos.liveiso= or coreos.live.rootfs_url= on the kernel command \
                 line: the root is the VM's disk labelled okd-live-root (the real host's \
                 Debian root), mounted read-write at /sysroot; a boot with root= is an \
                 installed system's and left to dracut",
        files: &[
            (
                "usr/lib/systemd/system-generators/coreos-live-root-stand-in",
                r#"#!/bin/sh
# Stand-in for CoreOS's live root (20live); see testing/vm/src/standins.rs.
dir="${1:-/tmp}"
live=""
root=""
for arg in $(cat /proc/cmdline); do
    case "$arg" in
        coreos.liveiso=*|coreos.live.rootfs_url=*) live=1 ;;
        root=*) root=1 ;;
    esac
done
[ -n "$root" ] && [ -z "$live" ] && exit 0
mkdir -p "$dir/initrd-root-fs.target.requires"
if [ -z "$live" ]; then
    cat >"$dir/coreos-live-root-stand-in.service" <<'EOF'
[Unit]
DefaultDependencies=no
Before=initrd-root-fs.target
OnFailure=emergency.target
OnFailureJobMode=isolate
[Service]
Type=oneshot
ExecStart=/bin/sh -c 'echo "stand-in for the CoreOS live root: neither coreos.liveiso= nor coreos.live.rootfs_url= nor root= on the kernel command line; this is not covered" >/dev/console; exit 70'
EOF
    ln -sf ../coreos-live-root-stand-in.service "$dir/initrd-root-fs.target.requires/"
    exit 0
fi
cat >"$dir/sysroot.mount" <<'EOF'
[Unit]
Description=Stand-in for the CoreOS live root: the Debian root on the disk labelled okd-live-root
Before=initrd-root-fs.target
[Mount]
What=/dev/disk/by-label/okd-live-root
Where=/sysroot
Type=ext4
Options=rw
EOF
ln -sf ../sysroot.mount "$dir/initrd-root-fs.target.requires/sysroot.mount"
"#,
                0o755,
            ),
            (
                "usr/bin/is-live-image",
                r#"#!/bin/sh
# Stand-in for CoreOS's is-live-image (20live), which Ignition's generator asks; see
# testing/vm/src/standins.rs.
for arg in $(cat /proc/cmdline); do
    case "$arg" in
        coreos.liveiso=*|coreos.live.rootfs_url=*) exit 0 ;;
    esac
done
exit 1
"#,
                0o755,
            ),
        ],
    },
];

/// The label of the VM's disk that carries the installer's payload ([`crate::metal`]): the
/// metal image and the real coreos-installer.
pub const PAYLOAD_LABEL: &str = "okd-metal-image";
/// The metal image's file name on that disk.
pub const PAYLOAD_IMAGE: &str = "metal.raw";
/// The real coreos-installer's file name on that disk.
pub const PAYLOAD_INSTALLER: &str = "coreos-installer";
/// What the installer stand-in says on the console when the install is done, before it
/// reboots.
pub const INSTALLED: &str = "okd-vm stand-in for coreos-installer-service: installed, rebooting";

/// The stand-ins of the live root (the real host's Debian root, [`crate::disk`]).
pub const LIVE_ROOT_STAND_INS: &[StandIn] = &[StandIn {
    real: "CoreOS's coreos-installer.service and coreos-installer-service (coreos-installer's \
           live-system units), with the live ISO's osmet data for the image",
    covers: "a live system whose Ignition wrote /etc/coreos/installer.d/*.yaml (what `iso \
             customize --dest-device` and `create live-iso --dest-device` make): runs the \
             real coreos-installer's `install` with those configs, the image taken from the \
             disk labelled okd-metal-image (standing in for osmet, which CoreOS's installer \
             uses offline and which checks no signature: hence --insecure), then reboots; \
             coreos.inst.* kernel arguments fail",
    files: &[
        (
            "usr/libexec/okd-vm-coreos-installer-service",
            r#"#!/bin/sh
# Stand-in for coreos-installer-service, CoreOS's live installer; see
# testing/vm/src/standins.rs.
for arg in $(cat /proc/cmdline); do
    case "$arg" in
        coreos.inst.*)
            echo "stand-in for coreos-installer-service: $arg on the kernel command line is not covered (only /etc/coreos/installer.d configs)" >/dev/console
            exit 70 ;;
    esac
done
args=""
for config in /etc/coreos/installer.d/*.yaml; do
    [ -f "$config" ] && args="$args --config-file $config"
done
payload=/run/okd-metal-image
mkdir -p "$payload"
if [ -z "$args" ] || ! mount -o ro /dev/disk/by-label/okd-metal-image "$payload"; then
    echo "stand-in for coreos-installer-service: no /etc/coreos/installer.d/*.yaml or no disk labelled okd-metal-image; this is not covered" >/dev/console
    exit 70
fi
# shellcheck disable=SC2086 # one word per argument, none with spaces
"$payload/coreos-installer" install $args --image-file "$payload/metal.raw" --insecure || exit 1
umount "$payload"
echo "okd-vm stand-in for coreos-installer-service: installed, rebooting"
systemctl reboot
"#,
            0o755,
        ),
        (
            "etc/systemd/system/okd-vm-coreos-installer.service",
            "[Unit]
Description=Stand-in for CoreOS's coreos-installer.service: install with installer.d's configs, reboot
After=local-fs.target systemd-udev-settle.service
Wants=systemd-udev-settle.service
ConditionDirectoryNotEmpty=/etc/coreos/installer.d

[Service]
Type=oneshot
ExecStart=/usr/libexec/okd-vm-coreos-installer-service
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
",
            0o644,
        ),
        (
            "etc/systemd/system/multi-user.target.wants/okd-vm-coreos-installer.service",
            "/etc/systemd/system/okd-vm-coreos-installer.service",
            0o120_777,
        ),
    ],
}];

/// The stand-in for CoreOS's metal image: the boot partition's bootloader files
/// ([`crate::metal`] lays them out with the Debian kernel, the initramfs and GRUB's modules).
pub const METAL_IMAGE: StandIn = StandIn {
    real: "CoreOS's metal image (its boot partition's grub.cfg from coreos-assembler, the \
           ignition.firstboot flag file, one BLS entry read by Fedora's GRUB blscfg command)",
    covers: "a BIOS boot from the disk by Debian's GRUB: the first boot's flag file \
             (ignition.firstboot, sourced for its network arguments, as CoreOS's grub.cfg \
             does), and the last BLS entry under loader/entries read for its kernel, \
             initramfs and options (the options line expanded with $ignition_firstboot); \
             no entry powers the machine off with a console line",
    files: &[
        (
            "grub/grub.cfg",
            r#"# Stand-in for CoreOS's metal grub.cfg and for Fedora's GRUB blscfg command, which
# Debian's GRUB lacks; see testing/vm/src/standins.rs.
serial --unit=0 --speed=115200
terminal_input serial console
terminal_output serial console
# CoreOS: the first boot's flag file and the network arguments it may set.
set ignition_firstboot=""
if [ -f /ignition.firstboot ]; then
    set ignition_network_kcmdline=""
    source /ignition.firstboot
    set ignition_firstboot="ignition.firstboot ${ignition_network_kcmdline}"
fi
# blscfg: each key of a BLS entry is a function here, so sourcing the entry reads it (GRUB's
# linux module is loaded only after, until then `linux` and `initrd` are these functions).
function title {
    set bls_title="$*"
}
function version {
    set bls_version="$*"
}
function linux {
    set bls_linux="$1"
}
function initrd {
    set bls_initrd="$1"
}
function options {
    set bls_options="$*"
}
set bls_linux=""
for entry in /loader/entries/*.conf; do
    if [ -f "$entry" ]; then
        source "$entry"
    fi
done
if [ -z "$bls_linux" ]; then
    echo "stand-in for CoreOS's metal image: no BLS entry under /loader/entries; this is not covered"
    halt
fi
echo "okd-vm metal image stand-in: booting ${bls_title}: ${bls_linux} ${bls_options}"
insmod linux
linux "$bls_linux" $bls_options
initrd "$bls_initrd"
boot
"#,
            0o644,
        ),
        (
            "loader/entries/okd-vm-metal-1.conf",
            "title Debian (okd-install VM metal image stand-in)
version 1
linux /vmlinuz
initrd /initramfs.img
options root=LABEL=root rw ignition.platform.id=metal $ignition_firstboot
",
            0o644,
        ),
        ("ignition.firstboot", "", 0o644),
    ],
};

/// Every path and text of `stand_ins`, for a cache key: a changed stand-in makes a new part.
pub fn key_input(stand_ins: &[StandIn]) -> Vec<u8> {
    stand_ins
        .iter()
        .flat_map(|s| s.files.iter())
        .flat_map(|(p, t, _)| [p.as_bytes(), t.as_bytes()].concat())
        .collect()
}

/// Lays the files of `stand_ins` into `tree` (for [`STAND_INS`] the directory dracut includes
/// at `/`).
pub fn install(tree: &Path, stand_ins: &[StandIn]) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for stand_in in stand_ins {
        for (relative, text, mode) in stand_in.files {
            let path = tree.join(relative);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            let _ = std::fs::remove_file(&path);
            if *mode == 0o120_777 {
                std::os::unix::fs::symlink(text, &path).map_err(io(&path))?;
            } else {
                std::fs::write(&path, text).map_err(io(&path))?;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(*mode))
                    .map_err(io(&path))?;
            }
        }
    }
    Ok(())
}

pub(crate) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |error| Error::Io {
        path: path.to_path_buf(),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stand_in_names_its_coreos_component_and_refuses_what_it_does_not_cover() {
        for stand_in in STAND_INS.iter().chain(LIVE_ROOT_STAND_INS) {
            let scripts: Vec<&str> = stand_in
                .files
                .iter()
                .filter(|(_, _, mode)| mode & 0o111 != 0 && *mode != 0o120_777)
                .map(|(_, text, _)| *text)
                .collect();
            assert!(
                scripts.iter().all(|s| s.contains("# Stand-in for")),
                "{}: every script names what it stands for",
                stand_in.real
            );
            assert!(
                scripts
                    .iter()
                    .any(|s| s.contains("is not covered") && s.contains("exit 70")),
                "{}: what it does not cover fails loudly",
                stand_in.real
            );
        }
    }

    #[test]
    fn the_installer_stand_in_uses_the_payload_disk_and_says_the_words_the_test_waits_for() {
        let script = LIVE_ROOT_STAND_INS[0]
            .files
            .iter()
            .find(|(path, _, _)| path.starts_with("usr/libexec/"))
            .map(|(_, text, _)| *text)
            .expect("the installer's script");
        for word in [
            INSTALLED,
            &format!("/dev/disk/by-label/{PAYLOAD_LABEL}"),
            &format!("\"$payload/{PAYLOAD_IMAGE}\""),
            &format!("\"$payload/{PAYLOAD_INSTALLER}\" install"),
        ] {
            assert!(script.contains(word), "the script has no `{word}`");
        }
    }

    #[test]
    fn the_setup_stand_in_copies_the_initrd_config_and_fails_without_one() {
        let dir = tempfile::tempdir().unwrap();
        install(dir.path(), STAND_INS).unwrap();
        let script =
            std::fs::read_to_string(dir.path().join("usr/sbin/coreos-ignition-setup-user"))
                .unwrap();
        // Run it against a scratch root: its absolute paths rewritten under the temp dir.
        let root = dir.path().join("root");
        std::fs::create_dir_all(&root).unwrap();
        let local = script
            .replace("/config.ign", &format!("{}/config.ign", root.display()))
            .replace(
                "/usr/lib/ignition",
                &format!("{}/usr/lib/ignition", root.display()),
            )
            .replace(">/dev/console", ">&2")
            // A live boot: no boot partition is looked for.
            .replace("is-live-image", "true");
        let run = || {
            std::process::Command::new("sh")
                .args(["-c", &local])
                .output()
                .unwrap()
        };
        let without = run();
        assert_eq!(without.status.code(), Some(70));
        assert!(String::from_utf8_lossy(&without.stderr).contains("is not covered"));
        std::fs::write(root.join("config.ign"), "{}").unwrap();
        assert!(run().status.success());
        assert_eq!(
            std::fs::read_to_string(root.join("usr/lib/ignition/user.ign")).unwrap(),
            "{}"
        );
    }
}
