//! The seam to the release's CoreOS stream metadata and downloads (the `releases` data and
//! the `download` crate, built separately). Boot-media commands ask here for what the user
//! did not give by flag; until the stream download is wired in, these say which flag to give.
//!
//! To wire: make [`stream_artifact`] download (or find in the cache) the artifact of the
//! release's stream for this architecture and return its path, and [`stream_location`]
//! return the artifact's URL from the stream metadata.

use std::path::PathBuf;

use anyhow::Result;

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
    /// The flag that gives this artifact by hand.
    pub(crate) fn flag(self) -> &'static str {
        match self {
            Artifact::Iso => "--iso FILE",
            Artifact::Kernel => "--kernel-url URL (or --base-url)",
            Artifact::Initramfs => "--initramfs-url URL (or --base-url)",
            Artifact::Rootfs => "--rootfs-url URL (or --base-url)",
        }
    }
}

/// The local file of `artifact` from the release's stream (downloaded and checked).
pub(crate) fn stream_artifact(artifact: Artifact) -> Result<PathBuf> {
    Err(not_yet(artifact).into())
}

/// Where `artifact` of the release's stream is published.
pub(crate) fn stream_location(artifact: Artifact) -> Result<String> {
    Err(not_yet(artifact).into())
}

fn not_yet(artifact: Artifact) -> bootmedia::Error {
    let what = match artifact {
        Artifact::Iso => "--iso is required until the stream download lands".to_string(),
        _ => format!(
            "{} is required until the stream metadata lands",
            artifact.flag()
        ),
    };
    bootmedia::Error::Input(what)
}
