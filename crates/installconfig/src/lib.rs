//! installconfig: the install-config.yaml schema, parsing with positions, defaults,
//! validation, `explain` and the interactive survey's logic.
//!
//! The pipeline of [`load`] is: YAML with positions ([`yaml_tree`]) → schema walk that reports
//! unknown fields and type errors ([`schema_check`]) → typed [`InstallConfig`] → conversion of
//! deprecated fields ([`convert`]) → defaults ([`defaults`]) → validation ([`validate`]).
//! Every problem of every stage is collected, so one run shows them all.
//!
//! Entry points:
//! - [`load`] / [`parse_str`]: read a file or text into a [`Loaded`] (defaulted config,
//!   warnings, raw text) or a [`LoadError`] listing every problem with path and position.
//! - [`validate_single_node`]: the extra checks of the single-node bootstrap-in-place target.
//! - [`validate_fips_host`]: the FIPS host rule, fed with the host state by the caller.
//! - [`InstallConfig::to_yaml`] and [`InstallConfig::redacted`] (for cluster-config.yaml).
//! - [`explain()`]: field documentation generated from the schema; [`json_schema`].
//! - [`survey::run_survey`]: the interactive survey behind a [`survey::Prompter`].
#![deny(missing_docs)]

pub mod convert;
pub mod defaults;
pub mod errors;
pub mod explain;
mod load;
mod output;
pub mod schema_check;
pub mod survey;
pub mod types;
pub mod validate;
pub mod yaml_tree;

pub use errors::{ErrorKind, FieldError, LoadError, Position, Warning};
pub use explain::{ExplainError, explain};

/// The JSON schema of install-config.yaml v1, generated from the types (for docs and
/// editor integration).
pub fn json_schema() -> serde_json::Value {
    schema_check::root_schema().clone()
}
pub use contract::ClusterNames;
pub use load::{Loaded, load, parse_str};
pub use types::*;
pub use validate::{
    os_image_stream, validate_fips_host, validate_for_release, validate_single_node,
};
