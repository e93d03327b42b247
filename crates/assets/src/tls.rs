//! Every key pair, certificate and CA bundle as an asset of the graph.
//!
//! Keys are separate assets with no parents, so all of them are generated in parallel at the
//! start of a run; a certificate only signs (milliseconds) once its key and issuer are ready.
//! That split is what keeps RSA generation, the dominant cost, off the critical path.

use std::marker::PhantomData;

use asset_graph::{Asset, BoxError, Context, Dep, Fetcher, File, Parents};
use pki::{BundleId, CertId, KeyPem, TlsFile};
use serde::{Deserialize, Serialize};

use crate::config::ClusterParamsAsset;
use crate::lookup::Resolved;
use crate::options::{CertPolicy, SecretsInput};
use crate::time::offset_now;

/// Selects one certificate of the table at the type level, so that each certificate is its
/// own typed asset (`Cert<RootCa>`, `KeyPair<RootCa>`). Everything else about it (files,
/// issuer, key kind) is read from pki's table through [`CertSel::CERT`].
pub trait CertSel: Clone + Send + Sync + 'static {
    /// The certificate this marker stands for.
    const CERT: CertId;
    /// Human name of the key pair.
    const KEY_NAME: &'static str;
    /// Human name of the certificate.
    const CERT_NAME: &'static str;
}

/// One marker per row of pki's certificate table ([`pki::for_each_cert`]), named as the row's
/// [`CertId`] variant.
macro_rules! cert_markers {
    ($($id:ident => $file:literal),* $(,)?) => {
        $(
            #[doc = concat!("Marker for `tls/", $file, ".{key,crt}`.")]
            #[derive(Debug, Clone, Copy)]
            pub struct $id;
            impl CertSel for $id {
                const CERT: CertId = CertId::$id;
                const KEY_NAME: &'static str = concat!("Key Pair (", $file, ")");
                const CERT_NAME: &'static str = concat!("Certificate (", $file, ")");
            }
        )*

        /// Registers every key and certificate asset.
        pub(crate) fn register_certs(b: asset_graph::GraphBuilder) -> asset_graph::GraphBuilder {
            b $(.asset::<KeyPair<$id>>().asset::<Cert<$id>>())*
        }

        /// The certificate asset of `id`.
        pub fn cert_dep(id: CertId) -> Dep {
            match id { $(CertId::$id => Dep::of::<Cert<$id>>(),)* }
        }

        /// The resolved certificate `id` (parents must declare it; a store must have run it).
        pub fn cert_of<'a>(from: &impl Resolved<'a>, id: CertId) -> Result<&'a CertValue, BoxError> {
            Ok(match id { $(CertId::$id => &from.value::<Cert<$id>>()?.0,)* })
        }

        /// Certificate `id` as a state file stores it (`None` when absent): readers pick it
        /// by [`CertId`] yet decode it through its asset type.
        pub fn stored_cert(state: &asset_graph::State, id: CertId) -> Result<Option<CertValue>, asset_graph::GraphError> {
            Ok(match id { $(CertId::$id => state.find::<Cert<$id>>()?.map(|c| c.0),)* })
        }
    };
}

pki::for_each_cert!(cert_markers);

/// A private key in the PKCS#1 PEM form every consumer on the bootstrap node expects.
#[derive(Clone, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct KeyPair<S>(pub String, #[serde(skip)] PhantomData<S>);

impl<S> KeyPair<S> {
    fn new(pem: String) -> Self {
        KeyPair(pem, PhantomData)
    }
}

impl<S: CertSel> Asset for KeyPair<S> {
    const ID: &'static str = S::CERT.key_path();
    const NAME: &'static str = S::KEY_NAME;

    fn dependencies() -> Vec<Dep> {
        let mut deps = vec![Dep::of::<SecretsInput>()];
        if S::CERT.spec().is_signer() {
            deps.push(Dep::of::<SignerKey>());
        }
        deps
    }

