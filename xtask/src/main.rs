//! Developer tasks, run as `cargo xtask <task>` from anywhere in the workspace.
//!
//! * `golden [--new-secrets]`: rewrite `tests/golden/` from the same deterministic runs the
//!   end-to-end golden test compares against (that test, run with `OKD_GOLDEN_UPDATE=1`), so
//!   the refresher and the check can never disagree. `--new-secrets` first deletes the
//!   committed bundle, which mints a new one and changes every key digest.
//! * `bench [ROUNDS]`: runs the `assets` crate's `bench` example in release mode: the PKI
//!   of `create pki`, resolved by the same asset graph, against `openssl genrsa 2048` for the
//!   same number of keys, two processes at a time, in the same process and run.
//! * `bench-iso [ROUNDS] [--size MIB]`: `okd-install create live-iso` (release build) against
//!   `coreos-installer iso ignition embed -o` on the same live ISO: wall time, peak memory.
//! * `bench-pulls [IMAGES] [ROUNDS]`: `okd-install verify --online=pulls` against a `skopeo
//!   inspect --raw` loop over the same IMAGES (200) images of the lab's real registry: ratio.

mod bench_iso;
mod bench_pulls;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};

const USAGE: &str = "usage: cargo xtask golden [--new-secrets] | cargo xtask bench [ROUNDS] | cargo xtask bench-iso [ROUNDS] [--size MIB] | cargo xtask bench-pulls [IMAGES] [ROUNDS]";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["golden"] => golden(false),
        ["golden", "--new-secrets"] => golden(true),
        ["bench"] => bench(3),
        ["bench", rounds] => bench(rounds.parse().context("ROUNDS must be a number")?),
        ["bench-iso", rest @ ..] => bench_iso::run(rest),
        ["bench-pulls", rest @ ..] => bench_pulls::run(rest),
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

/// One benchmark lives in the `assets` crate, next to the code it times; this only builds it
/// optimised and passes the rounds on.
fn bench(rounds: usize) -> Result<()> {
    ensure!(rounds > 0, "ROUNDS must be at least 1");
    run_checked(
        cargo().args([
            "run",
            "--release",
            "--quiet",
            "--package",
            "assets",
            "--example",
            "bench",
            "--",
            &rounds.to_string(),
        ]),
        "the PKI benchmark",
    )?;
    ignition_configs_bench(rounds)
}

/// What `create ignition-configs` is timed with: the example alone, and with ECDSA P-256
/// signers (both on the built-in default release, 5.0, where `pki` exists).
const IGNITION_SETUPS: [(&str, &str); 2] = [
    ("default (RSA-2048)", ""),
    (
        "ECDSA P-256 signers",
        "featureSet: TechPreviewNoUpgrade\npki:\n  signerCertificates:\n    key:\n      \
         algorithm: ECDSA\n      ecdsa:\n        curve: P256\n",
    ),
];

/// The whole `okd-install create ignition-configs` of compact-3-node (release build, fresh
/// keys), median wall time of `rounds` runs per setup.
fn ignition_configs_bench(rounds: usize) -> Result<()> {
    run_checked(
        cargo().args(["build", "--release", "--quiet", "--package", "okd-install"]),
        "cargo build --release -p okd-install",
    )?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    let binary = target.join("release/okd-install");
    let mut medians = Vec::new();
    for (name, extra) in IGNITION_SETUPS {
        let mut times = Vec::new();
        for _ in 0..rounds {
            times.push(time_ignition_configs(&binary, extra)?);
        }
        times.sort();
        medians.push((name, times[times.len() / 2]));
    }
    let line: Vec<String> = medians
        .iter()
        .map(|(name, t)| format!("{name} {:.3}s", t.as_secs_f64()))
        .collect();
    println!(
        "create ignition-configs (compact-3-node, median of {rounds}): {}",
        line.join(", ")
    );
    Ok(())
}

/// One `create ignition-configs` in a fresh directory whose install-config has `extra`
/// appended; the install-config step is not timed.
fn time_ignition_configs(binary: &Path, extra: &str) -> Result<std::time::Duration> {
    let work = tempfile::tempdir()?;
    let okd = |args: &[&str]| {
        let mut cmd = Command::new(binary);
        for var in [
            "SOURCE_DATE_EPOCH",
            "OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE",
        ] {
            cmd.env_remove(var);
        }
        cmd.arg("--dir").arg(work.path()).args(args);
        cmd.stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        cmd
    };
    let from_example = [
        "create",
        "install-config",
        "--from-example",
        "compact-3-node",
    ];
    run_checked(&mut okd(&from_example), "create install-config")?;
    let path = work.path().join(assets::layout::INSTALL_CONFIG);
    let config = std::fs::read_to_string(&path)?;
    std::fs::write(&path, format!("{config}\n{extra}"))?;
    let start = std::time::Instant::now();
    run_checked(
        &mut okd(&["create", "ignition-configs"]),
        "create ignition-configs",
    )?;
    Ok(start.elapsed())
}

// ---------------------------------------------------------------------------------------
// the binary the benchmarks run

/// Builds okd-install: the binary's path.
fn build_okd_install() -> Result<PathBuf> {
    run_checked(
        cargo().args(["build", "--quiet", "--package", "okd-install"]),
        "cargo build -p okd-install",
    )?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"));
    Ok(target.join("debug/okd-install"))
}
