//! Test harness shared by the gather tests and the `okd-install` binary's tests: a real
//! OpenSSH server and agent to gather from, a simulated bootstrap host for the real gather
//! scripts to run on, and log bundles built the way the bootstrap gather script lays them
//! out, to analyse.
//!
//! Compiled only with the `test-support` feature, so it never ends up in the installer.
//! Its helpers panic with a readable message instead of returning errors: they prepare a
//! test, and a failed preparation is a failed test.
//!
//! gather's own integration tests cannot enable a feature of the crate under test, so they
//! include these files by path as sibling modules; for that reason they use nothing from the
//! rest of the crate, only each other (`super::evidence`, `super::sshd`, ...).

pub mod bundle;
pub mod evidence;
pub mod host;
pub mod scenario;
pub mod sshd;
