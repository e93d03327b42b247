//! Helpers shared by the tests: running the binary, checking for external tools, reading
//! its output.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

/// Environment variables of the caller that would change what the binary does.
const ISOLATED_ENV: &[&str] = &[
    "SOURCE_DATE_EPOCH",
    "OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE",
    "OPENSHIFT_INSTALL_LOAD_CLUSTER_CERTS",
    "OPENSHIFT_INSTALL_INVOKER",
    "OPENSHIFT_INSTALL_BOOTSTRAP_NODE_IP",
    "OPENSHIFT_INSTALL_EXPERIMENTAL_CLUSTER_PROFILE",
    "SSH_AUTH_SOCK",
];

/// Path of the built `okd-install` (Cargo builds it before running these tests).
pub fn bin_path() -> PathBuf {
    assert_cmd::cargo::cargo_bin("okd-install")
}

/// The binary with `--dir dir` and a clean environment.
pub fn okd(dir: &Path) -> Command {
    let mut cmd = Command::new(bin_path());
    for var in ISOLATED_ENV {
        cmd.env_remove(var);
    }
    cmd.arg("--dir").arg(dir);
    cmd
}

/// Standard output as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Both streams, for assertion messages.
pub fn both(out: &Output) -> String {
    format!(
        "exit: {:?}\n--- stdout ---\n{}--- stderr ---\n{}",
        out.status.code(),
        stdout(out),
        stderr(out)
    )
}

/// Whether `program` can be run. When it cannot, a test fails in CI (CI=true) and prints a
/// skip line elsewhere, naming the Debian package to install.
pub fn tool_available(program: &str, package: &str) -> bool {
    let runs = std::process::Command::new(program)
        .arg("-h")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok();
    if runs {
        return true;
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{program} is missing: install the Debian package {package}");
    }
    eprintln!("skipping: {program} is not installed (apt-get install {package})");
    false
}

/// Every line of standard output parsed as one JSON object; panics on any other line.
pub fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    stdout(out)
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}\n{}", both(out)));
            assert!(value.is_object(), "not a JSON object: {line}");
            value
        })
        .collect()
}
