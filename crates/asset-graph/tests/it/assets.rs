//! A small asset family exercising every feature of the engine.
//!
//! ```text
//! Opts (input) ──► Leaf ◄── Root ──► Cert ──► CertUser
//!      │
//!      └──► Config (loadable) ──► Derived ──► Deep          Unrelated
//! ```

use std::time::UNIX_EPOCH;

use asset_graph::{Asset, BoxError, Context, Dep, Fetcher, File, Graph, Parents, Target};
use rand::Rng;
use serde::{Deserialize, Serialize};

fn secs(ctx: &Context) -> u64 {
    ctx.now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Caller-provided options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Opts {
    pub name: String,
}

impl Asset for Opts {
    const ID: &'static str = "t/opts";
    const NAME: &'static str = "Opts";
    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }
    fn generate(_: &Context, _: &Parents) -> Result<Self, BoxError> {
        Err("options are provided by the caller".into())
    }
}

/// Random root value (stands in for a CA).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Root {
    pub token: u64,
}

impl Asset for Root {
    const ID: &'static str = "t/root";
    const NAME: &'static str = "Root";
    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }
    fn generate(ctx: &Context, _: &Parents) -> Result<Self, BoxError> {
        Ok(Root {
            token: ctx.rng(Self::ID).r#gen(),
        })
    }
}

/// Generated output file from Root and Opts.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Leaf {
    pub text: String,
}

impl Asset for Leaf {
    const ID: &'static str = "t/leaf";
    const NAME: &'static str = "Leaf";
    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<Root>(), Dep::of::<Opts>()]
    }
    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let root = parents.get::<Root>()?;
        let opts = parents.get::<Opts>()?;
        Ok(Leaf {
            text: format!("{} {:x}\n", opts.name, root.token),
        })
    }
    fn files(&self) -> Vec<File> {
        vec![File::new("out/leaf.txt", self.text.clone())]
    }
}

/// User-editable config, written as `config.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Config {
    pub name: String,
    pub replicas: u32,
}

impl Asset for Config {
    const ID: &'static str = "t/config";
    const NAME: &'static str = "Config";
    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<Opts>()]
    }
    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        Ok(Config {
            name: parents.get::<Opts>()?.name.clone(),
            replicas: 3,
        })
    }
    fn files(&self) -> Vec<File> {
        let mut data = serde_json::to_vec_pretty(self).unwrap_or_default();
        data.push(b'\n');
        vec![File::new("config.json", data)]
    }
    /// Zero replicas never come from the generator, only from a user's edit.
    fn refresh_reason(&self, _: &Context) -> Option<String> {
        (self.replicas == 0).then(|| "zero replicas cannot run anything".to_string())
    }
    fn load(dir: &Fetcher) -> Result<Option<Self>, BoxError> {
        match dir.read_string("config.json")? {
            Some(text) => Ok(Some(serde_json::from_str(&text)?)),
            None => Ok(None),
        }
    }
}

/// Depends on the user-editable Config.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Derived {
    pub text: String,
}

impl Asset for Derived {
    const ID: &'static str = "t/derived";
    const NAME: &'static str = "Derived";
    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<Config>()]
    }
    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        let c = parents.get::<Config>()?;
        Ok(Derived {
            text: format!("{} x{}\n", c.name, c.replicas),
        })
    }
    fn files(&self) -> Vec<File> {
        vec![File::new("derived.txt", self.text.clone())]
    }
}

/// Transitive dependant of Config.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Deep {
    pub len: usize,
}

impl Asset for Deep {
    const ID: &'static str = "t/deep";
    const NAME: &'static str = "Deep";
    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<Derived>()]
    }
    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        Ok(Deep {
            len: parents.get::<Derived>()?.text.len(),
        })
    }
}

/// Expiring value: refreshed when less than [`Cert::MARGIN`] seconds are left.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Cert {
    pub not_after: u64,
    pub serial: u64,
}

impl Cert {
    pub(crate) const LIFETIME: u64 = 100;
    pub(crate) const MARGIN: u64 = 60;
}

impl Asset for Cert {
    const ID: &'static str = "t/cert";
    const NAME: &'static str = "Cert";
    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<Root>()]
    }
    fn generate(ctx: &Context, parents: &Parents) -> Result<Self, BoxError> {
        Ok(Cert {
            not_after: secs(ctx) + Self::LIFETIME,
            serial: parents.get::<Root>()?.token ^ secs(ctx),
        })
    }
    fn files(&self) -> Vec<File> {
        vec![File::secret("tls/cert.key", format!("{}\n", self.serial))]
    }
    fn refresh_reason(&self, ctx: &Context) -> Option<String> {
        (secs(ctx) + Self::MARGIN >= self.not_after)
            .then(|| format!("expires within {} s", Self::MARGIN))
    }
}

/// Depends on the expiring Cert.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct CertUser {
    pub serial: u64,
}

impl Asset for CertUser {
    const ID: &'static str = "t/cert-user";
    const NAME: &'static str = "Cert User";
    fn dependencies() -> Vec<Dep> {
        vec![Dep::of::<Cert>()]
    }
    fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
        Ok(CertUser {
            serial: parents.get::<Cert>()?.serial,
        })
    }
}

/// Independent of everything else.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Unrelated {
    pub n: u64,
}

impl Asset for Unrelated {
    const ID: &'static str = "t/unrelated";
    const NAME: &'static str = "Unrelated";
    fn dependencies() -> Vec<Dep> {
        Vec::new()
    }
    fn generate(ctx: &Context, _: &Parents) -> Result<Self, BoxError> {
        Ok(Unrelated {
            n: ctx.rng(Self::ID).r#gen(),
        })
    }
}

/// The whole family with targets "all" and "config".
pub(crate) fn full_graph() -> Graph {
    Graph::builder()
        .input::<Opts>()
        .asset::<Root>()
        .asset::<Leaf>()
        .asset::<Config>()
        .asset::<Derived>()
        .asset::<Deep>()
        .asset::<Cert>()
        .asset::<CertUser>()
        .asset::<Unrelated>()
        .target(Target {
            name: "all",
            assets: vec![
                Dep::of::<Config>(),
                Dep::of::<Leaf>(),
                Dep::of::<Derived>(),
                Dep::of::<Deep>(),
                Dep::of::<Cert>(),
                Dep::of::<CertUser>(),
                Dep::of::<Unrelated>(),
            ],
        })
        .target(Target {
            name: "config",
            assets: vec![Dep::of::<Config>()],
        })
        .build()
        .expect("test graph is valid")
}
