//! Integration tests for the pki crate's own functions: password generation, the parsers'
//! robustness, the signing rules and every key kind a signer may have. The whole PKI, as `okd-install` makes it, is tested
//! through the asset graph in the `assets` crate's tests.

mod key_kinds;
mod password;
mod props;
mod signing;
