//! Developer tasks, run as `cargo xtask <task>` from anywhere in the workspace.
//!
//! * `golden [--new-secrets]`: rewrite `tests/golden/` from the same deterministic runs the
//!   end-to-end golden test compares against (that test, run with `OKD_GOLDEN_UPDATE=1`), so
//!   the refresher and the check can never disagree. `--new-secrets` first deletes the
//!   committed bundle, which mints a new one and changes every key digest.
//! * `bench [ROUNDS]`: times the release binary's `create pki` against `openssl genrsa 2048`
//!   for the same number of keys, two processes at a time, in the same run.
//! * `real-render [EXAMPLE...]`: runs each example's generated `bootkube.sh` for real against
//!   the OKD 4.19 payload stand-in (`../shared/okd-payload-4.19`, or `$OKD_PAYLOAD_DIR`) up
//!   to cluster-bootstrap and lists every problem with the renders (root and podman needed;
//!   the payload's load.sh installs podman).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};

const USAGE: &str = "usage: cargo xtask golden [--new-secrets] | cargo xtask bench [ROUNDS] | cargo xtask real-render [EXAMPLE...]";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["golden"] => golden(false),
        ["golden", "--new-secrets"] => golden(true),
        ["bench"] => bench(3),
        ["bench", rounds] => bench(rounds.parse().context("ROUNDS must be a number")?),
        ["real-render", examples @ ..] => real_render(examples),
        _ => bail!("{USAGE}"),
    }
}

/// The workspace root (xtask lives one level below it).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask is inside the workspace")
        .to_path_buf()
}

/// `cargo`, as the one running us when there is one.
fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(root());
    cmd
}

fn run_checked(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd.status().with_context(|| format!("starting {what}"))?;
    ensure!(status.success(), "{what} failed ({status})");
    Ok(())
}

// ---------------------------------------------------------------------------------------
// golden

fn golden(new_secrets: bool) -> Result<()> {
    let bundle = root().join("tests/golden/secrets.yaml");
    if new_secrets && bundle.exists() {
        std::fs::remove_file(&bundle).with_context(|| format!("removing {}", bundle.display()))?;
        println!("removed {}; a new bundle will be minted", bundle.display());
    }
    run_checked(
        cargo()
            .args([
                "test",
                "-p",
                "okd-install",
                "--test",
                "e2e",
                "--",
                "golden::",
            ])
            .env("OKD_GOLDEN_UPDATE", "1"),
        "the golden tests in update mode",
    )?;
    println!("\nchanged golden files (review before committing):");
    run_checked(
        Command::new("git")
            .current_dir(root())
            .args(["status", "--short", "--", "tests/golden"]),
        "git status",
    )
}

// ---------------------------------------------------------------------------------------
// bench

/// One round's measurements.
struct Round {
    pki: Duration,
    openssl: Duration,
}

