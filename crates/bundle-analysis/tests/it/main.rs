//! Integration tests of the bundle analysis, on log bundles built here with testkit: the
//! ordered checks, the causes a diagnosis names, the component diagnosis and image mode.

mod analysis;
mod causes;
mod diagnosis;
mod hostile;
mod image_mode;
mod manifests;
mod pulls;

// The harness (log bundles, evidence, scenarios) is shared with the binary's tests.
use testkit::gather::{bundle, evidence, scenario};