    /// The bundle's key when it is of the kind wanted (a bundle made for other signer keys
    /// is not used for these), else a new one.
    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let wanted = if S::CERT.spec().is_signer() {
            parents.get::<SignerKey>()?.0
        } else {
            S::CERT.spec().key
        };
        let secrets = parents.get::<SecretsInput>()?;
        if let Some(pem) = secrets.key(S::CERT)
            && KeyPem::from_pem(pem, S::CERT.key_path())?.kind() == wanted
        {
            return Ok(KeyPair::new(pem.to_string()));
        }
        Ok(KeyPair::new(pki::generate_key(wanted)?.pem().to_string()))
    }
}

/// The key kind of the signer certificates: RSA-2048, unless the install-config's `pki` (OKD
/// 5.0 with the ConfigurablePKI gate) makes it another ([`installconfig::signer_key`]
/// follows upstream's rule). Leaf certificates keep the table's kind.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct SignerKey(pub pki::KeyKind);

impl Asset for SignerKey {
    const ID: &'static str = "signer-key";
    const NAME: &'static str = "Signer Key Kind";

    fn dependencies() -> Vec<Dep> {
        vec![
            Dep::of::<crate::config::InstallConfigAsset>(),
            Dep::of::<crate::options::ReleaseOptions>(),
        ]
    }

    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let ic = parents.get::<crate::config::InstallConfigAsset>()?;
        let release = parents.get::<crate::options::ReleaseOptions>()?.release;
        use installconfig::validate::SignerKeyChoice as Choice;
        let kind = match installconfig::validate::signer_key(&ic.config, release) {
            Choice::Rsa(bits) => pki::KeyKind::Rsa {
                bits: u16::try_from(bits)?,
            },
            Choice::Ecdsa("P256") => pki::KeyKind::Ecdsa(pki::Curve::P256),
            Choice::Ecdsa("P384") => pki::KeyKind::Ecdsa(pki::Curve::P384),
            Choice::Ecdsa("P521") => pki::KeyKind::Ecdsa(pki::Curve::P521),
            Choice::Ecdsa(other) => return Err(format!("no ECDSA curve {other}").into()),
        };
        Ok(SignerKey(kind))
    }
}

/// A certificate file (leaf, or leaf + issuer for the API serving certificates) and its key.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct CertValue {
    /// Content of `tls/<name>.crt`.
    pub cert_pem: String,
    /// Content of `tls/<name>.key`.
    pub key_pem: String,
    /// Loaded from the user's `tls/` directory: reported, never replaced.
    #[serde(default)]
    pub user_supplied: bool,
}

impl CertValue {
    /// The pki crate's view of this pair.
    pub fn cert_key(&self, file: &str) -> Result<pki::CertKey, BoxError> {
        Ok(pki::CertKey::new(
            self.cert_pem.clone(),
            KeyPem::from_pem(&self.key_pem, file)?,
        ))
    }

    /// The first certificate only (what bundles and pointer configs embed).
    pub fn leaf_pem(&self) -> Result<String, BoxError> {
        Ok(pki::pem::encode(
            "CERTIFICATE",
            &pki::pem::first_certificate(&self.cert_pem, "certificate")?,
        ))
    }
}

/// One certificate of the table, typed by its marker.
#[derive(Clone, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Cert<S>(pub CertValue, #[serde(skip)] PhantomData<S>);

impl<S: CertSel> Asset for Cert<S> {
    const ID: &'static str = S::CERT.cert_path();
    const NAME: &'static str = S::CERT_NAME;

    fn dependencies() -> Vec<Dep> {
        let mut deps = vec![Dep::of::<KeyPair<S>>(), Dep::of::<SecretsInput>()];
        if let Some(issuer) = S::CERT.spec().issuer {
            deps.push(cert_dep(issuer));
            deps.push(Dep::of::<ClusterParamsAsset>());
        }
        deps
    }

