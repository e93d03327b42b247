//! Integration tests for gather: bundle analysis on bundles built here, and the SSH gather
//! against a real OpenSSH server.

mod analysis;
// The harness is shared with okd-install's tests through the `test-support` feature; the crate
// under test cannot turn on its own feature, so the files are included here by path.
#[path = "../../src/test_support/bundle.rs"]
mod bundle;
mod gather;
// Some of its helpers serve only the other suite.
#[allow(dead_code)]
#[path = "../../src/test_support/sshd.rs"]
mod sshd;
