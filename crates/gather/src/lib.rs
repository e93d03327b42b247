//! gather: collect the bootstrap host's log bundle over SSH.
//!
//! When an installation stalls, the bootstrap host holds the evidence: service records written
//! by the bootstrap scripts, journals and a dump of the cluster objects. This crate
//! [connects to it](gather_bootstrap), runs the gather script there and downloads the bundle;
//! the `bundle-analysis` crate reads the bundle so the user reads a cause instead of a
//! tarball.
//!
//! The binary owns flags and printing; this library takes plain options, reports progress
//! through a callback and returns typed errors that say what to check.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use gather::{GatherEvent, GatherOptions, gather_bootstrap, gather_id_now};
//!
//! let id = gather_id_now(time::OffsetDateTime::UNIX_EPOCH);
//! let mut opts = GatherOptions::new("10.0.0.5", "cluster-dir", id);
//! opts.masters = vec!["10.0.0.6".into()];
//! opts.keys = vec!["/home/me/.ssh/id_ed25519".into()];
//! opts.agent_socket = std::env::var_os("SSH_AUTH_SOCK").map(Into::into);
//! let outcome = gather_bootstrap(&opts, &mut |event: GatherEvent| match event {
//!     GatherEvent::RemoteLine { .. } => tracing::debug!("{event}"),
//!     other => eprintln!("{other}"),
//! })
//! .await?;
//! println!("log bundle: {}", outcome.bundle_path.display());
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod agent;
mod auth;
mod connection;
mod download;
mod error;
mod events;
mod keys;
mod options;
mod remote;
mod session;

pub use error::GatherError;
pub use events::{GatherEvent, RemoteStream};
pub use options::{DEFAULT_REMOTE_COMMAND, GatherOptions, gather_id_now};
pub use session::{GatherOutcome, gather_bootstrap};
