//! Kills at every rename of a commit and concurrent runs: the state is the truth after any
//! crash. A run of `create ignition-configs` that generates its keys is killed by the test
//! hook (`OKD_INSTALL_CRASH_AFTER_RENAMES=N`: a real `SIGKILL`) after each rename in turn;
//! the next run must converge without a new PKI and without calling its own files hand
//! edits. Every target at every point, byte for byte, is `killpoints.rs`'s.

use std::path::Path;

use crate::common::{EPOCH, GOLDEN_RELEASE_IMAGE, Run, files_below, run};
use crate::support::{okd, read};

const EXAMPLE: &str = "compact-3-node";

/// `create ignition-configs` (see [`create`]).
fn ignition_configs(dir: &Path, crash_after: Option<u32>) -> Run {
    create(dir, "ignition-configs", crash_after)
}

/// `create target` of [`EXAMPLE`] at a fixed clock, ended after rename `crash_after` when it
/// is given (the copied example, then the journal, each output and the final state).
fn create(dir: &Path, target: &str, crash_after: Option<u32>) -> Run {
    // `--dir .` from inside the directory: the journal must record its temporary files
    // relative to the install dir however the user named it.
    let mut cmd = okd(Path::new("."));
    cmd.current_dir(dir)
        .env("SOURCE_DATE_EPOCH", EPOCH.to_string())
        .env(
            "OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE",
            GOLDEN_RELEASE_IMAGE,
        )
        .env_remove(asset_graph::CRASH_AFTER_RENAMES);
    if let Some(n) = crash_after {
        cmd.env(asset_graph::CRASH_AFTER_RENAMES, n.to_string());
    }
    // No secrets bundle: the PKI is generated, so a run that made a new one would differ
    // from the state the kill left (with the bundle every run makes identical bytes and a
    // lost state would go unnoticed).
    let mut args = vec!["create", target];
    if !dir.join("install-config.yaml").exists() && !dir.join(".okd-install-state.json").exists() {
        args.extend(["--from-example", EXAMPLE]);
    }
    run(cmd, &args)
}

/// Content hash of every stored value, by asset id: equal maps mean the same keys and
/// certificates (the values themselves are private and stay out of messages). Empty when
/// there is no state yet (a run killed after copying its example).
fn stored_digests(dir: &Path) -> Vec<(String, String)> {
    if !dir.join(".okd-install-state.json").exists() {
        return Vec::new();
    }
    let state: serde_json::Value =
        serde_json::from_str(&read(&dir.join(".okd-install-state.json"))).expect("state JSON");
    state["assets"]
        .as_object()
        .expect("assets")
        .iter()
        .map(|(id, e)| (id.clone(), e["content"].as_str().unwrap_or("").to_string()))
        .collect()
}

/// The asset ids of [`stored_digests`].
fn ids(digests: &[(String, String)]) -> Vec<String> {
    digests.iter().map(|(id, _)| id.clone()).collect()
}

/// The root CA a pointer config trusts.
fn pointer_root_ca(ign: &str) -> Vec<u8> {
    let value: serde_json::Value = serde_json::from_str(ign).expect("pointer config JSON");
    let url = value
        .pointer("/ignition/security/tls/certificateAuthorities/0/source")
        .and_then(|s| s.as_str())
        .expect("a certificate authority");
    ignition::decode_data_url(url).expect("data URL")
}

/// The CA a kubeconfig trusts for the API.
fn kubeconfig_ca(text: &str) -> Vec<u8> {
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("certificate-authority-data:"))
        .expect("certificate-authority-data in auth/kubeconfig");
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(line.trim())
        .expect("base64")
}

