//! End-to-end tests of the `okd-install` binary: every example through `create`, golden
//! files, re-runs, certificate expiry, secrets bundles, image mode, the small commands and
//! the shape of the generated Ignition configs.
//!
//! Most tests run in deterministic mode (SOURCE_DATE_EPOCH plus the committed bundle
//! `tests/golden/secrets.yaml`), so no RSA key is generated and outputs are comparable.

mod cli;
mod common;
mod coreos;
mod crash;
mod create;
mod expiry;
mod fixture;
mod golden;
mod hostile;
mod image_mode;
mod killpoints;
mod media;
mod outputs;
mod redact;
mod rerun;
mod secrets;
mod signers;
// Helpers both test binaries use (running the binary, its output, reading .ign files).
use testkit::cli as support;