    fn generate(ctx: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let key = KeyPem::from_pem(&parents.get::<KeyPair<S>>()?.0, S::CERT.key_path())?;
        let secrets = parents.get::<SecretsInput>()?;
        let policy = ctx_policy(ctx);
        let serial = pki::random_serial(&mut ctx.rng(Self::ID));
        let now = offset_now(ctx);
        let pair = match S::CERT.spec().issuer {
            None => match secrets.signer_cert(S::CERT) {
                Some(pem)
                    if pki::expiry_problem(pem, Self::ID, now, policy.margin())?.is_none() =>
                {
                    pki::CertKey::new(pem.to_string(), key)
                }
                _ => pki::sign_self(S::CERT, &key, now, policy.scale, serial)?,
            },
            Some(issuer_id) => {
                let issuer = cert_of(parents, issuer_id)?.cert_key(issuer_id.key_path())?;
                let params = &parents.get::<ClusterParamsAsset>()?.0;
                pki::sign_leaf(S::CERT, &key, &issuer, params, now, policy.scale, serial)?
            }
        };
        Ok(Cert(
            CertValue {
                cert_pem: pair.cert_pem().to_string(),
                key_pem: pair.key_pem().to_string(),
                user_supplied: false,
            },
            PhantomData,
        ))
    }

    /// With `--load-cluster-certs`, a `tls/<name>.crt` + `.key` pair in the asset directory is
    /// used as supplied (after checking that the key matches).
    fn load(dir: &Fetcher) -> Result<Option<Self>, BoxError> {
        if !crate::options::load_user_certs(dir) {
            return Ok(None);
        }
        let (crt, key) = (S::CERT.cert_path(), S::CERT.key_path());
        // The key is read first so that a problem found afterwards is blamed on the .crt
        // (the engine names the last file read).
        let key_pem = dir.read_string(key)?;
        let (Some(cert_pem), Some(key_pem)) = (dir.read_string(crt)?, key_pem) else {
            return Ok(None);
        };
        pki::check_pair(&cert_pem, &key_pem, &format!("{crt} with {key}"))?;
        let value = CertValue {
            cert_pem,
            key_pem,
            user_supplied: true,
        };
        Ok(Some(Cert(value, PhantomData)))
    }

    /// A certificate the tool made is regenerated near expiry; one the user supplied is never
    /// replaced, only reported with its expiry.
    fn refresh_reason(&self, ctx: &Context) -> Option<String> {
        let margin = ctx_policy(ctx).margin();
        let problem = pki::expiry_problem(&self.0.cert_pem, Self::ID, offset_now(ctx), margin)
            .unwrap_or_else(|e| Some(format!("unreadable ({e})")))
            .map(|p| format!("{}: {p}", S::CERT.cert_path()));
        if self.0.user_supplied {
            report_user_supplied::<S>(&self.0, problem);
            return None;
        }
        problem
    }
}

/// Tells the user about a certificate they supplied: a warning when it is (nearly) expired,
/// else its expiry date at info level.
fn report_user_supplied<S: CertSel>(value: &CertValue, problem: Option<String>) {
    match problem {
        Some(p) => tracing::warn!(
            "{p}; it is your certificate, so okd-install keeps it: replace it in tls/"
        ),
        None => {
            let end = pki::not_after(&value.cert_pem, S::CERT.cert_path())
                .ok()
                .and_then(|t| {
                    t.format(&time::format_description::well_known::Rfc3339)
                        .ok()
                });
            if let Some(end) = end {
                tracing::info!(
                    "{}: your certificate, valid until {end}",
                    S::CERT.cert_path()
                );
            }
        }
    }
}

fn ctx_policy(ctx: &Context) -> CertPolicy {
    ctx.get::<CertPolicy>().cloned().unwrap_or_default()
}

