//! Test support for the workspace's tests, in one dev-only crate.
//!
//! - [`api`]: a Kubernetes API server over real TLS for the waits, with a fixture PKI and
//!   object builders (the cluster tests and the binary's `wait-for` tests use it).
//! - [`gather`]: a real OpenSSH server and agent, a simulated bootstrap host for the real
//!   gather scripts, and log bundles laid out like the bootstrap gather script's.
//! - [`cli`]: running the built `okd-install` in a clean environment and reading its outputs.
//! - [`liveiso`]: a CoreOS live ISO in the real layout, built with xorriso, for boot media.
//! - [`require`]: the one rule for tests that need a tool this machine may lack.
//! - [`run`]: running a command and keeping the end of what it said, for `real-host`.
//! - [`terminal`]: text that would steer a terminal, and the check that output holds none.
//!
//! Nothing here is shipped: only dev-dependencies and the test tools (`real-host`, `xtask`)
//! use this crate, so no feature of a shipped crate pulls test code into the installer. Helpers
//! panic with a readable message instead of returning errors: they prepare a test, and a failed
//! preparation is a failed test.

pub mod api;
pub mod cli;
pub mod gather;
pub mod liveiso;
pub mod require;
pub mod run;
pub mod terminal;

pub use require::{require, require_tool};
