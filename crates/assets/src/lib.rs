//! assets: see the crate's README section in the top-level README.