/// A CA bundle file: the first certificate of each member, in the table's order.
#[derive(Clone, Serialize, Deserialize)]
#[serde(bound = "")]
pub struct Bundle<B>(pub String, #[serde(skip)] PhantomData<B>);

/// Selects one CA bundle at the type level.
pub trait BundleSel: Clone + Send + Sync + 'static {
    /// The bundle this marker stands for.
    const BUNDLE: BundleId;
    /// Human name.
    const NAME: &'static str;
}

/// One marker per row of pki's CA bundle table ([`pki::for_each_bundle`]), in [`bundles`]
/// (named as the row's [`BundleId`] variant, which may also name a certificate).
macro_rules! bundle_markers {
    ($($id:ident => $file:literal),* $(,)?) => {
        /// The CA bundle markers.
        pub mod bundles {
            use super::{BundleId, BundleSel};
            $(
                #[doc = concat!("Marker for `tls/", $file, ".crt`.")]
                #[derive(Debug, Clone, Copy)]
                pub struct $id;
                impl BundleSel for $id {
                    const BUNDLE: BundleId = BundleId::$id;
                    const NAME: &'static str = concat!("CA Bundle (", $file, ")");
                }
            )*
        }

        /// Registers every CA bundle asset.
        pub(crate) fn register_bundles(b: asset_graph::GraphBuilder) -> asset_graph::GraphBuilder {
            b $(.asset::<Bundle<bundles::$id>>())*
        }

        /// The bundle asset of `id`.
        pub fn bundle_dep(id: BundleId) -> Dep {
            match id { $(BundleId::$id => Dep::of::<Bundle<bundles::$id>>(),)* }
        }

        /// The resolved content of bundle `id` (parents must declare it; a store must have
        /// run it).
        pub fn bundle_of<'a>(from: &impl Resolved<'a>, id: BundleId) -> Result<&'a str, BoxError> {
            Ok(match id { $(BundleId::$id => from.value::<Bundle<bundles::$id>>()?.0.as_str(),)* })
        }

        /// Bundle `id` as a state file stores it (`None` when absent), decoded through its
        /// asset type.
        pub fn stored_bundle(state: &asset_graph::State, id: BundleId) -> Result<Option<String>, asset_graph::GraphError> {
            Ok(match id { $(BundleId::$id => state.find::<Bundle<bundles::$id>>()?.map(|b| b.0),)* })
        }
    };
}

pki::for_each_bundle!(bundle_markers);

impl<B: BundleSel> Asset for Bundle<B> {
    const ID: &'static str = B::BUNDLE.path();
    const NAME: &'static str = B::NAME;

    fn dependencies() -> Vec<Dep> {
        B::BUNDLE.signers().into_iter().map(cert_dep).collect()
    }

    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let members = B::BUNDLE
            .signers()
            .into_iter()
            .map(|id| Ok(cert_of(parents, id)?.cert_pem.as_str()))
            .collect::<Result<Vec<_>, BoxError>>()?;
        Ok(Bundle(pki::bundle_pem(&members, Self::ID)?, PhantomData))
    }
}

/// The service-account token signing key pair of the bootstrap control plane.
#[derive(Clone, Serialize, Deserialize)]
pub struct ServiceAccountKeyPair {
    /// `tls/service-account.key` (PKCS#1).
    pub key_pem: String,
    /// `tls/service-account.pub` (PKIX inside an `RSA PUBLIC KEY` block, as upstream).
    pub pub_pem: String,
}

impl Asset for ServiceAccountKeyPair {
    const ID: &'static str = "tls/service-account";
    const NAME: &'static str = "Key Pair (service-account)";

    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<SecretsInput>()]
    }

    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let key = key_or_new(parents.get::<SecretsInput>()?.service_account_key())?;
        Ok(ServiceAccountKeyPair {
            key_pem: key.pem().to_string(),
            pub_pem: key.public_pem(),
        })
    }
}

