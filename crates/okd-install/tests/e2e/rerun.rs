//! Running `create` again: nothing rewritten without a reason, edits and user manifests
//! carried into bootstrap.ign, broken manifests refused, the user's input never touched,
//! secret files private.

use std::path::Path;
use std::time::SystemTime;

use crate::common::{EPOCH, create_at, files_below, mode};
use crate::support::{ign_text, read};

const SCHEDULER: &str = "manifests/cluster-scheduler-02-config.yml";

/// A fresh deterministic directory after `create manifests` of compact-3-node.
fn with_manifests() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    create_at(
        tmp.path(),
        EPOCH,
        &["manifests", "--from-example", "compact-3-node"],
    )
    .ok("create manifests");
    tmp
}

fn ignition_configs(dir: &Path) -> crate::common::Run {
    create_at(dir, EPOCH, &["ignition-configs"]).ok("create ignition-configs")
}

/// Modification time of every file below `dir` except the log.
fn mtimes(dir: &Path) -> Vec<(String, SystemTime)> {
    files_below(dir)
        .into_iter()
        .filter(|f| !f.ends_with(".okd-install.log"))
        .map(|f| {
            let t = std::fs::metadata(dir.join(&f)).unwrap().modified().unwrap();
            (f, t)
        })
        .collect()
}

#[test]
fn second_ignition_configs_writes_nothing_and_says_so() {
    let tmp = with_manifests();
    ignition_configs(tmp.path());
    let before = mtimes(tmp.path());
    let out = ignition_configs(tmp.path());
    out.stderr_has(&["nothing changed", "no file written"]);
    assert!(!out.stderr.contains("regenerated"), "{}", out.stderr);
    assert_eq!(before, mtimes(tmp.path()), "a file was rewritten");
}

#[test]
fn edited_scheduler_manifest_regenerates_bootstrap_with_the_edit() {
    let tmp = with_manifests();
    let dir = tmp.path();
    let install_config = read(&dir.join("install-config.yaml"));
    ignition_configs(dir);
    let master = read(&dir.join("master.ign"));
    let original = read(&dir.join(SCHEDULER));
    assert!(original.contains("mastersSchedulable: true"), "{original}");
    let edited = original.replace("mastersSchedulable: true", "mastersSchedulable: false");
    std::fs::write(dir.join(SCHEDULER), &edited).unwrap();

    let out = ignition_configs(dir);
    out.stderr_has(&["regenerated Bootstrap Ignition Config", "Manifests changed"]);
    out.stderr_has(&["wrote bootstrap.ign"]);
    let boot = read(&dir.join("bootstrap.ign"));
    let inside = ign_text(&boot, &format!("/opt/openshift/{SCHEDULER}"));
    assert_eq!(inside, edited);
    assert_eq!(read(&dir.join("master.ign")), master, "master.ign changed");
    assert_eq!(read(&dir.join("install-config.yaml")), install_config);
    assert_eq!(
        read(&dir.join(SCHEDULER)),
        edited,
        "the edit was overwritten"
    );
}

#[test]
fn user_manifest_in_openshift_travels_into_bootstrap() {
    let tmp = with_manifests();
    let dir = tmp.path();
    let extra = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: site-extra\n  \
                 namespace: openshift-config\ndata:\n  rack: r12\n";
    std::fs::write(dir.join("openshift/99-site-extra.yaml"), extra).unwrap();
    let out = ignition_configs(dir);
    out.stderr_has(&["using your Manifests"]);
    let boot = read(&dir.join("bootstrap.ign"));
    assert_eq!(
        ign_text(&boot, "/opt/openshift/openshift/99-site-extra.yaml"),
        extra
    );
    // The bootstrap copy of the ClusterVersion keeps the CVO off the object (reference
    // manifests §4), so the file must be listed there.
    let cvo = ign_text(&boot, "/opt/openshift/manifests/cvo-overrides.yaml");
    assert!(cvo.contains("site-extra"), "{cvo}");
}

