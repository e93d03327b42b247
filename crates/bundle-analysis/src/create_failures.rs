//! cluster-bootstrap's create loop in bootkube's journal: every manifest it could not
//! create, how often and since when it tried, and whether that is what holds the bootstrap.
//!
//! cluster-bootstrap tries every refused manifest again until it is taken, and the
//! bootstrap completes only after all are. On every bootstrap some wait a while for what
//! the release brings (a namespace of the release's table, [`releases::namespaces`], a CRD
//! not served yet) or for a CustomResourceDefinition among the same manifests; a manifest the
//! API server rejects, whose kind nothing defines, or whose namespace nothing creates, is
//! tried for ever. Every line shape is read ([`CreateFailure::parse`]); a manifest that
//! was created after its last refusal is settled and left out.

use std::collections::BTreeSet;

use contract::Cause;
use contract::cause::Finding;
use contract::create_failure::{CreateFailure, Refusal};
use serde::Serialize;
use serde_json::Value;

use super::bundle::{BundleFile, Wanted};
use super::repeated::split_time;

/// The kubeconfig on the bootstrap host that needs neither DNS nor a load balancer.
const LOOPBACK_KUBECONFIG: &str = "/opt/openshift/auth/kubeconfig-loopback";

/// What a manifest cluster-bootstrap kept failing to create means for the bootstrap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Judgement {
    /// It is what holds the bootstrap: nothing will make the API server take it.
    Blocks,
    /// It waits for what the release brings (a platform namespace, a CRD its operators
    /// serve): every bootstrap has some for a while.
    AwaitsRelease,
    /// Its namespace is created by this manifest of the bundle, which cluster-bootstrap
    /// creates too.
    NamespaceFromManifest {
        /// The manifest (path inside the bundle).
        file: String,
    },
    /// Its namespace exists by now (resources/namespaces.json).
    NamespaceExists,
    /// Its kind is defined by a CustomResourceDefinition among the same manifests, which
    /// cluster-bootstrap creates too: the object is retried until the definition is
    /// established.
    AwaitsDefinition {
        /// The CRD's manifest (path inside the bundle).
        file: String,
    },
    /// A reason that may pass (a timeout, an API server restarting).
    Transient,
    /// A reason okd-install does not recognise: whether it passes is not known.
    Unrecognised,
}

/// A CustomResourceDefinition of the bundle's manifests for a kind the API did not serve.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Definition {
    /// The CRD's manifest (path inside the bundle).
    pub file: String,
    /// The versions it serves.
    pub served: Vec<String>,
}

/// One manifest cluster-bootstrap could not create, to the end of its journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ManifestFailure {
    /// The last refusal, parsed.
    pub failure: CreateFailure,
    /// How often cluster-bootstrap was refused (the larger count of the two line shapes,
    /// since each attempt may write both).
    pub attempts: usize,
    /// The time of the first refusal, as the journal gives it.
    pub first: Option<String>,
    /// The time of the last refusal.
    pub last: Option<String>,
    /// The last refusal's line as written (without the journal's prefix).
    pub line: String,
    /// The journal (path inside the bundle).
    pub journal: String,
    /// What it means for the bootstrap.
    pub judgement: Judgement,
    /// For a kind the API did not serve: the CRD of the bundle's manifests for its group
    /// and kind, when there is one.
    pub definition: Option<Definition>,
    /// For a namespace nothing creates: the known namespace its name is one or two edits
    /// away from.
    pub did_you_mean: Option<String>,
}

/// What the bundle's copy of the manifests and its resources say beside the journal.
#[derive(Debug, Default)]
struct Beside {
    /// Namespace manifests of the bundle's asset tree: (name, file).
    created_by: Vec<(String, String)>,
    /// CustomResourceDefinitions of the asset tree.
    definitions: Vec<Crd>,
    /// Every object of the asset tree, to name what a line leaves out.
    objects: Vec<Object>,
    /// The namespaces resources/namespaces.json lists, when the bundle has it.
    existing: Option<BTreeSet<String>>,
}

/// A CustomResourceDefinition of the asset tree.
#[derive(Debug)]
struct Crd {
    group: String,
    kind: String,
    served: Vec<String>,
    file: String,
}

/// An object of the asset tree, by the file name cluster-bootstrap gives it.
#[derive(Debug)]
struct Object {
    /// The path under `manifests/` (what cluster-bootstrap names).
    file: String,
    kind: String,
    api_version: String,
    name: String,
    namespace: String,
}

