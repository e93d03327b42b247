//! `okd-install verify`: checks an asset directory before anyone boots a machine with it.
//!
//! A failed installation caused by a stale or hand-edited file usually shows up an hour later
//! as an x509 error in a journal on a node. Everything needed to predict that failure is
//! already in the directory: the certificates and their keys (in `tls/`, the state file, or
//! embedded in `bootstrap.ign`), the pointer configs, the kubeconfigs, the manifests and the
//! install-config they all came from. This crate cross-checks them and says, per file, what
//! is wrong and how to fix it. With [`Options::online`] it also asks the live endpoints which
//! certificates they serve, and the registries whether the bootstrap host's pulls will work.
//!
//! The clock is a parameter ([`Options::now`]) so expiry findings are reproducible.

#![deny(missing_docs)]

mod auth;
mod certs;
mod consistency;
mod ign;
mod kubeconfig;
mod material;
mod media;
mod online;
mod platform;
mod pointer;
mod pulls;
mod report;
mod x509;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;

pub use report::{Check, Report, Status, Summary};
use time::{Duration, OffsetDateTime};

/// What to check and against which clock.
#[derive(Debug, Clone)]
pub struct Options {
    /// The time expiry is judged at (the binary passes the system clock; tests pass any).
    pub now: OffsetDateTime,
    /// Certificates expiring within this window are warnings. For a certificate whose whole
    /// lifetime is shorter than twice the window, half its lifetime is used instead, so a
    /// freshly generated 24-hour certificate does not warn with the default 24-hour window.
    pub expiry_warning: Duration,
    /// Touch the network: the checks `online_checks` selects.
    pub online: bool,
    /// With `online`: which online checks run.
    pub online_checks: OnlineChecks,
    /// With `online`: registry requests in flight at once in the pull checks.
    pub pull_connections: usize,
    /// Overrides of the system resolver, for tests and for checking through a tunnel: a key
    /// `host` resolves that name to the address's IP (a listed name counts as resolved); a
    /// key `host:port` sends the connection for that endpoint to the address as given.
    pub endpoints: BTreeMap<String, SocketAddr>,
    /// TCP connect (and TLS read) timeout of the online checks.
    pub connect_timeout: std::time::Duration,
    /// The platform whose user-data size limit applies to the `.ign` files; `None` takes
    /// install-config's platform. Set it when the configs are delivered another way (for
    /// example as cloud user data while the install-config says `none`).
    pub platform: Option<String>,
}

impl Options {
    /// Offline checks at time `now` with the default 24-hour warning window.
    pub fn at(now: OffsetDateTime) -> Options {
        Options {
            now,
            expiry_warning: Duration::hours(24),
            online: false,
            online_checks: OnlineChecks::All,
            pull_connections: 16,
            endpoints: BTreeMap::new(),
            connect_timeout: std::time::Duration::from_secs(3),
            platform: None,
        }
    }
}

/// Which online checks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnlineChecks {
    /// Both kinds.
    All,
    /// The cluster's names and the certificates its endpoints serve (after boot).
    Endpoints,
    /// The pulls of the bootstrap host: the release image and every image it names, from
    /// the registries its mirror rules, trust, proxy and pull secret lead to (before boot).
    Pulls,
}

/// Checks the asset directory `dir` and returns every finding. Never fails: an unreadable
/// file is itself a finding.
pub fn verify(dir: &Path, opts: &Options) -> Report {
    let mut report = Report::default();
    let m = material::Material::load(dir, &mut report);
    if let Some(set) = &m.certs {
        certs::check_all(set, m.params.as_ref(), opts, &mut report);
    }
    consistency::check_embedded_tls(&m, &mut report);
    pointer::check_all(&m, &mut report);
    kubeconfig::check_all(&m, &mut report);
    auth::check_password(&m, &mut report);
    ign::check_all(&m, opts, &mut report);
    certs::check_trust_bundle(&m, opts, &mut report);
    consistency::check_all(&m, &mut report);
    platform::check_all(&m, &mut report);
    media::check_all(&m, &mut report);
    if opts.online && opts.online_checks != OnlineChecks::Pulls {
        online::check_all(&m, opts, &mut report);
    }
    if opts.online && opts.online_checks != OnlineChecks::Endpoints {
        pulls::check_all(&m, opts, &mut report);
    }
    report
}
