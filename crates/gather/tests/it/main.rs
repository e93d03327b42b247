//! Integration tests for gather: bundle analysis on bundles built here, and the SSH gather
//! against a real OpenSSH server.

mod analysis;
mod causes;
mod diagnosis;
mod gather;
mod image_mode;
mod manifests;

// The harness (log bundles, evidence, scenarios, a real sshd) is shared with the binary's tests.
use testkit::gather::{bundle, evidence, scenario, sshd};
