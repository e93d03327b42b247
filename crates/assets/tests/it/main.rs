//! Integration tests of the PKI as `okd-install create` makes it (through the asset graph):
//! every certificate-table row checked with x509-parser, real `openssl verify` and
//! `ssh-keygen`, kube-rs kubeconfig parsing, a mutual-TLS handshake, and the reuse rules of a
//! secrets bundle.

mod bundles;
mod certs;
mod checks;
mod common;
mod kubeconfigs;
mod openssl;
mod password;
mod secrets;
mod ssh;
mod tls;
