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
//! * `real-render [EXAMPLE...]`: for each example, runs the generated `bootkube.sh` for real
//!   against the payload stand-in `$OKD_PAYLOAD_DIR` names (none ships with the project; the
//!   payload tasks fail at once without it): first its renders and the node configs, then
//!   the whole bootstrap on the payload's real control plane in a sandbox; lists every
//!   problem (root and podman needed; the payload's load.sh installs podman).
//! * `real-render --example NAME [--fault F] [--dir D] [--keep [--for DURATION]]`: the whole
//!   bootstrap of one example (or of an asset directory D the caller prepared), with one fault
//!   of `render_harness::FAULTS` injected; `--keep` leaves it running for a person and returns
//!   when bootkube.sh ends or after DURATION (`90s`, `10m`): the last lines say `NETNS=`,
//!   `KUBECONFIG=`, `ASSETS=`, `BOOTSTRAP=` (and `MASTER_IGN=` for single node).
//!   `real-render --stop NETNS` takes such a run down.
//! * `faults [--evidence DIR] [FAULT...]`: every fault of `render_harness::FAULTS` (or those
//!   named) on the compact-3-node bootstrap: injected, shown on the host, diagnosed by
//!   `wait-for`, removed and recovered; one pass/fail line per fault.

mod bench_iso;
mod bench_pulls;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};

const USAGE: &str = "usage: cargo xtask golden [--new-secrets] | cargo xtask bench [ROUNDS] | cargo xtask bench-iso [ROUNDS] [--size MIB] | cargo xtask bench-pulls [IMAGES] [ROUNDS] | cargo xtask real-render [EXAMPLE...] | cargo xtask real-render --example NAME [--fault F] [--dir D] [--keep [--for DURATION]] | cargo xtask real-render --stop NETNS | cargo xtask faults [--evidence DIR] [FAULT...]";

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
        ["real-render", "--stop", netns] => stop_bootstrap(netns),
        ["real-render", "--example", ..] | ["real-render", "--dir", ..] => {
            one_bootstrap(&OneRun::parse(&args[1..])?)
        }
        ["faults", rest @ ..] => faults(rest),
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
    let path = work.path().join("install-config.yaml");
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

