//! Shared fixture: one PKI generated per test binary, plus helpers for external tools.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::OnceLock;

use pki::{ClusterParams, Pki, generate_all};
use rand::SeedableRng as _;
use time::OffsetDateTime;
use x509_parser::prelude::{FromDer as _, X509Certificate};

pub fn params() -> ClusterParams {
    ClusterParams {
        cluster_name: "demo".into(),
        base_domain: "example.com".into(),
        service_networks: vec![
            "172.30.0.0/16".parse().unwrap(),
            "fd02::/112".parse().unwrap(),
        ],
        api_vips: vec!["192.168.111.5".parse().unwrap(), "fd00::5".parse().unwrap()],
    }
}

/// The fixture's clock: real time (so that rustls and openssl accept the certificates) taken
/// once and truncated to seconds, a minute in the past.
pub fn now() -> OffsetDateTime {
    static NOW: OnceLock<OffsetDateTime> = OnceLock::new();
    *NOW.get_or_init(|| {
        let t = OffsetDateTime::now_utc() - time::Duration::minutes(1);
        t.replace_nanosecond(0).unwrap()
    })
}

pub fn pki() -> &'static Pki {
    static PKI: OnceLock<Pki> = OnceLock::new();
    PKI.get_or_init(|| {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(2026);
        generate_all(&params(), now(), &mut rng).expect("generate_all")
    })
}

/// DER of every certificate in a PEM text.
pub fn ders(text: &str) -> Vec<Vec<u8>> {
    pki::pem::certificates(text, "test").expect("pem")
}

pub fn parse(der: &[u8]) -> X509Certificate<'_> {
    X509Certificate::from_der(der).expect("x509").1
}

/// Runs a tool; `None` (with a skip line) when it is not installed and CI is not set. Under
/// CI=true a missing tool fails the test.
pub fn run(tool: &str, args: &[&str], dir: &Path) -> Option<Output> {
    match Command::new(tool).args(args).current_dir(dir).output() {
        Ok(out) => Some(out),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "{tool} is required under CI (install the Debian package that provides it)"
            );
            eprintln!("SKIP: {tool} not installed");
            None
        }
        Err(e) => panic!("running {tool}: {e}"),
    }
}
