//! The bootstrap machine-config controller, run for real on a scratch host.
//!
//! The render stages only prepare `/etc/mcc/bootstrap`; the configs nodes boot are rendered
//! later by the `machine-config-controller` init container of the bootstrap MCO pod, when
//! kubelet starts it. Whether a MachineConfig we generate reaches a pool's first-boot config
//! (the OS image of image mode, say) is decided there, so this runs that container as its pod
//! spec on the host says, with podman instead of kubelet, and reads the rendered configs back.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::Error;
use crate::{Host, Payload, Result};

/// One pool's config as the bootstrap controller rendered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedPool {
    /// The MachineConfigPool.
    pub pool: String,
    /// Name of its rendered MachineConfig (`rendered-<pool>-<hash>`).
    pub config: String,
    /// The rendered config's `spec.osImageURL`: what the pool's nodes boot into.
    pub os_image_url: String,
    /// The rendered MachineConfig's file on the host.
    pub path: PathBuf,
}

/// Runs the bootstrap controller of `host` as its pod spec says (the init containers of the
/// bootstrap MCO pod, [`crate::mcs::BootstrapPod::run_init_containers`]) and returns every pool it rendered
/// into `/etc/mcs/bootstrap`, sorted by name.
pub fn render_pool_configs(host: &Host, payload: &Payload) -> Result<Vec<RenderedPool>> {
    crate::mcs::BootstrapPod::read(host)?.run_init_containers(payload)?;
    RenderedPool::read_all(host)
}

impl RenderedPool {
    /// Every pool the bootstrap controller already rendered into `/etc/mcs/bootstrap` of
    /// `host` (by [`render_pool_configs`] or [`crate::Mcs::start`]), sorted by name.
    pub fn read_all(host: &Host) -> Result<Vec<RenderedPool>> {
        read_pools(&host.path("/etc/mcs/bootstrap"))
    }
}

/// Every `machine-pools/<pool>.yaml` under `dest` with the rendered config it names.
fn read_pools(dest: &Path) -> Result<Vec<RenderedPool>> {
    let dir = dest.join("machine-pools");
    let mut pools = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(Error::io(&dir))? {
        let path = entry.map_err(Error::io(&dir))?.path();
        let pool = read_yaml(&path)?;
        let name = pool.pointer("/metadata/name").and_then(Value::as_str);
        let config = pool
            .pointer("/spec/configuration/name")
            .and_then(Value::as_str);
        let (Some(name), Some(config)) = (name, config) else {
            return Err(Error::content(
                &path,
                "a pool without name or spec.configuration.name",
            ));
        };
        let rendered = dest.join("machine-configs").join(format!("{config}.yaml"));
        let os_image_url = read_yaml(&rendered)?
            .pointer("/spec/osImageURL")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        pools.push(RenderedPool {
            pool: name.to_string(),
            config: config.to_string(),
            os_image_url,
            path: rendered,
        });
    }
    pools.sort_by(|a, b| a.pool.cmp(&b.pool));
    Ok(pools)
}

fn read_yaml(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
    serde_saphyr::from_str(&text).map_err(|e| Error::content(path, &format!("not YAML: {e}")))
}
