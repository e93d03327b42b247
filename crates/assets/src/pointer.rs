//! `master.ign` and `worker.ign`: the pointer configs a machine boots with, which fetch the
//! real config of their pool from the Machine Config Server.
//!
//! Their own file because the manifests asset embeds them (as user-data secrets) while the
//! bootstrap config embeds the manifests: kept apart, neither module reaches back into the
//! other.

use asset_graph::{Asset, BoxError, Context, Dep, File, Parents};
use ignition::PointerHost;
use installconfig::{ClusterNames, InstallConfig};
use serde::{Deserialize, Serialize};

use crate::config::InstallConfigAsset;
use crate::tls::{Cert, RootCa};

macro_rules! pointer_asset {
    ($ty:ident, $role:expr, $id:literal, $name:literal) => {
        /// `<role>.ign`: a pointer to `/config/<role>` on the Machine Config Server.
        #[derive(Clone, Debug, Serialize, Deserialize)]
        pub struct $ty(pub String);

        impl Asset for $ty {
            const ID: &'static str = $id;
            const NAME: &'static str = $name;

            fn dependencies() -> Vec<Dep> {
                vec![Dep::of::<InstallConfigAsset>(), Dep::of::<Cert<RootCa>>()]
            }

            fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
                let ic = parents.get::<InstallConfigAsset>()?;
                let root = parents.get::<Cert<RootCa>>()?.0.leaf_pem()?;
                let host = pointer_host(&ic.config, &ic.names);
                Ok($ty(ignition::pointer_config($role, host, &root)))
            }

            fn files(&self) -> Vec<File> {
                vec![File::new(
                    crate::layout::pointer_config($role),
                    self.0.as_bytes(),
                )]
            }
        }
    };
}

pointer_asset!(
    MasterPointer,
    contract::MASTER_POOL,
    "ignition/master",
    "Master Ignition Config"
);
pointer_asset!(
    WorkerPointer,
    contract::WORKER_POOL,
    "ignition/worker",
    "Worker Ignition Config"
);

/// Where the pointer configs (and the pivoting bootstrap host) find the Machine Config
/// Server for this install config.
pub fn pointer_host(ic: &InstallConfig, names: &ClusterNames) -> PointerHost {
    PointerHost::new(&names.api_int, ic.machine_config_vip().as_deref())
}