/// Imports the payload `$OKD_PAYLOAD_DIR` names into podman; without one, fails at once with
/// the one line that says how to name it (no payload ships with the project).
fn load() -> Result<render_harness::Payload> {
    let dir = render_harness::payload_dir()?;
    println!("loading the payload from {}", dir.display());
    Ok(render_harness::Payload::load(&dir)?)
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
    let payload = load()?;
    for example in &examples {
        let name = format!("{} {example}", payload.release.version);
        if !renders(&binary, example, &payload)? {
            failed.push(name.clone());
        }
        if !bootstraps(&binary, example, &payload)? {
            failed.push(format!("{name} (bootstrap)"));
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

/// `real-render --example NAME [--fault F] [--dir D] [--keep [--for DURATION]]`.
#[derive(Debug, Default)]
struct OneRun {
    example: Option<String>,
    fault: Option<&'static render_harness::Fault>,
    dir: Option<PathBuf>,
    keep: bool,
    keep_for: Option<std::time::Duration>,
}

impl OneRun {
    fn parse(args: &[&str]) -> Result<OneRun> {
        let mut run = OneRun::default();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = || {
                it.next()
                    .copied()
                    .with_context(|| format!("{arg} needs a value"))
            };
            match *arg {
                "--example" => run.example = Some(value()?.to_string()),
                "--fault" => {
                    let name = value()?;
                    run.fault = Some(render_harness::faults::fault(name).with_context(|| {
                        format!(
                            "no fault {name}; the faults are: {}",
                            fault_names().join(", ")
                        )
                    })?);
                }
                "--dir" => run.dir = Some(PathBuf::from(value()?)),
                "--keep" => run.keep = true,
                "--for" => run.keep_for = Some(duration(value()?)?),
                _ => bail!("{USAGE}"),
            }
        }
        ensure!(run.keep_for.is_none() || run.keep, "--for goes with --keep");
        if run.example.is_none() && run.dir.is_none() {
            bail!("{USAGE}");
        }
        Ok(run)
    }
}

fn fault_names() -> Vec<&'static str> {
    render_harness::FAULTS.iter().map(|f| f.name).collect()
}

/// `90`, `90s`, `10m`, `1h`.
fn duration(text: &str) -> Result<std::time::Duration> {
    let (number, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((at, _)) => text.split_at(at),
        None => (text, "s"),
    };
    let n: u64 = number
        .parse()
        .with_context(|| format!("{text:?} is not a duration (90s, 10m, 1h)"))?;
    let seconds = match unit {
        "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        _ => bail!("{text:?} is not a duration (90s, 10m, 1h)"),
    };
    Ok(std::time::Duration::from_secs(seconds))
}

/// One whole bootstrap, with a fault or the caller's directory, kept or not.
fn one_bootstrap(one: &OneRun) -> Result<()> {
    let binary = build_okd_install()?;
    let payload = load()?;
    let example = one
        .example
        .clone()
        .unwrap_or_else(|| "compact-3-node".into());
    let work = work_dir("real-bootstrap", &example)?;
    let options = render_harness::BootstrapOptions {
        keep: one.keep,
        keep_for: one.keep.then(|| {
            one.keep_for
                .unwrap_or(std::time::Duration::from_secs(25 * 60))
        }),
        fault: one.fault,
        recover: !one.keep,
        evidence: one.fault.map(|_| work.join("evidence")),
        dir: one.dir.clone(),
        ..Default::default()
    };
    let report = render_harness::bootstrap_example(&binary, &example, &payload, &work, &options)?;
    if let Some(fault) = &report.fault {
        print_fault(fault);
    }
    if !one.keep {
        for finding in &report.findings {
            println!("problem: {finding}");
        }
        ensure!(
            report.findings.is_empty(),
            "the bootstrap had problems ({})",
            work.display()
        );
        println!("the bootstrap ran to its end ({})", work.display());
        return Ok(());
    }
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
    println!(
        "take it down: cargo xtask real-render --stop {}",
        report.sandbox.name
    );
    println!("enter it: {}", report.sandbox.enter_line());
    println!("NETNS={}", report.sandbox.name);
    println!("KUBECONFIG={}", report.kubeconfig.display());
    println!("ASSETS={}", report.host.assets().display());
    if let Some(address) = report.sandbox.addresses.first() {
        println!("BOOTSTRAP={address}");
    }
    println!("SSH_PORT={}", render_harness::sshd::SSH_PORT);
    if let Some(master_ign) = &report.master_ign {
        println!("MASTER_IGN={}", master_ign.display());
    }
    Ok(())
}

/// Takes down a run left by `--keep`.
fn stop_bootstrap(netns: &str) -> Result<()> {
    let payload = load()?;
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

/// What a fault did, for a person.
fn print_fault(fault: &render_harness::FaultReport) {
    match &fault.host_error_line {
        Some((file, line)) => println!("fault {}: the host says ({file}): {line}", fault.name),
        None => println!("fault {}: did not show on the host", fault.name),
    }
    if let Some((code, out, _)) = &fault.wait_for_json {
        let cause = diagnosed_cause(out);
        println!(
            "fault {}: wait-for exited {code}, cause {}",
            fault.name,
            cause.as_deref().unwrap_or("(none named)")
        );
    }
    if let Some(evidence) = &fault.evidence {
        println!("fault {}: evidence in {}", fault.name, evidence.display());
    }
}

/// The `cause` wait-for's JSON events name, if any.
fn diagnosed_cause(json_lines: &str) -> Option<String> {
    json_lines.lines().find_map(|line| {
        let at = line.find("\"cause\"")?;
        let rest = line[at + 7..].trim_start().strip_prefix(':')?.trim_start();
        let rest = rest.strip_prefix('"')?;
        Some(rest[..rest.find('"')?].to_string())
    })
}

// ---------------------------------------------------------------------------------------
// faults

/// Every fault of the table (or those named) on compact-3-node, one after another: each
/// must show its own error line on the host, be named by wait-for and by gather's analysis
/// with its cause, and the same bootstrap must complete once it is removed (the clock
/// faults: configs made again).
fn faults(args: &[&str]) -> Result<()> {
    let mut evidence_root: Option<PathBuf> = None;
    let mut names = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match *arg {
            "--evidence" => {
                evidence_root = Some(PathBuf::from(
                    it.next().context("--evidence needs a value")?,
                ))
            }
            name if !name.starts_with('-') => names.push(name.to_string()),
            _ => bail!("{USAGE}"),
        }
    }
    let chosen: Vec<&'static render_harness::Fault> = if names.is_empty() {
        render_harness::FAULTS.iter().collect()
    } else {
        names
            .iter()
            .map(|n| {
                render_harness::faults::fault(n).with_context(|| {
                    format!("no fault {n}; the faults are: {}", fault_names().join(", "))
                })
            })
            .collect::<Result<_>>()?
    };
    let binary = build_okd_install()?;
    let payload = load()?;
    let mut lines = Vec::new();
    for fault in chosen {
        let work = work_dir("fault", fault.name)?;
        let evidence = evidence_root
            .as_ref()
            .map(|r| r.join(fault.name))
            .unwrap_or_else(|| work.join("evidence"));
        let options = render_harness::BootstrapOptions {
            fault: Some(fault),
            recover: true,
            evidence: Some(evidence),
            ..Default::default()
        };
        let line = match render_harness::bootstrap_example(
            &binary,
            "compact-3-node",
            &payload,
            &work,
            &options,
        ) {
            Ok(report) => {
                if let Some(f) = &report.fault {
                    print_fault(f);
                }
                let mut line = verdict(fault, &report);
                if !fault.recovers_in_place && line.starts_with("PASS") {
                    line = recover_anew(&binary, fault, &payload, &report, &work, line)?;
                }
                line
            }
            Err(e) => format!("FAIL {}: {e}", fault.name),
        };
        println!("{line}");
        lines.push(line);
    }
    println!();
    for line in &lines {
        println!("{line}");
    }
    ensure!(
        lines.iter().all(|l| l.starts_with("PASS")),
        "some faults failed"
    );
    Ok(())
}