/// Every manifest still refused at the end of bootkube's journal(s).
pub(crate) fn manifest_failures(files: &[BundleFile]) -> Vec<ManifestFailure> {
    let beside = beside(files);
    let mut out = Vec::new();
    for journal in files
        .iter()
        .filter(|f| f.kind == Wanted::Journal("bootkube".into()))
    {
        out.extend(unsettled(journal).into_iter().map(|mut f| {
            complete_object(&mut f.failure, &beside);
            f.definition = definition(&f.failure, &beside);
            f.judgement = judge(&f.failure, f.definition.as_ref(), &beside);
            f.did_you_mean = did_you_mean(&f.failure, &beside);
            f
        }));
    }
    out
}

/// What the line leaves out of the object (the REST-mapping shape names no name or
/// namespace, no shape names the kind), from the manifest itself.
fn complete_object(f: &mut CreateFailure, beside: &Beside) {
    let Some(o) = beside.objects.iter().find(|o| o.file == f.file) else {
        return;
    };
    let (group, version) = o
        .api_version
        .rsplit_once('/')
        .unwrap_or(("", &o.api_version));
    if f.kind.is_empty() {
        f.kind = o.kind.clone();
    }
    if f.name.is_empty() {
        f.name = o.name.clone();
        f.namespace = o.namespace.clone();
    }
    if f.version.is_empty() && f.group == group {
        f.version = version.to_string();
    }
}

/// The CRD of the manifests for a kind the API did not serve.
fn definition(f: &CreateFailure, beside: &Beside) -> Option<Definition> {
    let Refusal::KindUnknown { kind, group, .. } = &f.refusal else {
        return None;
    };
    let crd = beside
        .definitions
        .iter()
        .find(|c| c.group == *group && c.kind == *kind)?;
    Some(Definition {
        file: crd.file.clone(),
        served: crd.served.clone(),
    })
}

/// For a namespace nothing creates, the known one its name is nearest to: the release's
/// (any supported release), the manifests' and the cluster's.
fn did_you_mean(f: &CreateFailure, beside: &Beside) -> Option<String> {
    let Refusal::NamespaceMissing { namespace } = &f.refusal else {
        return None;
    };
    let release: Vec<&str> = releases::namespaces::release_names(None).collect();
    let known = release
        .into_iter()
        .chain(beside.created_by.iter().map(|(n, _)| n.as_str()))
        .chain(beside.existing.iter().flatten().map(String::as_str));
    releases::namespaces::did_you_mean(namespace, known).map(String::from)
}

/// Per manifest and object, its refusals that no later `Created` line settled.
fn unsettled(journal: &BundleFile) -> Vec<ManifestFailure> {
    // (key, failure, count of shape one, count of shape two)
    let mut groups: Vec<(String, ManifestFailure, usize, usize)> = Vec::new();
    for raw in journal.text.lines() {
        let (time, message) = split_time(raw);
        let message = message.trim();
        if let Some(file) = created_file(message) {
            groups.retain(|(_, g, _, _)| g.failure.file != file);
            continue;
        }
        let Some((_, failure)) = CreateFailure::parse(message) else {
            continue;
        };
        let shape_one = message.contains("Failed to create \"");
        let key = format!(
            "{}\u{0}{}.{}\u{0}{}\u{0}{}",
            failure.file, failure.resource, failure.group, failure.namespace, failure.name
        );
        let at = match groups.iter().position(|(k, ..)| *k == key) {
            Some(at) => at,
            None => {
                groups.push((
                    key,
                    ManifestFailure {
                        failure: failure.clone(),
                        attempts: 0,
                        first: time.clone(),
                        last: None,
                        line: String::new(),
                        journal: journal.path.clone(),
                        judgement: Judgement::Transient,
                        definition: None,
                        did_you_mean: None,
                    },
                    0,
                    0,
                ));
                groups.len() - 1
            }
        };
        let (_, g, one, two) = &mut groups[at];
        if shape_one {
            *one += 1;
        } else {
            *two += 1;
        }
        g.attempts = (*one).max(*two);
        g.failure = failure;
        g.last = time.or(g.last.take());
        g.line = message.to_string();
    }
    groups.into_iter().map(|(_, g, _, _)| g).collect()
}

/// The file a `Created "FILE" ...` line names.
fn created_file(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("Created \"")?;
    rest.split_once('"').map(|(file, _)| file)
}

