//! Test support (feature `test-support`): a TLS Kubernetes API server that speaks just enough
//! of the API for the waits, a fixture PKI and kubeconfig writer, and object builders.
//!
//! It is a library module rather than test-only code so the binary's end-to-end tests can run
//! `okd-install wait-for ...` against the same server.

pub mod apiserver;
pub mod objects;
pub mod pki;

pub use apiserver::{Action, PatchRequest, TestApiServer};
pub use pki::{Leaf, Signer, TestPki};
