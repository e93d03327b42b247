//! A CoreOS live ISO in the real layout, built with xorriso, for the boot-media tests: the
//! ISO 9660 image (ISO level 1 names, plus Rock Ridge and Joliet, as the CoreOS build makes
//! it) with `coreos/igninfo.json` naming a zero-filled `images/ignition.img`,
//! `coreos/kargs.json` naming the kernel-argument areas in `EFI/fedora/grub.cfg` and
//! `isolinux/isolinux.cfg`, `coreos/features.json`, and a live initramfs carrying the
//! `etc/coreos-live-initramfs` stamp. Tests need xorriso (`crate::require_tool("xorriso",
//! "xorriso")`); an ISO with [`BootParts`] also isolinux, GRUB for UEFI, dosfstools and mtools.

use std::path::{Path, PathBuf};
use std::process::Command;

/// How to build the fixture.
#[derive(Debug, Clone)]
pub struct LiveIsoSpec {
    /// ISO 9660 volume id (also in `coreos.liveiso=`).
    pub volume_id: String,
    /// Size of `images/ignition.img` (CoreOS ships 256 KiB).
    pub ignition_area: usize,
    /// Size of each kernel-argument area.
    pub kargs_area: usize,
    /// Bytes of an extra `images/rootfs.img` (zeros, sparse on disk), to make a large ISO.
    pub filler: u64,
    /// Whether to include the `coreos/` metadata (false: a plain, non-live ISO).
    pub live: bool,
    /// `coreos/igninfo.json` as written (None: the one CoreOS writes), for crafted areas.
    pub igninfo: Option<String>,
    /// `offset` of the first kernel-argument area in `coreos/kargs.json` instead of the true
    /// one, for crafted areas.
    pub kargs_offset: Option<u64>,
    /// Real boot parts, for an ISO a machine boots (None: placeholders, not bootable).
    pub boot: Option<BootParts>,
}

/// What makes the ISO bootable by a BIOS and by UEFI: the kernel and initramfs in place of the
/// placeholders, Debian's isolinux as the El Torito boot image (as CoreOS's ISO boots on
/// BIOS), `images/efiboot.img` as the alternative EFI boot image (a FAT image with Debian's
/// GRUB as `EFI/BOOT/BOOTX64.EFI`, which reads the ISO's `EFI/fedora/grub.cfg`, as CoreOS's
/// does), and default kernel arguments besides CoreOS's three.
#[derive(Debug, Clone)]
pub struct BootParts {
    /// The kernel (`images/pxeboot/vmlinuz`).
    pub kernel: PathBuf,
    /// The live initramfs (`images/pxeboot/initrd.img`).
    pub initramfs: PathBuf,
    /// More default kernel arguments, after CoreOS's.
    pub extra_kargs: String,
}

/// Debian's isolinux (package isolinux) and the library it loads (syslinux-common).
pub const ISOLINUX_BIN: &str = "/usr/lib/ISOLINUX/isolinux.bin";
/// isolinux's core module.
pub const LDLINUX_C32: &str = "/usr/lib/syslinux/modules/bios/ldlinux.c32";
/// Debian's GRUB for UEFI (package grub-efi-amd64-bin).
pub const GRUB_EFI_DIR: &str = "/usr/lib/grub/x86_64-efi";
/// The EFI boot image's path in the ISO, as CoreOS's.
const EFIBOOT_IMG: &str = "images/efiboot.img";
/// GRUB's modules built into `BOOTX64.EFI`: what finds the ISO, reads grub.cfg and boots
/// Linux.
const GRUB_EFI_MODULES: &[&str] = &[
    "iso9660",
    "part_msdos",
    "part_gpt",
    "fat",
    "search",
    "normal",
    "configfile",
    "echo",
    "test",
    "linux",
];
/// What `BOOTX64.EFI` runs first: the ISO found by a file only it has, grub.cfg read from its
/// `EFI/fedora`.
const GRUB_EFI_EARLY: &str =
    "search --no-floppy --file /coreos/kargs.json --set=root\nset prefix=($root)/EFI/fedora\n";

impl Default for LiveIsoSpec {
    fn default() -> Self {
        LiveIsoSpec {
            volume_id: "scos-test-live.x86_64".into(),
            ignition_area: 256 << 10,
            kargs_area: 1138,
            filler: 0,
            live: true,
            igninfo: None,
            kargs_offset: None,
            boot: None,
        }
    }
}

