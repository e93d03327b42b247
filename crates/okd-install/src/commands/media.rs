//! `okd-install create live-iso` and `create pxe-files`: boot media carrying a role's
//! Ignition config, written by the `bootmedia` library without coreos-installer.

use std::path::Path;

use anyhow::{Context as _, Result};
use assets::AssetDir;
use assets::role::Role;
use bootmedia::live::{Customization, Destination};
use bootmedia::media::KargsEdit;
use bootmedia::pxe::{PxeUrls, Rootfs};

use crate::cli::{LiveIsoArgs, PxeArgs, RoleArgs};
use crate::coreos_stream::{Artifact, stream_artifact, stream_location};

/// What `create pxe-files --download` puts into DIR, under the names `--base-url` uses.
const PXE_PARTS: [(Artifact, &str); 3] = [
    (Artifact::Kernel, "kernel"),
    (Artifact::Initramfs, "initramfs.img"),
    (Artifact::Rootfs, "rootfs.img"),
];

/// `create live-iso`: DIR/ROLE.iso.
pub(crate) fn live_iso(dir: &Path, args: &LiveIsoArgs) -> Result<()> {
    let assets = AssetDir::new(dir);
    let (role, custom) = customization(&assets, &args.role)?;
    let input = match &args.iso {
        Some(path) => path.clone(),
        None => stream_artifact(&assets, Artifact::Iso, &args.stream)?,
    };
    prepare_outputs(dir, &[role.iso_file()])?;
    let output = dir.join(role.iso_file());
    let edit = KargsEdit {
        append: args.karg.clone(),
        delete: args.delete_karg.clone(),
    };
    let written =
        bootmedia::media::write_iso(&input, &output, &custom, &edit, mode(role, &custom))?;
    if written.replaced_customization {
        tracing::warn!(
            "{} already carried a config or changed kernel arguments; {} has only this run's",
            input.display(),
            output.display()
        );
    }
    tracing::info!(
        "wrote {} ({}; config image {} of {} bytes)",
        output.display(),
        behaviour(role, &custom),
        written.image_bytes,
        written.capacity
    );
    Ok(())
}

/// `create pxe-files`: DIR/ROLE.ign.img and DIR/ROLE.ipxe.
pub(crate) fn pxe_files(dir: &Path, args: &PxeArgs) -> Result<()> {
    let assets = AssetDir::new(dir);
    let (role, custom) = customization(&assets, &args.role)?;
    let urls = pxe_urls(&assets, role, args)?;
    let text = bootmedia::pxe::ipxe_script(&urls, &args.karg)?;
    let mut outputs = vec![role.config_image_file(), role.ipxe_file()];
    if args.download {
        outputs.extend(PXE_PARTS.map(|(_, name)| name.to_string()));
    }
    prepare_outputs(dir, &outputs)?;
    if args.download {
        for (artifact, name) in PXE_PARTS {
            let cached = stream_artifact(&assets, artifact, &args.stream)?;
            place(&cached, &dir.join(name))?;
        }
    }
    let image = dir.join(role.config_image_file());
    let bytes = bootmedia::media::write_config_image(&image, &custom, mode(role, &custom))?;
    let script = dir.join(role.ipxe_file());
    atomic_file::write(&script, text.as_bytes(), 0o644)
        .with_context(|| format!("writing {}", script.display()))?;
    tracing::info!(
        "wrote {} ({bytes} bytes; serve it at {}) and {} ({})",
        image.display(),
        urls.config,
        script.display(),
        behaviour(role, &custom)
    );
    Ok(())
}

/// Before boot media are written into DIR: the temporary file a killed run of a media command
/// left (a whole ISO's copy, perhaps) goes, and no output may land through a directory link
/// out of DIR (`outputs` relative to DIR).
fn prepare_outputs(dir: &Path, outputs: &[String]) -> Result<()> {
    for leftover in atomic_file::remove_abandoned_below(dir) {
        tracing::info!(
            "removed {}, left over from an interrupted write",
            leftover.display()
        );
    }
    for rel in outputs {
        atomic_file::input::output_dirs_inside(dir, Path::new(rel))?;
    }
    Ok(())
}

/// The role and what its media carry, from the flags and the role's config in `dir`.
fn customization(assets: &AssetDir, args: &RoleArgs) -> Result<(Role, Customization)> {
    let dir = assets.path();
    let role = Role::from_name(&args.role)?;
    if role == Role::SingleNode && args.dest_device.is_some() {
        return Err(bootmedia::Error::Input(format!(
            "--dest-device does not apply to --role single-node: its config installs itself to \
             install-config's bootstrapInPlace.installationDisk{}; change that and re-run \
             `okd-install create single-node-ignition-config --dir {}`",
            single_node_disk(assets).map_or(String::new(), |d| format!(" ({d})")),
            dir.display()
        ))
        .into());
    }
    let config = assets.ignition_config(role)?;
    let keyfiles = args
        .network_keyfile
        .iter()
        .map(|path| bootmedia::live::read_keyfile(path))
        .collect::<Result<Vec<_>, _>>()?;
    let dest = args.dest_device.as_ref().map(|device| Destination {
        device: device.clone(),
        append_kargs: args.dest_karg_append.clone(),
    });
    Ok((
        role,
        Customization {
            config,
            dest,
            keyfiles,
        },
    ))
}

