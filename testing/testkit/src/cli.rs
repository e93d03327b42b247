//! What the binary's tests (`tests/e2e`, `tests/ops`) share: running the built `okd-install`
//! in a clean environment, its output as text, and reading files back out of a generated
//! Ignition config.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

/// Environment variables of the caller that would change what the binary generates or does:
/// the deterministic clock, installer overrides, the help width and the SSH agent.
const ISOLATED_ENV: &[&str] = &[
    "SOURCE_DATE_EPOCH",
    "OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE",
    "OPENSHIFT_INSTALL_LOAD_CLUSTER_CERTS",
    "OPENSHIFT_INSTALL_INVOKER",
    "OPENSHIFT_INSTALL_BOOTSTRAP_NODE_IP",
    "OPENSHIFT_INSTALL_EXPERIMENTAL_CLUSTER_PROFILE",
    "OKD_INSTALL_CACHE_DIR",
    "COLUMNS",
    "SSH_AUTH_SOCK",
];

/// The repository root (two levels above this crate's directory).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Path of the built `okd-install` (Cargo builds it before running integration tests).
pub fn bin_path() -> PathBuf {
    assert_cmd::cargo::cargo_bin("okd-install")
}

/// The built `okd-install`, with `--dir dir` and a clean environment.
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

/// Exit code and both streams, for assertion messages.
pub fn both(out: &Output) -> String {
    format!(
        "exit: {:?}\n--- stdout ---\n{}--- stderr ---\n{}",
        out.status.code(),
        stdout(out),
        stderr(out)
    )
}

/// Reads a file as text, naming it on failure.
pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The contents of `path` inside the Ignition config text `ign` (None when absent or remote),
/// decoded the way the binary itself decodes them ([`ignition::inline_contents`]).
pub fn ign_file(ign: &str, path: &str) -> Option<Vec<u8>> {
    let value: serde_json::Value = serde_json::from_str(ign).expect("Ignition JSON");
    let files = value.pointer("/storage/files")?.as_array()?;
    let file = files.iter().find(|f| f["path"] == path)?;
    ignition::inline_contents(&file["contents"]).expect("inline contents")
}

/// Every file of the Ignition config text `ign` that has inline contents, decoded like
/// [`ign_file`], in config order; the config is parsed once.
pub fn ign_files(ign: &str) -> Vec<(String, Vec<u8>)> {
    let value: serde_json::Value = serde_json::from_str(ign).expect("Ignition JSON");
    let files = value["storage"]["files"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    files
        .iter()
        .filter_map(|f| {
            let data = ignition::inline_contents(&f["contents"]).expect("inline contents")?;
            Some((f["path"].as_str()?.to_string(), data))
        })
        .collect()
}

/// Like [`ign_file`], as text, panicking when the path is missing.
pub fn ign_text(ign: &str, path: &str) -> String {
    let data = ign_file(ign, path).unwrap_or_else(|| panic!("{path} is not in the config"));
    String::from_utf8(data).expect("UTF-8 contents")
}
