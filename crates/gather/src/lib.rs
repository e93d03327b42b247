//! gather: collect the bootstrap host's log bundle over SSH and explain what it shows.
//!
//! When an installation stalls, the bootstrap host holds the evidence: service records written
//! by the bootstrap scripts, journals and a dump of the cluster objects. This crate
//! [connects to it](gather_bootstrap), runs the gather script there, downloads the bundle, and
//! [analyses](analyze_bundle) the bundle so the user reads a cause instead of a tarball.
//!
//! The binary owns flags and printing; this library takes plain options, reports progress
//! through a callback and returns typed errors that say what to check.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use gather::{GatherEvent, GatherOptions, analyze_bundle, gather_bootstrap, gather_id_now};
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
//! println!("{}", analyze_bundle(&outcome.bundle_path)?.render());
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod agent;
mod analysis;
mod auth;
mod connection;
mod download;
mod error;
mod events;
mod keys;
mod options;
mod remote;
mod session;

pub use analysis::{
    Analysis, Cause, Completion, Component, CrashLoop, FailedUnit, Failure, HostOsImage,
    ImageModeProblem, ImageModeState, JOURNAL_TAIL_LINES, Judgement, MachineOsBuildState,
    MachineOsConfigState, MachineOsState, ManifestFailure, OsTool, PoolOsImage, Problem,
    RenderedBy, RenderedOsImage, RepeatedError, ServiceStatus, ServiceSummary, ToldImage,
    UnreadableRecord, Verdict, analyze_bundle,
};
pub use error::{AnalysisError, GatherError};
pub use events::{GatherEvent, RemoteStream};
pub use options::{DEFAULT_REMOTE_COMMAND, GatherOptions, gather_id_now};
pub use session::{GatherOutcome, gather_bootstrap};