fn bench(rounds: usize) -> Result<()> {
    ensure!(rounds > 0, "ROUNDS must be at least 1");
    run_checked(
        cargo().args(["build", "--release", "-p", "okd-install"]),
        "building the release binary",
    )?;
    let binary = target_dir().join("release/okd-install");
    ensure!(binary.exists(), "{} was not built", binary.display());
    let keys = count_generated_keys(&binary)?;
    println!("create pki generates {keys} RSA-2048 keys; openssl genrsa runs {keys} times");
    let mut results = Vec::new();
    for round in 1..=rounds {
        let r = Round {
            pki: time_create_pki(&binary)?,
            openssl: time_openssl(keys)?,
        };
        println!(
            "round {round}: okd-install create pki {:>7.3}s   openssl genrsa 2048 x{keys} \
             (2 at a time) {:>7.3}s",
            r.pki.as_secs_f64(),
            r.openssl.as_secs_f64()
        );
        results.push(r);
    }
    let pki = median(results.iter().map(|r| r.pki).collect());
    let openssl = median(results.iter().map(|r| r.openssl).collect());
    println!(
        "median of {rounds}: create pki {:.3}s, openssl {:.3}s, ratio pki/openssl {:.2}",
        pki.as_secs_f64(),
        openssl.as_secs_f64(),
        pki.as_secs_f64() / openssl.as_secs_f64()
    );
    Ok(())
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// `okd-install --dir DIR ARGS` with errors only, no fixed clock and no input.
fn okd(binary: &Path, dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(binary);
    cmd.arg("--dir")
        .arg(dir)
        .args(["--log-level", "error"])
        .args(args)
        .env_remove("SOURCE_DATE_EPOCH")
        .stdin(Stdio::null());
    cmd
}

/// Wall time of one `create pki` in an empty directory (every key generated).
fn time_create_pki(binary: &Path) -> Result<Duration> {
    let tmp = tempfile::tempdir()?;
    let mut cmd = okd(
        binary,
        tmp.path(),
        &["create", "pki", "--from-example", "compact-3-node"],
    );
    let start = Instant::now();
    run_checked(&mut cmd, "okd-install create pki")?;
    Ok(start.elapsed())
}

/// How many private keys one run generates: those in the secrets bundle of a fresh run.
fn count_generated_keys(binary: &Path) -> Result<usize> {
    let tmp = tempfile::tempdir()?;
    let bundle = tmp.path().join("bundle.yaml");
    run_checked(
        okd(
            binary,
            tmp.path(),
            &["create", "secrets", "--from-example", "compact-3-node"],
        )
        .arg("--output-file")
        .arg(&bundle),
        "okd-install create secrets",
    )?;
    let text = std::fs::read_to_string(&bundle)?;
    let keys = text
        .lines()
        .filter(|l| l.trim_start().starts_with("-----BEGIN") && l.contains("PRIVATE KEY"))
        .count();
    ensure!(keys > 0, "no private key in {}", bundle.display());
    Ok(keys)
}

/// Wall time of `keys` runs of `openssl genrsa 2048`, two workers each running its share.
fn time_openssl(keys: usize) -> Result<Duration> {
    let start = Instant::now();
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|w| s.spawn(move || openssl_share(w, keys)))
            .collect();
        workers
            .into_iter()
            .map(|h| h.join().expect("openssl worker panicked"))
            .collect::<Result<Vec<()>>>()
    })?;
    Ok(start.elapsed())
}

fn openssl_share(worker: usize, keys: usize) -> Result<()> {
    for _ in (worker..keys).step_by(2) {
        let status = Command::new("openssl")
            .args(["genrsa", "2048"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .context("running openssl (install the openssl package)")?;
        ensure!(status.success(), "openssl genrsa 2048 failed ({status})");
    }
    Ok(())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

// ---------------------------------------------------------------------------------------
// real-render

fn real_render(only: &[&str]) -> Result<()> {
    run_checked(
        cargo().args(["build", "--quiet", "--package", "okd-install"]),
        "cargo build -p okd-install",
    )?;
    let binary = root().join("target/debug/okd-install");
    let payload_dir = render_harness::default_payload_dir(&root());
    println!("loading the payload from {}", payload_dir.display());
    let payload = render_harness::Payload::load(&payload_dir)?;
    let examples: Vec<String> = if only.is_empty() {
        render_harness::shipped_examples(&root())
    } else {
        only.iter().map(|s| s.to_string()).collect()
    };
    let mut failed = Vec::new();
    for example in &examples {
        let work = tempfile::Builder::new()
            .prefix(&format!("real-render-{example}-"))
            .tempdir()?
            .keep();
        match render_harness::render_example(&binary, example, &payload, &work) {
            Ok(report) if report.findings.is_empty() => println!(
                "{example}: {} stages rendered, every output in place ({})",
                report.run.stages_done.len(),
                work.display()
            ),
            Ok(report) => {
                println!("{example}: problems ({}):", work.display());
                for finding in &report.findings {
                    println!("  {finding}");
                }
                failed.push(example.clone());
            }
            Err(e) => {
                println!("{example}: {e}");
                failed.push(example.clone());
            }
        }
    }
    ensure!(
        failed.is_empty(),
        "renders failed for {}",
        failed.join(", ")
    );
    Ok(())
}
