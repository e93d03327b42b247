//! The stand-in for CoreOS's metal image, and the disk that carries it to the live system
//! with the real coreos-installer (the installer's payload, labelled
//! [`PAYLOAD_LABEL`]).
//!
//! The image is a GPT disk in the layout coreos-installer works on: a BIOS boot partition
//! with Debian's GRUB (`grub-pc-bin`; its core image made with `grub-mkimage` and placed the
//! way `grub-bios-setup` places it, which Debian ships only in `grub-pc` with its install
//! hooks), a partition labelled `boot` (ext4: the Debian kernel, the VM's initramfs, GRUB's
//! modules and the files of [`standins::METAL_IMAGE`]: grub.cfg, the BLS entry and the
//! `ignition.firstboot` flag file that coreos-installer edits and writes into) and one
//! labelled `root` (the live root's ext4 image shrunk to its files plus room, relabelled).
//! The payload is an ext4 image holding the image as a file (its partitions' labels would
//! otherwise be seen twice by the installed system) and the coreos-installer binary.
//! Both are made natively and cached by a hash of their inputs.

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use real_host::{Error, Result};
use sha2::{Digest, Sha256};

use crate::cache;
use crate::disk::ext4_image;
use crate::parts::Kernel;
use crate::run::output_of;
use crate::standins::{self, METAL_IMAGE, PAYLOAD_IMAGE, PAYLOAD_INSTALLER, PAYLOAD_LABEL, io};

/// Debian's GRUB for BIOS machines.
const GRUB_DIR: &str = "/usr/lib/grub/i386-pc";
/// GRUB's modules built into its core image: what reads the disk and runs grub.cfg (the
/// `linux` module is not among them, see [`standins::METAL_IMAGE`]'s grub.cfg).
const GRUB_MODULES: &[&str] = &[
    "biosdisk",
    "part_gpt",
    "ext2",
    "search",
    "normal",
    "configfile",
    "echo",
    "test",
    "regexp",
    "serial",
    "terminal",
    "halt",
];
/// What GRUB's core image runs first: the boot partition by its label, as CoreOS's does.
const GRUB_EARLY: &str = "search --no-floppy --label boot --set=root\nset prefix=($root)/grub\n";

const MIB: u64 = 1024 * 1024;
/// The BIOS boot partition's first sector (1 MiB in) and its size.
const BIOS_BOOT_SECTOR: u64 = 2048;
const BIOS_BOOT_MIB: u64 = 1;
/// The boot partition's size (the kernel and a 64 MB initramfs).
const BOOT_MIB: u64 = 160;
/// Room left in the root file system for what Ignition writes on the first boot.
const ROOT_ROOM_MIB: u64 = 256;
/// The disk's kernel and initramfs, as the BLS entry of [`standins::METAL_IMAGE`] names them.
const KERNEL_NAME: &str = "vmlinuz";
const INITRAMFS_NAME: &str = "initramfs.img";

/// The installer's payload disk (the metal image made of `kernel`, `initramfs` and the live
/// root `root`, and the coreos-installer at `installer`), made when the cache has none for
/// these inputs.
pub fn payload(
    kernel: &Kernel,
    initramfs: &Path,
    root: &Path,
    installer: &Path,
) -> Result<PathBuf> {
    let grub = output_of(Command::new("dpkg-query").args([
        "-W",
        "-f",
        "${Package} ${Version}\n",
        "grub-pc-bin",
    ]))?;
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let key = cache::key(&[
        kernel.version.as_bytes(),
        name(initramfs).as_bytes(),
        name(root).as_bytes(),
        grub.as_bytes(),
        GRUB_MODULES.join(" ").as_bytes(),
        GRUB_EARLY.as_bytes(),
        &standins::key_input(&[METAL_IMAGE]),
        &file_hash(installer)?,
        include_str!("metal.rs").as_bytes(),
    ]);
    cache::cached(&format!("metal-payload-{key}.ext4"), |out| {
        let work = tempfile::tempdir_in(cache::cache_dir()).map_err(io(&cache::cache_dir()))?;
        let dir = work.path().join("payload");
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let image = dir.join(PAYLOAD_IMAGE);
        metal_image(kernel, initramfs, root, work.path(), &image)?;
        let to = dir.join(PAYLOAD_INSTALLER);
        std::fs::copy(installer, &to).map_err(io(&to))?;
        let size = std::fs::metadata(&image).map_err(io(&image))?.len() / MIB + 128;
        ext4_image(&dir, PAYLOAD_LABEL, out, size)
    })
}

/// The real coreos-installer: on `PATH`, else where `cargo install` puts it.
pub fn coreos_installer() -> Option<PathBuf> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .chain(cargo_home.map(|c| c.join("bin")))
        .map(|dir| dir.join(PAYLOAD_INSTALLER))
        .find(|p| p.is_file())
}

