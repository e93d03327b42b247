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
    /// Its files: path in the initramfs, text, mode.
    files: &'static [(&'static str, &'static str, u32)],
}

/// The label of the VM's disk that carries the live root ([`crate::disk`]).
pub const LIVE_ROOT_LABEL: &str = "okd-live-root";

/// The stand-ins of the VM's initramfs.
pub const STAND_INS: &[StandIn] = &[
    StandIn {
        real: "CoreOS's ignition-setup-user.service (fedora-coreos-config's 35coreos-ignition \
               dracut module)",
        covers: "a config carried as the last initrd (the live ISO's embed area, PXE's \
                 ROLE.ign.img), unpacked by the kernel as /config.ign: copied to \
                 /usr/lib/ignition/user.ign, where Ignition reads it on the metal platform",
        files: &[
            (
                "usr/sbin/coreos-ignition-setup-user",
                r#"#!/bin/sh
# Stand-in for ignition-setup-user, CoreOS's copy of the initrd's config to Ignition;
# see testing/vm/src/standins.rs.
if [ -f /config.ign ]; then
    mkdir -p /usr/lib/ignition
    cp /config.ign /usr/lib/ignition/user.ign
    echo "okd-vm stand-in for ignition-setup-user: /config.ign copied to /usr/lib/ignition/user.ign"
    exit 0
fi
echo "stand-in for ignition-setup-user: no /config.ign in the initramfs; this is not covered (only a config carried as the last initrd)" >/dev/console
exit 70
"#,
                0o755,
            ),
            (
                "usr/lib/systemd/system/coreos-ignition-setup-user.service",
                "[Unit]
Description=Stand-in for CoreOS's ignition-setup-user: the last initrd's config to Ignition
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

impl StandIn {
    /// Its files: path in the initramfs, text (a symlink's target for mode `0o120777`), mode.
    pub fn files(&self) -> &'static [(&'static str, &'static str, u32)] {
        self.files
    }
}

/// Lays every stand-in's files into `tree` (the directory dracut includes at `/`).
pub fn install(tree: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for stand_in in STAND_INS {
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
        for stand_in in STAND_INS {
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
    fn the_setup_stand_in_copies_the_initrd_config_and_fails_without_one() {
        let dir = tempfile::tempdir().unwrap();
        install(dir.path()).unwrap();
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
            .replace(">/dev/console", ">&2");
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
