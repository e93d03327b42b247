//! Integration tests for the manifests crate.

mod common;
mod cvo;
mod generated;
mod image_mode;
mod no_proxy;
mod user_manifests;
mod yaml11;
