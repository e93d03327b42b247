//! Loading user manifests back from an install directory.

use std::fs;
use std::path::Path;

use manifests::{Dir, Origin, classify, generate, load_dir, user_added_or_edited};

use crate::common;

/// Write `generate(sno)` into a fresh install dir.
pub(crate) fn install_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in generate(&common::sno()).unwrap().files {
        let d = dir.path().join(f.dir.as_str());
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join(&f.name), &f.data).unwrap();
    }
    dir
}

fn find_in<'a>(errors: &'a [manifests::ManifestError], name: &str) -> &'a manifests::ManifestError {
    errors.iter().find(|e| e.path.ends_with(name)).unwrap()
}

fn write(dir: &Path, rel: &str, text: &str) {
    fs::write(dir.join(rel), text).unwrap();
}

#[test]
fn unchanged_dir_loads_as_generated() {
    let dir = install_dir();
    let loaded = load_dir(dir.path()).unwrap();
    let mut all = loaded.manifests.unwrap();
    all.extend(loaded.openshift.unwrap());
    let generated = generate(&common::sno()).unwrap();
    let c = classify(&generated, &all);
    assert_eq!(c.files.len(), generated.files.len());
    assert!(c.files.iter().all(|(_, o)| *o == Origin::Generated));
    assert!(c.removed.is_empty());
    assert!(loaded.warnings.is_empty());
}

#[test]
fn added_edited_and_removed_files_are_told_apart() {
    let dir = install_dir();
    let p = dir.path();
    let sched = "manifests/cluster-scheduler-02-config.yml";
    let edited = fs::read_to_string(p.join(sched))
        .unwrap()
        .replace("true", "false");
    write(p, sched, &edited);
    write(
        p,
        "openshift/99_extra.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: extra\n",
    );
    fs::remove_file(p.join("manifests/kube-cloud-config.yaml")).unwrap();

    let loaded = load_dir(p).unwrap();
    let mut all = loaded.manifests.unwrap();
    all.extend(loaded.openshift.unwrap());
    let generated = generate(&common::sno()).unwrap();
    let c = classify(&generated, &all);
    let origin = |path: &str| c.files.iter().find(|(p, _)| p == path).unwrap().1;
    assert_eq!(origin(sched), Origin::Edited);
    assert_eq!(origin("openshift/99_extra.yaml"), Origin::Added);
    assert_eq!(origin("manifests/cvo-overrides.yaml"), Origin::Generated);
    assert_eq!(c.removed, ["manifests/kube-cloud-config.yaml"]);
    assert_eq!(
        user_added_or_edited(&generated, &all),
        [sched, "openshift/99_extra.yaml"]
    );
    // Loading never deletes anything.
    assert!(p.join("openshift/99_extra.yaml").exists());
}

#[test]
fn multi_document_and_json_files_are_accepted() {
    let dir = install_dir();
    let p = dir.path();
    write(
        p,
        "manifests/50-multi.yaml",
        "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\n# second\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: a\n",
    );
    write(
        p,
        "openshift/60-obj.json",
        r#"{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"c"}}"#,
    );
    let loaded = load_dir(p).unwrap();
    let multi = loaded
        .manifests
        .unwrap()
        .into_iter()
        .find(|f| f.name == "50-multi.yaml")
        .unwrap();
    let kinds: Vec<_> = multi
        .objects
        .iter()
        .map(|o| (o.kind.as_str(), o.position.unwrap().0))
        .collect();
    assert_eq!(kinds, [("Namespace", 2), ("ConfigMap", 8)]);
    assert_eq!(multi.objects[1].namespace.as_deref(), Some("a"));
    let json = loaded
        .openshift
        .unwrap()
        .into_iter()
        .find(|f| f.name == "60-obj.json")
        .unwrap();
    assert_eq!(json.objects[0].name, "c");
}

