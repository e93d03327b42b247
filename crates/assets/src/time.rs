//! Conversions from the engine's injected clock to the `time` crate the pki crate uses.

use asset_graph::Context;
use time::OffsetDateTime;

/// "Now" according to the run's clock (fixed in deterministic mode).
pub fn offset_now(ctx: &Context) -> OffsetDateTime {
    OffsetDateTime::from(ctx.now())
}
