//! The [`Asset`] trait and the small types generators work with.

use std::any::{Any, TypeId};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::context::Context;
use crate::error::{BoxError, GraphError};
use crate::fsutil;

/// File mode for ordinary output files.
pub const MODE_DEFAULT: u32 = 0o640;
/// File mode for files holding private keys, passwords or pull secrets.
pub const MODE_SECRET: u32 = 0o600;

/// One node of the graph: a typed value with a stable id, declared parents and a generator.
///
/// Values are stored in the state file as JSON, so they must serialize; they are shared between
/// worker threads, so they must be `Send + Sync`.
pub trait Asset: Clone + Send + Sync + Serialize + DeserializeOwned + 'static {
    /// Stable id, the key in the state file, e.g. `"tls/root-ca"`. Never change it once shipped:
    /// a new id means the old state entry is ignored and the asset is generated afresh.
    const ID: &'static str;
    /// Human name used in messages, e.g. `"Root CA"`.
    const NAME: &'static str;
    /// Generator version. Bump it when the generator's output for the same inputs changes
    /// in a way existing install dirs must pick up (e.g. a fixed template): stored values
    /// made by another version are then regenerated, with the reason saying so.
    const VERSION: u32 = 1;

    /// The assets whose values [`Asset::generate`] reads (via [`Parents::get`]).
    fn dependencies() -> Vec<Dep>;

    /// Produces the value from its parents. Use `ctx` for time and randomness.
    fn generate(ctx: &Context, parents: &Parents) -> Result<Self, BoxError>;

    /// Files this asset owns in the output dir. Empty for internal assets.
    fn files(&self) -> Vec<File> {
        Vec::new()
    }

    /// Reads the user's on-disk version of a user-editable asset; `Ok(None)` when absent.
    ///
    /// An on-disk version that differs from the state copy wins over it. It counts as
    /// unchanged when its value equals the stored one or when its [`Asset::files`] are
    /// byte-identical to the stored value's files, so a loaded value may carry extra fields
    /// (such as "read from disk") without looking edited. The default never loads, which
    /// makes the asset purely generated.
    fn load(dir: &Fetcher) -> Result<Option<Self>, BoxError> {
        let _ = dir;
        Ok(None)
    }

    /// Called on a value about to be reused from state; `Some(reason)` forces regeneration,
    /// e.g. for a certificate that expires within the safety margin.
    ///
    /// For a value that the user supplied on disk the reason is only reported, never acted on.
    fn refresh_reason(&self, ctx: &Context) -> Option<String> {
        let _ = ctx;
        None
    }
}

/// A typed reference to an asset, used in dependency lists and targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dep {
    pub(crate) id: &'static str,
    pub(crate) name: &'static str,
    pub(crate) type_id: TypeId,
}

impl Dep {
    /// The dependency on asset type `T`.
    pub fn of<T: Asset>() -> Dep {
        Dep {
            id: T::ID,
            name: T::NAME,
            type_id: TypeId::of::<T>(),
        }
    }

    /// Stable id of the referenced asset.
    pub fn id(&self) -> &'static str {
        self.id
    }

    /// Human name of the referenced asset.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// One output file of an asset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File {
    /// Path relative to the install dir, e.g. `auth/kubeconfig`.
    pub path: PathBuf,
    /// Exact bytes to write.
    pub data: Vec<u8>,
    /// Permission bits; applied regardless of the umask.
    pub mode: u32,
}

impl File {
    /// An ordinary file (mode 0640).
    pub fn new(path: impl Into<PathBuf>, data: impl Into<Vec<u8>>) -> File {
        File {
            path: path.into(),
            data: data.into(),
            mode: MODE_DEFAULT,
        }
    }

    /// A file holding secrets (mode 0600).
    pub fn secret(path: impl Into<PathBuf>, data: impl Into<Vec<u8>>) -> File {
        File {
            mode: MODE_SECRET,
            ..File::new(path, data)
        }
    }
}

/// Read access to the install dir for [`Asset::load`].
///
/// It remembers the last file read so that a load error can name the file.
pub struct Fetcher {
    dir: PathBuf,
    ctx: Context,
    last: Mutex<Option<PathBuf>>,
}

impl Fetcher {
    pub(crate) fn new(dir: &Path, ctx: &Context) -> Fetcher {
        Fetcher {
            dir: dir.to_path_buf(),
            ctx: ctx.clone(),
            last: Mutex::new(None),
        }
    }

    /// The run's context, e.g. for settings that decide whether a user file is loaded.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The install dir.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Reads `rel` (relative to the install dir); `Ok(None)` when it does not exist.
    pub fn read(&self, rel: impl AsRef<Path>) -> Result<Option<Vec<u8>>, GraphError> {
        let path = self.dir.join(rel.as_ref());
        self.note(&path);
        fsutil::read_if_exists(&self.dir, rel.as_ref())
    }

