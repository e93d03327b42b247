//! Integration tests for gather: the SSH gather against a real OpenSSH server (the bundle
//! analysis has its own crate and tests, `bundle-analysis`).

mod gather;

// The harness (log bundles, evidence, scenarios, a real sshd) is shared with the binary's tests.
use testkit::gather::sshd;
