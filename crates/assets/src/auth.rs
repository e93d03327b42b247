//! Kubeconfigs and the kubeadmin password.

use asset_graph::{Asset, BoxError, Context, Dep, File, Parents};
use serde::{Deserialize, Serialize};

use crate::config::ClusterParamsAsset;
use crate::options::SecretsInput;
use crate::tls::{
    AdminKubeconfigClient, Bundle, Cert, CertSel, KasCompleteServerCaBundle, KasLocalhostCaBundle,
    KubeletClient,
};

macro_rules! kubeconfig_asset {
    (
        $ty:ident, $id:literal, $name:literal, $endpoint:expr, $user:literal,
        $ca:ty, $client:ty, $file:expr
    ) => {
        #[doc = concat!("The `", $user, "` kubeconfig (", $name, ").")]
        #[derive(Clone, Debug, Serialize, Deserialize)]
        pub struct $ty(pub String);

        impl Asset for $ty {
            const ID: &'static str = $id;
            const NAME: &'static str = $name;

            fn dependencies() -> Vec<Dep> {
                vec![
                    Dep::of::<ClusterParamsAsset>(),
                    Dep::of::<Bundle<$ca>>(),
                    Dep::of::<Cert<$client>>(),
                ]
            }

            fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
                let params = &parents.get::<ClusterParamsAsset>()?.0;
                let ca = &parents.get::<Bundle<$ca>>()?.0;
                let client = &parents.get::<Cert<$client>>()?.0;
                let yaml =
                    pki::kubeconfig_yaml($endpoint, params, ca, &client.cert_pem, &client.key_pem)?;
                Ok($ty(yaml))
            }

            fn files(&self) -> Vec<File> {
                let file: Option<&str> = $file;
                file.map(|f| File::secret(f, self.0.as_bytes()))
                    .into_iter()
                    .collect()
            }
        }
    };
}

kubeconfig_asset!(
    AdminKubeconfig,
    "auth/kubeconfig",
    "Kubeconfig Admin Client",
    pki::KubeconfigId::Admin,
    "admin",
    KasCompleteServerCaBundle,
    AdminKubeconfigClient,
    Some("auth/kubeconfig")
);
kubeconfig_asset!(
    AdminInternalKubeconfig,
    "auth/kubeconfig-admin-internal",
    "Kubeconfig Admin Internal Client",
    pki::KubeconfigId::AdminInternal,
    "admin",
    KasCompleteServerCaBundle,
    AdminKubeconfigClient,
    None
);
kubeconfig_asset!(
    KubeletKubeconfig,
    "auth/kubeconfig-kubelet",
    "Kubeconfig Kubelet",
    pki::KubeconfigId::Kubelet,
    "kubelet",
    KasCompleteServerCaBundle,
    KubeletClient,
    None
);
kubeconfig_asset!(
    LoopbackKubeconfig,
    "auth/kubeconfig-loopback",
    "Kubeconfig Loopback Client",
    pki::KubeconfigId::Loopback,
    "loopback",
    KasLocalhostCaBundle,
    AdminKubeconfigClient,
    None
);

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
    const ID: &'static str = "auth/kubeadmin-password";
    const NAME: &'static str = "Kubeadmin Password";

    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<SecretsInput>()]
    }

    fn generate(ctx: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let mut rng = ctx.rng(Self::ID);
        let password = match parents.get::<SecretsInput>()?.kubeadmin_password() {
            Some(p) => p.to_string(),
            None => pki::generate_password(&mut rng),
        };
        let hash = pki::hash_password(&password, &mut rng)?;
        Ok(KubeadminPassword { password, hash })
    }

    fn files(&self) -> Vec<File> {
        vec![File::secret(
            "auth/kubeadmin-password",
            self.password.as_bytes(),
        )]
    }
}

/// Re-exported so the binary can name the admin client certificate's file in messages.
pub const ADMIN_CLIENT_CERT: &str = AdminKubeconfigClient::CERT_ID;
