//! A failed pull read by its structure (#50): the incomplete mirror of the real host (the
//! release's manifest on the mirror, one of its layers not), podman's error line as the
//! evidence (not our script's retry line), the registry and the blob named, and no advice
//! about credentials, trust or mirror rules, which the evidence is not about.

use bundle_analysis::{Analysis, analyze_bundle};
use contract::Cause;
use contract::registry_error::{self, Advice, RegistryFault};

use crate::bundle::{Bundle, record};

const MIRROR: &str = "registry.example.com:5000";
const RELEASE: &str = "quay.io/okd/scos-release@sha256:0f5a0ecfc822";
const BLOB: &str = "sha256:4d41aa6b0a93d1b1b5e8a0f3c2d7e9f1a4b6c8d0e2f4a6b8c0d2e4f6a8b0c2d4";
/// Our script's retry line in the lookup stage.
const RETRY: &str = "The release's node image of OS image stream centos-10 is not known yet; \
                     asking again in 10s";

/// The install's mirror rules as the asset tree holds them.
const MIRROR_SET: &str = "apiVersion: config.openshift.io/v1
kind: ImageDigestMirrorSet
metadata:
  name: image-digest-mirror
spec:
  imageDigestMirrors:
  - source: quay.io/okd/scos-release
    mirrors:
    - registry.example.com:5000/okd/scos-release
  - source: quay.io/okd/scos-content
    mirrors:
    - registry.example.com:5000/okd/scos-content
";

/// podman 4.3's line for a layer the registry does not have (produced against Debian's
/// docker-registry with the layer's file removed).
fn blob_404() -> String {
    format!(
        "Error: reading blob {BLOB}: Error fetching blob: invalid status code from registry \
         404 (Not Found)"
    )
}

/// node-image-pull in its lookup stage on the real host: `error` (podman's, quiet, so no
/// progress line) every 10 s, each followed by our script's retry line; `progress` podman's
/// lines before each error when it was not quiet.
fn lookup_journal(error: &str, progress: &[String], times: usize) -> String {
    let mut journal = format!(
        "Nov 28 11:57:39 okdrh node-image-pull.sh[1139]: {}{RELEASE}\n",
        contract::NODE_IMAGE_LOOKUP_SAYS
    );
    for i in 0..times {
        let t = format!("Nov 28 11:58:{:02} okdrh", 10 * i);
        for p in progress {
            journal.push_str(&format!("{t} node-image-pull.sh[1197]: {p}\n"));
        }
        journal.push_str(&format!("{t} node-image-pull.sh[1197]: {error}\n"));
        journal.push_str(&format!("{t} node-image-pull.sh[1139]: {RETRY}\n"));
    }
    journal
}

fn incomplete_mirror(id: &str, journal: String) -> Bundle {
    Bundle::new(id)
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
            MIRROR_SET,
        )
}

fn analyse(bundle: Bundle) -> Analysis {
    let dir = tempfile::tempdir().unwrap();
    let path = bundle.write(dir.path(), "bundle.tar.gz");
    analyze_bundle(&path).unwrap()
}

/// Words that belong to advice about credentials, trust or mirror rules.
fn advice_words(a: Advice) -> &'static [&'static str] {
    match a {
        Advice::Credentials => &["pull secret", "credentials"],
        Advice::Trust => &["additionalTrustBundle", "trust"],
        Advice::MirrorRules => &["imageDigestSources", "mirror settings"],
    }
}

/// The report says no word of an advice the class of `fault` does not give.
fn assert_no_unsupported_advice(report: &str, fault: RegistryFault) {
    for a in [Advice::Credentials, Advice::Trust, Advice::MirrorRules] {
        if fault.advice().contains(&a) {
            continue;
        }
        for w in advice_words(a) {
            assert!(!report.contains(w), "{fault:?}: `{w}` in\n{report}");
        }
    }
}

/// The real host's incomplete mirror: the cause is the release image's pull, the evidence
/// podman's line (never our retry line), the class a blob missing on the mirror, the
/// registry, the digest and the mirror repositories named, the fix to mirror again, and
/// none of the four wrong leads.
#[test]
fn an_incomplete_mirror_is_a_blob_missing_on_the_mirror() {
    let error = blob_404();
    let a = analyse(incomplete_mirror(
        "incomplete",
        lookup_journal(&error, &[], 3),
    ));
    let report = a.render();
    let f = a.finding.clone().unwrap_or_else(|| panic!("{report}"));
    assert_eq!(f.cause, Cause::ReleaseImagePull, "{report}");
    assert!(f.evidence.ends_with(&error), "{report}");
    assert!(!f.evidence.contains("asking again"), "{report}");
    let read = registry_error::read(&f.evidence).expect("the evidence is a pull error");
    assert_eq!(read.fault, RegistryFault::BlobUnknown);
    for want in [MIRROR, BLOB] {
        assert!(f.summary.contains(want), "{want} not in {}", f.summary);
        assert!(f.remedy.contains(want), "{want} not in {}", f.remedy);
    }
    assert!(
        f.remedy
            .starts_with(&format!("mirror the image to `{MIRROR}` again"))
    );
    // How often, since when, where the rules send it, and our script's line below.
    let details = f.details.join("\n");
    assert!(details.contains("3 times"), "{details}");
    assert!(details.contains("Nov 28 11:58:00"), "{details}");
    assert!(
        details.contains(&format!("{MIRROR}/okd/scos-content")),
        "{details}"
    );
    assert!(details.contains(RETRY), "{details}");
    // The Problem line says what failed, not that the node image is not known yet.
    let problem = report
        .lines()
        .find(|l| l.starts_with("Problem:"))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(problem.contains(BLOB), "{problem}");
    assert!(!problem.contains("not known yet"), "{problem}");
    assert_no_unsupported_advice(&report, RegistryFault::BlobUnknown);
}

