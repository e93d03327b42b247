//! Ctrl-C (SIGINT) during `create` ends the process with exit code 8.

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::support::bin_path;

/// What one attempt observed.
enum Attempt {
    /// The process ended with this status after the signal.
    Interrupted(ExitStatus),
    /// The process had already finished before the signal could be sent.
    FinishedFirst(ExitStatus),
}

/// Starts `create ignition-configs`, waits until it has set up logging (its log file exists),
/// waits `delay` more and sends SIGINT with the real `kill` command.
fn attempt(dir: &Path, example: &str, delay: Duration) -> Attempt {
    let mut child = Command::new(bin_path())
        .args([
            "create",
            "ignition-configs",
            "--from-example",
            example,
            "--dir",
        ])
        .arg(dir)
        .env_remove("SOURCE_DATE_EPOCH")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start okd-install");
    let log = dir.join(".okd-install.log");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !log.exists() && Instant::now() < deadline {
        if let Some(status) = child.try_wait().expect("poll child") {
            return Attempt::FinishedFirst(status);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(delay);
    if let Some(status) = child.try_wait().expect("poll child") {
        return Attempt::FinishedFirst(status);
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(kill.success(), "kill -INT failed");
    let output = child.wait_with_output().expect("wait for okd-install");
    eprintln!("{}", String::from_utf8_lossy(&output.stderr));
    Attempt::Interrupted(output.status)
}

#[test]
fn sigint_during_create_exits_8() {
    // Start 150 ms after logging is set up (the handler is installed right after it). A run
    // that finished first is retried sooner; a run killed by the signal itself (before the
    // handler was installed, e.g. on a loaded machine) is retried later. Three attempts.
    let mut delay = Duration::from_millis(150);
    let mut seen = Vec::new();
    for _ in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        match attempt(dir.path(), "ha-workers", delay) {
            Attempt::Interrupted(status) if status.code().is_none() => {
                seen.push(format!("{delay:?}: killed by the signal itself ({status})"));
                delay *= 2;
            }
            Attempt::Interrupted(status) => {
                assert_eq!(
                    status.code(),
                    Some(8),
                    "SIGINT {delay:?} into `create ignition-configs` should exit 8, got {status}"
                );
                assert_no_half_written_ign(dir.path());
                return;
            }
            Attempt::FinishedFirst(status) => {
                seen.push(format!("{delay:?}: finished before the signal ({status})"));
                delay /= 3;
            }
        }
    }
    panic!(
        "inconclusive after 3 attempts, SIGINT never reached a running okd-install with its \
         handler installed:\n{}",
        seen.join("\n")
    );
}

/// Every .ign present after the interrupt is complete JSON (files are renamed into place).
fn assert_no_half_written_ign(dir: &Path) {
    for ign in crate::common::ign_files(dir) {
        let text = std::fs::read_to_string(dir.join(&ign)).unwrap();
        serde_json::from_str::<serde_json::Value>(&text)
            .unwrap_or_else(|e| panic!("{ign} is half-written after SIGINT: {e}"));
    }
}
