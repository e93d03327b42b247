//! Golden files: every example's deterministic outputs against `tests/golden/<example>/`.
//!
//! `cargo xtask golden` runs these tests with `OKD_GOLDEN_UPDATE=1`, which writes the files
//! instead of comparing, so the refresher and the check can never generate differently.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::{EPOCH, bootstrap_file, files_below, golden_root, run, secrets_bundle};
use crate::fixture::{self, Generated};
use crate::redact::redact;
use crate::support::{okd, read};

/// Set to `1` to rewrite the golden files from this run.
pub(crate) const UPDATE_ENV: &str = "OKD_GOLDEN_UPDATE";

/// Lines of a unified diff shown before it is cut off.
const MAX_DIFF_LINES: usize = 150;

/// Whether this run rewrites golden files.
pub(crate) fn updating() -> bool {
    std::env::var(UPDATE_ENV).is_ok_and(|v| v == "1")
}

/// The kubeadmin password of the committed bundle.
fn bundle_password() -> String {
    let path = secrets_bundle();
    let bundle = pki::SecretsBundle::from_yaml(&read(&path), &path.display().to_string())
        .expect("the committed secrets bundle is valid");
    bundle.kubeadmin_password.clone()
}

/// Writes `tests/golden/secrets.yaml` at [`EPOCH`]; only in update mode, and only when the
/// file is missing (a new bundle changes every golden file).
pub(crate) fn mint_bundle() {
    let tmp = tempfile::tempdir().expect("temporary directory");
    let mut cmd = okd(tmp.path());
    cmd.env("SOURCE_DATE_EPOCH", EPOCH.to_string());
    let out = secrets_bundle();
    run(
        cmd,
        &[
            "create",
            "secrets",
            "--from-example",
            "compact-3-node",
            "--output-file",
            &out.display().to_string(),
        ],
    )
    .ok("minting the golden secrets bundle");
}

/// The golden view of one generated example: relative path -> redacted bytes.
fn golden_view(g: &Generated, password: &str) -> BTreeMap<String, Vec<u8>> {
    let text = |data: &[u8]| redact(&String::from_utf8_lossy(data), password).into_bytes();
    let mut view: BTreeMap<String, Vec<u8>> = g
        .manifests
        .iter()
        .map(|(path, data)| (path.clone(), text(data)))
        .collect();
    for f in [
        "master.ign",
        "worker.ign",
        "metadata.json",
        "auth/kubeconfig",
    ] {
        if let Ok(data) = std::fs::read(g.dir.join(f)) {
            view.insert(f.to_string(), text(&data));
        }
    }
    let boot = bootstrap_file(g.example);
    let explained = run(
        okd(&g.dir),
        &["explain-ignition", &g.dir.join(boot).display().to_string()],
    )
    .ok(&format!("explain-ignition {boot}"));
    view.insert(
        format!("{boot}.explain.txt"),
        text(explained.stdout.as_bytes()),
    );
    view
}

/// JSON files are shown indented in diffs (the real files are one line).
fn for_diff(path: &str, data: &[u8]) -> Vec<u8> {
    let json = path.ends_with(".ign") || path.ends_with(".json");
    match serde_json::from_slice::<serde_json::Value>(data) {
        Ok(v) if json => serde_json::to_vec_pretty(&v).expect("JSON"),
        _ => data.to_vec(),
    }
}

/// A unified diff of `golden` against `generated` (via diff(1), Debian's essential diffutils).
fn unified_diff(path: &str, golden: &[u8], generated: &[u8]) -> String {
    let tmp = tempfile::tempdir().expect("temporary directory");
    let (a, b) = (tmp.path().join("golden"), tmp.path().join("generated"));
    std::fs::write(&a, for_diff(path, golden)).expect("write");
    std::fs::write(&b, for_diff(path, generated)).expect("write");
    let out = std::process::Command::new("diff")
        .args(["-u", "--label", &format!("tests/golden/{path}")])
        .args(["--label", &format!("generated/{path}")])
        .arg(&a)
        .arg(&b)
        .output()
        .expect("diff(1) from diffutils is needed to show golden differences");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let mut shown = lines[..lines.len().min(MAX_DIFF_LINES)].join("\n");
    if lines.len() > MAX_DIFF_LINES {
        shown.push_str(&format!(
            "\n... {} more diff lines",
            lines.len() - MAX_DIFF_LINES
        ));
    }
    shown
}

