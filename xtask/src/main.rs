//! Developer tasks, run as `cargo xtask <task>` from anywhere in the workspace.
//!
//! * `golden [--new-secrets]`: rewrite `tests/golden/` from the same deterministic runs the
//!   end-to-end golden test compares against (that test, run with `OKD_GOLDEN_UPDATE=1`), so
//!   the refresher and the check can never disagree. `--new-secrets` first deletes the
//!   committed bundle, which mints a new one and changes every key digest.
//! * `bench [ROUNDS]`: runs the `assets` crate's `bench` example in release mode: the PKI
//!   of `create pki`, resolved by the same asset graph, against `openssl genrsa 2048` for the
//!   same number of keys, two processes at a time, in the same process and run.
//! * `real-render [EXAMPLE...]`: for each example, runs the generated `bootkube.sh` for real
//!   against every payload stand-in beside the workspace (`../shared/okd-payload-<release>`,
//!   4.19 today; or `$OKD_PAYLOAD_DIR` alone): first its renders and the node configs, then
//!   the whole bootstrap on the payload's real control plane in a sandbox; lists every
//!   problem (root and podman needed; the payload's load.sh installs podman).
//! * `real-render --example NAME --keep`: the whole bootstrap of one example, left running
//!   for a person: the last lines say `NETNS=`, `KUBECONFIG=`, `ASSETS=` (and `MASTER_IGN=`
//!   for single node). `real-render --stop NETNS` takes such a run down.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};

const USAGE: &str = "usage: cargo xtask golden [--new-secrets] | cargo xtask bench [ROUNDS] | cargo xtask real-render [EXAMPLE...] | cargo xtask real-render --example NAME --keep | cargo xtask real-render --stop NETNS";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["golden"] => golden(false),
        ["golden", "--new-secrets"] => golden(true),
        ["bench"] => bench(3),
        ["bench", rounds] => bench(rounds.parse().context("ROUNDS must be a number")?),
        ["real-render", "--example", example, "--keep"] => keep_bootstrap(example),
        ["real-render", "--stop", netns] => stop_bootstrap(netns),
        ["real-render", examples @ ..] if !examples.iter().any(|e| e.starts_with('-')) => {
            real_render(examples)
        }
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

/// Imports the payload of `dir` into podman.
fn load(dir: &Path) -> Result<render_harness::Payload> {
    println!("loading the payload from {}", dir.display());
    Ok(render_harness::Payload::load(dir)?)
}

/// A work directory for `example` that outlives the run.
fn work_dir(what: &str, example: &str) -> Result<PathBuf> {
    Ok(tempfile::Builder::new()
        .prefix(&format!("{what}-{example}-"))
        .tempdir()?
        .keep())
}

/// Every example (or those named) on every payload beside the workspace: the renders, then
/// the whole bootstrap.
fn real_render(only: &[&str]) -> Result<()> {
    let binary = build_okd_install()?;
    let examples: Vec<String> = if only.is_empty() {
        render_harness::shipped_examples(&root())
    } else {
        only.iter().map(|s| s.to_string()).collect()
    };
    let mut failed = Vec::new();
    for dir in render_harness::payload_dirs(&root()) {
        let payload = load(&dir)?;
        for example in &examples {
            let name = format!("{} {example}", payload.release.version);
            if !renders(&binary, example, &payload)? {
                failed.push(name.clone());
            }
            if !bootstraps(&binary, example, &payload)? {
                failed.push(format!("{name} (bootstrap)"));
            }
        }
    }
    ensure!(
        failed.is_empty(),
        "real-render failed for {}",
        failed.join(", ")
    );
    Ok(())
}

/// The renders and node configs of `example`; whether all was well.
fn renders(binary: &Path, example: &str, payload: &render_harness::Payload) -> Result<bool> {
    let work = work_dir("real-render", example)?;
    match render_harness::render_example(binary, example, payload, &work) {
        Ok(report) if report.findings.is_empty() => {
            println!(
                "{example}: {} stages rendered, every output in place ({})",
                report.run.stages_done.len(),
                work.display()
            );
            Ok(true)
        }
        Ok(report) => {
            println!("{example}: problems ({}):", work.display());
            for finding in &report.findings {
                println!("  {finding}");
            }
            Ok(false)
        }
        Err(e) => {
            println!("{example}: {e}");
            Ok(false)
        }
    }
}

/// The whole bootstrap of `example`; whether all was well.
fn bootstraps(binary: &Path, example: &str, payload: &render_harness::Payload) -> Result<bool> {
    let work = work_dir("real-bootstrap", example)?;
    let options = render_harness::BootstrapOptions::default();
    let report = render_harness::bootstrap_example(binary, example, payload, &work, &options)?;
    if report.findings.is_empty() {
        println!(
            "{example}: the bootstrap ran to its end ({})",
            work.display()
        );
        return Ok(true);
    }
    println!("{example}: bootstrap problems ({}):", work.display());
    for finding in &report.findings {
        println!("  {finding}");
    }
    Ok(false)
}

/// The whole bootstrap of `example`, left running: sandbox, containers, API server.
fn keep_bootstrap(example: &str) -> Result<()> {
    let binary = build_okd_install()?;
    let payload = load(&render_harness::default_payload_dir(&root()))?;
    let work = work_dir("real-bootstrap", example)?;
    let options = render_harness::BootstrapOptions {
        keep: true,
        ..Default::default()
    };
    let report = render_harness::bootstrap_example(&binary, example, &payload, &work, &options)?;
    for line in &report.kubelet {
        println!("kubelet: {line}");
    }
    for line in &report.stand_ins {
        println!("stand-in: {line}");
    }
    for finding in &report.findings {
        println!("problem: {finding}");
    }
    println!("stages done: {}", report.stages_done.join(" "));
    println!("unit logs: {}", report.logs.display());
    println!("enter it: {}", report.sandbox.enter_line());
    println!(
        "take it down: cargo xtask real-render --stop {}",
        report.sandbox.name
    );
    println!("NETNS={}", report.sandbox.name);
    println!("KUBECONFIG={}", report.kubeconfig.display());
    println!("ASSETS={}", report.host.assets().display());
    if let Some(master_ign) = &report.master_ign {
        println!("MASTER_IGN={}", master_ign.display());
    }
    Ok(())
}

/// Takes down a run left by `--keep`.
fn stop_bootstrap(netns: &str) -> Result<()> {
    let payload = render_harness::Payload::load(&render_harness::default_payload_dir(&root()))?;
    let sandbox = render_harness::Sandbox {
        name: netns.to_string(),
        addresses: Vec::new(),
    };
    sandbox.remove_run(&payload);
    println!(
        "removed {netns} (and its installed node's sandbox, if any): its processes, containers and namespaces"
    );
    Ok(())
}