fn judge(f: &CreateFailure, definition: Option<&Definition>, beside: &Beside) -> Judgement {
    match &f.refusal {
        Refusal::NamespaceMissing { namespace } => {
            if releases::namespaces::created_by_release(namespace, None).is_some() {
                Judgement::AwaitsRelease
            } else if let Some((_, file)) = beside.created_by.iter().find(|(n, _)| n == namespace) {
                Judgement::NamespaceFromManifest { file: file.clone() }
            } else if beside
                .existing
                .as_ref()
                .is_some_and(|e| e.contains(namespace))
            {
                Judgement::NamespaceExists
            } else {
                Judgement::Blocks
            }
        }
        Refusal::KindUnknown { .. } => match definition {
            // A CRD that does not serve the object's version will never serve it.
            Some(d) if f.version.is_empty() || d.served.contains(&f.version) => {
                Judgement::AwaitsDefinition {
                    file: d.file.clone(),
                }
            }
            Some(_) => Judgement::Blocks,
            // A kind of an OpenShift API group: the release's operators install its CRD.
            None if !f.refused_for_good() => Judgement::AwaitsRelease,
            None => Judgement::Blocks,
        },
        Refusal::NotServed => Judgement::AwaitsRelease,
        Refusal::Other => Judgement::Unrecognised,
        _ if f.refused_for_good() => Judgement::Blocks,
        _ => Judgement::Transient,
    }
}

/// Namespace manifests, CRDs and objects of the bundle's
/// `rendered-assets/openshift/manifests/`, and the namespaces the API listed.
fn beside(files: &[BundleFile]) -> Beside {
    let mut b = Beside::default();
    for file in files {
        match &file.kind {
            Wanted::AssetManifest => read_manifest(file, &mut b),
            Wanted::Resource(name) if name == "namespaces.json" => {
                if let Ok(items) = super::evidence::items(&file.text) {
                    let names = items.iter().filter_map(|i| {
                        i.pointer("/metadata/name")
                            .and_then(Value::as_str)
                            .map(String::from)
                    });
                    b.existing = Some(names.collect());
                }
            }
            _ => {}
        }
    }
    b
}

/// The documents of one manifest file (YAML, any number of documents, or JSON); a file that
/// does not parse holds none.
fn documents(text: &str) -> Vec<Value> {
    let mut docs: Vec<Value> = serde_saphyr::from_multiple(text).unwrap_or_default();
    docs.iter_mut().for_each(crate::shown::escape_document);
    docs
}

