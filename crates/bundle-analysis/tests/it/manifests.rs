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

/// The user's custom resource whose kind nothing serves, as the asset tree holds it.
const WIDGET_FILE: &str = "99-user-widget.yaml";
const WIDGET_YAML: &str = "apiVersion: widgets.example.com/v1\nkind: Widget\nmetadata:\n  name: my-widget\n  namespace: default\nspec:\n  size: 3\n";
/// What library-go's create loop writes for it every attempt (no line of the first shape).
const WIDGET_MAPPING: &str = r#""99-user-widget.yaml": unable to get REST mapping for "99-user-widget.yaml": no matches for kind "Widget" in version "widgets.example.com/v1""#;

/// A CustomResourceDefinition for Widget serving `versions`.
fn widget_crd(versions: &[&str]) -> String {
    let mut crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  \
                   name: widgets.widgets.example.com\nspec:\n  group: widgets.example.com\n  names:\n    \
                   kind: Widget\n    plural: widgets\n  scope: Namespaced\n  versions:\n"
        .to_string();
    for v in versions {
        crd.push_str(&format!(
            "  - name: {v}\n    served: true\n    storage: true\n"
        ));
    }
    crd
}

/// Words that belong to one class's advice each: a finding may use only its own.
const CLASS_WORDS: [&str; 5] = [
    "CustomResourceDefinition",
    "Namespace manifest",
    "webhook",
    "pull secret",
    "field the API server names",
];

/// The finding says none of the other classes' words.
fn no_other_class(f: &contract::cause::Finding, own: &[&str]) {
    let said = format!("{} {} {}", f.summary, f.details.join(" "), f.remedy);
    for w in CLASS_WORDS.iter().filter(|w| !own.contains(w)) {
        assert!(!said.contains(w), "{w:?} said without evidence: {said}");
    }
}

/// The issue's case: a custom resource whose CRD is not in manifests/, refused for the whole
/// bootstrap in the REST-mapping shape. Named with the file, the kind, the group/version, its
/// namespace and name (read from the bundle's copy of the manifest), the count, what was
/// checked (no CRD among the manifests) and the fix naming the file and the definition.
#[test]
fn a_kind_nothing_defines_is_named_from_the_rest_mapping_line() {
    let journal = create_loop_journal(30, None, Some(WIDGET_MAPPING));
    let a = analyse(host("no-crd", stalled(), &journal).asset_manifest(WIDGET_FILE, WIDGET_YAML));
    let report = a.render();
    let f = a.finding.as_ref().unwrap_or_else(|| panic!("{report}"));
    assert_eq!(f.cause, Cause::UserManifest, "{report}");
    assert_eq!(f.evidence, WIDGET_MAPPING);
    for named in [
        WIDGET_FILE,
        "Widget",
        "widgets.example.com/v1",
        "my-widget",
        "namespace default",
    ] {
        assert!(f.summary.contains(named), "{named}: {}", f.summary);
    }
    assert!(
        f.details[0].starts_with("refused 30 time(s) from "),
        "{:?}",
        f.details
    );
    assert!(
        f.details[1].starts_with(
            "no CustomResourceDefinition of the bundle's rendered-assets/openshift/manifests/"
        ) && f.details[1].ends_with("defines Widget in widgets.example.com"),
        "{:?}",
        f.details
    );
    assert!(
        f.remedy.contains(WIDGET_FILE) && f.remedy.contains("Widget in widgets.example.com"),
        "{}",
        f.remedy
    );
    no_other_class(f, &["CustomResourceDefinition"]);
    let m = &a.manifest_failures[0];
    assert_eq!(m.judgement, Judgement::Blocks);
    assert_eq!(
        (m.failure.name.as_str(), m.failure.namespace.as_str()),
        ("my-widget", "default")
    );
}

