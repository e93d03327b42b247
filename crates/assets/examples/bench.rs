//! Times the PKI of `okd-install create pki` (the asset graph resolving every key in
//! parallel, then every certificate, bundle, kubeconfig and the password) against
//! `openssl genrsa 2048` for the same number of keys, two processes at a time, in this one
//! process and run.
//!
//! Run: `cargo xtask bench [ROUNDS]`, or
//! `cargo run -p assets --release --example bench [ROUNDS]` (default 3 rounds; medians shown).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use assets::RunSettings;
use assets::cluster_pki::ClusterPki;
use assets::config::InstallConfigAsset;
use pki::SecretsBundle;

/// The install config `create pki --from-example compact-3-node` reads.
const EXAMPLE: &str = include_str!("../../../examples/compact-3-node.yaml");

fn install_config() -> InstallConfigAsset {
    InstallConfigAsset::parse(EXAMPLE.to_string(), "compact-3-node.yaml").expect("example")
}

/// How many RSA keys a run generates: every key of its secrets bundle.
fn key_count(secrets: &SecretsBundle) -> usize {
    secrets.cert_keys.len() + [&secrets.service_account, &secrets.bootstrap_ssh].len()
}

/// One fresh PKI (every key generated); its duration and its secrets bundle.
fn time_pki() -> (Duration, SecretsBundle) {
    let ic = install_config();
    let start = Instant::now();
    let pki = ClusterPki::generate(ic, &RunSettings::default()).expect("PKI");
    let elapsed = start.elapsed();
    (elapsed, pki.secrets().clone())
}

/// Everything but key generation: the same graph with every key (and no signer) taken from
/// `secrets`, the bundle of a PKI already timed (so no extra PKI is generated for it).
fn time_signing(mut secrets: SecretsBundle) -> Duration {
    secrets.signer_certs.clear();
    let settings = RunSettings {
        secrets: Some(secrets),
        ..RunSettings::default()
    };
    let ic = install_config();
    let start = Instant::now();
    let pki = ClusterPki::generate(ic, &settings);
    let elapsed = start.elapsed();
    std::hint::black_box(pki.expect("PKI from the bundle's keys"));
    elapsed
}

/// `keys` runs of `openssl genrsa 2048`, two worker threads each running its share serially.
fn time_openssl(keys: usize) -> Duration {
    let start = Instant::now();
    std::thread::scope(|scope| {
        for worker in 0..2 {
            scope.spawn(move || {
                for _ in (worker..keys).step_by(2) {
                    let status = Command::new("openssl")
                        .args(["genrsa", "2048"])
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .status()
                        .expect("openssl must be installed for the comparison");
                    assert!(status.success(), "openssl genrsa failed");
                }
            });
        }
    });
    start.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(3);
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    let mut last_secrets = None;
    for round in 0..rounds {
        let (p, secrets) = time_pki();
        let keys = key_count(&secrets);
        let o = time_openssl(keys);
        println!(
            "round {}: create pki assets {:>7.3}s   openssl genrsa 2048 x{keys} (2 at a time) {:>7.3}s",
            round + 1,
            p.as_secs_f64(),
            o.as_secs_f64()
        );
        ours.push(p);
        theirs.push(o);
        last_secrets = Some(secrets);
    }
    let (p, o) = (median(ours), median(theirs));
    println!(
        "signing part (the same graph, keys from a secrets bundle): {:.3}s",
        time_signing(last_secrets.expect("at least one round")).as_secs_f64()
    );
    println!(
        "median of {rounds}: create pki assets {:.3}s, openssl {:.3}s, ratio {:.2} (target <= 0.60)",
        p.as_secs_f64(),
        o.as_secs_f64(),
        p.as_secs_f64() / o.as_secs_f64()
    );
}