/// A converged directory: every output present, one trust root, nothing left over.
fn assert_consistent(dir: &Path, what: &str) {
    let files = files_below(dir);
    for f in [
        "master.ign",
        "worker.ign",
        "bootstrap.ign",
        "metadata.json",
        "auth/kubeconfig",
    ] {
        assert!(files.contains(f), "{what}: {f} missing");
    }
    for f in &files {
        assert!(!f.contains(".user-edit-"), "{what}: backup {f} was made");
        assert!(!f.contains(".okd-tmp-"), "{what}: temporary {f} left");
    }
    let master = pointer_root_ca(&read(&dir.join("master.ign")));
    assert_eq!(
        master,
        pointer_root_ca(&read(&dir.join("worker.ign"))),
        "{what}: master.ign and worker.ign trust different CAs"
    );
    let bootstrap = read(&dir.join("bootstrap.ign"));
    let root = crate::support::ign_file(&bootstrap, "/opt/openshift/tls/root-ca.crt")
        .expect("root CA inside bootstrap.ign");
    assert_eq!(master, root, "{what}: bootstrap.ign has another root CA");
    let inside = crate::support::ign_file(&bootstrap, "/opt/openshift/auth/kubeconfig")
        .expect("auth/kubeconfig inside bootstrap.ign");
    let same = kubeconfig_ca(&read(&dir.join("auth/kubeconfig")))
        == kubeconfig_ca(&String::from_utf8(inside).expect("UTF-8"));
    // Compared as a boolean: a failure must not print the kubeconfig's client key.
    assert!(
        same,
        "{what}: auth/kubeconfig and bootstrap.ign trust different API CAs"
    );
    let meta: serde_json::Value =
        serde_json::from_str(&read(&dir.join("metadata.json"))).expect("metadata.json");
    assert!(meta["infraID"].is_string(), "{what}: {meta}");
}

#[test]
fn a_kill_after_any_rename_converges_with_the_same_pki_and_no_hand_edit() {
    let clean = tempfile::tempdir().unwrap();
    ignition_configs(clean.path(), None).ok("uninterrupted run");
    let expected = ids(&stored_digests(clean.path()));
    // Four points at a time (each run generates keys): until a run goes past its last rename.
    let mut n = 1;
    loop {
        let batch: Vec<u32> = (n..n + 4).collect();
        let expected = &expected;
        let done = std::thread::scope(|s| {
            let runs: Vec<_> = batch
                .iter()
                .map(|&k| s.spawn(move || kill_and_rerun(k, expected)))
                .collect();
            runs.into_iter().any(|r| r.join().unwrap())
        });
        if done {
            break;
        }
        n += 4;
    }
    assert!(n > 4, "only {n} renames in a commit");
}

/// Kills `create ignition-configs` after rename `n` and runs it again: the same keys, the
/// values of an uninterrupted run (`expected`, their ids), no hand edit. True when the run
/// was past its last rename (not killed).
fn kill_and_rerun(n: u32, expected: &[String]) -> bool {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let killed = ignition_configs(dir, Some(n));
    if killed.code == 0 {
        return true;
    }
    killed.expect_code(asset_graph::CRASH_EXIT, &format!("kill after rename {n}"));
    let before = stored_digests(dir);
    let again = ignition_configs(dir, None).ok(&format!("run after a kill at rename {n}"));
    let console = format!("{}{}", again.stdout, again.stderr);
    assert!(
        !console.contains("edited by hand") && !console.contains("edited outside"),
        "kill at rename {n}: the next run called its own file a hand edit:\n{console}"
    );
    let after = stored_digests(dir);
    if !before.is_empty() {
        assert_eq!(before, after, "kill at rename {n}: a stored value changed");
    }
    assert_eq!(
        ids(&after),
        expected,
        "kill at rename {n}: not the values of an uninterrupted run"
    );
    assert_consistent(dir, &format!("kill at rename {n}"));
    false
}

/// A run killed while staging (every output in its temporary file, nothing journaled yet)
/// leaves `.okd-tmp-*` files no state lists: the next run removes them at once, since no
/// process holds their locks, while the temporary file of a write still going on in another
/// process (here this test's own, as a boot-media command would hold one) stays.
#[test]
fn a_run_killed_while_staging_leaves_nothing_for_the_next_one_but_a_live_write_stays() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    ignition_configs(dir, Some(0)).expect_code(asset_graph::CRASH_EXIT, "kill after staging");
    let left: Vec<String> = files_below(dir)
        .into_iter()
        .filter(|f| f.contains(atomic_file::TEMP_PREFIX))
        .collect();
    assert!(!left.is_empty(), "the kill left no temporary file to test");
    let live = atomic_file::stage(&dir.join("worker.iso"), b"being copied", 0o644).unwrap();
    let again = ignition_configs(dir, None).ok("run after a kill while staging");
    assert!(
        live.temp_path().exists(),
        "a live write's temporary file was removed:\n{}",
        again.stderr
    );
    live.commit().unwrap();
    std::fs::remove_file(dir.join("worker.iso")).unwrap();
    assert_consistent(dir, "after a kill while staging");
}

