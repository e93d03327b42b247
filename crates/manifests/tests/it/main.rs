//! Integration tests for the manifests crate.

mod common;
mod cvo;
mod generated;
mod image_mode;
mod no_proxy;
mod platform_rows;
mod user_manifests;
mod yaml11;
