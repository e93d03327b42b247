//! cluster-bootstrap's create loop as the analysis reads it: a manifest it can never create is
//! named with its file, object, reason and retries, in either of the two line shapes the 4.19
//! bootstrap writes, whatever bootkube's record says; and a bootstrap the bundle shows not
//! complete is never "No problem found".

use bundle_analysis::{Analysis, Completion, Judgement, Verdict, analyze_bundle};
use contract::Cause;
use contract::create_failure::Refusal;

use crate::bundle::{Bundle, succeeded};
use crate::scenario::{
    Ending, HELDOUT_FILE, HELDOUT_NAMESPACE, HELDOUT_ONE, HELDOUT_TWO, HELDOUT_YAML, bootkube_run,
    create_loop_journal,
};

/// okd-install's own manifest in kube-system, as the asset tree holds it.
const CLUSTER_CONFIG: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-config-v1\n  namespace: kube-system\n";

fn analyse(bundle: Bundle) -> Analysis {
    let dir = tempfile::tempdir().unwrap();
    let path = bundle.write(dir.path(), "bundle.tar.gz");
    analyze_bundle(&path).unwrap()
}

/// The issue's host: every service up to bootkube succeeded, the asset tree holds
/// okd-install's manifest and the user's ConfigMap, bootkube.sh did not finish, and its
/// journal holds `journal`.
fn host(id: &str, bootkube: Vec<serde_json::Value>, journal: &str) -> Bundle {
    Bundle::new(id)
        .service("node-image-pull", succeeded())
        .service("node-image-overlay", succeeded())
        .service("release-image", succeeded())
        .service("bootkube", bootkube)
        .asset_manifest("cluster-config.yaml", CLUSTER_CONFIG)
        .asset_manifest(HELDOUT_FILE, HELDOUT_YAML)
        .file("bootstrap/journals/bootkube.log", journal)
}

fn stalled() -> Vec<serde_json::Value> {
    bootkube_run("cb-bootstrap", Ending::Running)
}

/// The finding names the manifest-namespace cause with the file, the object, the namespace,
/// the retries and the fix; `last` is the evidence line.
fn expect_heldout(a: &Analysis, id: &str, attempts: usize, stage: Option<&str>, last: &str) {
    let report = a.render();
    let f = a.finding.as_ref().unwrap_or_else(|| panic!("{report}"));
    assert_eq!(f.cause, Cause::ManifestNamespace, "{report}");
    assert_eq!(f.unit.as_deref(), Some("bootkube.service"), "{report}");
    assert_eq!(f.stage.as_deref(), stage, "{report}");
    assert_eq!(f.evidence, last, "{report}");
    assert_eq!(
        f.summary,
        format!(
            "cluster-bootstrap cannot create {HELDOUT_FILE} (configmaps heldout-probe in \
             namespace {HELDOUT_NAMESPACE}): its namespace {HELDOUT_NAMESPACE} does not exist"
        )
    );
    let end = 5 * attempts;
    let retried = format!(
        "refused {attempts} time(s) from Nov 28 08:00:05 to Nov 28 08:{:02}:{:02} \
         (log-bundle-{id}/bootstrap/journals/bootkube.log)",
        end / 60,
        end % 60,
    );
    assert!(
        f.details[0].starts_with(&retried),
        "{:?}\n{report}",
        f.details
    );
    assert!(
        f.details[1].contains(&format!(
            "no manifest of the bundle's rendered-assets/openshift/manifests/ (where \
             bootkube.sh put manifests/ and openshift/) creates namespace {HELDOUT_NAMESPACE}"
        )),
        "{:?}",
        f.details
    );
    assert!(
        f.remedy.starts_with(&format!(
            "add a Namespace manifest for {HELDOUT_NAMESPACE} to manifests/, or correct the \
             namespace in {HELDOUT_FILE}"
        )),
        "{}",
        f.remedy
    );
    assert!(
        f.remedy
            .ends_with(&format!("create namespace {HELDOUT_NAMESPACE}")),
        "{}",
        f.remedy
    );
    // The report opens with the finding, as wait-for prints it.
    let head: Vec<&str> = report.lines().take(f.lines().len()).collect();
    assert_eq!(head, f.lines(), "{report}");
    assert!(!report.contains("No problem found"), "{report}");
    // The release's manifest that waited for its namespace and was created is not listed;
    // the user's is, as what holds the bootstrap.
    assert_eq!(a.manifest_failures.len(), 1, "{report}");
    let m = &a.manifest_failures[0];
    assert_eq!(m.judgement, Judgement::Blocks);
    assert_eq!(
        m.failure.refusal,
        Refusal::NamespaceMissing {
            namespace: HELDOUT_NAMESPACE.into()
        }
    );
}

