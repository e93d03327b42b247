//! `okd-install analyze BUNDLE` on bundles built by the tests.

use std::path::{Path, PathBuf};

use testkit::gather::scenario::{
    MASTER_OS_IMAGE, STOCK_OS_IMAGE, bootc_status_json, os_image_config_path, os_image_config_yaml,
    rpm_ostree_status_json,
};

use testkit::terminal::{STEERING, steering, steering_in_json};

use crate::bundle::{Bundle, record, succeeded};
use crate::common::json_lines;
use crate::support::{both, okd, stdout};

fn healthy(dir: &Path) -> PathBuf {
    Bundle::new("healthy")
        .service("release-image", succeeded())
        .service("bootkube", succeeded())
        .file("bootstrap/journals/bootkube.log", "bootkube finished\n")
        .write(dir, "log-bundle-healthy.tar.gz")
}

fn release_image_failed(dir: &Path) -> PathBuf {
    let failed = vec![
        record("service start", "", "", ""),
        record(
            "service end",
            "",
            "failure",
            "Error: reading manifest 4.20 in quay.io/okd/scos-release: unauthorized\nPull failed, will retry",
        ),
    ];
    Bundle::new("pull")
        .service("release-image", failed)
        .write(dir, "log-bundle-pull.tar.gz")
}

fn no_records(dir: &Path) -> PathBuf {
    Bundle::new("empty")
        .file("bootstrap/journals/kubelet.log", "kubelet started\n")
        .write(dir, "log-bundle-empty.tar.gz")
}

/// Runs `analyze` (text or JSON) and returns the output, asserting exit 0.
fn analyze(bundle: &Path, json: bool) -> std::process::Output {
    let dir = bundle.parent().expect("bundle dir");
    let mut cmd = okd(dir);
    cmd.arg("analyze").arg(bundle);
    if json {
        cmd.args(["--output", "json"]);
    }
    let out = cmd.output().expect("run okd-install analyze");
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    out
}

/// The analysis object of `analyze --output json`: its last line. A named cause comes first,
/// as one `diagnosis` event line (see [`diagnosis_event`]).
fn analyze_json(bundle: &Path) -> serde_json::Value {
    let out = analyze(bundle, true);
    let mut lines = json_lines(&out);
    assert!(
        (1..=2).contains(&lines.len()),
        "the analysis, after at most one diagnosis event: {}",
        both(&out)
    );
    lines.pop().expect("one line at least")
}

/// The `diagnosis` event `analyze --output json` prints before the analysis, if any.
fn diagnosis_event(bundle: &Path) -> Option<serde_json::Value> {
    let out = analyze(bundle, true);
    json_lines(&out)
        .into_iter()
        .find(|l| l["event"] == "diagnosis")
}

#[test]
fn healthy_bundle_reports_no_problem() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = healthy(dir.path());
    let text = stdout(&analyze(&bundle, false));
    assert!(
        text.starts_with(
            "No problem found: the bootstrap services recorded in the bundle succeeded."
        ),
        "{text}"
    );
    assert!(!text.contains("Problem:"), "{text}");
    let json = analyze_json(&bundle);
    assert_eq!(json["verdict"]["kind"], "healthy", "{json:#}");
    assert_eq!(json["bundle"], bundle.display().to_string());
    let names: Vec<&str> = json["services"]
        .as_array()
        .expect("services array")
        .iter()
        .map(|s| s["name"].as_str().expect("service name"))
        .collect();
    assert_eq!(names, ["bootkube", "release-image"]);
}

#[test]
fn failed_release_image_is_the_diagnosis() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = release_image_failed(dir.path());
    let text = stdout(&analyze(&bundle, false));
    let first = text.lines().next().unwrap_or_default();
    assert!(first.starts_with("cause (release-image-pull): "), "{text}");
    // The Problem line names the same pull as the cause: the image, the registry, why.
    assert!(
        text.contains(
            "Problem: release-image.service failed (started 1 time(s)): the bootstrap host could \
             not pull the release image `quay.io/okd/scos-release:4.20` because `quay.io` wants \
             credentials"
        ),
        "{text}"
    );
    let event = diagnosis_event(&bundle).expect("a diagnosis event");
    assert_eq!(event["cause"], "release-image-pull", "{event:#}");
    assert!(
        text.contains(
            "    | Error: reading manifest 4.20 in quay.io/okd/scos-release: unauthorized"
        ),
        "{text}"
    );
    assert!(text.contains("    | Pull failed, will retry"), "{text}");
    assert!(
        text.contains("Next: add credentials for `quay.io` to the pull secret"),
        "{text}"
    );
    let json = analyze_json(&bundle);
    let verdict = &json["verdict"];
    assert_eq!(verdict["kind"], "problem", "{json:#}");
    assert_eq!(verdict["service"], "release-image");
    assert_eq!(verdict["status"], "failed");
    assert_eq!(verdict["starts"], 1);
    assert_eq!(
        verdict["error_lines"][0],
        "Error: reading manifest 4.20 in quay.io/okd/scos-release: unauthorized"
    );
}

