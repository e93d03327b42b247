//! A TLS Kubernetes API server that speaks just enough of the API for the waits, a fixture
//! PKI and kubeconfig writer, and object builders.

pub mod apiserver;
pub mod objects;
pub mod pki;

pub use apiserver::{Action, PatchRequest, TestApiServer};
pub use pki::{Leaf, Signer, TestPki};
