//! End-to-end checks of `verify` on real asset directories, generated with the same library
//! path the binary uses, then broken one fault at a time.

mod faults;
mod image_mode;
mod online;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assets::{ReleaseOptions, RunSettings};
use tempfile::TempDir;
use time::OffsetDateTime;
use verify::{Options, Report, Status};

/// The repository's `examples/` directory.
pub fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// Text of `examples/<name>.yaml`.
pub fn example(name: &str) -> String {
    std::fs::read_to_string(examples_dir().join(format!("{name}.yaml"))).expect("example")
}

fn settings(compress: bool) -> RunSettings {
    RunSettings {
        ignition: assets::IgnitionOptions { compress },
        release: ReleaseOptions {
            release_image: "quay.io/okd/scos-release:4.19.0-okd-scos.19".into(),
            channel: "stable-4".into(),
            invoker: "verify-tests".into(),
            installer_version: "0.0.0-test".into(),
            ..ReleaseOptions::default()
        },
        ..RunSettings::default()
    }
}

/// Runs `target` in `dir` the way `okd-install create` does.
pub fn run_target(dir: &Path, target: &str) {
    run_target_with(dir, target, false);
}

/// [`run_target`], optionally with gzip-compressed Ignition file contents (`--compress`).
pub fn run_target_with(dir: &Path, target: &str, compress: bool) {
    let mut store = assets::open_store(dir, &settings(compress)).expect("open store");
    store
        .run(target)
        .unwrap_or_else(|e| panic!("{target} in {}: {e}", dir.display()));
}

/// A new directory with `install_config` generated up to `target`.
pub fn generate(install_config: &str, target: &str) -> TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("install-config.yaml"), install_config).expect("write");
    run_target(dir.path(), target);
    dir
}

/// Two independent runs of the compact example (same names, different keys), made once and
/// copied by the tests that change files.
pub fn base(which: usize) -> &'static Path {
    static DIRS: OnceLock<[TempDir; 2]> = OnceLock::new();
    let dirs = DIRS.get_or_init(|| {
        std::thread::scope(|s| {
            let a = s.spawn(|| generate(&example("compact-3-node"), "ignition-configs"));
            let b = s.spawn(|| generate(&example("compact-3-node"), "ignition-configs"));
            [a.join().expect("a"), b.join().expect("b")]
        })
    });
    dirs[which].path()
}

/// The certificate file and key of `id` as the state file of `dir` stores them, read through
/// the certificate's asset type.
pub fn state_cert(dir: &Path, id: pki::CertId) -> (String, String) {
    let state = asset_graph::State::open(dir).expect("state file");
    let v = assets::tls::stored_cert(&state, id)
        .expect("readable certificate")
        .expect("stored certificate");
    (v.cert_pem, v.key_pem)
}

/// A private copy of a directory.
pub fn copy_dir(src: &Path) -> TempDir {
    let dst = tempfile::tempdir().expect("tempdir");
    copy_into(src, dst.path());
    dst
}

fn copy_into(src: &Path, dst: &Path) {
    for entry in std::fs::read_dir(src).expect("read dir").flatten() {
        let to = dst.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            std::fs::create_dir_all(&to).expect("mkdir");
            copy_into(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), &to).expect("copy");
        }
    }
}

/// Offline options at the real current time.
pub fn now_opts() -> Options {
    Options::at(OffsetDateTime::now_utc())
}

/// The checks of `id` with `status`, as "subject: message" lines.
pub fn findings(report: &Report, id: &str, status: Status) -> Vec<String> {
    report
        .checks
        .iter()
        .filter(|c| c.id == id && c.status == status)
        .map(|c| format!("{}: {}", c.subject, c.message))
        .collect()
}

/// Asserts that `id` has an error on a subject containing `subject` whose message contains
/// every one of `words`.
pub fn assert_error(report: &Report, id: &str, subject: &str, words: &[&str]) {
    let hit = report.checks.iter().any(|c| {
        c.id == id
            && c.status == Status::Error
            && c.subject.contains(subject)
            && words.iter().all(|w| c.message.contains(w))
    });
    assert!(
        hit,
        "no {id} error on {subject} mentioning {words:?}:\n{}",
        report.render_text()
    );
    assert!(!report.exit_ok());
}

/// Asserts a clean report: no warnings, no errors.
pub fn assert_clean(report: &Report, what: &str) {
    let s = report.summary();
    assert!(
        s.errors == 0 && s.warnings == 0 && s.ok > 50,
        "{what}:\n{}",
        report.render_text()
    );
    assert!(report.exit_ok());
}

#[test]
fn every_example_verifies_clean() {
    let mut names: Vec<String> = std::fs::read_dir(examples_dir())
        .expect("examples")
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".yaml").map(str::to_string))
        .collect();
    names.sort();
    assert!(names.len() >= 6, "{names:?}");
    let (left, right) = names.split_at(names.len() / 2);
    std::thread::scope(|s| {
        for half in [left, right] {
            s.spawn(move || {
                for name in half {
                    let target = if name.contains("single-node") {
                        "single-node-ignition-config"
                    } else {
                        "ignition-configs"
                    };
                    let dir = generate(&example(name), target);
                    let report = verify::verify(dir.path(), &now_opts());
                    assert_clean(&report, name);
                }
            });
        }
    });
}