/// A user manifest in a namespace nothing creates would hold the bootstrap for ever: the run
/// that reads it warns, naming the file and the namespace. One a letter off a namespace the
/// release creates (the issue's `openshift-monitorng`) is named with that namespace; one in
/// the release's own namespace and one whose namespace a manifest creates are not named.
#[test]
fn user_manifest_in_a_namespace_nothing_creates_is_warned_about_before_booting() {
    let tmp = with_manifests();
    let dir = tmp.path();
    let config_map = |name: &str, namespace: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  \
             namespace: {namespace}\ndata:\n  probe: \"1\"\n"
        )
    };
    let team = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n---\n\
                apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: team-a\n";
    let files = [
        (
            "openshift/99-heldout-probe.yaml",
            config_map("heldout-probe", "heldout-never-created"),
        ),
        (
            "manifests/99-typo.yaml",
            config_map("cluster-monitoring-config", "openshift-monitorng"),
        ),
        (
            "manifests/99-right.yaml",
            config_map("cluster-monitoring-config", "openshift-monitoring"),
        ),
        ("manifests/99-team.yaml", team.to_string()),
    ];
    for (name, text) in &files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let out = ignition_configs(dir);
    let warning = |file: &str| -> Vec<&str> {
        out.stderr
            .lines()
            .filter(|l| l.contains(&format!("{file}: ")) && l.contains(" is in namespace "))
            .collect()
    };
    let heldout = warning("openshift/99-heldout-probe.yaml");
    assert_eq!(heldout.len(), 1, "{}", out.stderr);
    assert!(
        heldout[0].contains("heldout-never-created"),
        "{}",
        heldout[0]
    );
    assert!(!heldout[0].contains("Did you mean"), "{}", heldout[0]);
    let typo = warning("manifests/99-typo.yaml");
    assert_eq!(typo.len(), 1, "{}", out.stderr);
    assert!(
        typo[0].contains("namespace openshift-monitorng"),
        "{}",
        typo[0]
    );
    assert!(
        typo[0].contains("Did you mean openshift-monitoring?"),
        "{}",
        typo[0]
    );
    assert!(
        warning("manifests/99-right.yaml").is_empty(),
        "{}",
        out.stderr
    );
    assert!(
        warning("manifests/99-team.yaml").is_empty(),
        "{}",
        out.stderr
    );
}

#[test]
fn broken_user_manifest_stops_the_run_naming_file_and_position() {
    let tmp = with_manifests();
    let dir = tmp.path();
    let broken = "apiVersion: v1\nkind: ConfigMap\nmetadata: [oops\n  name: x\n";
    std::fs::write(dir.join("openshift/98-broken.yaml"), broken).unwrap();
    let out = create_at(dir, EPOCH, &["ignition-configs"]).expect_code(1, "broken manifest");
    let at = out
        .stderr
        .find("openshift/98-broken.yaml:")
        .unwrap_or_else(|| panic!("file not named:\n{}", out.stderr));
    let position = &out.stderr[at + "openshift/98-broken.yaml:".len()..];
    let mut parts = position.splitn(3, ':');
    assert!(
        parts.next().and_then(|l| l.parse::<u32>().ok()).is_some()
            && parts.next().and_then(|c| c.parse::<u32>().ok()).is_some(),
        "no line:column after the file name:\n{}",
        out.stderr
    );
    assert!(!dir.join("bootstrap.ign").exists());
}

#[test]
fn deleted_cluster_config_regenerates_the_manifests_folder() {
    let tmp = with_manifests();
    let dir = tmp.path();
    let cluster_config = dir.join("manifests/cluster-config.yaml");
    let original = read(&cluster_config);
    std::fs::remove_file(&cluster_config).unwrap();
    let out = create_at(dir, EPOCH, &["manifests"]).ok("create manifests again");
    out.stderr_has(&["cluster-config.yaml is missing", "manifests/"]);
    assert_eq!(read(&cluster_config), original);
}

#[test]
fn install_config_is_never_deleted_or_rewritten() {
    let tmp = with_manifests();
    let dir = tmp.path();
    let path = dir.join("install-config.yaml");
    let meta = |p: &Path| {
        let m = std::fs::metadata(p).expect("install-config.yaml still exists");
        (
            m.modified().unwrap(),
            std::os::unix::fs::MetadataExt::ino(&m),
        )
    };
    let (text, before) = (read(&path), meta(&path));
    ignition_configs(dir);
    create_at(dir, EPOCH, &["pki"]).ok("create pki");
    ignition_configs(dir);
    assert_eq!(read(&path), text);
    assert_eq!(meta(&path), before, "install-config.yaml was replaced");
}

