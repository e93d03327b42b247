//! How the last problem a wait saw is classed: the transport's failures (DNS, refused,
//! TLS) pick the likely cause; observations of a cluster that answers do not.
//!
//! Its own module so that the reporter (which records it) and the diagnosis (which reads it)
//! do not import each other.

/// Rough kind of the last problem, used to pick the likely cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// Nothing seen that is an error: the cluster answered, just not "done" yet.
    Observation,
    Refused,
    Dns,
    Unreachable,
    ServerCert,
    /// The server's certificate is past its end on this machine's clock.
    CertExpired,
    /// The server's certificate starts later than this machine's clock.
    CertNotYetValid,
    ClientCert,
    Http,
    Other,
}

impl Class {
    /// The API could not be talked to at all (network, DNS or TLS): asking it for its
    /// operators is pointless, and the likely cause is the transport's.
    pub(crate) fn is_transport(self) -> bool {
        matches!(
            self,
            Class::Refused
                | Class::Dns
                | Class::Unreachable
                | Class::ServerCert
                | Class::CertExpired
                | Class::CertNotYetValid
                | Class::ClientCert
        )
    }
}