#[test]
fn a_namespace_nothing_creates_is_named_in_the_first_shape() {
    let journal = create_loop_journal(40, Some(HELDOUT_ONE), None);
    let a = analyse(host("shape-one", stalled(), &journal));
    expect_heldout(&a, "shape-one", 40, Some("cb-bootstrap"), HELDOUT_ONE);
}

#[test]
fn a_namespace_nothing_creates_is_named_in_the_second_shape() {
    let journal = create_loop_journal(40, None, Some(HELDOUT_TWO));
    let a = analyse(host("shape-two", stalled(), &journal));
    expect_heldout(&a, "shape-two", 40, Some("cb-bootstrap"), HELDOUT_TWO);
}

/// Both shapes per attempt, as the issue's journal held them: one attempt counts once.
#[test]
fn both_shapes_together_count_each_attempt_once() {
    let journal = create_loop_journal(120, Some(HELDOUT_ONE), Some(HELDOUT_TWO));
    let a = analyse(host("both", stalled(), &journal));
    expect_heldout(&a, "both", 120, Some("cb-bootstrap"), HELDOUT_TWO);
}

/// bootkube's record says it succeeded (a record of an earlier run, or scripts that record
/// less), while cluster-bootstrap still loops on the manifest: the loop is named, and the
/// verdict says the bootstrap is not complete.
#[test]
fn a_loop_is_named_even_when_bootkubes_record_says_succeeded() {
    let journal = create_loop_journal(30, Some(HELDOUT_ONE), Some(HELDOUT_TWO));
    let a = analyse(host("record-ok", succeeded(), &journal));
    expect_heldout(&a, "record-ok", 30, None, HELDOUT_TWO);
    let Verdict::Incomplete { reasons } = &a.verdict else {
        panic!("{:?}\n{}", a.verdict, a.render());
    };
    assert!(
        reasons[0].starts_with("rendered-assets/openshift/ has no .bootkube.done"),
        "{reasons:?}"
    );
    assert!(
        reasons[1].ends_with(&format!(
            "ends with cluster-bootstrap still failing to create {HELDOUT_FILE}"
        )),
        "{reasons:?}"
    );
    let report = a.render();
    assert!(report.contains("Not complete: "), "{report}");
    assert!(
        report.contains("End of the bootkube journal"),
        "the journal's end is shown: {report}"
    );
}

/// The same loop without the asset tree in the bundle (an older gather): still named, and
/// the finding says it could not look for a manifest creating the namespace.
#[test]
fn without_the_asset_tree_the_loop_is_named_and_says_what_it_could_not_check() {
    let journal = create_loop_journal(12, Some(HELDOUT_ONE), None);
    let bundle = Bundle::new("no-assets")
        .service("release-image", succeeded())
        .service("bootkube", succeeded())
        .file("bootstrap/journals/bootkube.log", journal);
    let a = analyse(bundle);
    let f = a.finding.as_ref().expect("a finding");
    assert_eq!(f.cause, Cause::ManifestNamespace, "{}", a.render());
    assert!(
        f.details[1].contains("the bundle holds no copy of the manifests"),
        "{:?}",
        f.details
    );
    assert_eq!(a.completion, Completion::Unknown);
    assert!(
        matches!(a.verdict, Verdict::Incomplete { .. }),
        "{:?}",
        a.verdict
    );
}

/// A namespace a manifest of the bundle creates is only waited for: no cause.
#[test]
fn a_namespace_a_manifest_creates_is_no_cause() {
    let namespace =
        format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {HELDOUT_NAMESPACE}\n");
    let journal = create_loop_journal(6, Some(HELDOUT_ONE), None);
    let a = analyse(
        host("created", stalled(), &journal).asset_manifest("99-heldout-ns.yaml", &namespace),
    );
    assert_eq!(a.finding, None, "{}", a.render());
    assert_eq!(
        a.manifest_failures[0].judgement,
        Judgement::NamespaceFromManifest {
            file: "log-bundle-created/rendered-assets/openshift/manifests/99-heldout-ns.yaml"
                .into()
        }
    );
}

/// A manifest created after its last refusal is settled.
#[test]
fn a_manifest_created_after_all_is_no_cause() {
    let mut journal = create_loop_journal(6, Some(HELDOUT_ONE), None);
    journal.push_str(
        "Nov 28 08:00:40 bootstrap bootkube.sh[2301]: Created \"99-heldout-probe.yaml\" \
         configmaps.v1./heldout-probe -n heldout-never-created\n",
    );
    let a = analyse(host("settled", stalled(), &journal));
    assert_eq!(a.finding, None, "{}", a.render());
    assert!(a.manifest_failures.is_empty(), "{:?}", a.manifest_failures);
}