#[test]
fn bundle_without_service_records_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = no_records(dir.path());
    let text = stdout(&analyze(&bundle, false));
    assert!(
        text.starts_with(&format!("No service records in {}", bundle.display())),
        "{text}"
    );
    assert!(text.contains("bootstrap/services/*.json"), "{text}");
    let json = analyze_json(&bundle);
    assert_eq!(json["verdict"]["kind"], "no-service-records", "{json:#}");
    assert_eq!(json["services"], serde_json::json!([]));
}

#[test]
fn a_file_that_is_not_a_bundle_fails_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let bogus = dir.path().join("log-bundle-bogus.tar.gz");
    std::fs::write(&bogus, "this is not gzip").unwrap();
    let out = okd(dir.path())
        .arg("analyze")
        .arg(&bogus)
        .output()
        .expect("run okd-install analyze");
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let err = crate::support::stderr(&out);
    assert!(err.contains(&bogus.display().to_string()), "{err}");
    assert!(out.stdout.is_empty(), "{}", both(&out));
}

/// A bundle whose journals, records and entry names carry [`STEERING`]: a failed release
/// image with its error line (so a cause is named), and a record that does not parse.
fn steering_bundle(dir: &Path) -> PathBuf {
    let failed = vec![
        record("service start", "", "", ""),
        record(
            "service end",
            &format!("pull{STEERING}"),
            "failure",
            &format!("Error: reading manifest in quay.io/okd/release: unauthorized {STEERING}"),
        ),
    ];
    Bundle::new("steer")
        .service("release-image", failed)
        .file("bootstrap/journals/bootkube.log", format!("{STEERING}\n"))
        .file(&format!("bootstrap/services/x{STEERING}.json"), STEERING)
        .file(
            &format!("control-plane/10.0.0.1{STEERING}/failed-units.txt"),
            format!("kubelet.service loaded failed failed {STEERING}\n"),
        )
        .write(dir, "log-bundle-steer.tar.gz")
}

#[test]
fn a_bundle_cannot_steer_the_terminal_in_text_or_json() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = steering_bundle(dir.path());
    let text = analyze(&bundle, false);
    for (stream, bytes) in [("stdout", &text.stdout), ("stderr", &text.stderr)] {
        if let Some(c) = steering(&String::from_utf8_lossy(bytes)) {
            panic!("{stream} steers the terminal with {c:?}:\n{}", both(&text));
        }
    }
    let shown = stdout(&text);
    assert!(
        shown.contains("\\x1b]0;owned\\x07"),
        "shown escaped:\n{shown}"
    );
    assert!(shown.contains("cause (release-image-pull)"), "{shown}");
    let json = analyze(&bundle, true);
    assert_eq!(steering(&stdout(&json)), None, "{}", both(&json));
    for line in json_lines(&json) {
        // A field printed raw (`jq -r`) must not steer either.
        assert_eq!(steering_in_json(&line), None);
    }
}

#[test]
fn records_that_cannot_be_read_are_said_so_never_no_problem() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = Bundle::new("garbled")
        .file("bootstrap/services/release-image.json", "[{\"phase\": ")
        .file("bootstrap/services/bootkube.json", "\u{0}\u{0}\u{0}")
        .write(dir.path(), "log-bundle-garbled.tar.gz");
    let text = stdout(&analyze(&bundle, false));
    assert!(
        text.starts_with("Not judged: the bundle's service records could not be read"),
        "{text}"
    );
    assert!(
        text.contains("bootstrap/services/release-image.json: EOF"),
        "{text}"
    );
    assert!(
        text.contains("bootstrap/services/bootkube.json: "),
        "{text}"
    );
    assert!(!text.contains("No problem found"), "{text}");
    let json = analyze_json(&bundle);
    assert_eq!(json["verdict"]["kind"], "unreadable-records", "{json:#}");
    assert_eq!(json["unreadable_records"].as_array().map(Vec::len), Some(2));
}

