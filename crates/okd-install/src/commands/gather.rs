//! `okd-install gather bootstrap`: fetch the bootstrap host's log bundle over SSH, then
//! analyse it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use gather::{GatherEvent, GatherOptions};

use crate::cli::{GatherArgs, OutputFormat};
use crate::commands::analyze;
use crate::exit::Exit;

/// Runs `gather bootstrap`.
pub(crate) fn run(dir: &Path, args: &GatherArgs) -> Result<(), Exit> {
    let bootstrap = match &args.bootstrap {
        Some(b) => b.clone(),
        None => known_bootstrap_address(dir).ok_or_else(|| {
            anyhow!(
                "no bootstrap host address: pass --bootstrap <host> (the install-config in {} \
                 does not name one; on baremetal, platform.baremetal.bootstrapExternalStaticIP \
                 would be used)",
                dir.display()
            )
        })?,
    };
    let mut opts = host_options(dir, bootstrap, &args.keys)?;
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
        let analysis = gather::analyze_bundle(&outcome.bundle_path)
            .with_context(|| format!("analysing {}", outcome.bundle_path.display()))?;
        analyze::print(&analysis, args.output);
    }
    if args.output == OutputFormat::Text {
        tracing::info!("attach {} to a bug report", outcome.bundle_path.display());
    }
    Ok(())
}

/// Options to reach the bootstrap host `bootstrap` as `gather bootstrap` does: the `--key`
/// files, the generated bootstrap key from the state file, the ssh-agent, then `~/.ssh`.
pub(crate) fn host_options(
    dir: &Path,
    bootstrap: String,
    keys: &[PathBuf],
) -> Result<GatherOptions> {
    let now = time::OffsetDateTime::now_local().unwrap_or_else(|_| time::OffsetDateTime::now_utc());
    let mut opts = GatherOptions::new(bootstrap, dir, gather::gather_id_now(now));
    opts.keys = keys.to_vec();
    opts.agent_socket = std::env::var_os("SSH_AUTH_SOCK").map(PathBuf::from);
    opts.home_ssh_dir = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".ssh"));
    if let Some(key) = bootstrap_key_from_state(dir)? {
        opts.extra_keys
            .push(("generated bootstrap key (state file)".into(), key));
    }
    Ok(opts)
}

fn log_event(e: &GatherEvent) {
    match e {
        GatherEvent::RemoteLine { line, .. } => tracing::debug!("remote: {line}"),
        other => tracing::info!("{other}"),
    }
}

/// The bootstrap address the user gave in install-config, if any.
fn known_bootstrap_address(dir: &Path) -> Option<String> {
    let bm = super::stored_install_config(dir)?.platform.baremetal?;
    bm.bootstrap_external_static_ip.map(|ip| ip.0)
}

/// The generated bootstrap SSH key from the state file (never written to disk elsewhere);
/// `None` when nothing was generated in `dir` or the runs there made no such key.
fn bootstrap_key_from_state(dir: &Path) -> Result<Option<String>> {
    let state = match asset_graph::State::open(dir) {
        Ok(state) => state,
        Err(asset_graph::GraphError::NoState { .. }) => return Ok(None),
        Err(e) => return Err(e).context("reading the generated bootstrap key"),
    };
    let pair = state
        .find::<assets::tls::BootstrapSshKeyPair>()
        .context("reading the generated bootstrap key")?;
    Ok(pair.map(|p| p.key_pem))
}