    /// Like [`Fetcher::read`] but requires UTF-8 text.
    pub fn read_string(&self, rel: impl AsRef<Path>) -> Result<Option<String>, GraphError> {
        let path = self.dir.join(rel.as_ref());
        match self.read(rel)? {
            None => Ok(None),
            Some(bytes) => String::from_utf8(bytes).map(Some).map_err(|e| {
                GraphError::io(
                    path,
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("not UTF-8 text ({e})"),
                    ),
                )
            }),
        }
    }

    /// All regular files directly inside `rel_dir`, sorted by name, with paths relative to the
    /// install dir. A missing directory yields an empty list.
    ///
    /// Backups this crate made of user edits (`*.user-edit-*`), leftover temporary files and
    /// the state and lock files ([`crate::STATE_FILE`], [`crate::LOCK_FILE`]) are skipped, so
    /// they never count as user input.
    pub fn read_dir(&self, rel_dir: impl AsRef<Path>) -> Result<Vec<File>, GraphError> {
        let rel_dir = rel_dir.as_ref();
        let mut names = fsutil::list_files(&self.dir.join(rel_dir))?;
        names.retain(|n| !fsutil::is_backup_or_temp(n) && !crate::reserved::is_reserved(n));
        names.sort();
        let mut files = Vec::with_capacity(names.len());
        for name in names {
            let rel = rel_dir.join(&name);
            let path = self.dir.join(&rel);
            self.note(&path);
            let data = fsutil::read_input(&self.dir, &rel)?;
            let mode = fsutil::mode_of(&path).unwrap_or(MODE_DEFAULT);
            files.push(File {
                path: rel,
                data,
                mode,
            });
        }
        Ok(files)
    }

    fn note(&self, path: &Path) {
        if let Ok(mut last) = self.last.lock() {
            *last = Some(path.to_path_buf());
        }
    }

    /// The file named in a load error: the last one read, else the install dir.
    pub(crate) fn blame(&self) -> PathBuf {
        self.last
            .lock()
            .ok()
            .and_then(|l| l.clone())
            .unwrap_or_else(|| self.dir.clone())
    }
}

/// A resolved value shared between threads without knowing its type.
pub(crate) type AnyValue = Arc<dyn Any + Send + Sync>;

/// Typed access to the resolved values of an asset's declared dependencies.
pub struct Parents<'a> {
    asset: &'static str,
    values: Vec<(&'static str, &'a (dyn Any + Send + Sync))>,
}

impl<'a> Parents<'a> {
    pub(crate) fn new(
        asset: &'static str,
        values: Vec<(&'static str, &'a (dyn Any + Send + Sync))>,
    ) -> Parents<'a> {
        Parents { asset, values }
    }

    /// The value of parent `T`; an error when `T` is not among the declared dependencies.
    pub fn get<T: Asset>(&self) -> Result<&'a T, GraphError> {
        self.values
            .iter()
            .find(|(id, _)| *id == T::ID)
            .and_then(|(_, value)| value.downcast_ref::<T>())
            .ok_or(GraphError::MissingParent {
                asset: self.asset,
                parent: T::NAME,
            })
    }
}

/// The [`Asset`] operations the engine needs, with the concrete type erased.
pub(crate) trait ErasedAsset: Send + Sync {
    fn generate(&self, ctx: &Context, parents: &Parents) -> Result<AnyValue, BoxError>;
    fn load(&self, fetcher: &Fetcher) -> Result<Option<AnyValue>, BoxError>;
    fn decode(&self, json: &serde_json::Value) -> Result<AnyValue, String>;
    fn encode(&self, value: &AnyValue) -> Result<serde_json::Value, String>;
    fn files(&self, value: &AnyValue) -> Vec<File>;
    fn refresh_reason(&self, value: &AnyValue, ctx: &Context) -> Option<String>;
}

/// The erased operations of asset type `T`.
pub(crate) struct Erased<T>(PhantomData<fn() -> T>);

impl<T: Asset> Erased<T> {
    pub(crate) fn boxed() -> Box<dyn ErasedAsset> {
        Box::new(Erased::<T>(PhantomData))
    }
}

/// Reads a stored value as asset type `A`: the one decoding shared by the store and by
/// [`crate::State`], so every reader goes through the type that wrote the value.
pub(crate) fn decode<A: Asset>(value: &serde_json::Value) -> Result<A, String> {
    A::deserialize(value).map_err(|e| e.to_string())
}

impl<T: Asset> ErasedAsset for Erased<T> {
    fn generate(&self, ctx: &Context, parents: &Parents) -> Result<AnyValue, BoxError> {
        Ok(Arc::new(T::generate(ctx, parents)?))
    }

    fn load(&self, fetcher: &Fetcher) -> Result<Option<AnyValue>, BoxError> {
        Ok(T::load(fetcher)?.map(|v| Arc::new(v) as AnyValue))
    }

    fn decode(&self, json: &serde_json::Value) -> Result<AnyValue, String> {
        decode::<T>(json).map(|v| Arc::new(v) as AnyValue)
    }

    fn encode(&self, value: &AnyValue) -> Result<serde_json::Value, String> {
        let value = value
            .downcast_ref::<T>()
            .ok_or("value has the wrong type")?;
        serde_json::to_value(value).map_err(|e| e.to_string())
    }

    fn files(&self, value: &AnyValue) -> Vec<File> {
        value.downcast_ref::<T>().map(T::files).unwrap_or_default()
    }

    fn refresh_reason(&self, value: &AnyValue, ctx: &Context) -> Option<String> {
        value.downcast_ref::<T>()?.refresh_reason(ctx)
    }
}
