//! Waiting for an OKD cluster to come up: `wait-for bootstrap-complete` and
//! `wait-for install-complete` as a library.
//!
//! The binary parses flags, builds a [`Cluster`] from the admin kubeconfig, calls
//! [`wait_bootstrap_complete`] or [`wait_install_complete`] and renders the [`Event`]s it
//! receives (a spinner for humans, one JSON object per line for `--output json`).
//!
//! Why this crate exists instead of a thin port: the upstream installer waits silently for up
//! to an hour and then says "context deadline exceeded". Here every phase announces itself
//! with its timeout, every change in what the cluster reports becomes a [`Event::Status`], and
//! a failure carries a [`Diagnosis`]: what was last seen, which operators are unhealthy, the
//! most likely cause in plain words, and the exact next command to run.
//!
//! ```no_run
//! # async fn run(dir: &std::path::Path) -> Result<(), wait_for::WaitError> {
//! use wait_for::{BootstrapWaitOptions, Cluster, GatherHint, kubeconfig};
//!
//! let cluster = Cluster::from_kubeconfig(&kubeconfig::default_path(dir)).await?;
//! let hint = GatherHint { dir: dir.to_path_buf(), ..Default::default() };
//! let opts = BootstrapWaitOptions::new(std::time::Duration::from_secs(60 * 60), hint);
//! let print = |e: wait_for::Event| println!("{e}");
//! let ctrl_c = async {
//!     let _ = tokio::signal::ctrl_c().await;
//! };
//! match wait_for::wait_bootstrap_complete(&cluster, &opts, &print, ctrl_c).await {
//!     Ok(summary) => println!("done in {:?}", summary.total()),
//!     Err(e) => std::process::exit(e.exit_code()),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! The wait futures borrow the event callback (`&dyn Fn(Event)`, not `Sync`), so they are not
//! `Send`: await them on the main task rather than spawning them.
//!
//! Transport rules: the client trusts the kubeconfig's CA and nothing else (no OS trust store,
//! no insecure fallback) and authenticates with the kubeconfig's client certificate. When TLS
//! fails, a separate probe connection (see the `probe` module) records which certificate the server
//! presented so the message can name it.
#![deny(missing_docs)]

mod bootstrap;
mod class;
mod client;
mod conditions;
mod diagnose;
mod error;
mod events;
mod evidence;
mod install;
pub mod kubeconfig;
mod phase;
mod pivot_configmap;
mod pivot_mode;
mod probe;
mod report;
mod resources;
mod watch;

pub use bootstrap::{BootstrapWaitOptions, wait_bootstrap_complete};
pub use client::Cluster;
pub use conditions::UnhealthyCondition;
pub use error::{Diagnosis, EXIT_CAUSE_NAMED, GatherHint, WaitError};
pub use events::{Event, PhaseTiming, Summary};
pub use install::{InstallWaitOptions, wait_install_complete};
pub use phase::Phase;
