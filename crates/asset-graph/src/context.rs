//! The injected clock and randomness every generator receives.
//!
//! Generators never call `SystemTime::now()` or an OS random source themselves; they ask the
//! [`Context`]. That single seam is what makes a deterministic run (fixed time + seed) produce
//! byte-identical output.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use sha2::{Digest, Sha256};

/// Where "now" comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// The real system clock.
    System,
    /// A fixed instant, e.g. from `SOURCE_DATE_EPOCH`, for reproducible output.
    Fixed(SystemTime),
}

impl Clock {
    /// A fixed clock at `secs` seconds after the Unix epoch.
    pub fn fixed_unix(secs: u64) -> Clock {
        Clock::Fixed(UNIX_EPOCH + Duration::from_secs(secs))
    }

    /// The current instant according to this clock.
    pub fn now(&self) -> SystemTime {
        match self {
            Clock::System => SystemTime::now(),
            Clock::Fixed(t) => *t,
        }
    }
}

/// Shared, read-only environment of a run: the clock and the source of randomness.
///
/// Cheap to clone and safe to share between the worker threads.
#[derive(Clone)]
pub struct Context {
    clock: Clock,
    seed: Option<[u8; 32]>,
    settings: Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl Context {
    /// A context with the given clock and, when `seed` is set, deterministic randomness.
    pub fn new(clock: Clock, seed: Option<[u8; 32]>) -> Context {
        Context {
            clock,
            seed,
            settings: Arc::default(),
        }
    }

    /// Attaches a run-wide setting of the caller's own type (e.g. a certificate expiry
    /// margin). Settings are read by [`crate::Asset::refresh_reason`] and
    /// [`crate::Asset::load`], which have no access to parents and so cannot get them from
    /// there. A second value of the same type replaces the first.
    ///
    /// Settings do NOT take part in fingerprints: changing one never by itself regenerates a
    /// stored value. Use them for policy that decides *whether* to load or refresh; anything
    /// that shapes generated content belongs in a provided input (`Store::provide`).
    pub fn with<T: Any + Send + Sync>(mut self, value: T) -> Context {
        Arc::make_mut(&mut self.settings).insert(TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// The setting of type `T`, if the caller attached one.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.settings.get(&TypeId::of::<T>())?.downcast_ref::<T>()
    }

    /// The normal interactive setting: system clock, OS-seeded randomness.
    pub fn system() -> Context {
        Context::new(Clock::System, None)
    }

    /// Deterministic mode: every asset's randomness derives from `seed` and its id.
    pub fn seeded(seed: [u8; 32], clock: Clock) -> Context {
        Context::new(clock, Some(seed))
    }

    /// The current instant from the injected clock.
    pub fn now(&self) -> SystemTime {
        self.clock.now()
    }

    /// The injected clock itself.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// Whether randomness is seeded (outputs are reproducible).
    pub fn deterministic(&self) -> bool {
        self.seed.is_some()
    }

    /// A random generator for one asset.
    ///
    /// Seeded mode derives the stream from the run seed and `asset_id` only, so the result does
    /// not depend on the order in which parallel workers happen to run. Each call returns the
    /// same stream for the same id: call it once per asset (or pass a sub-id such as
    /// `"tls/root-ca/serial"`) and keep the generator.
    pub fn rng(&self, asset_id: &str) -> ChaCha20Rng {
        match &self.seed {
            Some(seed) => {
                let mut hash = Sha256::new();
                hash.update(b"okd-install asset rng v1\0");
                hash.update(seed);
                hash.update(asset_id.as_bytes());
                ChaCha20Rng::from_seed(hash.finalize().into())
            }
            None => ChaCha20Rng::from_entropy(),
        }
    }
}

impl fmt::Debug for Context {
    // The seed is key material in deterministic mode: never print it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("clock", &self.clock)
            .field("deterministic", &self.deterministic())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngCore;

    #[test]
    fn deterministic_rng_is_stable_per_asset_id() {
        let ctx = Context::seeded([7; 32], Clock::fixed_unix(1_700_000_000));
        let a1 = ctx.rng("tls/a").next_u64();
        let a2 = ctx.rng("tls/a").next_u64();
        let b = ctx.rng("tls/b").next_u64();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        let other_seed = Context::seeded([8; 32], Clock::System);
        assert_ne!(a1, other_seed.rng("tls/a").next_u64());
        assert!(ctx.deterministic());
        assert_eq!(ctx.now(), UNIX_EPOCH + Duration::from_secs(1_700_000_000));
    }

    #[test]
    fn system_rng_differs_between_calls() {
        let ctx = Context::system();
        assert!(!ctx.deterministic());
        assert_ne!(ctx.rng("x").next_u64(), ctx.rng("x").next_u64());
    }

    #[test]
    fn debug_hides_seed() {
        let shown = format!("{:?}", Context::seeded([0xab; 32], Clock::System));
        assert!(!shown.contains("171"), "{shown}");
        assert!(shown.contains("deterministic: true"));
    }
}

#[cfg(test)]
mod settings_tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Margin(u64);

    #[test]
    fn settings_are_typed_and_replaceable() {
        let ctx = Context::system().with(Margin(12));
        assert_eq!(ctx.get::<Margin>(), Some(&Margin(12)));
        assert_eq!(ctx.get::<String>(), None);
        let again = ctx.clone().with(Margin(1));
        assert_eq!(again.get::<Margin>(), Some(&Margin(1)));
        assert_eq!(
            ctx.get::<Margin>(),
            Some(&Margin(12)),
            "clones are independent"
        );
    }
}
