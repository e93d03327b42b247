//! The asset directory's layout: the name of every file okd-install reads or writes at the top
//! of DIR, defined here once.
//!
//! Assets name their files with these constants, and every reader of a finished directory
//! (`verify`, `gather`, `wait-for`, the boot-media commands) goes through them or through
//! [`crate::AssetDir`]. The trees below DIR keep their names in the tables that make them:
//! `tls/` in pki's certificate table ([`pki::CertId::cert_path`]), `manifests/` and
//! `openshift/` in the manifests crate, and a role's media in [`crate::role::Role`]. The few
//! names a crate below this one needs (the bootstrap configs for `ignition`, `auth/` for
//! `pki` and `wait-for`) are defined in `contract` and listed here.

use ignition::Variant;

/// The user's input: read, validated, kept in place and never rewritten.
pub const INSTALL_CONFIG: &str = "install-config.yaml";

/// Cluster name, cluster ID and infrastructure ID, for `destroy` and `gather`.
pub const METADATA: &str = "metadata.json";

/// The temporary bootstrap machine's config (named in `contract`, as `ignition` names its
/// variants' files too).
pub const BOOTSTRAP_IGN: &str = contract::BOOTSTRAP_IGN_FILE;
/// The single node's config: it bootstraps in place and installs itself to disk.
pub const SINGLE_NODE_IGN: &str = contract::SINGLE_NODE_IGN_FILE;
/// The config of a bootstrap host that pivots into the third control-plane node.
pub const PIVOT_IGN: &str = contract::PIVOT_IGN_FILE;
/// The control-plane pointer config (fetches the pool's config from the Machine Config Server).
pub const MASTER_IGN: &str = "master.ign";
/// The worker pointer config.
pub const WORKER_IGN: &str = "worker.ign";

/// The bootstrap configs, in the order a reader looks for them; a run writes one of them.
pub const BOOTSTRAP_CONFIGS: [&str; 3] = [BOOTSTRAP_IGN, SINGLE_NODE_IGN, PIVOT_IGN];

/// The admin kubeconfig (`wait-for` reads it; the wait-for crate knows it from `contract`).
pub const ADMIN_KUBECONFIG: &str = contract::ADMIN_KUBECONFIG_FILE;
/// The kubeadmin password, mode 0600.
pub const KUBEADMIN_PASSWORD: &str = contract::KUBEADMIN_PASSWORD_FILE;

/// The state file: every generated value with its fingerprints, mode 0600 (named by the
/// asset engine, which reserves it).
pub const STATE_FILE: &str = asset_graph::STATE_FILE;
/// The lock a running `create` holds.
pub const LOCK_FILE: &str = asset_graph::LOCK_FILE;
/// The debug log of the last command that writes one (`create`, `wait-for`, `gather`,
/// `verify`).
pub const LOG_FILE: &str = ".okd-install.log";

/// The file a bootstrap config variant is written to.
pub const fn bootstrap_config(variant: Variant) -> &'static str {
    variant.file_name()
}

/// The pointer config of machine-config pool `pool` (`master.ign`, `worker.ign`,
/// `arbiter.ign`).
pub fn pointer_config(pool: &str) -> String {
    format!("{pool}.ign")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pointer_configs_are_named_after_their_pool() {
        assert_eq!(pointer_config(contract::MASTER_POOL), MASTER_IGN);
        assert_eq!(pointer_config(contract::WORKER_POOL), WORKER_IGN);
        for v in Variant::ALL {
            assert!(BOOTSTRAP_CONFIGS.contains(&bootstrap_config(v)));
        }
    }
}
