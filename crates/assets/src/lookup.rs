//! Typed access to resolved assets from either side of a run: a generator reads its parents,
//! [`crate::cluster_pki`] reads a store after the run. The helpers that pick an asset by a
//! table id ([`crate::tls::cert_of`], [`crate::tls::bundle_of`], [`crate::auth::kubeconfig_of`])
//! take either, so each table-to-type mapping is written once.

use asset_graph::{Asset, BoxError, Parents, Store};

/// Somewhere resolved asset values can be read by type.
pub trait Resolved<'a> {
    /// The value of `T`; an error when it is not (or not yet) resolved.
    fn value<T: Asset>(&self) -> Result<&'a T, BoxError>;
}

impl<'a> Resolved<'a> for Parents<'a> {
    fn value<T: Asset>(&self) -> Result<&'a T, BoxError> {
        Ok(self.get::<T>()?)
    }
}

impl<'a> Resolved<'a> for &'a Store {
    fn value<T: Asset>(&self) -> Result<&'a T, BoxError> {
        self.get::<T>().ok_or_else(|| {
            crate::Error::NotResolved {
                name: T::NAME,
                id: T::ID,
            }
            .into()
        })
    }
}
