//! Integration tests for the pki crate: every certificate-table row checked with x509-parser,
//! real `openssl verify` and `ssh-keygen`, kube-rs kubeconfig parsing and a mutual-TLS handshake.

mod bundles;
mod certs;
mod checks;
mod common;
mod kubeconfigs;
mod openssl;
mod password;
mod props;
mod secrets;
mod ssh;
mod tls;
