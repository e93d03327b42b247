//! Integration tests of the operational commands of the `okd-install` binary and of the PKI
//! target: the generated configs booted on a real bootstrap host (`real_host`), the pull
//! preflight against a real registry (`preflight`), `gather bootstrap` against a real
//! OpenSSH server (also running the real gather scripts as core with sudo on a simulated
//! bootstrap host), `analyze` on bundles built here, both waits against testkit's TLS test
//! API server, `create pki` checked with the real openssl CLI, user-supplied certificates,
//! and Ctrl-C ending a run with exit code 8.
//!
//! Every test drives the built binary as a separate process, so flags, exit codes and the
//! exact text an administrator sees are what is tested.

mod analyze;
mod common;
mod gather;
mod gather_host;
mod interrupt;
mod pki;
mod preflight;
mod pull_matrix;
mod real_host;
mod vm;
mod waitfor;
// Helpers both test binaries use (running the binary, its output, reading .ign files), the
// real-sshd and the log-bundle harness.
use testkit::cli as support;
use testkit::gather::{bundle, sshd};
