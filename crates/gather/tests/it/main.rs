//! Integration tests for gather: bundle analysis on bundles built here, and the SSH gather
//! against a real OpenSSH server.

mod analysis;
mod diagnosis;
// The harness is shared with okd-install's tests through the `test-support` feature; the crate
// under test cannot turn on its own feature, so the files are included here by path. Their
// items are `pub` for that other suite, hence `unreachable_pub` is allowed on them here.
#[allow(unreachable_pub)]
#[path = "../../src/test_support/bundle.rs"]
mod bundle;
// Its `ps` rows serve only the fake host of the other suite.
#[allow(dead_code, unreachable_pub)]
#[path = "../../src/test_support/evidence.rs"]
mod evidence;
mod gather;
mod image_mode;
// Its served-config files serve only the fake host of the other suite.
#[allow(dead_code, unreachable_pub)]
#[path = "../../src/test_support/scenario.rs"]
mod scenario;
// Some of its helpers serve only the other suite.
#[allow(dead_code, unreachable_pub)]
#[path = "../../src/test_support/sshd.rs"]
mod sshd;