#[test]
fn manifests_directory_is_checked_too() {
    let dir = copy_dir(base(0));
    run_target(dir.path(), "manifests");
    let report = verify::verify(dir.path(), &now_opts());
    assert_clean(&report, "after create manifests");
    assert_eq!(
        findings(&report, "consistency.cluster-config", Status::Ok),
        vec![
            "manifests/cluster-config.yaml: data.install-config equals the redacted install-config"
        ]
    );
    assert!(!findings(&report, "manifests.parse", Status::Ok).is_empty());
}

/// A user manifest in a namespace nothing creates would hold the bootstrap: a warning naming
/// the file, before anything boots.
#[test]
fn a_manifest_in_a_namespace_nothing_creates_is_a_warning() {
    let dir = copy_dir(base(0));
    run_target(dir.path(), "manifests");
    let probe = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: heldout-probe\n  \
                 namespace: heldout-never-created\n";
    std::fs::write(dir.path().join("openshift/99-heldout-probe.yaml"), probe).expect("write");
    let report = verify::verify(dir.path(), &now_opts());
    let warned = findings(&report, "manifests.namespace", Status::Warning);
    assert_eq!(warned.len(), 1, "{}", report.render_text());
    assert!(
        warned[0].starts_with(
            "openshift/99-heldout-probe.yaml: ConfigMap heldout-probe is in namespace heldout-never-created"
        ),
        "{warned:?}"
    );
    assert!(report.exit_ok(), "a warning, not an error");
    // A namespace one letter off one the release creates is judged too, and named.
    let typo =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: openshift-monitorng\n";
    std::fs::write(dir.path().join("manifests/99-typo.yaml"), typo).expect("write");
    let report = verify::verify(dir.path(), &now_opts());
    let warned = findings(&report, "manifests.namespace", Status::Warning);
    assert_eq!(warned.len(), 2, "{}", report.render_text());
    let typo = warned
        .iter()
        .find(|w| w.starts_with("manifests/99-typo.yaml: "))
        .expect("typo warned");
    assert!(
        typo.contains("Did you mean openshift-monitoring?"),
        "{typo}"
    );
}

#[test]
fn compressed_bootstrap_contents_are_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ic = example("ha-workers");
    std::fs::write(dir.path().join("install-config.yaml"), ic).expect("write");
    run_target_with(dir.path(), "ignition-configs", true);
    let text = std::fs::read_to_string(dir.path().join("bootstrap.ign")).expect("read");
    assert!(
        text.contains("\"compression\":\"gzip\""),
        "compression was not used"
    );
    let report = verify::verify(dir.path(), &now_opts());
    assert_clean(&report, "compressed bootstrap.ign");
    let embedded = findings(&report, "kubeconfig.client", Status::Ok);
    assert_eq!(embedded.len(), 4, "{embedded:#?}");
}

#[test]
fn bootstrap_config_is_the_source_without_state_or_tls() {
    let dir = copy_dir(base(0));
    std::fs::remove_file(dir.path().join(".okd-install-state.json")).expect("rm state");
    let report = verify::verify(dir.path(), &now_opts());
    assert_clean(&report, "without the state file");
    assert!(
        report
            .checks
            .iter()
            .any(|c| c.id == "cert.chain"
                && c.subject == "bootstrap.ign:/opt/openshift/tls/root-ca.crt"),
        "{}",
        report.render_text()
    );
}

/// verify reads the state file only through the types the engine stored it with: every
/// certificate, bundle, the install-config copy and the cluster ID come back. (A reader that
/// spelled field names itself would find nothing here after a serde rename.)
#[test]
fn state_values_are_read_through_their_asset_types() {
    let dir = copy_dir(base(0));
    std::fs::remove_file(dir.path().join("install-config.yaml")).expect("rm install-config");
    let meta = dir.path().join("metadata.json");
    let text = std::fs::read_to_string(&meta).expect("metadata.json");
    let mut json: serde_json::Value = serde_json::from_str(&text).expect("metadata JSON");
    json["infraID"] = "another-infra-id".into();
    std::fs::write(&meta, json.to_string()).expect("write metadata.json");

    let report = verify::verify(dir.path(), &now_opts());
    let tls = findings(&report, "config.tls", Status::Ok);
    let expected = format!(
        "{}: read {} certificates and {} CA bundles",
        asset_graph::STATE_FILE,
        pki::CertId::ALL.len(),
        pki::BundleId::ALL.len()
    );
    assert_eq!(tls, vec![expected]);
    assert_eq!(
        findings(&report, "config.install-config", Status::Ok),
        vec![format!(
            "{}: install-config.yaml is absent; using the copy in the state file",
            asset_graph::STATE_FILE
        )]
    );
    assert_error(
        &report,
        "consistency.stale",
        "",
        &["infrastructure ID", "another-infra-id in metadata.json"],
    );
}

#[test]
fn json_output_carries_every_check() {
    let report = verify::verify(base(0), &now_opts());
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("json");
    assert_eq!(json["ok"], true);
    assert_eq!(
        json["checks"].as_array().map(Vec::len),
        Some(report.checks.len())
    );
    assert!(report.render_text().contains("verify passed: "));
}
