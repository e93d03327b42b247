//! Times `generate_all` (26 RSA-2048 keys in parallel plus all signing) against
//! `openssl genrsa 2048` for the same number of keys, two processes at a time, in one run.
//!
//! Run: `cargo run -p pki --release --example bench [rounds]` (default 3 rounds; medians shown).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rand::SeedableRng as _;

/// 24 certificate keys + service account + bootstrap SSH.
const KEYS: usize = pki::CertId::ALL.len() + 2;

fn params() -> pki::ClusterParams {
    pki::ClusterParams {
        cluster_name: "bench".into(),
        base_domain: "example.com".into(),
        service_networks: vec!["172.30.0.0/16".parse().expect("net")],
        api_vips: Vec::new(),
    }
}

fn time_pki(seed: u64) -> Duration {
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
    let now = time::OffsetDateTime::now_utc();
    let start = Instant::now();
    let pki = pki::generate_all(&params(), now, &mut rng).expect("generate_all");
    let elapsed = start.elapsed();
    std::hint::black_box(pki);
    elapsed
}

/// Signing and bundling alone: everything `generate_all` does after key generation.
fn time_signing() -> Duration {
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
    let now = time::OffsetDateTime::now_utc();
    let mut secrets = pki::generate_all(&params(), now, &mut rng)
        .expect("pki")
        .to_secrets();
    secrets.signer_certs.clear();
    let start = Instant::now();
    let pki = pki::Pki::from_secrets(&secrets, &params(), now, pki::ValidityScale::Normal);
    let elapsed = start.elapsed();
    std::hint::black_box(pki.expect("from_secrets"));
    elapsed
}

/// `KEYS` runs of `openssl genrsa 2048`, two worker threads each running its share serially.
fn time_openssl() -> Duration {
    let start = Instant::now();
    std::thread::scope(|scope| {
        for worker in 0..2 {
            scope.spawn(move || {
                for _ in (worker..KEYS).step_by(2) {
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
        .unwrap_or(3);
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for round in 0..rounds {
        let p = time_pki(round as u64);
        let o = time_openssl();
        println!(
            "round {}: generate_all {:>7.3}s   openssl genrsa x{KEYS} (2 parallel) {:>7.3}s",
            round + 1,
            p.as_secs_f64(),
            o.as_secs_f64()
        );
        ours.push(p);
        theirs.push(o);
    }
    let (p, o) = (median(ours), median(theirs));
    println!(
        "signing part of generate_all (Pki::from_secrets, keys given): {:.3}s",
        time_signing().as_secs_f64()
    );
    println!(
        "median: generate_all {:.3}s, openssl {:.3}s, ratio {:.2} (target <= 0.60)",
        p.as_secs_f64(),
        o.as_secs_f64(),
        p.as_secs_f64() / o.as_secs_f64()
    );
}
