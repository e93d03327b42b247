//! Shared fixture: one PKI per test binary, made by the asset graph exactly as
//! `okd-install create pki` makes it, plus helpers for external tools.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::OnceLock;

use assets::RunSettings;
use assets::cluster_pki::ClusterPki;
use assets::config::InstallConfigAsset;
use time::OffsetDateTime;
use x509_parser::prelude::{FromDer as _, X509Certificate};

/// The shipped dual-stack bare-metal example: two service networks and an API VIP of each
/// family, so every SAN rule has something to do.
const INSTALL_CONFIG: &str = include_str!("../../../../examples/dual-stack.yaml");

/// The fixture's clock: real time (so that rustls and openssl accept the certificates) taken
/// once and truncated to seconds, a minute in the past.
pub(crate) fn now() -> OffsetDateTime {
    static NOW: OnceLock<OffsetDateTime> = OnceLock::new();
    *NOW.get_or_init(|| {
        let t = OffsetDateTime::now_utc() - time::Duration::minutes(1);
        t.replace_nanosecond(0).unwrap()
    })
}

/// A run at `at` (fixed clock), generating every secret.
pub(crate) fn settings_at(at: OffsetDateTime) -> RunSettings {
    RunSettings {
        fixed_time: Some(u64::try_from(at.unix_timestamp()).expect("after 1970")),
        ..RunSettings::default()
    }
}

/// Resolves the fixture's install config with `settings`.
pub(crate) fn generate(settings: &RunSettings) -> ClusterPki {
    let ic = InstallConfigAsset::parse(INSTALL_CONFIG.to_string(), "dual-stack.yaml")
        .expect("the example parses");
    ClusterPki::generate(ic, settings).expect("the asset graph resolves the PKI")
}

/// The fixture PKI, made once at [`now`].
pub(crate) fn pki() -> &'static ClusterPki {
    static PKI: OnceLock<ClusterPki> = OnceLock::new();
    PKI.get_or_init(|| generate(&settings_at(now())))
}

/// DER of every certificate in a PEM text.
pub(crate) fn ders(text: &str) -> Vec<Vec<u8>> {
    pki::pem::certificates(text, "test").expect("pem")
}

pub(crate) fn parse(der: &[u8]) -> X509Certificate<'_> {
    X509Certificate::from_der(der).expect("x509").1
}

/// Runs `tool` of the Debian `package`; `None` when it is not installed
/// ([`testkit::require_tool`]: a skip line locally, a failed test under CI=true).
pub(crate) fn run(tool: &str, package: &str, args: &[&str], dir: &Path) -> Option<Output> {
    if !testkit::require_tool(tool, package) {
        return None;
    }
    let out = Command::new(tool).args(args).current_dir(dir).output();
    Some(out.unwrap_or_else(|e| panic!("running {tool}: {e}")))
}
