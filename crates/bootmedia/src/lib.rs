//! Boot media for CoreOS machines with an Ignition config inside, written without a second
//! tool: a copy of the live ISO with the config (and kernel arguments) patched into the areas
//! the ISO reserves for them, or the separate config image a PXE boot adds as an initrd.
//!
//! The formats are those `coreos-installer iso`/`pxe` reads and writes, so either tool reads
//! what the other wrote:
//!
//! - [`iso9660`]: just enough ISO 9660 to find a file's bytes by its path;
//! - [`areas`]: the live ISO's reserved areas, named by `/coreos/igninfo.json` (the Ignition
//!   area) and `/coreos/kargs.json` (the kernel-argument areas);
//! - [`initrd`]: the xz-compressed newc cpio the kernel unpacks over the live initramfs;
//! - [`live`]: what goes into that cpio: the config, NetworkManager keyfiles, and for an
//!   installing ISO the live config that runs coreos-installer on boot;
//! - [`media`]: writing an ISO or a PXE config image; [`inspect`]: reading them back.
//!
//! Which role's config goes in, and the media's file names, are the asset directory's
//! business (`assets::role`): this crate takes bytes and paths.
//!
//! Nothing here prints or logs: the configs hold secrets (the bootstrap config holds the
//! whole PKI). Errors name the file and what to do.

#![deny(missing_docs)]

pub mod areas;
mod error;
pub mod initrd;
pub mod inspect;
pub mod iso9660;
pub mod kargs;
pub mod live;
pub mod media;
pub mod pxe;

pub use error::Error;

/// Kernel arguments without which a live system boots but silently skips Ignition.
pub const REQUIRED_KARGS: &[&str] = &["ignition.firstboot", "ignition.platform.id=metal"];
