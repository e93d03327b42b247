//! Helpers of the end-to-end tests alone: the deterministic settings, runs of `create`, the
//! files each example produces. What `tests/ops` needs too is in `testkit::cli`.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::support::{okd, repo_root, stderr, stdout};

/// The fixed clock of deterministic runs: 2026-01-01T00:00:00Z. The committed secrets bundle
/// was minted at this instant, so its signers are fresh for every golden run.
pub(crate) const EPOCH: u64 = 1_767_225_600;

/// Every shipped example, as `--from-example` names it.
pub(crate) const EXAMPLES: &[&str] = &[
    "baremetal-hosts",
    "bootstrap-pivot",
    "compact-3-node",
    "disconnected-mirror",
    "dual-stack",
    "ha-workers",
    "image-mode",
    "proxy-trust-bundle",
    "single-node",
];

/// `tests/golden/` at the repository root.
pub(crate) fn golden_root() -> PathBuf {
    repo_root().join("tests/golden")
}

/// The committed secrets bundle every deterministic run reuses.
pub(crate) fn secrets_bundle() -> PathBuf {
    golden_root().join("secrets.yaml")
}

/// The release image of the deterministic runs (unless a test gives `--release-image`): an
/// OKD 4.19 release, the one whose bootstrap was proven on the real operators (the README's
/// "Proven earlier on the OKD 4.19 payload"), so the golden files of every example show the
/// bootstrap that is known to work.
pub(crate) const GOLDEN_RELEASE_IMAGE: &str = "quay.io/okd/scos-release:4.19.0-okd-scos.19";

/// Runs `okd-install create ...` (`args` start after `create`) in deterministic mode: fixed
/// clock at `epoch` plus the committed bundle, installing [`GOLDEN_RELEASE_IMAGE`] unless
/// `args` name another release image.
pub(crate) fn create_at(dir: &Path, epoch: u64, args: &[&str]) -> Run {
    let mut cmd = okd(dir);
    cmd.env("SOURCE_DATE_EPOCH", epoch.to_string())
        .env(
            "OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE",
            GOLDEN_RELEASE_IMAGE,
        )
        .arg("create");
    let bundle = secrets_bundle().display().to_string();
    let args: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--with-secrets", &bundle])
        .collect();
    run(cmd, &args)
}

/// What one run of the binary did.
#[derive(Debug)]
pub(crate) struct Run {
    /// Exit code; 128 + the signal's number when a signal ended the run, as a shell says.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error (the log lines).
    pub stderr: String,
}

impl Run {
    /// Panics with the whole output unless the run exited with `code`.
    pub(crate) fn expect_code(self, code: i32, what: &str) -> Run {
        assert_eq!(
            self.code, code,
            "{what}: expected exit {code}\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// Panics unless the run succeeded.
    pub(crate) fn ok(self, what: &str) -> Run {
        self.expect_code(0, what)
    }

    /// Panics unless standard error contains every one of `needles`.
    pub(crate) fn stderr_has(&self, needles: &[&str]) {
        for n in needles {
            assert!(
                self.stderr.contains(n),
                "expected {n:?} in standard error:\n{}",
                self.stderr
            );
        }
    }
}

/// Runs `cmd` with `args` and an empty standard input.
pub(crate) fn run(mut cmd: Command, args: &[&str]) -> Run {
    let out = cmd
        .args(args)
        .write_stdin("")
        .output()
        .expect("spawning okd-install");
    Run {
        code: out
            .status
            .code()
            .or_else(|| out.status.signal().map(|s| 128 + s))
            .unwrap_or(-1),
        stdout: stdout(&out),
        stderr: stderr(&out),
    }
}

/// The `create` target that writes Ignition configs for `example`.
pub(crate) fn ignition_target(example: &str) -> &'static str {
    if example == "single-node" {
        "single-node-ignition-config"
    } else {
        "ignition-configs"
    }
}

/// The bootstrap Ignition file `example` produces.
pub(crate) fn bootstrap_file(example: &str) -> &'static str {
    match example {
        "single-node" => "bootstrap-in-place-for-live-iso.ign",
        "bootstrap-pivot" => "bootstrap-pivot.ign",
        _ => "bootstrap.ign",
    }
}

/// Every regular file below `dir`, as `/`-separated relative paths.
pub(crate) fn files_below(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    collect(dir, dir, &mut out);
    out
}

fn collect(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.map(|e| e.expect("directory entry")) {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, out);
        } else {
            let rel = path.strip_prefix(root).expect("below root");
            out.insert(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// Permission bits of `path`.
pub(crate) fn mode(path: &Path) -> u32 {
    let meta = std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    meta.permissions().mode() & 0o777
}
