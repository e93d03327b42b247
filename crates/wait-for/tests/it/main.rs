//! Integration tests: the waits against the TLS test API server.

mod bootstrap;
mod install;
mod installer_pki;
mod support;
mod tls;
