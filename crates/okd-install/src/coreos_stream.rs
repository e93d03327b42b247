//! Where boot-media commands get what the user did not give by flag: the live ISO and PXE
//! files of the release the directory's configs were made for, from that release's CoreOS
//! stream metadata (`releases`), downloaded into the cache (`download`).

use std::path::PathBuf;

use anyhow::{Context, Result};
use assets::AssetDir;
use releases::{MetalArtifacts, Release, Stream};

use crate::cli::StreamArgs;
use crate::download::download_with_bar;

/// A CoreOS live artifact of the release's stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Artifact {
    /// The live ISO.
    Iso,
    /// The live kernel (PXE).
    Kernel,
    /// The live initramfs (PXE).
    Initramfs,
    /// The live root file system (PXE, `coreos.live.rootfs_url`).
    Rootfs,
}

impl Artifact {
    fn of(self, m: &'static MetalArtifacts) -> &'static releases::Artifact {
        match self {
            Artifact::Iso => &m.iso,
            Artifact::Kernel => &m.kernel,
            Artifact::Initramfs => &m.initramfs,
            Artifact::Rootfs => &m.rootfs,
        }
    }
}

/// The release the configs in `assets` were generated for (from its state file), else the
/// default release, which is what `create` would generate for.
fn release_of(assets: &AssetDir) -> Result<&'static Release> {
    if let Some(release) = assets.release()? {
        return Ok(release);
    }
    Ok(crate::release::choose(None, None)?.resolved.release)
}

fn stream_entry(
    assets: &AssetDir,
    artifact: Artifact,
    args: &StreamArgs,
) -> Result<&'static releases::Artifact> {
    let release = release_of(assets)?;
    let artifacts = metal_artifacts(release, args.arch.as_deref())?;
    Ok(artifact.of(artifacts))
}

/// The local file of `artifact` from the release's stream: from the cache, or downloaded
/// into it and checked against the stream's sha256.
pub(crate) fn stream_artifact(
    assets: &AssetDir,
    artifact: Artifact,
    args: &StreamArgs,
) -> Result<PathBuf> {
    let entry = stream_entry(assets, artifact, args)?;
    download_with_bar(entry, &args.cache.options()?)
}

/// Where `artifact` of the release's stream is published.
pub(crate) fn stream_location(
    assets: &AssetDir,
    artifact: Artifact,
    args: &StreamArgs,
) -> Result<String> {
    Ok(stream_entry(assets, artifact, args)?.location.clone())
}

/// The CoreOS stream metadata of `release`.
pub(crate) fn stream_of(release: &Release) -> Result<&'static Stream> {
    Ok(release.coreos_stream()?)
}

/// The live ISO and PXE files of `release` for `arch` (install-config or kernel name; default:
/// this machine's architecture).
pub(crate) fn metal_artifacts(
    release: &Release,
    arch: Option<&str>,
) -> Result<&'static MetalArtifacts> {
    let stream = stream_of(release)?;
    let asked = arch.unwrap_or(std::env::consts::ARCH);
    let name = releases::coreos_arch(asked)
        .with_context(|| format!("{asked:?} is not an architecture CoreOS is built for"))?;
    stream.artifacts(name).with_context(|| {
        let known: Vec<&str> = stream.architectures().collect();
        format!(
            "the CoreOS stream of OKD {} ({}) has no live ISO and PXE files for {name}; it has \
             {}",
            release.version,
            stream.file(),
            known.join(", ")
        )
    })
}
