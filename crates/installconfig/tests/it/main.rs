//! Integration tests of the installconfig crate.

mod explain;
mod load;
mod pki;
mod platform;
mod props;
mod release;
mod survey;
mod upstream_rules;
mod validate;

use std::path::PathBuf;

/// Path of a fixture under tests/fixtures.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The text of a fixture.
pub fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).unwrap()
}