/// The same refusals with the kind's CRD among the manifests: created by the same run, the
/// object is retried until the definition is established, a wait and no cause.
#[test]
fn a_kind_whose_definition_is_among_the_manifests_is_a_wait() {
    let journal = create_loop_journal(6, None, Some(WIDGET_MAPPING));
    let bundle = host("crd", stalled(), &journal)
        .asset_manifest(WIDGET_FILE, WIDGET_YAML)
        .asset_manifest("00-widget-crd.yaml", &widget_crd(&["v1"]));
    let a = analyse(bundle);
    assert_eq!(a.finding, None, "{}", a.render());
    assert_eq!(
        a.manifest_failures[0].judgement,
        Judgement::AwaitsDefinition {
            file: "log-bundle-crd/rendered-assets/openshift/manifests/00-widget-crd.yaml".into()
        }
    );
    assert!(
        a.render()
            .contains("00-widget-crd.yaml, which cluster-bootstrap creates too")
    );
}

/// A CRD among the manifests that does not serve the object's version never will: stuck,
/// naming the versions it serves.
#[test]
fn a_definition_without_the_objects_version_is_stuck() {
    let journal = create_loop_journal(6, None, Some(WIDGET_MAPPING));
    let bundle = host("crd-v2", stalled(), &journal)
        .asset_manifest(WIDGET_FILE, WIDGET_YAML)
        .asset_manifest("00-widget-crd.yaml", &widget_crd(&["v2"]));
    let a = analyse(bundle);
    let f = a
        .finding
        .as_ref()
        .unwrap_or_else(|| panic!("{}", a.render()));
    assert!(
        f.details[1].contains("00-widget-crd.yaml defines Widget in widgets.example.com but serves version(s) v2, not v1"),
        "{:?}",
        f.details
    );
    assert!(
        f.remedy
            .starts_with("change the apiVersion of 99-user-widget.yaml"),
        "{}",
        f.remedy
    );
}

/// The refusals nothing will make the API server take: each is the user-manifest cause,
/// naming the file, the object, the count and a fix of its own class only.
#[test]
fn refusals_that_hold_the_bootstrap_name_the_object_and_only_their_own_fix() {
    let cases: [(&str, &str, &[&str]); 5] = [
        (
            r#"Failed to create "99-user-widget.yaml" widgets.v1.widgets.example.com/my-widget -n default: no matches for kind "Widget" in version "widgets.example.com/v1""#,
            "add the CustomResourceDefinition that defines Widget in widgets.example.com to manifests/",
            &["CustomResourceDefinition"],
        ),
        (
            r#""99-bad-name.yaml": failed to create configmaps.v1./Not_A_DNS_Name -n kube-system: ConfigMap "Not_A_DNS_Name" is invalid: metadata.name: Invalid value: "Not_A_DNS_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters"#,
            "correct the field the API server names in 99-bad-name.yaml",
            &["field the API server names"],
        ),
        (
            r#"Failed to create "99-quota.yaml" pods.v1./probe -n kube-system: pods "probe" is forbidden: exceeded quota: tight, requested: pods=1, used: pods=1, limited: pods=1"#,
            "the API server forbids 99-quota.yaml",
            &[],
        ),
        (
            r#""99-pod.yaml": failed to create pods.v1./probe -n kube-system: admission webhook "vpod.policy.example.com" denied the request: image not signed"#,
            "the admission webhook vpod.policy.example.com refuses 99-pod.yaml",
            &["webhook"],
        ),
        (
            r#""99-pod.yaml": failed to create pods.v1./probe -n kube-system: Internal error occurred: failed calling webhook "vpod.policy.example.com": failed to call webhook: Post "https://policy.team-a.svc:443/validate?timeout=10s": dial tcp 172.30.4.5:443: connect: connection refused"#,
            "the API server must ask the webhook vpod.policy.example.com before it takes 99-pod.yaml",
            &["webhook"],
        ),
    ];
    for (line, fix, own) in cases {
        let journal = create_loop_journal(8, Some(line), None);
        let a = analyse(host("refused", stalled(), &journal));
        let report = a.render();
        let f = a.finding.as_ref().unwrap_or_else(|| panic!("{report}"));
        let m = &a.manifest_failures[0];
        assert_eq!(f.cause, Cause::UserManifest, "{report}");
        assert_eq!(f.evidence, line);
        for named in [
            m.failure.file.as_str(),
            m.failure.name.as_str(),
            m.failure.namespace.as_str(),
        ] {
            assert!(
                line.contains(named) && f.summary.contains(named),
                "{named}: {}",
                f.summary
            );
        }
        assert!(
            f.summary.contains(&m.failure.refusal.words()),
            "{}",
            f.summary
        );
        assert!(f.remedy.starts_with(fix), "{}", f.remedy);
        assert!(
            f.details[0].starts_with("refused 8 time(s)"),
            "{:?}",
            f.details
        );
        no_other_class(f, own);
    }
}

