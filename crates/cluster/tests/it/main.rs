//! Integration tests: the waits against the TLS test API server.

mod bootstrap;
mod install;
mod support;
mod tls;