/// With podman's progress lines (a pull that is not quiet), the attempt names the image,
/// and the mirror rules its repository on the mirror.
#[test]
fn the_attempts_image_and_the_mirror_rules_name_the_repository() {
    let image = "quay.io/okd/scos-content@sha256:ead662e1ea91";
    let progress = vec![
        format!("Trying to pull {image}..."),
        "Getting image source signatures".to_string(),
        format!("Copying blob {BLOB}"),
    ];
    let error = blob_404();
    let a = analyse(incomplete_mirror(
        "attempt",
        lookup_journal(&error, &progress, 2),
    ));
    let report = a.render();
    let f = a.finding.clone().unwrap_or_else(|| panic!("{report}"));
    let repo = format!("`{MIRROR}/okd/scos-content`");
    assert!(f.summary.contains(&repo), "{report}");
    assert!(f.remedy.contains(&repo), "{report}");
    assert!(f.summary.contains(image), "{report}");
    assert_no_unsupported_advice(&report, RegistryFault::BlobUnknown);
}

/// A quiet pull (the host's podman runs with --quiet): our script's `Pulling IMAGE for
/// PURPOSE` line just before podman's error names the image, and the mirror rules its
/// repository on the mirror; the quoted evidence stays podman's line.
#[test]
fn our_scripts_pulling_line_names_the_quiet_pulls_repository() {
    let progress = vec![format!(
        "{}{RELEASE} for the machine-config operator's image reference",
        registry_error::PULLING
    )];
    let error = blob_404();
    let a = analyse(incomplete_mirror(
        "announced",
        lookup_journal(&error, &progress, 2),
    ));
    let report = a.render();
    let f = a.finding.clone().unwrap_or_else(|| panic!("{report}"));
    assert!(f.evidence.ends_with(&error), "{report}");
    let repo = format!("`{MIRROR}/okd/scos-release`");
    assert!(f.summary.contains(&repo), "{report}");
    assert!(f.remedy.contains(&repo), "{report}");
    assert!(f.summary.contains(RELEASE), "{report}");
    assert_no_unsupported_advice(&report, RegistryFault::BlobUnknown);
}

/// The host's registries.conf as okd-install writes it, but with the release image's
/// first mirror on another registry (an administrator's edit on the host, which the
/// install's ImageDigestMirrorSet does not know).
const HOST_REGISTRIES_CONF: &str = r#"
[[registry]]
prefix = ""
location = "quay.io/okd/scos-release"
mirror-by-digest-only = true

[[registry.mirror]]
location = "mirror2.example.com/okd/scos-release"

[[registry.mirror]]
location = "registry.example.com:5000/okd/scos-release"

[[registry]]
prefix = ""
location = "quay.io/okd/scos-content"
mirror-by-digest-only = true

[[registry.mirror]]
location = "registry.example.com:5000/okd/scos-content"
"#;

/// A drop-in that sends the release image to one mirror only.
const DROP_IN: &str = r#"
[[registry]]
prefix = "quay.io/okd/scos-release"
location = "quay.io/okd/scos-release"

[[registry.mirror]]
location = "mirror3.example.com:8443/okd/scos-release"
"#;

/// The host's registries.conf in the bundle is the routing its pulls took: it names the
/// registry and repository of a blob error, over the install's ImageDigestMirrorSet; a
/// drop-in of registries.conf.d replaces the table of the same prefix.
#[test]
fn the_hosts_registries_conf_routes_the_quiet_pull_over_the_mirror_set() {
    let progress = vec![format!(
        "{}{RELEASE} for the machine-config operator's image reference",
        registry_error::PULLING
    )];
    let conf = format!("{}/registries.conf", contract::REGISTRIES_CONF_DIR);
    let drop_in = format!(
        "{}/registries.conf.d/99-site.conf",
        contract::REGISTRIES_CONF_DIR
    );
    let host = |id: &str| {
        incomplete_mirror(id, lookup_journal(&blob_404(), &progress, 2))
            .file(&conf, HOST_REGISTRIES_CONF)
    };
    for (bundle, want) in [
        (host("host-conf"), "mirror2.example.com/okd/scos-release"),
        (
            host("drop-in").file(&drop_in, DROP_IN),
            "mirror3.example.com:8443/okd/scos-release",
        ),
    ] {
        let a = analyse(bundle);
        let report = a.render();
        let f = a.finding.clone().unwrap_or_else(|| panic!("{report}"));
        let repo = format!("`{want}`");
        assert!(f.summary.contains(&repo), "{want}: {report}");
        assert!(f.remedy.contains(&repo), "{want}: {report}");
        assert!(!f.summary.contains(MIRROR), "{report}");
        assert_no_unsupported_advice(&report, RegistryFault::BlobUnknown);
    }
}