/// A SHA-256 of the file at `path`.
fn file_hash(path: &Path) -> Result<Vec<u8>> {
    let mut file = std::fs::File::open(path).map_err(io(path))?;
    let mut hash = Sha256::new();
    std::io::copy(&mut file, &mut hash).map_err(io(path))?;
    Ok(hash.finalize().to_vec())
}

/// Writes the metal image to `out`, its parts made under `work`.
fn metal_image(
    kernel: &Kernel,
    initramfs: &Path,
    root: &Path,
    work: &Path,
    out: &Path,
) -> Result<()> {
    let boot = boot_partition(kernel, initramfs, work)?;
    let (root_fs, root_mib) = root_partition(root, work)?;
    let core = work.join("core.img");
    let early = work.join("early.cfg");
    std::fs::write(&early, GRUB_EARLY).map_err(io(&early))?;
    output_of(
        Command::new("grub-mkimage")
            .args(["-O", "i386-pc", "-d", GRUB_DIR, "-p", "/grub", "-c"])
            .arg(&early)
            .arg("-o")
            .arg(&core)
            .args(GRUB_MODULES),
    )?;
    let root_start = BIOS_BOOT_SECTOR * 512 / MIB + BIOS_BOOT_MIB + BOOT_MIB;
    // The backup GPT after the last partition.
    let size = (root_start + root_mib + 1) * MIB;
    let file = std::fs::File::create(out).map_err(io(out))?;
    file.set_len(size).map_err(io(out))?;
    drop(file);
    let table = format!(
        "label: gpt\n\
         start={BIOS_BOOT_SECTOR}, size={BIOS_BOOT_MIB}MiB, type=21686148-6449-6E6F-744E-656564454649, name=\"BIOS-BOOT\"\n\
         size={BOOT_MIB}MiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=\"boot\"\n\
         size={root_mib}MiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=\"root\"\n"
    );
    let mut sfdisk = Command::new("sh");
    sfdisk
        .arg("-c")
        .arg("printf '%s' \"$1\" | sfdisk --quiet --no-reread --no-tell-kernel \"$2\"")
        .arg("sh")
        .arg(&table)
        .arg(out);
    output_of(&mut sfdisk)?;
    place(&boot, out, BIOS_BOOT_SECTOR * 512 / MIB + BIOS_BOOT_MIB)?;
    place(&root_fs, out, root_start)?;
    install_grub(out, &core)
}

/// Copies the file `part` into `image` at `mib` MiB, keeping holes as holes.
fn place(part: &Path, image: &Path, mib: u64) -> Result<()> {
    output_of(
        Command::new("dd")
            .arg(format!("if={}", part.display()))
            .arg(format!("of={}", image.display()))
            .args(["bs=1M", "conv=notrunc,sparse", "status=none"])
            .arg(format!("seek={mib}")),
    )
    .map(drop)
}

/// The boot partition's file system: the kernel, the initramfs, GRUB's modules (without
/// its command list, so `linux` is no command until grub.cfg loads it) and the stand-in's
/// files.
fn boot_partition(kernel: &Kernel, initramfs: &Path, work: &Path) -> Result<PathBuf> {
    let dir = work.join("boot");
    standins::install(&dir, &[METAL_IMAGE])?;
    for (from, name) in [
        (kernel.vmlinuz.as_path(), KERNEL_NAME),
        (initramfs, INITRAMFS_NAME),
    ] {
        let to = dir.join(name);
        std::fs::copy(from, &to).map_err(io(&to))?;
    }
    let modules = dir.join("grub/i386-pc");
    std::fs::create_dir_all(&modules).map_err(io(&modules))?;
    let grub = Path::new(GRUB_DIR);
    for entry in std::fs::read_dir(grub).map_err(io(grub))?.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "mod") {
            let to = modules.join(entry.file_name());
            std::fs::copy(&path, &to).map_err(io(&to))?;
        }
    }
    let out = work.join("boot.ext4");
    ext4_image(&dir, "boot", &out, BOOT_MIB)?;
    Ok(out)
}

