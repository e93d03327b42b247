//! Kubeconfigs and the kubeadmin password.
//!
//! Every kubeconfig is one [`Kubeconfig`] asset driven by its row of the kubeconfig table
//! ([`KubeconfigId::spec`]): the row names the CA bundle and client certificate it depends on,
//! the endpoint it talks to and whether it is exported to `auth/` or embedded in the bootstrap
//! config.

use std::marker::PhantomData;

use asset_graph::{Asset, BoxError, Context, Dep, File, GraphBuilder, Parents};
use pki::{KubeconfigFile, KubeconfigId};
use serde::{Deserialize, Serialize};

use crate::config::ClusterParamsAsset;
use crate::lookup::Resolved;
use crate::options::SecretsInput;
use crate::tls::{bundle_dep, bundle_of, cert_dep, cert_of};

/// Selects one row of the kubeconfig table at the type level, so that each kubeconfig is its
/// own typed asset (`Kubeconfig<Admin>`).
pub trait KubeconfigSel: Clone + Send + Sync + 'static {
    /// The row this marker stands for.
    const KUBECONFIG: KubeconfigId;
    /// Asset id.
    const ID: &'static str;
    /// Human name.
    const NAME: &'static str;
}

macro_rules! kubeconfig_markers {
    ($($marker:ident => $id:literal, $name:literal;)*) => {
        $(
            #[doc = concat!("Marker for the `", $id, "` kubeconfig.")]
            #[derive(Debug, Clone, Copy)]
            pub struct $marker;
            impl KubeconfigSel for $marker {
                const KUBECONFIG: KubeconfigId = KubeconfigId::$marker;
                const ID: &'static str = $id;
                const NAME: &'static str = $name;
            }
        )*

        /// Registers every kubeconfig asset.
        pub(crate) fn register_kubeconfigs(b: GraphBuilder) -> GraphBuilder {
            b $(.asset::<Kubeconfig<$marker>>())*
        }

        /// The kubeconfig asset of `id`.
        pub fn kubeconfig_dep(id: KubeconfigId) -> Dep {
            match id { $(KubeconfigId::$marker => Dep::of::<Kubeconfig<$marker>>(),)* }
        }

        /// The resolved YAML of kubeconfig `id` (parents must declare it; a store must have
        /// run it).
        pub fn kubeconfig_of<'a>(from: &impl Resolved<'a>, id: KubeconfigId) -> Result<&'a str, BoxError> {
            Ok(match id { $(KubeconfigId::$marker => from.value::<Kubeconfig<$marker>>()?.0.as_str(),)* })
        }
    };
}

kubeconfig_markers! {
    Admin => "auth/kubeconfig", "Kubeconfig Admin Client";
    AdminInternal => "auth/kubeconfig-admin-internal", "Kubeconfig Admin Internal Client";
    Kubelet => "auth/kubeconfig-kubelet", "Kubeconfig Kubelet";
    Loopback => "auth/kubeconfig-loopback", "Kubeconfig Loopback Client";
}

/// One kubeconfig of the table, as YAML. Stored as a plain string, as before the table.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(transparent, bound = "")]
pub struct Kubeconfig<K>(pub String, #[serde(skip)] PhantomData<K>);

impl<K: KubeconfigSel> Asset for Kubeconfig<K> {
    const ID: &'static str = K::ID;
    const NAME: &'static str = K::NAME;

    fn dependencies() -> Vec<Dep> {
        let spec = K::KUBECONFIG.spec();
        vec![
            Dep::of::<ClusterParamsAsset>(),
            bundle_dep(spec.ca_bundle),
            cert_dep(spec.client),
        ]
    }

    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let spec = K::KUBECONFIG.spec();
        let params = &parents.get::<ClusterParamsAsset>()?.0;
        let ca = bundle_of(parents, spec.ca_bundle)?;
        let client = cert_of(parents, spec.client)?;
        let yaml =
            pki::kubeconfig_yaml(K::KUBECONFIG, params, ca, &client.cert_pem, &client.key_pem)?;
        Ok(Kubeconfig(yaml, PhantomData))
    }

    fn files(&self) -> Vec<File> {
        match K::KUBECONFIG.spec().file {
            KubeconfigFile::InstallDir(path) => vec![File::secret(path, self.0.as_bytes())],
            KubeconfigFile::BootstrapNode(_) => Vec::new(),
        }
    }
}

/// The kubeconfigs the bootstrap config embeds, with their paths on the node, in table order.
fn on_node() -> impl Iterator<Item = (KubeconfigId, &'static str)> {
    KubeconfigId::ALL
        .iter()
        .filter_map(|&id| match id.spec().file {
            KubeconfigFile::BootstrapNode(path) => Some((id, path)),
            KubeconfigFile::InstallDir(_) => None,
        })
}

/// The assets of the kubeconfigs the bootstrap config embeds.
pub(crate) fn node_kubeconfig_deps() -> Vec<Dep> {
    on_node().map(|(id, _)| kubeconfig_dep(id)).collect()
}

/// `(path on the bootstrap node, YAML)` of every kubeconfig the bootstrap config embeds.
pub(crate) fn node_kubeconfigs<'a>(
    parents: &Parents<'a>,
) -> Result<Vec<(&'static str, &'a str)>, BoxError> {
    on_node()
        .map(|(id, path)| Ok((path, kubeconfig_of(parents, id)?)))
        .collect()
}

/// The `kubeadmin` user's password: plaintext for the administrator, bcrypt hash for the
/// cluster.
#[derive(Clone, Serialize, Deserialize)]
pub struct KubeadminPassword {
    /// `xxxxx-xxxxx-xxxxx-xxxxx`.
    pub password: String,
    /// bcrypt (cost 10) of the password.
    pub hash: String,
}

impl std::fmt::Debug for KubeadminPassword {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KubeadminPassword(..)")
    }
}

impl Asset for KubeadminPassword {
    const ID: &'static str = contract::KUBEADMIN_PASSWORD_FILE;
    const NAME: &'static str = "Kubeadmin Password";

    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<SecretsInput>()]
    }

    fn generate(ctx: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let mut rng = ctx.rng(Self::ID);
        let made = match parents.get::<SecretsInput>()?.kubeadmin_password() {
            Some(p) => pki::KubeadminPassword::from_plain(p.to_string(), &mut rng)?,
            None => pki::KubeadminPassword::generate(&mut rng)?,
        };
        Ok(KubeadminPassword {
            password: made.plain().to_string(),
            hash: made.hash().to_string(),
        })
    }

    fn files(&self) -> Vec<File> {
        vec![File::secret(
            crate::layout::KUBEADMIN_PASSWORD,
            self.password.as_bytes(),
        )]
    }
}

/// Re-exported so the binary can name the admin client certificate's file in messages.
pub const ADMIN_CLIENT_CERT: &str = pki::CertId::AdminKubeconfigClient.cert_path();
