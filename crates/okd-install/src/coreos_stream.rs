//! Where boot-media commands get what the user did not give by flag: the live ISO and PXE
//! files of the release the directory's configs were made for, from that release's CoreOS
//! stream metadata (`releases`), downloaded into the cache (`download`).

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use releases::{MetalArtifacts, Release};

use crate::download::{CacheArgs, download_with_bar};

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

/// Which stream artifacts to use when no flag names a file or URL.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct StreamArgs {
    /// Architecture of the machines (x86_64, aarch64, ...; default: this machine's).
    #[arg(long, value_name = "ARCH")]
    pub arch: Option<String>,
    /// Download cache.
    #[command(flatten)]
    pub cache: CacheArgs,
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

/// The release the configs in `dir` were generated for (from its state file), else the
/// default release, which is what `create` would generate for.
fn release_of(dir: &Path) -> Result<&'static Release> {
    let state = asset_graph::State::open(dir)?;
    if let Some(options) = state.find::<assets::ReleaseOptions>()? {
        return Ok(options.release);
    }
    Ok(crate::release::choose(None, None)?.resolved.release)
}

fn stream_entry(
    dir: &Path,
    artifact: Artifact,
    args: &StreamArgs,
) -> Result<&'static releases::Artifact> {
    let release = release_of(dir)?;
    let artifacts = crate::commands::coreos::metal_artifacts(release, args.arch.as_deref())?;
    Ok(artifact.of(artifacts))
}

/// The local file of `artifact` from the release's stream: from the cache, or downloaded
/// into it and checked against the stream's sha256.
pub(crate) fn stream_artifact(
    dir: &Path,
    artifact: Artifact,
    args: &StreamArgs,
) -> Result<PathBuf> {
    let entry = stream_entry(dir, artifact, args)?;
    download_with_bar(entry, &args.cache.options()?)
}

/// Where `artifact` of the release's stream is published.
pub(crate) fn stream_location(dir: &Path, artifact: Artifact, args: &StreamArgs) -> Result<String> {
    Ok(stream_entry(dir, artifact, args)?.location.clone())
}
