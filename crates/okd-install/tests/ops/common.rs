//! Helpers of the operational tests alone: JSON output lines, the `.ign` files of a directory,
//! interrupting a run. What `tests/e2e` needs too is in `testkit::cli`.

use std::path::Path;
use std::process::Output;

use crate::support::{both, okd, stdout};

/// Every line of standard output parsed as one JSON object; panics on any other line.
pub(crate) fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    stdout(out)
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| {
                panic!("stdout line is not JSON ({e}): {line:?}\n{}", both(out))
            });
            assert!(value.is_object(), "not a JSON object: {line}");
            value
        })
        .collect()
}

/// Names of the `.ign` files in `dir`.
pub(crate) fn ign_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.ends_with(".ign"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Reads the child's standard error until a line contains `needle`, sends SIGINT with the
/// real `kill` command, and returns the exit status and everything written to stderr.
pub(crate) fn interrupt_after(
    mut child: std::process::Child,
    needle: &str,
) -> (std::process::ExitStatus, String) {
    use std::io::{BufRead, BufReader, Read};
    let mut pipe = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut seen = String::new();
    while !seen.contains(needle) {
        let mut line = String::new();
        let read = pipe.read_line(&mut line).expect("read stderr");
        if read == 0 {
            let _ = child.kill();
            panic!("okd-install ended before printing {needle:?}:\n{seen}");
        }
        seen.push_str(&line);
    }
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(kill.success(), "kill -INT {} failed", child.id());
    pipe.read_to_string(&mut seen).expect("read stderr");
    let status = child.wait().expect("wait for okd-install");
    (status, seen)
}

/// A work directory and in it `install/` with compact-3-node's Ignition configs.
pub(crate) fn compact_configs() -> (tempfile::TempDir, std::path::PathBuf) {
    let work = tempfile::tempdir().expect("temp dir");
    let install = work.path().join("install");
    okd(&install)
        .args([
            "create",
            "ignition-configs",
            "--from-example",
            "compact-3-node",
        ])
        .assert()
        .success();
    (work, install)
}