/// The recovery of a fault that needs configs made again (the clock faults): `create
/// ignition-configs` in the same install directory without the fault, and a new bootstrap
/// from those configs, which must run to its end.
fn recover_anew(
    binary: &Path,
    fault: &render_harness::Fault,
    payload: &render_harness::Payload,
    failed: &render_harness::BootstrapReport,
    work: &Path,
    line: String,
) -> Result<String> {
    let options = render_harness::BootstrapOptions {
        dir: Some(failed.dir.clone()),
        sandbox: Some(render_harness::fault_sandbox_name(fault)),
        ..Default::default()
    };
    let again = work.join("recovery");
    std::fs::create_dir_all(&again)?;
    let report =
        render_harness::bootstrap_example(binary, "compact-3-node", payload, &again, &options)?;
    Ok(if report.findings.is_empty() {
        format!("{line}; recovered with configs made again")
    } else {
        format!(
            "FAIL {} ({}): configs made again did not complete: {}",
            fault.name,
            fault.expected.id(),
            findings_line(&report)
        )
    })
}

/// A report's findings on one line.
fn findings_line(report: &render_harness::BootstrapReport) -> String {
    let all: Vec<String> = report.findings.iter().map(|x| x.to_string()).collect();
    all.join("; ")
}

/// The pass/fail line of one fault run.
fn verdict(fault: &render_harness::Fault, report: &render_harness::BootstrapReport) -> String {
    let mut wrong = Vec::new();
    let f = report.fault.clone().unwrap_or_default();
    if f.host_error_line.is_none() {
        wrong.push("the fault did not show on the host".to_string());
    }
    for (who, json) in [
        ("wait-for", &f.wait_for_json),
        ("gather's analysis", &f.analyze_json),
    ] {
        let cause = json.as_ref().and_then(|(_, out, _)| diagnosed_cause(out));
        if cause.as_deref() != Some(fault.expected.id()) {
            wrong.push(format!(
                "{who} named {} instead of {}",
                cause.as_deref().unwrap_or("no cause"),
                fault.expected.id()
            ));
        }
    }
    if fault.recovers_in_place && !report.findings.is_empty() {
        wrong.push(format!("no recovery: {}", findings_line(report)));
    }
    let shown = f
        .host_error_line
        .map(|(file, line)| format!(" [{file}: {line}]"))
        .unwrap_or_default();
    if wrong.is_empty() {
        format!("PASS {} ({}){shown}", fault.name, fault.expected.id())
    } else {
        format!(
            "FAIL {} ({}): {}{shown}",
            fault.name,
            fault.expected.id(),
            wrong.join("; ")
        )
    }
}