/// Without the image, the host's registries.conf names the registry when every first
/// mirror in it is on one registry, and says where it sends the pulls; a registries.conf
/// whose first mirrors are on two registries names none (the mirror set's one registry
/// is not what the host followed).
#[test]
fn the_hosts_registries_conf_names_the_registry_of_an_unannounced_blob() {
    let conf = format!("{}/registries.conf", contract::REGISTRIES_CONF_DIR);
    let one = HOST_REGISTRIES_CONF.replace(
        "location = \"mirror2.example.com/okd/scos-release\"\n",
        "location = \"other.example.com:5000/okd/scos-release\"\n",
    );
    let one = one.replace("registry.example.com:5000", "other.example.com:5000");
    let a = analyse(
        incomplete_mirror("host-one", lookup_journal(&blob_404(), &[], 2)).file(&conf, &one),
    );
    let report = a.render();
    let f = a.finding.clone().unwrap_or_else(|| panic!("{report}"));
    assert!(f.summary.contains("`other.example.com:5000`"), "{report}");
    assert!(!report.contains(MIRROR), "{report}");
    assert!(
        f.details
            .iter()
            .any(|d| d.contains("the host's registries.conf sends these pulls")),
        "{report}"
    );
    let a = analyse(
        incomplete_mirror("host-two", lookup_journal(&blob_404(), &[], 2))
            .file(&conf, HOST_REGISTRIES_CONF),
    );
    let report = a.render();
    let f = a.finding.clone().unwrap_or_else(|| panic!("{report}"));
    assert!(!f.summary.contains(MIRROR), "{report}");
    assert!(!f.summary.contains("mirror2.example.com"), "{report}");
}

/// Every class the reader has, as the lookup stage's error: the finding is that class,
/// its evidence podman's line, and the report has no advice the class does not give.
#[test]
fn every_class_advises_only_what_its_evidence_is_about() {
    let lines = [
        (
            format!(
                "Error: reading blob {BLOB}: Error fetching blob: invalid status code from \
                 registry 500 (Internal Server Error)"
            ),
            RegistryFault::ServerError,
        ),
        (
            format!("Error: reading blob {BLOB}: too many requests to registry"),
            RegistryFault::TooManyRequests,
        ),
        (
            format!(
                "Error: writing blob: storing blob to file \"/var/tmp/storage1/1\": happened \
                 during read: Digest did not match, expected {BLOB}, got sha256:d29f"
            ),
            RegistryFault::DigestMismatch,
        ),
        (
            "Error: writing blob: storing blob to file \"/var/tmp/storage3/1\": happened during \
             read: unexpected EOF"
                .to_string(),
            RegistryFault::ConnectionReset,
        ),
        (
            format!(
                "Error: initializing source docker://{RELEASE}: pinging container registry \
                 {MIRROR}: Get \"https://{MIRROR}/v2/\": tls: first record does not look like \
                 a TLS handshake"
            ),
            RegistryFault::TlsHandshake,
        ),
        (
            format!(
                "Error: initializing source docker://{RELEASE}: reading manifest \
                 sha256:0f5a0ecfc822 in {MIRROR}/okd/scos-release: StatusCode: 418, oops"
            ),
            RegistryFault::HttpStatus,
        ),
        (
            format!(
                "Error: initializing source docker://{RELEASE}: reading manifest \
                 sha256:0f5a0ecfc822 in {MIRROR}/okd/scos-release: the registry sent \
                 something odd"
            ),
            RegistryFault::Unrecognised,
        ),
    ];
    for (i, (error, fault)) in lines.iter().enumerate() {
        let a = analyse(incomplete_mirror(
            &format!("class-{i}"),
            lookup_journal(error, &[], 2),
        ));
        let report = a.render();
        let f = a.finding.clone().unwrap_or_else(|| panic!("{report}"));
        assert!(f.evidence.ends_with(error.as_str()), "{report}");
        let read = registry_error::read(&f.evidence).expect("read");
        assert_eq!(read.fault, *fault, "{report}");
        assert!(f.summary.contains(MIRROR), "{report}");
        assert_no_unsupported_advice(&report, *fault);
        if *fault == RegistryFault::Unrecognised {
            assert!(
                f.summary.contains("okd-install does not recognise"),
                "{report}"
            );
        }
    }
}
