//! The gather harness: a real OpenSSH server and agent to gather from, a simulated bootstrap
//! host for the real gather scripts to run on, and log bundles built the way the bootstrap
//! gather script lays them out, to analyse. Used by gather's tests and the binary's.

pub mod bundle;
pub mod evidence;
pub mod host;
pub mod scenario;
pub mod sshd;
