//! cluster-bootstrap's create loop in bootkube's journal: every manifest it could not
//! create, how often and since when it tried, and whether that is what holds the bootstrap.
//!
//! cluster-bootstrap tries every refused manifest again until it is taken, and the
//! bootstrap completes only after all are. On every bootstrap some wait a while for what
//! the release brings (a namespace of the platform, a CRD not served yet); a manifest the
//! API server rejects, whose kind nothing serves, or whose namespace nothing creates, is
//! tried for ever. Both line shapes are read ([`CreateFailure::parse`]); a manifest that
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
    /// A reason that may pass (a timeout, an API server restarting).
    Transient,
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
}

/// What the bundle says about namespaces beside the journal.
#[derive(Debug, Default)]
struct Namespaces {
    /// Namespace manifests of the bundle's asset tree: (name, file).
    created_by: Vec<(String, String)>,
    /// Whether the bundle holds the asset tree's manifests at all.
    manifests_seen: bool,
    /// The namespaces resources/namespaces.json lists, when the bundle has it.
    existing: Option<BTreeSet<String>>,
}

/// Every manifest still refused at the end of bootkube's journal(s).
pub(crate) fn manifest_failures(files: &[BundleFile]) -> Vec<ManifestFailure> {
    let namespaces = namespaces(files);
    let mut out = Vec::new();
    for journal in files
        .iter()
        .filter(|f| f.kind == Wanted::Journal("bootkube".into()))
    {
        out.extend(unsettled(journal).into_iter().map(|mut f| {
            f.judgement = judge(&f.failure, &namespaces);
            f
        }));
    }
    out
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

fn judge(f: &CreateFailure, ns: &Namespaces) -> Judgement {
    match &f.refusal {
        Refusal::NamespaceMissing { namespace } => {
            if contract::namespace::is_platform(namespace) {
                Judgement::AwaitsRelease
            } else if let Some((_, file)) = ns.created_by.iter().find(|(n, _)| n == namespace) {
                Judgement::NamespaceFromManifest { file: file.clone() }
            } else if ns.existing.as_ref().is_some_and(|e| e.contains(namespace)) {
                Judgement::NamespaceExists
            } else {
                Judgement::Blocks
            }
        }
        Refusal::KindUnknown { group } if group.ends_with(".openshift.io") => {
            Judgement::AwaitsRelease
        }
        Refusal::NotServed => Judgement::AwaitsRelease,
        Refusal::KindUnknown { .. } | Refusal::Invalid | Refusal::Forbidden => Judgement::Blocks,
        Refusal::Other => Judgement::Transient,
    }
}

/// Namespace manifests of the bundle's `rendered-assets/openshift/manifests/` and the
/// namespaces the API listed.
fn namespaces(files: &[BundleFile]) -> Namespaces {
    let mut ns = Namespaces::default();
    for file in files {
        match &file.kind {
            Wanted::AssetManifest => {
                ns.manifests_seen = true;
                for name in namespace_objects(&file.text) {
                    ns.created_by.push((name, file.path.clone()));
                }
            }
            Wanted::Resource(name) if name == "namespaces.json" => {
                if let Ok(items) = super::evidence::items(&file.text) {
                    let names = items.iter().filter_map(|i| {
                        i.pointer("/metadata/name")
                            .and_then(Value::as_str)
                            .map(String::from)
                    });
                    ns.existing = Some(names.collect());
                }
            }
            _ => {}
        }
    }
    ns
}

/// The names of the v1 Namespace objects of a manifest file (YAML, any number of documents,
/// or JSON); a file that does not parse holds none.
fn namespace_objects(text: &str) -> Vec<String> {
    let mut docs: Vec<Value> = serde_saphyr::from_multiple(text).unwrap_or_default();
    docs.iter_mut().for_each(crate::shown::escape_document);
    docs.iter()
        .filter(|d| {
            d.get("kind").and_then(Value::as_str) == Some("Namespace")
                && d.get("apiVersion").and_then(Value::as_str) == Some("v1")
        })
        .filter_map(|d| d.pointer("/metadata/name").and_then(Value::as_str))
        .map(String::from)
        .collect()
}

/// The finding for the first manifest that blocks the bootstrap, placed at `unit` and
/// `stage`: its cause, the file, the object and the reason in the summary, the retries and
/// what creates (or not) its namespace as details, and the fix for that very object.
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
    finding.summary = format!(
        "cluster-bootstrap cannot create {} ({}): {}",
        f.file,
        f.object(),
        f.refusal.words()
    );
    finding.details.push(retries(m));
    if let Refusal::NamespaceMissing { namespace } = &f.refusal {
        finding.details.push(if manifests_seen {
            format!(
                "no manifest of the bundle's rendered-assets/openshift/manifests/ (where \
                 bootkube.sh put manifests/ and openshift/) creates namespace {namespace}, and \
                 it is no namespace of the platform"
            )
        } else {
            format!(
                "namespace {namespace} is no namespace of the platform; the bundle holds no \
                 copy of the manifests to tell whether one of them should create it"
            )
        });
    }
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
    finding.remedy = remedy(f);
    Some(finding)
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

/// The fix for this object.
fn remedy(f: &CreateFailure) -> String {
    let again = "then create the Ignition configs again and boot the bootstrap host again";
    match &f.refusal {
        Refusal::NamespaceMissing { namespace } => format!(
            "add a Namespace manifest for {namespace} to manifests/, or correct the namespace \
             in {file}; {again} (an object for a namespace an operator creates later belongs \
             after the install). To let this bootstrap go on instead, on the bootstrap host: \
             sudo oc --kubeconfig {LOOPBACK_KUBECONFIG} create namespace {namespace}",
            file = f.file
        ),
        Refusal::KindUnknown { group } => format!(
            "add the CustomResourceDefinition that serves {group} to manifests/, or take {file} \
             out and create the object after the install; {again}",
            group = if group.is_empty() { &f.resource } else { group },
            file = f.file
        ),
        Refusal::Invalid => format!(
            "correct the field the API server names in {} (see the evidence line), or take the \
             file out; {again}",
            f.file
        ),
        Refusal::Forbidden => format!(
            "the API server forbids {}: change what the reason names (quota, policy, \
             admission) or take the file out; {again}",
            f.file
        ),
        Refusal::NotServed | Refusal::Other => Cause::UserManifest.remedy().to_string(),
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

    #[test]
    fn namespaces_come_from_namespace_objects_only() {
        let yaml = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n---\n\
                    apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: team-b\n";
        assert_eq!(namespace_objects(yaml), ["team-a"]);
        assert!(namespace_objects("not: [yaml").is_empty());
    }
}
