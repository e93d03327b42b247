//! Integration tests for gather: bundle analysis on bundles built here, and the SSH gather
//! against a real OpenSSH server.

mod analysis;
mod bundle;
mod gather;
mod sshd;