/// The first difference between `dir` and `view`: a one-line summary and, for a changed
/// file, its unified diff.
fn first_difference(
    example: &str,
    dir: &Path,
    view: &BTreeMap<String, Vec<u8>>,
) -> Option<(String, Option<String>)> {
    let on_disk = files_below(dir);
    let all: BTreeSet<&String> = on_disk.iter().chain(view.keys()).collect();
    for path in all {
        let golden = std::fs::read(dir.join(path)).ok();
        match (golden, view.get(path)) {
            (None, Some(_)) => {
                return Some((format!("{path} was generated but has no golden copy"), None));
            }
            (Some(_), None) => {
                return Some((
                    format!("{path} has a golden copy but was not generated"),
                    None,
                ));
            }
            (Some(g), Some(v)) if &g != v => {
                return Some((
                    format!("{path} differs"),
                    Some(unified_diff(&format!("{example}/{path}"), &g, v)),
                ));
            }
            _ => {}
        }
    }
    None
}

/// Replaces `dir` with exactly the files of `view`.
fn write_view(dir: &Path, view: &BTreeMap<String, Vec<u8>>) {
    let _ = std::fs::remove_dir_all(dir);
    for (path, data) in view {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(&file, data).expect("writing a golden file");
    }
}

#[test]
fn golden_files_match_for_every_example() {
    let examples = fixture::all();
    let password = bundle_password();
    let mut summaries = Vec::new();
    let mut first_diff = None;
    for g in examples {
        let dir = golden_root().join(g.example);
        let view = golden_view(g, &password);
        if updating() {
            write_view(&dir, &view);
            eprintln!("wrote {} golden files of {}", view.len(), g.example);
        } else if let Some((summary, diff)) = first_difference(g.example, &dir, &view) {
            summaries.push(format!("  {}: {summary}", g.example));
            first_diff = first_diff.or(diff);
        }
    }
    assert!(
        summaries.is_empty(),
        "golden files differ (review, then refresh with `cargo xtask golden`):\n{}\n\n{}",
        summaries.join("\n"),
        first_diff.unwrap_or_default()
    );
}

#[test]
fn golden_copies_hold_no_private_key_or_password() {
    let examples = fixture::all();
    let password = bundle_password();
    for g in examples {
        for (path, data) in golden_view(g, &password) {
            let text = String::from_utf8_lossy(&data);
            assert!(!text.contains("PRIVATE KEY-----"), "{}: {path}", g.example);
            assert!(!text.contains(&password), "{}: {path}", g.example);
        }
    }
}

/// Two deterministic runs in different directories give identical bytes for every file
/// (bootstrap configs, auth/, state), except the timestamped log.
#[test]
fn deterministic_runs_are_byte_identical_across_directories() {
    for example in ["compact-3-node", "single-node", "bootstrap-pivot"] {
        let first = fixture::example(example);
        let tmp = tempfile::tempdir().expect("temporary directory");
        let dir = tmp.path().join("a-longer-directory-name").join(example);
        let second = fixture::generate(first.example, &dir);
        let files = files_below(&first.dir);
        assert_eq!(files, files_below(&second.dir), "file sets of {example}");
        for f in files.iter().filter(|f| !f.ends_with(".okd-install.log")) {
            let (a, b) = (first.dir.join(f), second.dir.join(f));
            assert!(
                std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
                "{example}: {f} differs between {} and {}",
                a.display(),
                b.display()
            );
        }
    }
}

