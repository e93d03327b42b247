//! Times the PKI of `okd-install create pki` (the asset graph resolving every key in
//! parallel, then every certificate, bundle, kubeconfig and the password) for three signer
//! key kinds: the default (RSA-2048 everywhere), ECDSA P-256 signers and RSA-4096 signers
//! (OKD 5.0's `pki.signerCertificates`, RSA-2048 leaves). Each is set against its own floor,
//! measured in the same run: generating just the keys that PKI has, of the same kinds, on as
//! many threads as the asset graph uses. The default is also set against `openssl genrsa
//! 2048` for the same number of keys, two processes at a time.
//!
//! Run: `cargo xtask bench [ROUNDS]`, or
//! `cargo run -p assets --release --example bench [ROUNDS]` (default 3 rounds; medians shown).

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use assets::RunSettings;
use assets::cluster_pki::ClusterPki;
use assets::config::InstallConfigAsset;
use pki::{KeyKind, SecretsBundle};

/// The install config `create pki --from-example compact-3-node` reads.
const EXAMPLE: &str = include_str!("../../../examples/compact-3-node.yaml");

/// One configuration: its name, what it adds to the example, and whether it is on 5.0 (the
/// first release with `pki`); the default stays on the oldest release, as before.
struct Setup {
    name: &'static str,
    extra: &'static str,
    okd_5_0: bool,
}

const SETUPS: [Setup; 3] = [
    Setup {
        name: "default (RSA-2048)",
        extra: "",
        okd_5_0: false,
    },
    Setup {
        name: "ECDSA P-256 signers",
        extra: "featureSet: TechPreviewNoUpgrade\npki:\n  signerCertificates:\n    key:\n      \
                algorithm: ECDSA\n      ecdsa:\n        curve: P256\n",
        okd_5_0: true,
    },
    Setup {
        name: "RSA-4096 signers",
        extra: "featureSet: TechPreviewNoUpgrade\n",
        okd_5_0: true,
    },
];

impl Setup {
    fn install_config(&self) -> InstallConfigAsset {
        InstallConfigAsset::parse(format!("{EXAMPLE}\n{}", self.extra), "compact-3-node.yaml")
            .expect("example")
    }

    fn settings(&self) -> RunSettings {
        let mut settings = RunSettings::default();
        if self.okd_5_0 {
            let five = releases::Minor { major: 5, minor: 0 };
            settings.release.release = releases::table().get(five).expect("5.0 is supported");
        }
        settings
    }

    /// One fresh PKI (every key generated); its duration and its secrets bundle.
    fn time_pki(&self) -> (Duration, SecretsBundle) {
        let (ic, settings) = (self.install_config(), self.settings());
        let start = Instant::now();
        let pki = ClusterPki::generate(ic, &settings).expect("PKI");
        (start.elapsed(), pki.secrets().clone())
    }
}

/// The kind of every key a PKI generated: every key of its secrets bundle.
fn key_kinds(secrets: &SecretsBundle) -> Vec<KeyKind> {
    secrets
        .cert_keys
        .values()
        .chain([&secrets.service_account, &secrets.bootstrap_ssh])
        .map(pki::KeyPem::kind)
        .collect()
}

/// "3 ECDSA P256 + 37 RSA-2048": the kinds and how many of each.
fn describe(kinds: &[KeyKind]) -> String {
    let mut counts: Vec<(KeyKind, usize)> = Vec::new();
    for kind in kinds {
        match counts.iter_mut().find(|(k, _)| k == kind) {
            Some((_, n)) => *n += 1,
            None => counts.push((*kind, 1)),
        }
    }
    let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
    parts.join(" + ")
}

/// The floor: just `kinds` generated, on as many threads as the asset graph resolves with,
/// each taking the next key as it finishes one (as the graph's ready queue does).
fn time_keys(kinds: &[KeyKind]) -> Duration {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads.min(kinds.len()) {
            scope.spawn(|| {
                while let Some(kind) = kinds.get(next.fetch_add(1, Ordering::Relaxed)) {
                    std::hint::black_box(pki::generate_key(*kind).expect("keygen"));
                }
            });
        }
    });
    start.elapsed()
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

/// The medians of one setup: PKI, floor, and openssl (default only).
struct Medians {
    pki: Duration,
    floor: Duration,
    openssl: Option<Duration>,
    keys: String,
}

fn measure(setup: &Setup, rounds: usize, with_openssl: bool) -> Medians {
    let (mut pkis, mut floors, mut openssls) = (Vec::new(), Vec::new(), Vec::new());
    let mut keys = String::new();
    for round in 0..rounds {
        let (p, secrets) = setup.time_pki();
        let kinds = key_kinds(&secrets);
        let f = time_keys(&kinds);
        keys = describe(&kinds);
        let mut line = format!(
            "{} round {}: create pki assets {:>7.3}s   its keys alone {:>7.3}s",
            setup.name,
            round + 1,
            p.as_secs_f64(),
            f.as_secs_f64()
        );
        if with_openssl {
            let o = time_openssl(kinds.len());
            line.push_str(&format!(
                "   openssl genrsa 2048 x{} (2 at a time) {:>7.3}s",
                kinds.len(),
                o.as_secs_f64()
            ));
            openssls.push(o);
        }
        println!("{line}");
        pkis.push(p);
        floors.push(f);
    }
    Medians {
        pki: median(pkis),
        floor: median(floors),
        openssl: (!openssls.is_empty()).then(|| median(openssls)),
        keys,
    }
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(3);
    let results: Vec<(&Setup, Medians)> = SETUPS
        .iter()
        .enumerate()
        .map(|(i, s)| (s, measure(s, rounds, i == 0)))
        .collect();
    println!("\nmedian of {rounds} rounds:");
    println!("| PKI of compact-3-node | keys | create pki assets | its keys alone | ratio |");
    println!("|---|---|---|---|---|");
    for (setup, m) in &results {
        println!(
            "| {} | {} | {:.3} s | {:.3} s | {:.2}x |",
            setup.name,
            m.keys,
            m.pki.as_secs_f64(),
            m.floor.as_secs_f64(),
            m.pki.as_secs_f64() / m.floor.as_secs_f64()
        );
    }
    if let Some((_, m)) = results.first()
        && let Some(o) = m.openssl
    {
        println!(
            "default against openssl genrsa 2048 (2 at a time): {:.3}s / {:.3}s, ratio {:.2} \
             (target <= 0.60)",
            m.pki.as_secs_f64(),
            o.as_secs_f64(),
            m.pki.as_secs_f64() / o.as_secs_f64()
        );
    }
}
