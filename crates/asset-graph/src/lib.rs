//! A generic, typed asset graph: the engine behind `okd-install create`.
//!
//! Each [`Asset`] is a Rust type with a stable id, statically declared dependencies and a
//! generator that receives its parents' values with their types ([`Parents::get`]). A
//! [`Graph`] is checked up front (unknown dependencies, duplicate ids and cycles are errors)
//! and can be rendered as a list, a tree or Graphviz dot. A [`Store`] resolves the assets a
//! [`Target`] needs, generating independent ones in parallel, and writes the target's files.
//!
//! Between runs the store keeps a versioned state file ([`STATE_FILE`], mode 0600) with every
//! value and two fingerprints:
//! - the *content hash*: SHA-256 of the value's canonical JSON;
//! - the *input fingerprint*: SHA-256 of the asset id, its generator version
//!   ([`Asset::VERSION`]) and its parents' content hashes.
//!
//! A stored value is reused only when its input fingerprint still matches and the asset sees
//! no reason to refresh it ([`Asset::refresh_reason`], e.g. a certificate near expiry). A
//! user's edit of a loadable asset on disk wins and, through its new content hash, regenerates
//! every dependant. Every [`RunReport`] says where each value came from and why.
//!
//! A [`Store`] holds an exclusive advisory lock on [`LOCK_FILE`] in the install dir while it
//! lives, so a second run in the same dir fails at once with [`GraphError::Busy`] instead of
//! overwriting the first run's state. Paths that only read the dir never take it.
//!
//! Tools that only inspect a run's results read stored values with [`State`], by asset type
//! (`State::open(dir)?.get::<RootCa>()`), never by JSON field names; it takes no lock.
//!
//! Nothing is ever deleted: user inputs stay on disk, and an output file that the user edited
//! is moved aside to `<name>.user-edit-<secs>` before a new version replaces it.
//!
//! Generators take time and randomness only from the [`Context`], so a seeded context with a
//! fixed clock makes every output byte-identical across runs, whatever the thread timing.
//!
//! # Resolution rules
//!
//! For each asset, once all its parents are resolved (first matching row wins):
//!
//! | on disk (`load`) | state entry | result ([`Source`], [`Reason`]) |
//! |---|---|---|
//! | — | — (asset provided) | `Provided` |
//! | differs from state, or no state | any | `Disk`, "edited on disk" / "found on disk"; dependants see a new content hash |
//! | equal to state (same value, or the same files) | inputs unchanged, no refresh | `State` (nothing rewritten) |
//! | equal to state, value came from the user's files | inputs changed or refresh wanted | `State`, with a warning: user input is never replaced |
//! | equal to state or absent | inputs or [`Asset::VERSION`] changed | `Generated`, "input X changed" / "generator changed (version 1 -> 2)" |
//! | equal to state or absent | `refresh_reason` is `Some` | `Generated`, that reason |
//! | absent | unchanged | `State` |
//! | absent | undecodable | `Generated`, "state entry unreadable: …" |
//! | absent | none | `Generated`, "not in state" |
//!
//! Output files (only those of the target's assets) are then written with these rules:
//! identical bytes are left alone ("unchanged"); the user's own copy of a loadable asset that
//! was not regenerated is kept; a file whose bytes differ from what the state says we last
//! wrote is moved to `<name>.user-edit-<secs>` before the new version is written atomically.
//!
//! The files of a run and the state commit together: every new file is first written to a
//! synced temporary file, then the state is saved as a journal (all values, the new file
//! hashes, the hashes of our files being replaced, the temporary files), then the files are
//! renamed into place and the state saved again. A run killed at any point (or stopped by a
//! full disk) leaves a state the next run converges from: it reuses the stored keys, removes
//! the journal's temporary files, and takes a file holding either the old or the new hash as
//! its own, never as a hand edit; temporary files no live process holds (a run killed before
//! its journal) are removed at once. [`CRASH_AFTER_RENAMES`] is the tests' hook to kill a run
//! after a chosen rename, or once its outputs are staged.
//!
//! # Example
//!
//! ```
//! use asset_graph::{Asset, BoxError, Context, Dep, File, Graph, Parents, Store, Target, Source};
//! use rand::Rng;
//! use serde::{Deserialize, Serialize};
//!
//! /// A random token, internal to the graph.
//! #[derive(Clone, Serialize, Deserialize)]
//! struct Token(u64);
//!
//! impl Asset for Token {
//!     const ID: &'static str = "example/token";
//!     const NAME: &'static str = "Token";
//!     fn dependencies() -> Vec<Dep> { Vec::new() }
//!     fn generate(ctx: &Context, _: &Parents) -> Result<Self, BoxError> {
//!         Ok(Token(ctx.rng(Self::ID).r#gen()))
//!     }
//! }
//!
//! /// A file built from the token; the file is secret, so it is written 0600.
//! #[derive(Clone, Serialize, Deserialize)]
//! struct TokenFile(String);
//!
//! impl Asset for TokenFile {
//!     const ID: &'static str = "example/token-file";
//!     const NAME: &'static str = "Token File";
//!     fn dependencies() -> Vec<Dep> { vec![Dep::of::<Token>()] }
//!     fn generate(_: &Context, parents: &Parents) -> Result<Self, BoxError> {
//!         let token = parents.get::<Token>()?;
//!         Ok(TokenFile(format!("token={:016x}\n", token.0)))
//!     }
//!     fn files(&self) -> Vec<File> {
//!         vec![File::secret("auth/token", self.0.clone())]
//!     }
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let graph = Graph::builder()
//!     .asset::<Token>()
//!     .asset::<TokenFile>()
//!     .target(Target { name: "token", assets: vec![Dep::of::<TokenFile>()] })
//!     .build()?;
//! println!("{}", graph.render_list());
//!
//! let dir = tempfile::tempdir()?;
//! let ctx = Context::seeded([1; 32], asset_graph::Clock::fixed_unix(1_700_000_000));
//! let mut store = Store::open(graph, dir.path(), ctx.clone())?;
//! let first = store.run("token")?;
//! assert_eq!(first.generated().count(), 2);
//! assert!(dir.path().join("auth/token").exists());
//!
//! // The store locks the dir until dropped; a second run needs the first one gone.
//! drop(store);
//!
//! // A second run reuses the state file: nothing is generated and nothing written.
//! let graph = Graph::builder()
//!     .asset::<Token>()
//!     .asset::<TokenFile>()
//!     .target(Target { name: "token", assets: vec![Dep::of::<TokenFile>()] })
//!     .build()?;
//! let again = Store::open(graph, dir.path(), ctx)?.run("token")?;
//! assert!(again.assets.iter().all(|a| a.source == Source::State));
//! assert_eq!(again.written().count(), 0);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod asset;
mod context;
mod crash_hook;
mod error;
mod fsutil;
mod graph;
mod lock;
mod report;
mod reserved;
mod state;
mod store;

pub use asset::{Asset, Dep, Fetcher, File, MODE_DEFAULT, MODE_SECRET, Parents};
pub use context::{Clock, Context};
pub use crash_hook::{CRASH_AFTER_RENAMES, CRASH_EXIT};
pub use error::{BoxError, GraphError};
pub use graph::{Graph, GraphBuilder, Target};
pub use report::{AssetReport, Event, FileAction, FileReport, Observer, Reason, RunReport, Source};
pub use reserved::{LOCK_FILE, STATE_FILE};
pub use state::{STATE_VERSION, State};
pub use store::Store;

// Compile-time guarantee: callers may share the graph and store across threads (e.g. a
// progress thread or a signal handler), and errors can cross threads inside `anyhow`.
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Graph>();
    send_sync::<Store>();
    send_sync::<GraphError>();
    send_sync::<RunReport>();
    send_sync::<State>();
};