/// A bundle whose OS pivot gave up pulling the machine-OS image; bootkube ran anyway.
fn os_pivot_rebase_failed(dir: &Path) -> PathBuf {
    let mut pivot = vec![record("service start", "", "", "")];
    for stage in ["resolve-machine-os-image", "inspect-deployments"] {
        pivot.push(record("stage start", stage, "", ""));
        pivot.push(record("stage end", stage, "success", ""));
    }
    pivot.push(record("stage start", "rebase-host-os", "", ""));
    let given_up = "rpm-ostree rebase to quay.io/okd/scos-content@sha256:5e1f failed 10 times";
    pivot.push(record("stage end", "rebase-host-os", "failure", given_up));
    pivot.push(record(
        "service end",
        "",
        "failure",
        "error: Creating importer: failed to invoke method OpenImage: unauthorized",
    ));
    Bundle::new("ospivot")
        .service("release-image", succeeded())
        .service("release-image-pivot", pivot)
        .service("bootkube", vec![record("service start", "", "", "")])
        .file(
            "bootstrap/journals/release-image-pivot.log",
            "Rebase attempt 9 of 10 failed; trying again in 60s\n",
        )
        .write(dir, "log-bundle-ospivot.tar.gz")
}

#[test]
fn a_failed_os_pivot_is_the_diagnosis_before_bootkube() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = os_pivot_rebase_failed(dir.path());
    let text = stdout(&analyze(&bundle, false));
    assert!(
        text.starts_with(
            "Problem: release-image-pivot.service failed at stage rebase-host-os and could not \
             move the bootstrap host onto the release's machine-OS image"
        ),
        "{text}"
    );
    assert!(
        text.contains("    | rpm-ostree rebase to quay.io/okd/scos-content"),
        "{text}"
    );
    assert!(text.contains("    | error: Creating importer"), "{text}");
    assert!(
        text.contains("Next: rpm-ostree could not pull the machine-OS image"),
        "{text}"
    );
    assert!(
        text.contains("    | Rebase attempt 9 of 10 failed"),
        "{text}"
    );
    let json = analyze_json(&bundle);
    let verdict = &json["verdict"];
    assert_eq!(verdict["service"], "release-image-pivot", "{json:#}");
    assert_eq!(verdict["stage"], "rebase-host-os");
    assert_eq!(
        json["os_pivot_journal_tail"],
        serde_json::json!(["Rebase attempt 9 of 10 failed; trying again in 60s"])
    );
}

/// An image-mode bundle: bootstrap.ign's OS-image MachineConfig of the master pool, the
/// config the bootstrap machine-config server serves, and three masters: one on its pool's
/// image, one on the stock OS, one without rpm-ostree whose bootc reports the image by tag and
/// digest.
fn image_mode(dir: &Path) -> PathBuf {
    let on_image = format!("ostree-unverified-registry:{MASTER_OS_IMAGE}");
    let stock = format!("ostree-unverified-registry:{STOCK_OS_IMAGE}");
    let (name, digest) = MASTER_OS_IMAGE.split_once('@').unwrap();
    Bundle::new("imagemode")
        .service("bootkube", succeeded())
        .file(
            &format!(
                "rendered-assets/openshift/{}",
                os_image_config_path("master")
            ),
            os_image_config_yaml("master", MASTER_OS_IMAGE),
        )
        .file(
            "bootstrap/os-image/served-os-images.txt",
            format!("master rendered-master-2d80 {MASTER_OS_IMAGE}\n"),
        )
        .file(
            "control-plane/10.0.0.5/os-image/rpm-ostree-status.json",
            rpm_ostree_status_json(Some(&on_image), None),
        )
        .file(
            "control-plane/10.0.0.6/os-image/rpm-ostree-status.json",
            rpm_ostree_status_json(Some(&stock), None),
        )
        .file(
            "control-plane/10.0.0.7/os-image/rpm-ostree-absent.txt",
            "rpm-ostree is not installed on this host\n",
        )
        .file(
            "control-plane/10.0.0.7/os-image/bootc-status.json",
            bootc_status_json(&format!("{name}:4.19"), digest),
        )
        .write(dir, "log-bundle-imagemode.tar.gz")
}

