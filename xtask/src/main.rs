//! Developer tasks, run as `cargo xtask <task>` from anywhere in the workspace.
//!
//! * `golden [--new-secrets]`: rewrite `tests/golden/` from the same deterministic runs the
//!   end-to-end golden test compares against (that test, run with `OKD_GOLDEN_UPDATE=1`), so
//!   the refresher and the check can never disagree. `--new-secrets` first deletes the
//!   committed bundle, which mints a new one and changes every key digest.
//! * `bench [ROUNDS]`: runs the `assets` crate's `bench` example in release mode: the PKI
//!   of `create pki`, resolved by the same asset graph, against `openssl genrsa 2048` for the
//!   same number of keys, two processes at a time, in the same process and run.
//! * `real-render [EXAMPLE...]`: runs each example's generated `bootkube.sh` for real against
//!   the OKD 4.19 payload stand-in (`../shared/okd-payload-4.19`, or `$OKD_PAYLOAD_DIR`) up
//!   to cluster-bootstrap and lists every problem with the renders (root and podman needed;
//!   the payload's load.sh installs podman).

use std::path::{Path, PathBuf};
use std::process::Command;

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
    )
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
