//! The real-render harness: run the `bootkube.sh` that `okd-install` generated, for real,
//! against the OKD 4.19 payload stand-in, and check what every render stage left behind.
//!
//! No offline check can tell whether an operator's `render` command accepts our flags and our
//! manifests: only the operator binary can. A payload directory (named by `$OKD_PAYLOAD_DIR`;
//! none ships with the project, because its operator binaries are built from public sources)
//! holds the real release-4.19 operator binaries as podman images plus a release image that
//! resolves them, so this crate:
//!
//! 1. imports the payload into podman ([`Payload::load`], its `load.sh`);
//! 2. writes the files of a bootstrap Ignition config into a scratch root with the real
//!    Ignition (`ignition-apply --root`, [`materialize`]);
//! 3. runs that root's `/usr/local/bin/bootkube.sh` with the asset and `/etc` locations pointed
//!    into the scratch root, until the last render stage is done ([`run_renders`]): what comes
//!    next (etcd, cluster-bootstrap) needs a live control plane, which the payload's
//!    placeholders cannot run;
//! 4. checks every stage's marker and outputs ([`check_outputs`]);
//! 5. on request, runs the bootstrap machine-config controller the way the bootstrap MCO pod
//!    would and reads the configs it rendered for each pool ([`render_pool_configs`]).
//!
//! A developer tool: `cargo xtask real-render`, `faults` and `signers`, and the payload tests
//! of the `okd-install` suite, which run only when `$OKD_PAYLOAD_DIR` is set. CI never needs a
//! payload.

mod api_objects;
mod background;
mod bootstrap;
mod check;
mod cluster_mcs;
mod error;
pub mod faults;
mod host;
mod kubelet;
mod mcc;
mod mcs;
mod nodes;
mod payload;
mod pointer;
mod run;
mod sandbox;
mod single_node;
pub mod sshd;
mod standins;
mod tools;
mod units;

pub use bootstrap::{
    BootstrapOptions, BootstrapReport, bootstrap_example, fault_sandbox_name, sandbox_name,
};
pub use check::{Finding, check_outputs};
pub use error::Error;
pub use faults::{FAULTS, Fault, FaultReport};
pub use host::{Host, materialize};
pub use kubelet::Kubelet;
pub use mcc::{RenderedPool, render_pool_configs};
pub use mcs::{BOOTSTRAP_POD, MCS_PORT, Mcs};
pub use nodes::{NodeConfig, fetch_local_master};
pub use payload::{PAYLOAD_DIR_VAR, Payload, payload_dir};
pub use pointer::{AppliedPointer, PointerError, apply_pointer};
pub use run::{RenderRun, run_renders};
pub use sandbox::Sandbox;
pub use standins::{STAND_INS, StandIn};

pub use ignition::bootkube_stages_to_render as render_stages;

/// Result of this crate's fallible steps.
pub type Result<T> = std::result::Result<T, Error>;

mod example;
pub use example::{ExampleReport, render_example, shipped_examples};
