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
            let value: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| {
                panic!("stdout line is not JSON ({e}): {line:?}\n{}", both(out))
            });
            assert!(value.is_object(), "not a JSON object: {line}");
            value
        })
        .collect()
}

/// The contents of `node_path` inside the Ignition config at `ign` (data URLs, base64 or
/// percent-encoded, gzip-compressed or not).
pub fn ign_file(ign: &Path, node_path: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    use std::io::Read;
    let text = std::fs::read_to_string(ign).unwrap_or_else(|e| panic!("{}: {e}", ign.display()));
    let config: serde_json::Value = serde_json::from_str(&text).expect("Ignition JSON");
    let file = config["storage"]["files"]
        .as_array()?
        .iter()
        .find(|f| f["path"] == node_path)?;
    let source = file["contents"]["source"].as_str()?;
    let (meta, data) = source.strip_prefix("data:")?.split_once(',')?;
    let raw = if meta.ends_with(";base64") {
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .expect("base64 data URL")
    } else {
        percent_decode(data)
    };
    if file["contents"]["compression"] == "gzip" {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(raw.as_slice())
            .read_to_end(&mut out)
            .expect("gzip contents");
        return Some(out);
    }
    Some(raw)
}

fn percent_decode(s: &str) -> Vec<u8> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// Names of the `.ign` files in `dir`.
pub fn ign_files(dir: &Path) -> Vec<String> {
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
pub fn interrupt_after(
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