#[test]
fn every_broken_file_is_reported_with_its_position() {
    let dir = install_dir();
    let p = dir.path();
    write(
        p,
        "manifests/bad-syntax.yaml",
        "apiVersion: v1\nkind: [Namespace\n",
    );
    write(
        p,
        "openshift/no-name.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata: {}\n",
    );
    write(
        p,
        "openshift/second-doc.yml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n---\nkind: Namespace\nmetadata:\n  name: x\n",
    );
    write(p, "openshift/empty.yaml", "# nothing here\n");
    write(
        p,
        "openshift/list.yaml",
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n",
    );
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("shadow"), "root: secret-hash\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("shadow"),
        p.join("manifests/linked.yaml"),
    )
    .unwrap();
    let errors = load_dir(p).unwrap_err();
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 6, "{text:#?}");
    let list = &find_in(&errors, "list.yaml").message;
    assert!(
        list.contains("a List is not applied as one object"),
        "{list}"
    );
    assert!(!list.contains("metadata.name"), "{list}");
    let linked = find_in(&errors, "linked.yaml").to_string();
    assert!(
        linked.contains("symbolic link") && linked.contains("outside"),
        "{linked}"
    );
    assert!(!text.concat().contains("secret-hash"), "{text:#?}");
    let find = |name: &str| errors.iter().find(|e| e.path.ends_with(name)).unwrap();
    let syntax = find("bad-syntax.yaml");
    assert_eq!(syntax.position.unwrap().0, 2, "{syntax}");
    assert!(
        syntax
            .to_string()
            .starts_with("manifests/bad-syntax.yaml:2:"),
        "{syntax}"
    );
    assert!(find("no-name.yaml").message.contains("metadata.name"));
    let second = find("second-doc.yml");
    assert_eq!(second.position, Some((6, 1)));
    assert!(second.message.contains("apiVersion"));
    assert!(find("empty.yaml").message.contains("no Kubernetes object"));
}

#[test]
fn missing_cluster_config_means_regenerate() {
    let dir = install_dir();
    fs::remove_file(dir.path().join("manifests/cluster-config.yaml")).unwrap();
    let loaded = load_dir(dir.path()).unwrap();
    assert!(loaded.manifests.is_none());
    assert!(loaded.openshift.is_some());
    assert!(
        loaded.warnings[0].contains("cluster-config.yaml is missing"),
        "{:?}",
        loaded.warnings
    );
    // Nothing was removed from disk.
    assert!(dir.path().join("manifests/cvo-overrides.yaml").exists());
}

#[test]
fn empty_install_dir_has_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let loaded = load_dir(dir.path()).unwrap();
    assert_eq!((loaded.manifests, loaded.openshift), (None, None));
}

#[test]
fn subdirectories_and_other_extensions_are_skipped_with_a_warning() {
    let dir = install_dir();
    let p = dir.path();
    fs::create_dir(p.join("manifests/nested")).unwrap();
    write(p, "openshift/README.txt", "notes");
    write(
        p,
        "manifests/extra.txt",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: t\n",
    );
    let loaded = load_dir(p).unwrap();
    assert_eq!(loaded.warnings.len(), 2, "{:?}", loaded.warnings);
    // manifests/ takes any extension.
    assert!(
        loaded
            .manifests
            .unwrap()
            .iter()
            .any(|f| f.name == "extra.txt" && f.dir == Dir::Manifests)
    );
}

proptest::proptest! {
    #[test]
    fn parsing_never_panics(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400)) {
        let _ = manifests::user::parse_objects(Path::new("x.yaml"), &data);
    }

    #[test]
    fn parsing_yaml_like_text_never_panics(text in "[a-z:\\-\\[\\]{}#'\" \n]{0,200}") {
        let _ = manifests::user::parse_objects(Path::new("x.yaml"), text.as_bytes());
    }
}

#[test]
fn machine_asset_files_are_recognised() {
    let generated = generate(&common::baremetal_compact()).unwrap();
    let owned: Vec<&str> = generated
        .files
        .iter()
        .filter(|f| f.dir == Dir::Openshift && manifests::owned_by_machine_assets(&f.name))
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(
        owned,
        [
            "99_openshift-cluster-api_master-user-data-secret.yaml",
            "99_openshift-cluster-api_worker-user-data-secret.yaml",
            "99_openshift-machineconfig_99-master-disable-hyperthreading.yaml",
            "99_openshift-machineconfig_99-master-fips.yaml",
            "99_openshift-machineconfig_99-master-ssh.yaml",
            "99_openshift-machineconfig_99-worker-fips.yaml",
            "99_openshift-machineconfig_99-worker-ssh.yaml",
        ]
    );
    for name in [
        "99_openshift-cluster-api_master-machines-0.yaml",
        "99_openshift-etcd_fencing-credentials-secrets-0.yaml",
    ] {
        assert!(manifests::owned_by_machine_assets(name), "{name}");
    }
    for name in [
        "99_feature-gate.yaml",
        "99_kubeadmin-password-secret.yaml",
        "99_extra.yaml",
    ] {
        assert!(!manifests::owned_by_machine_assets(name), "{name}");
    }
}
