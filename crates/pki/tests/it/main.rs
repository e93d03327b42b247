//! Integration tests for the pki crate's own functions: password generation, the parsers'
//! robustness and the signing rules. The whole PKI, as `okd-install` makes it, is tested
//! through the asset graph in the `assets` crate's tests.

mod password;
mod props;
mod signing;