/// A built fixture.
#[derive(Debug, Clone)]
pub struct LiveIso {
    /// The ISO file.
    pub path: PathBuf,
    /// The default kernel arguments (`kargs.json`'s `default`).
    pub default_kargs: String,
}

impl LiveIsoSpec {
    /// The default kernel arguments, as CoreOS builds them.
    pub fn default_kargs(&self) -> String {
        let coreos = format!(
            "coreos.liveiso={} ignition.firstboot ignition.platform.id=metal",
            self.volume_id
        );
        match &self.boot {
            Some(boot) if !boot.extra_kargs.is_empty() => {
                format!("{coreos} {}", boot.extra_kargs)
            }
            _ => coreos,
        }
    }

    /// Builds the ISO at `dir/name` (a staging tree goes into `dir` too).
    pub fn build(&self, dir: &Path, name: &str) -> LiveIso {
        let tree = dir.join(format!("{name}.tree"));
        let _ = std::fs::remove_dir_all(&tree);
        if self.live {
            self.write_live_tree(&tree);
        } else {
            write(&tree.join("README.TXT"), b"not a live ISO\n");
        }
        if self.filler > 0 {
            let f = std::fs::File::create(tree.join("images/rootfs.img")).expect("filler");
            f.set_len(self.filler).expect("filler size");
        }
        let path = dir.join(name);
        let _ = std::fs::remove_file(&path);
        let mut xorriso = Command::new("xorriso");
        xorriso.args([
            "-as",
            "mkisofs",
            "-quiet",
            "-R",
            "-J",
            "-V",
            &self.volume_id,
        ]);
        if self.boot.is_some() {
            xorriso.args([
                "-b",
                "isolinux/isolinux.bin",
                "-c",
                "isolinux/boot.cat",
                "-no-emul-boot",
                "-boot-load-size",
                "4",
                "-boot-info-table",
                "-eltorito-alt-boot",
                "-e",
                EFIBOOT_IMG,
                "-no-emul-boot",
            ]);
        }
        let out = xorriso
            .arg("-o")
            .arg(&path)
            .arg(&tree)
            .output()
            .expect("running xorriso");
        assert!(
            out.status.success(),
            "xorriso failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::remove_dir_all(&tree).expect("removing the staging tree");
        LiveIso {
            path,
            default_kargs: self.default_kargs(),
        }
    }

    fn write_live_tree(&self, tree: &Path) {
        let kargs = self.default_kargs();
        let area = karg_area(&kargs, self.kargs_area);
        let grub_head =
            "set timeout=1\nmenuentry 'CoreOS (Live)' {\n  linux /images/pxeboot/vmlinuz ";
        let grub_tail = "\n  initrd /images/pxeboot/initrd.img /images/ignition.img\n}\n";
        let linux_head = match self.boot {
            // isolinux itself boots the one entry (no menu module), its output on the serial
            // port too.
            Some(_) => {
                "serial 0 115200\ndefault linux\nprompt 0\nlabel linux\n  kernel /images/pxeboot/vmlinuz\n  append initrd=/images/pxeboot/initrd.img,/images/ignition.img "
            }
            None => {
                "default vesamenu.c32\nlabel linux\n  kernel /images/pxeboot/vmlinuz\n  append initrd=/images/pxeboot/initrd.img,/images/ignition.img "
            }
        };
        let linux_tail = "\n";
        write(
            &tree.join("EFI/fedora/grub.cfg"),
            &[grub_head.as_bytes(), &area, grub_tail.as_bytes()].concat(),
        );
        write(
            &tree.join("isolinux/isolinux.cfg"),
            &[linux_head.as_bytes(), &area, linux_tail.as_bytes()].concat(),
        );
        let kargs_json = serde_json::json!({
            "default": kargs,
            "files": [
                {"path": "EFI/fedora/grub.cfg", "offset": self.kargs_offset.unwrap_or(grub_head.len() as u64)},
                {"path": "isolinux/isolinux.cfg", "offset": linux_head.len(), "end": "\n", "pad": "#"},
            ],
            "size": self.kargs_area,
        });
        write(
            &tree.join("coreos/kargs.json"),
            kargs_json.to_string().as_bytes(),
        );
        write(
            &tree.join("coreos/igninfo.json"),
            self.igninfo
                .as_deref()
                .unwrap_or(r#"{"file": "images/ignition.img"}"#)
                .as_bytes(),
        );
        write(
            &tree.join("coreos/features.json"),
            br#"{"installer-config": true, "installer-config-directives": {"console": true}, "live-initrd-network": true}"#,
        );
        write(
            &tree.join("images/ignition.img"),
            &vec![0; self.ignition_area],
        );
        match &self.boot {
            Some(boot) => {
                for (from, to) in [
                    (boot.kernel.as_path(), "images/pxeboot/vmlinuz"),
                    (boot.initramfs.as_path(), "images/pxeboot/initrd.img"),
                    (Path::new(ISOLINUX_BIN), "isolinux/isolinux.bin"),
                    (Path::new(LDLINUX_C32), "isolinux/ldlinux.c32"),
                ] {
                    let to = tree.join(to);
                    std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
                    std::fs::copy(from, &to)
                        .unwrap_or_else(|e| panic!("copying {}: {e}", from.display()));
                }
                efiboot(tree);
            }
            None => {
                write(&tree.join("images/pxeboot/vmlinuz"), b"not a kernel\n");
                write(&tree.join("images/pxeboot/initrd.img"), &live_initramfs());
            }
        }
    }
}

/// Writes `images/efiboot.img` under `tree`: a FAT image (dosfstools, mtools) with GRUB
/// (`grub-mkimage`) as the removable-media loader `EFI/BOOT/BOOTX64.EFI`.
fn efiboot(tree: &Path) {
    let work = tree.join(".efiboot");
    std::fs::create_dir_all(&work).expect("mkdir");
    let early = work.join("early.cfg");
    write(&early, GRUB_EFI_EARLY.as_bytes());
    let loader = work.join("BOOTX64.EFI");
    let image = tree.join(EFIBOOT_IMG);
    let mut mkimage = Command::new("grub-mkimage");
    mkimage
        .args([
            "-O",
            "x86_64-efi",
            "-d",
            GRUB_EFI_DIR,
            "-p",
            "/EFI/fedora",
            "-c",
        ])
        .arg(&early)
        .arg("-o")
        .arg(&loader)
        .args(GRUB_EFI_MODULES);
    let mut mkfs = Command::new("mkfs.fat");
    mkfs.args(["-C", "-n", "EFIBOOT"]).arg(&image).arg("8192");
    let mut mmd = Command::new("mmd");
    mmd.arg("-i").arg(&image).args(["::/EFI", "::/EFI/BOOT"]);
    let mut mcopy = Command::new("mcopy");
    mcopy
        .arg("-i")
        .arg(&image)
        .arg(&loader)
        .arg("::/EFI/BOOT/BOOTX64.EFI");
    for step in [&mut mkimage, &mut mkfs, &mut mmd, &mut mcopy] {
        crate::run::output_of(step, 20).unwrap_or_else(|e| panic!("the EFI boot image: {e:?}"));
    }
    std::fs::remove_dir_all(&work).expect("removing the EFI boot image's work files");
}

/// The live initramfs: a newc cpio with the stamp file the live tools look for.
pub fn live_initramfs() -> Vec<u8> {
    let mut out = Vec::new();
    for (ino, (name, mode, data)) in [
        ("etc", 0o040_755, &b""[..]),
        ("etc/coreos-live-initramfs", 0o100_644, &b""[..]),
        ("etc/coreos", 0o040_755, &b""[..]),
        (
            "etc/coreos/features.json",
            0o100_644,
            &br#"{"installer-config": true, "live-initrd-network": true}"#[..],
        ),
        ("TRAILER!!!", 0, &b""[..]),
    ]
    .into_iter()
    .enumerate()
    {
        out.extend_from_slice(b"070701");
        let fields = [
            ino as u32 + 1,
            mode,
            0,
            0,
            1,
            0,
            data.len() as u32,
            0,
            0,
            0,
            0,
            name.len() as u32 + 1,
            0,
        ];
        for f in fields {
            out.extend_from_slice(format!("{f:08x}").as_bytes());
        }
        out.extend_from_slice(name.as_bytes());
        out.push(0);
        while !out.len().is_multiple_of(4) {
            out.push(0);
        }
        out.extend_from_slice(data);
        while !out.len().is_multiple_of(4) {
            out.push(0);
        }
    }
    out
}

fn karg_area(kargs: &str, size: usize) -> Vec<u8> {
    let mut area = format!("{kargs}\n").into_bytes();
    assert!(area.len() <= size, "default kargs larger than the area");
    area.resize(size, b'#');
    area
}

fn write(path: &Path, data: &[u8]) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, data).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}
