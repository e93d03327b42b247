//! Ignition configs for okd-install.
//!
//! This crate turns the rendered bootstrap templates plus the files of the other assets
//! (manifests, TLS, kubeconfigs) into `bootstrap.ign` (and its single-node and pivot
//! variants), writes the small `master.ign`/`worker.ign` pointer configs and
//! `metadata.json`, and offers the tools around them:
//!
//! * [`check`]: the semantic rules the `ignition-config` crate does not enforce (it only
//!   parses), so that a broken config fails here instead of on a booting machine;
//! * [`compress`]: gzip file contents where that is smaller, to fit user-data limits;
//! * [`size_report`]: compare a config's size with the known user-data limit of a platform;
//! * [`explain_ignition`]: a readable dump (decoded data URLs) for golden files and humans;
//! * [`parse`]: read any Ignition 3.x config back, with errors that name the position.
//!
//! Output JSON is compact, has no `null` fields and is deterministic: the same input gives
//! the same bytes, which golden-file tests and users' CI diffs rely on.

#![deny(missing_docs)]

mod bootstrap;
mod check;
mod compress;
mod context;
mod dataurl;
mod error;
mod explain;
mod json;
mod metadata;
mod pointer;
mod registries;
mod render;
mod size;
mod systemd;

pub use bootstrap::{
    NodeFile, Variant, asset_file_mode, bootstrap_config, bootstrap_config_from, core_user,
};
pub use check::{Problem, ProblemKind, check, check_json};
pub use compress::{InlineError, compress, decompress_bytes, gzip_bytes, inline_contents};
pub use context::{
    InstallationDisk, ProxyContext, RegistryContext, ReleaseContext, TemplateContext,
};
pub use dataurl::{DataUrlError, decode_data_url, encode_data_url};
pub use error::Error;
pub use explain::{ExplainOptions, explain_ignition, explain_ignition_with};
pub use json::{Parsed, core_authorized_keys, parse, to_json, to_json_pretty};
pub use metadata::{ClusterMetadata, MetadataPlatform, VCenterMetadata, metadata_json};
pub use pointer::{MCS_PORT, PointerHost, pointer_config};
pub use registries::{MirrorEntry, MirrorGroup, NEVER_CONTACT_SOURCE, mirror_groups, registries};
pub use render::{
    RenderedDirs, RenderedFile, RenderedUnit, TemplateTree, embedded_templates, file_mode,
    render_template,
};
pub use size::{PlatformLimit, SizeLine, platform_limit, platform_limits, size_report};
pub use systemd::mount_unit_name;

/// The Ignition config model okd-install writes: spec 3.2.0 as typed by `ignition-config`.
pub type Config = ignition_config::v3_2::Config;

/// The Ignition spec version of every config okd-install writes (bootstrap and pointers).
pub const SPEC_VERSION: &str = "3.2.0";

/// Shorthand for results carrying this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

// The names bootkube.sh shares with its readers live in `contract` (tested against the
// templates there); re-exported so existing callers keep one path.
pub use contract::{BOOTKUBE_MANIFESTS_STAGE, BOOTKUBE_RENDER_STAGES, bootkube_stages_to_render};