/// The key that `gather bootstrap` logs in with; its public half is authorized for `core`
/// on the bootstrap node only.
#[derive(Clone, Serialize, Deserialize)]
pub struct BootstrapSshKeyPair {
    /// `tls/bootstrap-ssh.key` (PKCS#1 PEM).
    pub key_pem: String,
    /// OpenSSH authorized_keys line with a trailing newline.
    pub public_key: String,
}

impl Asset for BootstrapSshKeyPair {
    const ID: &'static str = "tls/bootstrap-ssh";
    const NAME: &'static str = "Key Pair (bootstrap-ssh)";

    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<SecretsInput>()]
    }

    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let key = key_or_new(parents.get::<SecretsInput>()?.bootstrap_ssh_key())?;
        Ok(BootstrapSshKeyPair {
            key_pem: key.pem().to_string(),
            public_key: format!("{}\n", key.ssh_public_key()?),
        })
    }
}

fn key_or_new(from_bundle: Option<&str>) -> Result<KeyPem, BoxError> {
    Ok(match from_bundle {
        Some(pem) => KeyPem::from_pem(pem, "secrets bundle")?,
        None => pki::generate_rsa_key()?,
    })
}

/// One file of the `tls/` tree with its content; what the file is ([`TlsFile`], from pki's
/// tables) says its path, whether it is private and how the bootstrap host gets it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct TlsFileContent {
    /// Which file.
    pub file: TlsFile,
    /// Its content.
    pub content: String,
}

impl TlsFileContent {
    /// The file as the asset directory gets it (private files readable by the owner only).
    pub fn to_file(&self) -> File {
        if self.file.is_private() {
            File::secret(self.file.path(), self.content.as_bytes())
        } else {
            File::new(self.file.path(), self.content.as_bytes())
        }
    }
}

/// Depends on every certificate, bundle and key pair: the full `tls/` tree.
#[derive(Clone, Serialize, Deserialize)]
pub struct TlsTree {
    /// Every file, in the stable order of [`TlsFile::all`].
    pub files: Vec<TlsFileContent>,
}

impl Asset for TlsTree {
    const ID: &'static str = "tls";
    const NAME: &'static str = "TLS Tree";

    fn dependencies() -> Vec<Dep> {
        let mut deps: Vec<Dep> = CertId::ALL.iter().map(|id| cert_dep(*id)).collect();
        deps.extend(BundleId::ALL.iter().map(|id| bundle_dep(*id)));
        deps.push(Dep::of::<ServiceAccountKeyPair>());
        deps
    }

    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let sa = parents.get::<ServiceAccountKeyPair>()?;
        let files = TlsFile::all()
            .into_iter()
            .map(|file| {
                let content = match file {
                    TlsFile::Key(id) => cert_of(parents, id)?.key_pem.clone(),
                    TlsFile::Cert(id) => cert_of(parents, id)?.cert_pem.clone(),
                    TlsFile::Bundle(id) => bundle_of(parents, id)?.to_string(),
                    TlsFile::ServiceAccountKey => sa.key_pem.clone(),
                    TlsFile::ServiceAccountPublicKey => sa.pub_pem.clone(),
                };
                Ok(TlsFileContent { file, content })
            })
            .collect::<Result<_, BoxError>>()?;
        Ok(TlsTree { files })
    }
}

/// `create pki`: writes the TLS tree into `<dir>/tls/` for inspection.
#[derive(Clone, Serialize, Deserialize)]
pub struct TlsExport(pub TlsTree);

impl Asset for TlsExport {
    const ID: &'static str = "export/tls";
    const NAME: &'static str = "TLS Export";

    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<TlsTree>()]
    }

    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        Ok(TlsExport(parents.get::<TlsTree>()?.clone()))
    }

    fn files(&self) -> Vec<File> {
        self.0.files.iter().map(TlsFileContent::to_file).collect()
    }
}
