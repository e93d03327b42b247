//! `cargo xtask bench-iso [ROUNDS] [--size MIB]`: `okd-install create live-iso` against
//! `coreos-installer iso ignition embed -o` on the same live ISO (built in the real
//! layout by `testkit::liveiso`, `MIB` of payload, 1024 by default) with the same config,
//! in the same run: wall time and peak memory (the kernel's maximum resident set of each
//! child), medians over the rounds after one warm-up round each, and our/their ratios.
//!
//! Both read the ISO through the page cache, warm after the warm-up round. The difference
//! that remains is ours to explain: `create live-iso` syncs the copy to disk before renaming
//! it into place (a crash never leaves a half-written `ROLE.iso`), `coreos-installer` does not.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use testkit::liveiso::LiveIsoSpec;

use crate::{cargo, run_checked};

/// One child's cost.
#[derive(Debug, Clone, Copy)]
struct Cost {
    wall: Duration,
    /// Peak resident set, KiB.
    max_rss_kib: u64,
}

pub(crate) fn run(args: &[&str]) -> Result<()> {
    let (rounds, size_mib) = parse(args)?;
    for tool in ["coreos-installer", "xorriso"] {
        if Command::new(tool).arg("--version").output().is_err() {
            bail!(
                "bench-iso needs {tool} on PATH (cargo install --locked coreos-installer; apt-get install xorriso)"
            );
        }
    }
    run_checked(
        cargo().args(["build", "--release", "--quiet", "--package", "okd-install"]),
        "building okd-install (release)",
    )?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(Into::into)
        .unwrap_or_else(|| crate::root().join("target"));
    let okd = target.join("release/okd-install");
    let work = tempfile::tempdir()?;
    println!("building a {size_mib} MiB live ISO with xorriso");
    let spec = LiveIsoSpec {
        filler: size_mib << 20,
        ..LiveIsoSpec::default()
    };
    let iso = spec.build(work.path(), "live.iso").path;
    let dir = work.path().join("cluster");
    run_checked(
        Command::new(&okd)
            .args([
                "create",
                "ignition-configs",
                "--from-example",
                "compact-3-node",
            ])
            .arg("--dir")
            .arg(&dir)
            .stdout(Stdio::null()),
        "okd-install create ignition-configs",
    )?;
    let theirs_out = work.path().join("theirs.iso");
    let ours = || {
        let mut cmd = Command::new(&okd);
        cmd.args(["create", "live-iso", "--role", "worker", "--iso"])
            .arg(&iso)
            .arg("--dir")
            .arg(&dir);
        cmd
    };
    let theirs = || {
        let mut cmd = Command::new("coreos-installer");
        cmd.args(["iso", "ignition", "embed", "-i"])
            .arg(dir.join(assets::layout::WORKER_IGN))
            .arg("-o")
            .arg(&theirs_out)
            .arg(&iso);
        cmd
    };
    let (mut our_costs, mut their_costs) = (Vec::new(), Vec::new());
    for round in 0..=rounds {
        // Alternate who goes first, so neither always finds the other's pages cached.
        let (a, b) = if round % 2 == 0 {
            (
                measure(ours(), &dir.join("worker.iso"))?,
                measure(theirs(), &theirs_out)?,
            )
        } else {
            let b = measure(theirs(), &theirs_out)?;
            (measure(ours(), &dir.join("worker.iso"))?, b)
        };
        if round > 0 {
            our_costs.push(a);
            their_costs.push(b);
        }
    }
    report(rounds, size_mib, &our_costs, &their_costs);
    Ok(())
}

fn parse(args: &[&str]) -> Result<(usize, u64)> {
    let (mut rounds, mut size) = (3, 1024);
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match *arg {
            "--size" => {
                let value = args.next().context("--size needs MIB")?;
                size = value.parse().context("--size MIB must be a number")?;
            }
            other => rounds = other.parse().context("ROUNDS must be a number")?,
        }
    }
    ensure!(rounds > 0, "ROUNDS must be at least 1");
    ensure!(size > 0, "--size must be at least 1 MiB");
    Ok((rounds, size))
}

/// Runs `cmd` (its output, `out`, removed first) and reads its wall time and peak memory.
fn measure(mut cmd: Command, out: &Path) -> Result<Cost> {
    let _ = std::fs::remove_file(out);
    let started = Instant::now();
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {cmd:?}"))?;
    let (status, usage) = wait_with_usage(child.id())?;
    let wall = started.elapsed();
    ensure!(status == 0, "{cmd:?} failed (wait status {status})");
    Ok(Cost {
        wall,
        max_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or_default(),
    })
}

/// `wait4`: std's `Child::wait` does not return the child's resource usage, which is the
/// only way to read a finished process's peak memory.
fn wait_with_usage(pid: u32) -> Result<(i32, libc::rusage)> {
    let pid = libc::pid_t::try_from(pid).context("pid out of range")?;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for; both pointers are to live locals.
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    ensure!(got == pid, "wait4: {}", std::io::Error::last_os_error());
    Ok((status, usage))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn report(rounds: usize, size_mib: u64, ours: &[Cost], theirs: &[Cost]) {
    let secs = |c: &[Cost]| median(c.iter().map(|c| c.wall.as_secs_f64()).collect());
    let mib = |c: &[Cost]| median(c.iter().map(|c| c.max_rss_kib as f64 / 1024.0).collect());
    let (our_s, their_s) = (secs(ours), secs(theirs));
    let (our_m, their_m) = (mib(ours), mib(theirs));
    println!("live ISO of {size_mib} MiB, medians of {rounds} rounds (one warm-up round first)");
    println!("{:<44} {:>10} {:>14}", "", "wall (s)", "peak RSS (MiB)");
    println!(
        "{:<44} {our_s:>10.2} {our_m:>14.1}",
        "okd-install create live-iso"
    );
    println!(
        "{:<44} {their_s:>10.2} {their_m:>14.1}",
        "coreos-installer iso ignition embed -o"
    );
    println!(
        "{:<44} {:>9.2}x {:>13.2}x",
        "ratio (ours / theirs)",
        our_s / their_s,
        our_m / their_m
    );
}
