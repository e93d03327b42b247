//! Integration tests of the ignition crate (one test binary, one module per area).

mod assembly;
mod checks;
mod compression;
mod explain;
mod parse;
mod pointer;
mod props;
mod size;
mod util;
mod validate;
