//! `coreos print-stream-json` and `coreos download`: the release's CoreOS boot images.

use anyhow::{Context, Result};
use releases::{MetalArtifacts, Release, Stream};

use crate::cli::{CoreosArtifact, CoreosCommand, ReleaseArgs};
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
                crate::commands::misc::emit(&format!("{}\n", path.display()))?;
            }
            Ok(())
        }
    }
}

/// Prints the stream file byte for byte, as the release's installer embeds it.
fn print_stream_json(release: &ReleaseArgs) -> Result<()> {
    let stream = stream_of(release.release()?)?;
    crate::commands::misc::emit(stream.raw())
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

impl ReleaseArgs {
    /// The supported release these flags name: the release image's (with the version when
    /// its tag names none), the version's alone, or the default.
    pub(crate) fn release(&self) -> Result<&'static Release> {
        let image = self
            .release_image
            .as_deref()
            .filter(|i| !i.trim().is_empty());
        let version = self.release_version.as_deref();
        let resolved = match (image, version) {
            (None, Some(version)) => releases::resolve_version(version)?,
            (image, version) => crate::release::choose(image, version)?.resolved,
        };
        Ok(resolved.release)
    }
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
