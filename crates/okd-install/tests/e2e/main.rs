//! End-to-end tests of the `okd-install` binary: every example through `create`, golden
//! files, re-runs, certificate expiry, secrets bundles, image mode, the small commands and
//! the shape of the generated Ignition configs.
//!
//! Most tests run in deterministic mode (SOURCE_DATE_EPOCH plus the committed bundle
//! `tests/golden/secrets.yaml`), so no RSA key is generated and outputs are comparable.

mod common;
mod create;
mod fixture;
mod golden;
mod redact;