/// 0600 when the media carry private keys (bootstrap configs) or network secrets
/// (keyfiles may hold Wi-Fi or 802.1X passwords), else 0644.
fn mode(role: Role, custom: &Customization) -> u32 {
    if role.holds_secrets() || !custom.keyfiles.is_empty() {
        0o600
    } else {
        0o644
    }
}

fn behaviour(role: Role, custom: &Customization) -> String {
    match (&custom.dest, role) {
        (Some(dest), _) => format!("installs to {} and reboots", dest.device),
        (None, Role::SingleNode) => "installs itself to bootstrapInPlace's disk".into(),
        (None, _) => "runs the config in the live system".into(),
    }
}

fn single_node_disk(assets: &AssetDir) -> Option<&str> {
    let ic = assets.install_config()?;
    Some(&ic.bootstrap_in_place.as_ref()?.installation_disk)
}

/// Each part's URL: the flag naming it, else `--base-url`'s, else (with `--download`) the
/// file beside the script, else the stream's.
fn pxe_urls(assets: &AssetDir, role: Role, args: &PxeArgs) -> Result<PxeUrls> {
    if let Some(base) = &args.base_url {
        bootmedia::pxe::check_base_url(base)?;
    }
    let base = args.base_url.as_deref().map(|b| b.trim_end_matches('/'));
    let beside = args.download && base.is_none();
    let part = |artifact: Artifact| {
        PXE_PARTS
            .iter()
            .find(|(a, _)| *a == artifact)
            .map_or("", |(_, name)| *name)
    };
    let pick = |given: &Option<String>, artifact: Artifact| -> Result<String> {
        match (given, base) {
            (Some(url), _) => Ok(url.clone()),
            (None, Some(base)) => Ok(format!("{base}/{}", part(artifact))),
            (None, None) if beside => Ok(part(artifact).to_string()),
            (None, None) => stream_location(assets, artifact, &args.stream),
        }
    };
    let config = match (&args.config_url, base) {
        (Some(url), _) => url.clone(),
        (None, Some(base)) => format!("{base}/{}", role.config_image_file()),
        (None, None) if beside => role.config_image_file().to_string(),
        (None, None) => {
            return Err(bootmedia::Error::Input(format!(
                "pass --config-url (where you serve {}), --base-url, or --download to serve \
                 DIR as it is",
                role.config_image_file()
            ))
            .into());
        }
    };
    let rootfs = match (&args.rootfs_url, base) {
        (None, None) if beside => Rootfs::Initrd(part(Artifact::Rootfs).to_string()),
        _ => Rootfs::Url(pick(&args.rootfs_url, Artifact::Rootfs)?),
    };
    Ok(PxeUrls {
        kernel: pick(&args.kernel_url, Artifact::Kernel)?,
        initramfs: pick(&args.initramfs_url, Artifact::Initramfs)?,
        rootfs,
        config,
    })
}

/// Puts the cached file `from` at `to`: a hard link when both are on one file system (a
/// gigabyte rootfs is not copied), else a copy; either appears whole under its name.
///
/// The link's temporary name is one of [`atomic_file::TEMP_PREFIX`]: the lock held on the
/// cached file (the same file) while it has that name tells another run's cleaner it is no
/// leftover.
fn place(from: &Path, to: &Path) -> Result<()> {
    let held = std::fs::File::open(from)
        .and_then(|f| f.lock_shared().map(|()| f))
        .with_context(|| format!("opening {}", from.display()))?;
    let name = to.file_name().unwrap_or_default().to_string_lossy();
    let link = to.with_file_name(format!(
        "{}{name}.{}",
        atomic_file::TEMP_PREFIX,
        std::process::id()
    ));
    let _ = std::fs::remove_file(&link);
    let result = match std::fs::hard_link(from, &link) {
        Ok(()) => std::fs::rename(&link, to).inspect_err(|_| {
            let _ = std::fs::remove_file(&link);
        }),
        Err(_) => atomic_file::write_with_unsynced(to, 0o644, |file| {
            std::io::copy(&mut std::fs::File::open(from)?, file).map(drop)
        }),
    };
    drop(held);
    result.with_context(|| format!("putting {} at {}", from.display(), to.display()))?;
    tracing::info!("{}: the release's {}", to.display(), from.display());
    Ok(())
}
