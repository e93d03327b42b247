//! `okd-install gather bootstrap`: fetch the bootstrap host's log bundle over SSH, then
//! analyse it.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use assets::AssetDir;
use gather::GatherEvent;

use crate::bootstrap_host::host_options;
use crate::cli::{GatherArgs, OutputFormat};
use crate::diagnosis_output;
use crate::exit::Exit;

/// Runs `gather bootstrap`.
pub(crate) fn run(dir: &Path, args: &GatherArgs) -> Result<(), Exit> {
    let assets = AssetDir::new(dir);
    let bootstrap = match &args.bootstrap {
        Some(b) => b.clone(),
        None => known_bootstrap_address(&assets).ok_or_else(|| {
            anyhow!(
                "no bootstrap host address: pass --bootstrap <host> (the install-config in {} \
                 does not name one; on baremetal, platform.baremetal.bootstrapExternalStaticIP \
                 would be used)",
                dir.display()
            )
        })?,
    };
    let mut opts = host_options(&assets, bootstrap, &args.keys)?;
    opts.masters = args.masters.clone();
    opts.port = args.port;
    opts.user = args.user.clone();
    opts.remote_command = args.remote_command.clone();
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let outcome = runtime
        .block_on(gather::gather_bootstrap(&opts, &mut |e: GatherEvent| {
            log_event(&e)
        }))
        .map_err(|e| Exit::code(crate::exit::GENERIC, e.into()))?;
    tracing::info!("log bundle written to {}", outcome.bundle_path.display());
    if !args.skip_analysis {
        let analysis = bundle_analysis::analyze_bundle(&outcome.bundle_path)
            .with_context(|| format!("analysing {}", outcome.bundle_path.display()))?;
        diagnosis_output::print(&analysis, args.output)?;
    }
    if args.output == OutputFormat::Text {
        tracing::info!("attach {} to a bug report", outcome.bundle_path.display());
    }
    Ok(())
}

/// Logs one step of the gather; what the host wrote is shown escaped, as in the analysis
/// (`bundle_analysis::escape_controls`): a host cannot steer the terminal through it.
fn log_event(e: &GatherEvent) {
    let shown = |text: String| bundle_analysis::escape_controls(&text).into_owned();
    match e {
        GatherEvent::RemoteLine { line, .. } => {
            tracing::debug!("remote: {}", shown(line.clone()))
        }
        other => tracing::info!("{}", shown(other.to_string())),
    }
}

/// The bootstrap address the user gave in install-config, if any.
fn known_bootstrap_address(assets: &AssetDir) -> Option<String> {
    let bm = assets.install_config()?.platform.baremetal.as_ref()?;
    bm.bootstrap_external_static_ip
        .as_ref()
        .map(|ip| ip.0.clone())
}