/// What one manifest of the asset tree holds, into `b`.
fn read_manifest(file: &BundleFile, b: &mut Beside) {
    let text = |d: &Value, p: &str| {
        d.pointer(p)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let under_manifests = file
        .path
        .rsplit_once("/manifests/")
        .map_or(file.path.as_str(), |(_, f)| f)
        .to_string();
    for d in documents(&file.text) {
        let (kind, api_version) = (text(&d, "/kind"), text(&d, "/apiVersion"));
        let name = text(&d, "/metadata/name");
        if kind == "Namespace" && api_version == "v1" {
            b.created_by.push((name.clone(), file.path.clone()));
        }
        if kind == "CustomResourceDefinition" && api_version.starts_with("apiextensions.k8s.io/") {
            let served = d
                .pointer("/spec/versions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|v| v.get("served").and_then(Value::as_bool) != Some(false))
                .filter_map(|v| v.get("name").and_then(Value::as_str).map(String::from))
                .collect();
            b.definitions.push(Crd {
                group: text(&d, "/spec/group"),
                kind: text(&d, "/spec/names/kind"),
                served,
                file: file.path.clone(),
            });
        }
        b.objects.push(Object {
            file: under_manifests.clone(),
            namespace: text(&d, "/metadata/namespace"),
            kind,
            api_version,
            name,
        });
    }
}

/// The finding for the first manifest that blocks the bootstrap, placed at `unit` and
/// `stage`: its cause, the file, the object and the reason in the summary, the retries and
/// what the analysis checked as details, and the fix for that very object.
pub(crate) fn finding(
    failures: &[ManifestFailure],
    manifests_seen: bool,
    unit: Option<String>,
    stage: Option<String>,
) -> Option<Finding> {
    let m = failures.iter().find(|m| m.judgement == Judgement::Blocks)?;
    let f = &m.failure;
    let cause = match f.refusal {
        Refusal::NamespaceMissing { .. } => Cause::ManifestNamespace,
        _ => Cause::UserManifest,
    };
    let mut finding = Finding::new(cause, m.line.clone()).at(unit, stage);
    finding.summary = f.summary();
    finding.details.push(retries(m));
    finding.details.extend(what_was_checked(m, manifests_seen));
    let others = failures
        .iter()
        .filter(|o| o.judgement == Judgement::Blocks && o.failure.file != f.file)
        .map(|o| o.failure.file.as_str())
        .collect::<BTreeSet<_>>();
    if !others.is_empty() {
        let list: Vec<&str> = others.into_iter().collect();
        finding.details.push(format!(
            "cluster-bootstrap cannot create these either: {}",
            list.join(", ")
        ));
    }
    finding.remedy = remedy(m);
    Some(finding)
}

/// Where the bundle's manifests are, as the details name them.
const BUNDLED_MANIFESTS: &str = "the bundle's rendered-assets/openshift/manifests/ (where \
                                 bootkube.sh put manifests/ and openshift/)";

/// What the analysis looked at to call the refusal stuck, in words.
fn what_was_checked(m: &ManifestFailure, manifests_seen: bool) -> Vec<String> {
    let f = &m.failure;
    let no_copy = "the bundle holds no copy of the manifests to tell whether one of them";
    let mut out = Vec::new();
    match &f.refusal {
        Refusal::NamespaceMissing { namespace } => {
            out.push(if manifests_seen {
                format!(
                    "no manifest of {BUNDLED_MANIFESTS} creates namespace {namespace}, and no \
                     supported release creates it (the release's namespaces: okd-install \
                     explain releases)"
                )
            } else {
                format!(
                    "no supported release creates namespace {namespace}; {no_copy} should \
                     create it"
                )
            });
            if let Some(known) = &m.did_you_mean {
                out.push(format!("did you mean {known}?"));
            }
        }
        Refusal::KindUnknown { kind, group, .. } => {
            out.push(match (&m.definition, manifests_seen) {
                (Some(d), _) => format!(
                    "{} defines {kind} in {group} but serves version(s) {}, not {}",
                    d.file,
                    d.served.join(", "),
                    f.version
                ),
                (None, true) => format!(
                    "no CustomResourceDefinition of {BUNDLED_MANIFESTS} defines {kind} in {}",
                    if group.is_empty() {
                        "the core group"
                    } else {
                        group
                    }
                ),
                (None, false) => format!("{no_copy} is a CustomResourceDefinition for {kind}"),
            })
        }
        Refusal::WebhookUnreachable { webhook } => {
            if let Some((_, why)) = f.reason.split_once(&format!("\"{webhook}\": ")) {
                out.push(format!("the API server's call to {webhook} failed: {why}"));
            }
        }
        _ => {}
    }
    out
}

/// How often and since when, in words.
fn retries(m: &ManifestFailure) -> String {
    let span = match (&m.first, &m.last) {
        (Some(first), Some(last)) if first != last => format!(" from {first} to {last}"),
        (_, Some(last)) => format!(" at {last}"),
        _ => String::new(),
    };
    format!(
        "refused {} time(s){span} ({}), and not created by the end of it: the bootstrap \
         cannot complete before it is",
        m.attempts, m.journal
    )
}

/// The fix for this object, from what the evidence says and nothing more.
fn remedy(m: &ManifestFailure) -> String {
    let f = &m.failure;
    let file = &f.file;
    let again = "then create the Ignition configs again and boot the bootstrap host again";
    match &f.refusal {
        Refusal::NamespaceMissing { namespace } => {
            let correct = match &m.did_you_mean {
                Some(known) => format!("correct the namespace in {file} to {known}"),
                None => format!("correct the namespace in {file}"),
            };
            format!(
                "add a Namespace manifest for {namespace} to manifests/, or {correct}; {again} \
                 (an object for a namespace an operator creates later belongs after the \
                 install). To let this bootstrap go on instead, on the bootstrap host: sudo oc \
                 --kubeconfig {LOOPBACK_KUBECONFIG} create namespace {namespace}"
            )
        }
        Refusal::KindUnknown { kind, group, .. } => match &m.definition {
            Some(d) => format!(
                "change the apiVersion of {file} to a version {} serves ({}), or add version \
                 {} to that CustomResourceDefinition; {again}",
                d.file,
                d.served.join(", "),
                f.version
            ),
            None => format!(
                "add the CustomResourceDefinition that defines {kind} in {group} to \
                 manifests/, or take {file} out and create the object after the install; \
                 {again}"
            ),
        },
        Refusal::Invalid => format!(
            "correct the field the API server names in {file} (see the evidence line), or take \
             the file out; {again}"
        ),
        Refusal::Forbidden => format!(
            "the API server forbids {file}: change what the reason in the evidence line names, \
             or take the file out; {again}"
        ),
        Refusal::WebhookDenied { webhook } => format!(
            "the admission webhook {webhook} refuses {file} for the reason in the evidence \
             line: change the object as it asks, or take the file out; {again}"
        ),
        Refusal::WebhookUnreachable { webhook } => format!(
            "the API server must ask the webhook {webhook} before it takes {file}, and cannot \
             reach it (see the evidence line): make the webhook's service reachable, or, if \
             its webhook configuration is among manifests/ and openshift/ and its service \
             cannot run before the install completes, create both after the install; {again}"
        ),
        _ => Cause::UserManifest.remedy().to_string(),
    }
}

/// Whether the bundle holds the asset tree's manifests (to say what was checked).
pub(crate) fn manifests_seen(files: &[BundleFile]) -> bool {
    files.iter().any(|f| f.kind == Wanted::AssetManifest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn journal(text: &str) -> BundleFile {
        BundleFile {
            path: "b/bootstrap/journals/bootkube.log".into(),
            kind: Wanted::Journal("bootkube".into()),
            text: text.into(),
        }
    }

    #[test]
    fn both_shapes_count_as_one_manifest_and_a_later_creation_settles_it() {
        let text = "Nov 28 08:00:01 b bootkube.sh[1]: Failed to create \"a.yaml\" configmaps.v1./a -n x: namespaces \"x\" not found\n\
                    Nov 28 08:00:01 b bootkube.sh[1]: [#1] failed to create some manifests:\n\
                    Nov 28 08:00:01 b bootkube.sh[1]: \"a.yaml\": failed to create configmaps.v1./a -n x: namespaces \"x\" not found\n\
                    Nov 28 08:00:06 b bootkube.sh[1]: Failed to create \"a.yaml\" configmaps.v1./a -n x: namespaces \"x\" not found\n\
                    Nov 28 08:00:06 b bootkube.sh[1]: Failed to create \"b.yaml\" configmaps.v1./b -n y: namespaces \"y\" not found\n\
                    Nov 28 08:00:06 b bootkube.sh[1]: [#2] failed to create some manifests:\n\
                    Nov 28 08:00:06 b bootkube.sh[1]: \"a.yaml\": failed to create configmaps.v1./a -n x: namespaces \"x\" not found\n\
                    Nov 28 08:00:09 b bootkube.sh[1]: Created \"b.yaml\" configmaps.v1./b -n y\n";
        let groups = unsettled(&journal(text));
        assert_eq!(groups.len(), 1, "{groups:?}");
        let a = &groups[0];
        assert_eq!(a.failure.file, "a.yaml");
        assert_eq!(a.attempts, 2);
        assert_eq!(a.first.as_deref(), Some("Nov 28 08:00:01"));
        assert_eq!(a.last.as_deref(), Some("Nov 28 08:00:06"));
    }

    fn manifest(name: &str, text: &str) -> BundleFile {
        BundleFile {
            path: format!("b/rendered-assets/openshift/manifests/{name}"),
            kind: Wanted::AssetManifest,
            text: text.into(),
        }
    }

    #[test]
    fn namespaces_come_from_namespace_objects_only() {
        let yaml = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n---\n\
                    apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: team-b\n";
        let b = beside(&[manifest("a.yaml", yaml), manifest("b.yaml", "not: [yaml")]);
        let names: Vec<&str> = b.created_by.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["team-a"]);
        assert_eq!(b.objects.len(), 2);
        assert_eq!(b.objects[1].namespace, "team-b");
    }

    #[test]
    fn a_definition_names_its_group_kind_and_served_versions() {
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
                   metadata:\n  name: widgets.widgets.example.com\nspec:\n  group: widgets.example.com\n  \
                   names:\n    kind: Widget\n    plural: widgets\n  scope: Namespaced\n  versions:\n  \
                   - name: v1\n    served: true\n    storage: true\n  - name: v0\n    served: false\n";
        let b = beside(&[manifest("crd.yaml", crd)]);
        let d = &b.definitions[0];
        assert_eq!(
            (d.group.as_str(), d.kind.as_str()),
            ("widgets.example.com", "Widget")
        );
        assert_eq!(d.served, ["v1"]);
    }
}
