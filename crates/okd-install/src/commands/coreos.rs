//! `coreos print-stream-json` and `coreos download`: the release's CoreOS boot images.

use anyhow::Result;
use releases::MetalArtifacts;

use crate::cli::{CoreosArtifact, CoreosCommand, ReleaseArgs};
use crate::console::emit;
use crate::coreos_stream::{metal_artifacts, stream_of};
use crate::download::download_with_bar;

/// Runs a `coreos` subcommand.
pub(crate) fn run(cmd: &CoreosCommand) -> Result<()> {
    match cmd {
        CoreosCommand::PrintStreamJson(release) => print_stream_json(release),
        CoreosCommand::Download {
            release,
            artifact,
            arch,
            cache,
        } => {
            let artifacts = metal_artifacts(release.release()?, arch.as_deref())?;
            let options = cache.options()?;
            for a in artifact.pick(artifacts) {
                let path = download_with_bar(a, &options)?;
                emit(&format!("{}\n", path.display()))?;
            }
            Ok(())
        }
    }
}

/// Prints the stream file byte for byte, as the release's installer embeds it.
fn print_stream_json(release: &ReleaseArgs) -> Result<()> {
    let stream = stream_of(release.release()?)?;
    emit(stream.raw())
}

impl CoreosArtifact {
    /// The artifacts this choice names.
    fn pick(self, m: &MetalArtifacts) -> Vec<&releases::Artifact> {
        match self {
            CoreosArtifact::Iso => vec![&m.iso],
            CoreosArtifact::Pxe => vec![&m.kernel, &m.initramfs, &m.rootfs],
            CoreosArtifact::All => vec![&m.iso, &m.kernel, &m.initramfs, &m.rootfs],
        }
    }
}