#[test]
fn a_kill_while_replacing_outputs_keeps_our_files_ours() {
    // A directory with outputs, whose install-config changes: the next commit replaces
    // every file, and a kill half-way leaves both generations on disk.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    ignition_configs(dir, None).ok("first run");
    let path = dir.join("install-config.yaml");
    if !path.exists() {
        // The install-config is consumed: nothing to change in place, covered above.
        return;
    }
    let config = read(&path);
    let edited = config.replacen("name: ", "name: x", 1);
    assert_ne!(config, edited, "no metadata name to change");
    std::fs::write(&path, edited).unwrap();
    ignition_configs(dir, Some(4)).expect_code(asset_graph::CRASH_EXIT, "kill at rename 4");
    let before = stored_digests(dir);
    let again = ignition_configs(dir, None).ok("run after the kill");
    let console = format!("{}{}", again.stdout, again.stderr);
    assert!(!console.contains("edited by hand"), "{console}");
    assert_eq!(before, stored_digests(dir), "a stored value changed");
    assert_consistent(dir, "after a kill while replacing");
}

#[test]
fn two_concurrent_runs_leave_one_consistent_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    ignition_configs(dir, None).ok("first run");
    // Both runs have a file to write: the one that gets the lock rewrites it, the other
    // then finds it in place or is refused while the first still holds the directory.
    std::fs::remove_file(dir.join("master.ign")).unwrap();
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| ignition_configs(dir, None));
        let b = s.spawn(|| ignition_configs(dir, None));
        (a.join().unwrap(), b.join().unwrap())
    });
    for r in [&a, &b] {
        assert!(
            r.code == 0 || (r.code == 1 && r.stderr.contains("another okd-install run is using")),
            "neither done nor refused with a clear line: exit {}\n{}",
            r.code,
            r.stderr
        );
    }
    assert!(a.code == 0 || b.code == 0, "both runs were refused");
    assert_consistent(dir, "after two concurrent runs");
}

/// Manifests are loaded from disk as the user's: after a kill while a changed install-config
/// replaces them, the old ones left on disk are still ours, not an edit to keep.
#[test]
fn a_kill_while_replacing_manifests_leaves_no_manifest_taken_for_the_users() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    create(dir, "manifests", None).ok("first run");
    let path = dir.join("install-config.yaml");
    let config = read(&path);
    let renamed = config.replacen("\n  name: compact\n", "\n  name: renamed\n", 1);
    assert_ne!(config, renamed, "no metadata.name: compact in the example");
    std::fs::write(&path, renamed).unwrap();
    create(dir, "manifests", Some(3)).expect_code(asset_graph::CRASH_EXIT, "kill at rename 3");
    let before = stored_digests(dir);
    let again = create(dir, "manifests", None).ok("run after the kill");
    let console = format!("{}{}", again.stdout, again.stderr);
    for line in ["using your", "edited by hand", "kept your edited"] {
        assert!(
            !console.contains(line),
            "{line:?} after the kill:\n{console}"
        );
    }
    assert_eq!(before, stored_digests(dir), "a stored value changed");
    let infra = read(&dir.join("manifests/cluster-infrastructure-02-config.yml"));
    assert!(
        infra.contains("renamed"),
        "an old manifest stayed:\n{infra}"
    );
    for f in files_below(dir) {
        assert!(
            !f.contains(".okd-tmp-") && !f.contains(".user-edit-"),
            "{f} left"
        );
    }
    create(dir, "manifests", None)
        .ok("third run")
        .stderr_has(&["nothing changed"]);
}
