//! How okd-install reaches the bootstrap host over SSH, for `gather bootstrap` and for
//! `wait-for --bootstrap`: the `--key` files, DIR's generated bootstrap key, the agent, ~/.ssh.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use assets::AssetDir;
use gather::GatherOptions;

/// Options to reach the bootstrap host `bootstrap` as `gather bootstrap` does: the `--key`
/// files, the generated bootstrap key from the state file, the ssh-agent, then `~/.ssh`.
pub(crate) fn host_options(
    assets: &AssetDir,
    bootstrap: String,
    keys: &[PathBuf],
) -> Result<GatherOptions> {
    let now = time::OffsetDateTime::now_local().unwrap_or_else(|_| time::OffsetDateTime::now_utc());
    let mut opts = GatherOptions::new(bootstrap, assets.path(), gather::gather_id_now(now));
    // The log bundle is an output in DIR like any other: never through a link out of it.
    atomic_file::input::output_dirs_inside(assets.path(), Path::new(&opts.bundle_name()))?;
    opts.keys = keys.to_vec();
    opts.agent_socket = std::env::var_os("SSH_AUTH_SOCK").map(PathBuf::from);
    opts.home_ssh_dir = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".ssh"));
    let generated = assets
        .bootstrap_ssh_key()
        .context("reading the generated bootstrap key")?;
    if let Some(key) = generated {
        opts.extra_keys
            .push(("generated bootstrap key (state file)".into(), key));
    }
    Ok(opts)
}