/// Reasons that may pass (the API server busy, restarting or slow) and one okd-install does
/// not recognise are listed with their count, never made a cause or given advice.
#[test]
fn passing_and_unrecognised_reasons_are_listed_not_blamed() {
    let reason =
        |r: &str| format!(r#""x.yaml": failed to create configmaps.v1./x -n kube-system: {r}"#);
    let cases = [
        (
            "Timeout: request did not complete within requested timeout - context deadline exceeded",
            Judgement::Transient,
        ),
        (
            "the server is currently unable to handle the request (post configmaps)",
            Judgement::Transient,
        ),
        (
            r#"Post "https://localhost:6443/api/v1/namespaces/kube-system/configmaps": dial tcp [::1]:6443: connect: connection refused"#,
            Judgement::Transient,
        ),
        (
            r#"Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again"#,
            Judgement::Transient,
        ),
        (
            "Internal error occurred: resource quota evaluation timed out",
            Judgement::Transient,
        ),
        ("Unauthorized", Judgement::Transient),
        ("the widget subsystem is sulking", Judgement::Unrecognised),
    ];
    for (r, judgement) in cases {
        let line = reason(r);
        let journal = create_loop_journal(5, None, Some(&line));
        let a = analyse(host("passing", stalled(), &journal));
        assert_eq!(a.finding, None, "{r}: {}", a.render());
        let m = &a.manifest_failures[0];
        assert_eq!(m.judgement, judgement, "{r}");
        assert_eq!(m.attempts, 5, "{r}");
        assert_eq!(m.failure.reason, r);
        let listed = a.render();
        assert!(
            listed.contains(&format!(
                "x.yaml (configmaps x in namespace kube-system): {}",
                m.failure.refusal.words()
            )),
            "{listed}"
        );
    }
}

/// A namespace one letter off one the release creates (the issue's `openshift-monitorng`)
/// is stuck and named with the namespace meant; the right one only waits for the release.
#[test]
fn a_namespace_one_letter_off_the_releases_is_named_with_the_one_meant() {
    let line = |ns: &str| {
        format!(
            r#""99-monitoring.yaml": failed to create configmaps.v1./cluster-monitoring-config -n {ns}: namespaces "{ns}" not found"#
        )
    };
    let typo = line("openshift-monitorng");
    let a = analyse(host(
        "typo",
        stalled(),
        &create_loop_journal(10, None, Some(&typo)),
    ));
    let f = a
        .finding
        .as_ref()
        .unwrap_or_else(|| panic!("{}", a.render()));
    assert_eq!(f.cause, Cause::ManifestNamespace);
    assert!(
        f.details
            .iter()
            .any(|d| d == "did you mean openshift-monitoring?"),
        "{:?}",
        f.details
    );
    assert!(
        f.remedy
            .contains("correct the namespace in 99-monitoring.yaml to openshift-monitoring"),
        "{}",
        f.remedy
    );
    no_other_class(f, &["Namespace manifest"]);
    let right = line("openshift-monitoring");
    let a = analyse(host(
        "right",
        stalled(),
        &create_loop_journal(10, None, Some(&right)),
    ));
    assert_eq!(a.finding, None, "{}", a.render());
    assert_eq!(a.manifest_failures[0].judgement, Judgement::AwaitsRelease);
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