#[test]
fn state_password_kubeconfig_and_bootstrap_are_private() {
    let tmp = with_manifests();
    let dir = tmp.path();
    ignition_configs(dir);
    for f in [
        ".okd-install-state.json",
        "auth/kubeadmin-password",
        "auth/kubeconfig",
        "bootstrap.ign",
    ] {
        assert_eq!(mode(&dir.join(f)), 0o600, "mode of {f}");
    }
}

/// Whether a manifest file holds a core Secret, judged from its text (independent of the
/// production rule under test).
fn has_secret_object(text: &str) -> bool {
    text.split("\n---")
        .any(|doc| doc.contains("\nkind: Secret\n") || doc.starts_with("kind: Secret\n"))
        && text.contains("apiVersion: v1\n")
}

/// `(file, mode)` of every file below `manifests/` and `openshift/`.
fn manifest_modes(dir: &Path) -> Vec<(String, u32)> {
    files_below(dir)
        .into_iter()
        .filter(|f| f.starts_with("manifests/") || f.starts_with("openshift/"))
        .map(|f| {
            let m = mode(&dir.join(&f));
            (f, m)
        })
        .collect()
}

#[test]
fn every_secret_manifest_is_private_when_written_and_when_loaded_back() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    create_at(dir, EPOCH, &["manifests", "--from-example", "ha-workers"]).ok("create manifests");
    let token = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: site-token\n  \
                 namespace: openshift-config\nstringData:\n  token: not-a-real-one\n";
    std::fs::write(dir.join("openshift/99-site-token.yaml"), token).unwrap();
    let written = manifest_modes(dir);
    let mut secret = 0;
    for (f, m) in &written {
        if f.ends_with("99-site-token.yaml") {
            continue;
        }
        let want = if has_secret_object(&read(&dir.join(f))) {
            secret += 1;
            0o600
        } else {
            0o640
        };
        assert_eq!(*m, want, "mode of {f} as generated");
    }
    // vSphere has the MCS key pair and CA, the pull secret, kubeadmin, cloud credentials,
    // kube-cloud-config and two user-data secrets.
    assert!(secret >= 8, "only {secret} secret files in {written:?}");
    assert!(
        written
            .iter()
            .any(|(f, m)| f.ends_with("99_role-cloud-creds-secret-reader.yaml") && *m == 0o640),
        "a Role named after a secret is not one: {written:?}"
    );

    // Loading the directory back (its files unchanged) must judge every file the same way;
    // `create manifests` sets the mode of what it keeps, so the user's Secret is closed too.
    create_at(dir, EPOCH, &["manifests"]).ok("create manifests again");
    create_at(dir, EPOCH, &["ignition-configs"]).ok("create ignition-configs");
    let loaded = manifest_modes(dir);
    for ((f, before), (_, after)) in written.iter().zip(&loaded) {
        if f.ends_with("99-site-token.yaml") {
            assert_eq!(
                *after, 0o600,
                "the user's Secret {f} stays readable by others"
            );
        } else {
            assert_eq!(after, before, "{f} changed its mode when loaded back");
        }
    }
}

/// The bootstrap host exports the Proxy manifest's `status.noProxy`: the computed list when
/// manifests are generated and loaded unchanged, the user's version once it is edited.
#[test]
fn bootstrap_no_proxy_follows_the_proxy_manifest() {
    const PROXY: &str = "manifests/cluster-proxy-01-config.yaml";
    const PROFILE: &str = "/etc/profile.d/proxy.sh";
    let one_step = tempfile::tempdir().unwrap();
    create_at(
        one_step.path(),
        EPOCH,
        &["ignition-configs", "--from-example", "proxy-trust-bundle"],
    )
    .ok("create ignition-configs");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    create_at(
        dir,
        EPOCH,
        &["manifests", "--from-example", "proxy-trust-bundle"],
    )
    .ok("create manifests");
    ignition_configs(dir);
    let exported = |d: &Path| ign_text(&read(&d.join("bootstrap.ign")), PROFILE);
    let computed = exported(one_step.path());
    assert!(computed.contains("api-int."), "{computed}");
    assert_eq!(exported(dir), computed, "loaded manifests changed noProxy");

    let manifest = read(&dir.join(PROXY));
    let edited = manifest.replace("noProxy: .cluster.local,", "noProxy: .edited.example.com,");
    assert_ne!(edited, manifest, "{manifest}");
    std::fs::write(dir.join(PROXY), edited).unwrap();
    ignition_configs(dir);
    let now = exported(dir);
    assert!(now.contains("NO_PROXY='.edited.example.com,"), "{now}");
}