/// The release images of the per-release golden files: a published tag of each supported
/// release, and the built-in default (pinned by digest) for the newest.
pub(crate) const RELEASE_IMAGES: &[(&str, &str)] = &[
    ("4.19", crate::common::GOLDEN_RELEASE_IMAGE),
    ("4.20", "quay.io/okd/scos-release:4.20.0-okd-scos.16"),
    ("4.21", "quay.io/okd/scos-release:4.21.0-okd-scos.8"),
    ("4.22", "quay.io/okd/scos-release:4.22.0-okd-scos.7"),
    (
        "5.0",
        "quay.io/okd/scos-release@sha256:eca01dee0f0690a8149d58f0a8c7e3187f624d583c1b713dc660bd1b28c2dfbc",
    ),
];

/// The examples whose bootstrap scripts and units are kept per release: a plain
/// three-node cluster and an on-premise baremetal one (VIPs, local DNS, provisioning).
const RELEASE_EXAMPLES: &[&str] = &["compact-3-node", "baremetal-hosts"];

/// bootstrap.ign's scripts, configuration files and systemd units as one readable text:
/// everything that differs between releases, nothing that holds a key.
fn scripts_and_units(ign: &str) -> String {
    let mut out = String::new();
    let wanted = |p: &str| {
        (p.starts_with("/usr/local/bin/")
            || p.starts_with("/etc/systemd/")
            || p.starts_with("/etc/containers/"))
            && !p.ends_with(".crt")
            && !p.ends_with(".key")
    };
    let mut files: Vec<(String, Vec<u8>)> = crate::support::ign_files(ign)
        .into_iter()
        .filter(|(p, _)| wanted(p))
        .collect();
    files.sort();
    for (path, data) in files {
        out.push_str(&format!(
            "=== file {path}\n{}\n",
            String::from_utf8_lossy(&data)
        ));
    }
    let value: serde_json::Value = serde_json::from_str(ign).expect("Ignition JSON");
    let units = value["systemd"]["units"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for unit in units {
        let name = unit["name"].as_str().unwrap_or_default();
        let enabled = unit["enabled"].as_bool().unwrap_or(false);
        out.push_str(&format!("=== unit {name} (enabled: {enabled})\n"));
        if let Some(text) = unit["contents"].as_str() {
            out.push_str(text);
            out.push('\n');
        }
        for d in unit["dropins"].as_array().cloned().unwrap_or_default() {
            out.push_str(&format!(
                "--- drop-in {}\n{}\n",
                d["name"].as_str().unwrap_or_default(),
                d["contents"].as_str().unwrap_or_default()
            ));
        }
    }
    out
}

/// For every supported release and two examples, bootstrap.ign's scripts and units against
/// `tests/golden/releases/<release>/<example>.txt`: what each release's bootstrap host runs.
#[test]
fn golden_bootstrap_scripts_match_for_every_release() {
    let table: Vec<String> = releases::table()
        .releases
        .iter()
        .map(|r| r.version.to_string())
        .collect();
    let covered: Vec<String> = RELEASE_IMAGES.iter().map(|(r, _)| r.to_string()).collect();
    assert_eq!(covered, table, "every supported release has golden scripts");
    let password = bundle_password();
    let mut problems = Vec::new();
    for (release, image) in RELEASE_IMAGES {
        for example in RELEASE_EXAMPLES {
            let tmp = tempfile::tempdir().expect("temporary directory");
            let args = [
                "ignition-configs",
                "--from-example",
                example,
                "--release-image",
                image,
            ];
            let out = crate::common::create_at(tmp.path(), EPOCH, &args)
                .ok(&format!("{example} on OKD {release}"));
            out.stderr_has(&[&format!("is OKD {release} ")]);
            let ign = read(&tmp.path().join("bootstrap.ign"));
            let text = redact(&scripts_and_units(&ign), &password);
            let path = golden_root()
                .join("releases")
                .join(release)
                .join(format!("{example}.txt"));
            if updating() {
                std::fs::create_dir_all(path.parent().unwrap()).expect("mkdir");
                std::fs::write(&path, &text).expect("writing a golden file");
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                let golden = std::fs::read(&path).unwrap_or_default();
                problems.push(unified_diff(
                    &format!("releases/{release}/{example}.txt"),
                    &golden,
                    text.as_bytes(),
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "per-release golden scripts differ (review, then refresh with `cargo xtask golden`):\n{}",
        problems.join("\n")
    );
}