/// The other refusals are the user-manifest cause, each with its reason and its own fix.
#[test]
fn kind_unknown_invalid_and_forbidden_are_the_users_manifest() {
    let cases = [
        (
            r#"Failed to create "99-user-widget.yaml" widgets.v1.widgets.example.com/my-widget -n default: no matches for kind "Widget" in version "widgets.example.com/v1""#,
            "widgets.widgets.example.com my-widget in namespace default): its kind is not known: no CustomResourceDefinition serves widgets.example.com",
            "add the CustomResourceDefinition that serves widgets.example.com to manifests/",
        ),
        (
            r#""99-bad-name.yaml": failed to create configmaps.v1./Not_A_DNS_Name -n kube-system: ConfigMap "Not_A_DNS_Name" is invalid: metadata.name: Invalid value: "Not_A_DNS_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters"#,
            "configmaps Not_A_DNS_Name in namespace kube-system): the API server rejects the object as invalid",
            "correct the field the API server names in 99-bad-name.yaml",
        ),
        (
            r#"Failed to create "99-quota.yaml" pods.v1./probe -n kube-system: pods "probe" is forbidden: exceeded quota: tight, requested: pods=1, used: pods=1, limited: pods=1"#,
            "pods probe in namespace kube-system): the API server forbids creating it",
            "the API server forbids 99-quota.yaml",
        ),
    ];
    for (line, said, fix) in cases {
        let journal = create_loop_journal(8, Some(line), None);
        let a = analyse(host("refused", stalled(), &journal));
        let report = a.render();
        let f = a.finding.as_ref().unwrap_or_else(|| panic!("{report}"));
        assert_eq!(f.cause, Cause::UserManifest, "{report}");
        assert!(f.summary.ends_with(said), "{}", f.summary);
        assert!(f.remedy.starts_with(fix), "{}", f.remedy);
        assert_eq!(f.evidence, line);
        assert!(
            f.details[0].starts_with("refused 8 time(s)"),
            "{:?}",
            f.details
        );
    }
}

/// The bootstrap is not complete (no end marker, no complete kube-system/bootstrap) and no
/// rule names a cause: the analysis says so and shows what the bootstrap repeated most.
#[test]
fn an_unfinished_bootstrap_no_rule_explains_shows_its_most_repeated_errors() {
    let mut journal = String::new();
    for i in 0..30 {
        journal.push_str(&format!(
            "Nov 28 08:{:02}:{:02} bootstrap bootkube.sh[2301]: Error: unexpected response from \
             the widget service: attempt {i} gave HTTP 503\n",
            i / 12,
            (i * 5) % 60
        ));
    }
    journal.push_str("Nov 28 08:03:00 bootstrap bootkube.sh[2301]: error: once\n");
    let configmaps = r#"{"apiVersion":"v1","kind":"List","items":[{"metadata":{"namespace":"kube-system","name":"cluster-config-v1"},"data":{}}]}"#;
    let bundle =
        host("no-rule", succeeded(), &journal).file("resources/configmaps.json", configmaps);
    let a = analyse(bundle);
    let report = a.render();
    assert_eq!(a.finding, None, "{report}");
    let Verdict::Incomplete { reasons } = &a.verdict else {
        panic!("{:?}\n{report}", a.verdict);
    };
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(
        reasons[1]
            .starts_with("resources/configmaps.json holds no ConfigMap kube-system/bootstrap")
    );
    assert!(!report.contains("No problem found"), "{report}");
    assert!(report.starts_with("Not complete: "), "{report}");
    assert!(
        report.contains("No rule of the analysis names the cause"),
        "{report}"
    );
    let top = &a.repeated_errors[0];
    assert_eq!(top.count, 30);
    assert_eq!(top.first.as_deref(), Some("Nov 28 08:00:00"));
    assert_eq!(top.last.as_deref(), Some("Nov 28 08:02:25"));
    assert_eq!(
        top.line,
        "Error: unexpected response from the widget service: attempt 29 gave HTTP 503"
    );
    assert_eq!(a.repeated_errors[1].count, 1);
    assert!(
        report.contains(
            "  - 30 time(s), Nov 28 08:00:00 to Nov 28 08:02:25 in \
             log-bundle-no-rule/bootstrap/journals/bootkube.log:\n    | Error: unexpected"
        ),
        "{report}"
    );
}

/// A complete bootstrap (end marker, kube-system/bootstrap complete) still reads healthy,
/// and the refusals its journal holds from before are not listed.
#[test]
fn a_complete_bootstrap_is_healthy() {
    let journal = create_loop_journal(3, None, None);
    let configmaps = r#"{"items":[{"metadata":{"namespace":"kube-system","name":"bootstrap"},"data":{"status":"complete"}}]}"#;
    let bundle = host("done", succeeded(), &journal)
        .bootkube_done()
        .file("resources/configmaps.json", configmaps);
    let a = analyse(bundle);
    assert_eq!(a.verdict, Verdict::Healthy, "{}", a.render());
    assert_eq!(a.completion, Completion::Complete);
    assert!(a.render().starts_with("No problem found"), "{}", a.render());
    assert!(a.manifest_failures.is_empty());
    assert!(a.repeated_errors.is_empty());
}