#[test]
fn image_mode_compares_each_masters_booted_image_with_its_pools() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = image_mode(dir.path());
    let text = stdout(&analyze(&bundle, false));
    let told = format!(
        "  - pool master: {MASTER_OS_IMAGE} (MachineConfig 99-master-okd-install-os-image in \
         log-bundle-imagemode/rendered-assets/openshift/{})\n    rendered config \
         rendered-master-2d80 served by the bootstrap machine-config server carries it",
        os_image_config_path("master")
    );
    assert!(text.contains(&told), "{text}");
    assert!(
        text.contains("    10.0.0.5 booted it (rpm-ostree)\n"),
        "{text}"
    );
    assert!(text.contains("    10.0.0.7 booted it (bootc)\n"), "{text}");
    let problem = format!(
        "Image-mode problem: host 10.0.0.6 of pool master booted \
         ostree-unverified-registry:{STOCK_OS_IMAGE} (rpm-ostree), not the OS image \
         {MASTER_OS_IMAGE} its pool was told to boot.\n  Next: the node did not apply its \
         pool's OS image"
    );
    assert!(text.contains(&problem), "{text}");
    assert_eq!(text.matches("Image-mode problem").count(), 1, "{text}");
    assert!(
        text.contains("Image-mode note: rpm-ostree is not installed on 10.0.0.7"),
        "{text}"
    );

    let json = analyze_json(&bundle);
    let state = &json["image_mode"];
    let master = &state["pools"][0];
    assert_eq!(master["pool"], "master", "{json:#}");
    assert_eq!(master["told"]["image"], MASTER_OS_IMAGE);
    let hosts: Vec<(&str, &str, bool)> = master["hosts"]
        .as_array()
        .expect("hosts")
        .iter()
        .map(|h| {
            let host = h["host"].as_str().unwrap();
            (
                host,
                h["tool"].as_str().unwrap(),
                h["matches"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        hosts,
        [
            ("10.0.0.5", "rpm-ostree", true),
            ("10.0.0.6", "rpm-ostree", false),
            ("10.0.0.7", "bootc", true)
        ]
    );
    assert_eq!(state["problems"][0]["kind"], "booted-other");
    assert_eq!(state["problems"][0]["host"], "10.0.0.6");
    assert_eq!(state["problems"][0]["told"], MASTER_OS_IMAGE);
}

#[test]
fn without_image_mode_analyze_says_nothing_about_it() {
    let dir = tempfile::tempdir().unwrap();
    let stock = format!("ostree-unverified-registry:{STOCK_OS_IMAGE}");
    let bundle = Bundle::new("plain")
        .service("bootkube", succeeded())
        .file(
            "control-plane/10.0.0.5/os-image/rpm-ostree-status.json",
            rpm_ostree_status_json(Some(&stock), None),
        )
        .file(
            "control-plane/10.0.0.5/os-image/bootc-absent.txt",
            "bootc is not installed on this host\n",
        )
        .write(dir.path(), "log-bundle-plain.tar.gz");
    let text = stdout(&analyze(&bundle, false));
    assert!(
        !text.contains("Image mode") && !text.contains("Image-mode"),
        "{text}"
    );
    let json = analyze_json(&bundle);
    assert_eq!(json["image_mode"], serde_json::Value::Null, "{json:#}");
}

/// Every record reads success and no rule names a cause, yet the bundle shows the bootstrap
/// not complete: never "No problem found", and the most repeated error lines are shown.
#[test]
fn an_unfinished_bootstrap_is_never_an_all_clear() {
    let dir = tempfile::tempdir().unwrap();
    let journal: String = (0..12)
        .map(|i| {
            format!(
                "Nov 28 08:00:{:02} bootstrap bootkube.sh[2301]: Error: the widget service \
                 answered 503 (try {i})\n",
                i * 5
            )
        })
        .collect();
    let bundle = Bundle::new("unfinished")
        .service("release-image", succeeded())
        .service("bootkube", succeeded())
        .asset_manifest(
            "cluster-config.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-config-v1\n  namespace: kube-system\n",
        )
        .file("bootstrap/journals/bootkube.log", journal)
        .write(dir.path(), "log-bundle-unfinished.tar.gz");
    let text = stdout(&analyze(&bundle, false));
    assert!(text.starts_with("Not complete: "), "{text}");
    assert!(!text.contains("No problem found"), "{text}");
    assert!(
        text.contains(
            "  - 12 time(s), Nov 28 08:00:00 to Nov 28 08:00:55 in \
             log-bundle-unfinished/bootstrap/journals/bootkube.log:\n    \
             | Error: the widget service answered 503 (try 11)\n"
        ),
        "{text}"
    );
    let json = analyze_json(&bundle);
    assert_eq!(json["verdict"]["kind"], "incomplete", "{json:#}");
    assert_eq!(json["completion"]["kind"], "not-complete", "{json:#}");
    assert_eq!(json["repeated_errors"][0]["count"], 12, "{json:#}");
    assert_eq!(diagnosis_event(&bundle), None);
}

/// The real host's incomplete mirror (#50): node-image-pull in its lookup stage, podman's
/// blob 404 every 10 s, each followed by our script's retry line; the install's mirror rules
/// in the asset tree.
fn incomplete_mirror(dir: &Path) -> PathBuf {
    let blob = "sha256:4d41aa6b0a93d1b1b5e8a0f3c2d7e9f1a4b6c8d0e2f4a6b8c0d2e4f6a8b0c2d4";
    let mut journal = format!(
        "Nov 28 11:57:39 okdrh node-image-pull.sh[1139]: {}quay.io/okd/scos-release@sha256:0f5a\n",
        contract::NODE_IMAGE_LOOKUP_SAYS
    );
    for s in [0, 10, 20] {
        journal.push_str(&format!(
            "Nov 28 11:58:{s:02} okdrh node-image-pull.sh[1197]: Error: reading blob {blob}: Error \
             fetching blob: invalid status code from registry 404 (Not Found)\n\
             Nov 28 11:58:{s:02} okdrh node-image-pull.sh[1139]: The release's node image of OS \
             image stream centos-10 is not known yet; asking again in 10s\n"
        ));
    }
    let rules = "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  \
                 name: image-digest-mirror\nspec:\n  imageDigestMirrors:\n  - source: \
                 quay.io/okd/scos-release\n    mirrors:\n    - \
                 registry.example.com:5000/okd/scos-release\n";
    Bundle::new("incomplete-mirror")
        .service(
            "node-image-pull",
            vec![
                record("service start", "", "", ""),
                record("stage start", contract::NODE_IMAGE_LOOKUP_STAGE, "", ""),
            ],
        )
        .file("bootstrap/journals/node-image-pull.log", journal)
        .file(
            "rendered-assets/openshift/manifests/image-digest-mirror-set.yaml",
            rules,
        )
        .write(dir, "log-bundle-incomplete-mirror.tar.gz")
}

/// `analyze` on the incomplete mirror: the cause's evidence is podman's blob line, the
/// registry and the digest are named, the fix is to mirror again, and no word of the pull
/// secret, the trust bundle or the mirror settings appears; the JSON says the same.
#[test]
fn an_incomplete_mirror_is_named_as_a_blob_missing_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = incomplete_mirror(dir.path());
    let text = stdout(&analyze(&bundle, false));
    let mut head = text.lines();
    let cause = head.next().unwrap_or_default();
    assert!(cause.starts_with("cause (release-image-pull): "), "{text}");
    assert!(cause.contains("`registry.example.com:5000`"), "{text}");
    assert!(cause.contains("sha256:4d41aa6b"), "{text}");
    let evidence = head.next().unwrap_or_default();
    assert!(
        evidence.contains("Error: reading blob sha256:4d41aa6b"),
        "{text}"
    );
    assert!(
        text.contains("mirror the image to `registry.example.com:5000` again"),
        "{text}"
    );
    for lead in [
        "pull secret",
        "additionalTrustBundle",
        "imageDigestSources",
        "mirror settings",
    ] {
        assert!(!text.contains(lead), "`{lead}` in\n{text}");
    }
    let json = analyze_json(&bundle);
    let finding = &json["finding"];
    assert!(
        finding["evidence"]
            .as_str()
            .is_some_and(|e| e.contains("invalid status code from registry 404")),
        "{json}"
    );
}