/// The root partition's file system: a copy of the live root's, checked, shrunk to its
/// files plus [`ROOT_ROOM_MIB`], labelled `root`; and its size in MiB.
fn root_partition(root: &Path, work: &Path) -> Result<(PathBuf, u64)> {
    let out = work.join("root.ext4");
    output_of(
        Command::new("cp")
            .arg("--sparse=always")
            .arg(root)
            .arg(&out),
    )?;
    output_of(Command::new("e2fsck").args(["-f", "-y"]).arg(&out))?;
    output_of(Command::new("resize2fs").arg("-M").arg(&out))?;
    let header = output_of(Command::new("dumpe2fs").arg("-h").arg(&out))?;
    let field = |name: &str| -> Result<u64> {
        header
            .lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
            .ok_or_else(|| Error::Answer {
                what: format!("dumpe2fs -h {}", out.display()),
                detail: format!("no `{name}` in its header"),
            })
    };
    let bytes = field("Block count:")? * field("Block size:")?;
    let mib = bytes.div_ceil(MIB) + ROOT_ROOM_MIB;
    output_of(Command::new("resize2fs").arg(&out).arg(format!("{mib}M")))?;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&out)
        .map_err(io(&out))?;
    file.set_len(mib * MIB).map_err(io(&out))?;
    output_of(Command::new("tune2fs").args(["-L", "root"]).arg(&out))?;
    Ok((out, mib))
}

/// GRUB's boot sector and core image on `image`, as `grub-bios-setup` places them on a GPT
/// disk: the boot sector's code (its first 440 bytes; the protective MBR's partition table
/// stays) with the core image's first sector at [`BOOT_KERNEL_SECTOR`] and the drive check
/// turned off (as for a hard disk); the core image in the BIOS boot partition, its first
/// sector's block list naming the rest.
fn install_grub(image: &Path, core: &Path) -> Result<()> {
    let boot_img = Path::new(GRUB_DIR).join("boot.img");
    let mut boot = std::fs::read(&boot_img).map_err(io(&boot_img))?;
    let mut core_img = std::fs::read(core).map_err(io(core))?;
    let sectors = core_img.len().div_ceil(512) as u64;
    if sectors > BIOS_BOOT_MIB * MIB / 512 || boot.len() != 512 || core_img.len() < 512 {
        return Err(Error::Answer {
            what: format!("GRUB's {} and {}", boot_img.display(), core.display()),
            detail: format!(
                "a 512-byte boot sector and a core image of at most {BIOS_BOOT_MIB} MiB expected; got {} and {} bytes",
                boot.len(),
                core_img.len()
            ),
        });
    }
    boot[BOOT_KERNEL_SECTOR..BOOT_KERNEL_SECTOR + 8]
        .copy_from_slice(&BIOS_BOOT_SECTOR.to_le_bytes());
    boot[BOOT_DRIVE_CHECK..BOOT_DRIVE_CHECK + 2].copy_from_slice(&[0x90, 0x90]);
    core_img[CORE_BLOCKLIST..CORE_BLOCKLIST + 8]
        .copy_from_slice(&(BIOS_BOOT_SECTOR + 1).to_le_bytes());
    core_img[CORE_BLOCKLIST + 8..CORE_BLOCKLIST + 10]
        .copy_from_slice(&u16::try_from(sectors - 1).unwrap_or(u16::MAX).to_le_bytes());
    let mut disk = std::fs::OpenOptions::new()
        .write(true)
        .open(image)
        .map_err(io(image))?;
    disk.write_all(&boot[..MBR_CODE]).map_err(io(image))?;
    disk.seek(SeekFrom::Start(BIOS_BOOT_SECTOR * 512))
        .and_then(|_| disk.write_all(&core_img))
        .map_err(io(image))
}

/// Offsets in GRUB's `boot.img` (GRUB's `boot.h`): the 64-bit first sector of the core
/// image, and the jump that checks the BIOS's drive number.
const BOOT_KERNEL_SECTOR: usize = 0x5c;
const BOOT_DRIVE_CHECK: usize = 0x66;
/// The MBR's boot code before the disk signature and partition table.
const MBR_CODE: usize = 440;
/// The block list at the end of the core image's first sector (`diskboot.img`): the 64-bit
/// sector where the rest starts and its 16-bit length in sectors (then a segment, kept).
const CORE_BLOCKLIST: usize = 512 - 12;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bls_entry_names_the_kernel_and_initramfs_the_boot_partition_has() {
        let (_, entry, _) = METAL_IMAGE
            .files
            .iter()
            .find(|(path, _, _)| path.starts_with("loader/entries/"))
            .expect("a BLS entry");
        let key = |k: &str| {
            entry
                .lines()
                .find_map(|l| l.strip_prefix(k))
                .map(str::trim)
                .unwrap_or_default()
                .to_string()
        };
        assert_eq!(key("linux "), format!("/{KERNEL_NAME}"));
        assert_eq!(key("initrd "), format!("/{INITRAMFS_NAME}"));
        // The first boot's flag, as CoreOS's entries have it.
        assert!(key("options ").contains("$ignition_firstboot"));
    }

    #[test]
    fn grub_parses_the_metal_image_grub_cfg() {
        if !testkit::require_tool("grub-script-check", "grub-common") {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        standins::install(dir.path(), &[METAL_IMAGE]).unwrap();
        let out = Command::new("grub-script-check")
            .arg(dir.path().join("grub/grub.cfg"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
