//! Objects of `manifests/` and `openshift/` in a namespace nothing creates, found before
//! booting.
//!
//! cluster-bootstrap creates every manifest on the bootstrap host and tries a refused one
//! again until it is taken; an object whose namespace never comes is tried for ever, and the
//! bootstrap never completes. What comes is the release's own namespaces
//! ([`releases::namespaces`], a table with the source of each) and the Namespace manifests of
//! the two directories; a name one or two edits off one of them is named with "did you mean".
//! The log bundle's analysis judges a refused manifest by the same table.

use releases::Minor;
use releases::namespaces::{created_by_release, did_you_mean, release_names};

use crate::user::UserFile;

/// One object whose namespace nothing creates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownNamespace {
    /// `manifests/<name>` or `openshift/<name>`.
    pub file: String,
    /// The object's kind.
    pub kind: String,
    /// The object's name.
    pub name: String,
    /// Its namespace.
    pub namespace: String,
    /// The known namespace it is most likely a typo of.
    pub did_you_mean: Option<String>,
    /// The release judged against (`None`: any supported release).
    pub release: Option<Minor>,
}

impl UnknownNamespace {
    /// The warning, naming the file, the object, what was checked and the fix.
    pub fn message(&self) -> String {
        format!("{}: {}", self.file, self.problem())
    }

    /// [`UnknownNamespace::message`] without the file, for a report that names it apart.
    pub fn problem(&self) -> String {
        let release = match self.release {
            Some(r) => format!("release {r}"),
            None => "any supported release".to_string(),
        };
        let (guess, fix) = match &self.did_you_mean {
            Some(known) => (
                format!(" Did you mean {known}?"),
                format!(
                    "Correct the namespace to {known}, or add a Namespace manifest for {}",
                    self.namespace
                ),
            ),
            None => (
                String::new(),
                format!(
                    "Add a Namespace manifest for {} or correct the namespace",
                    self.namespace
                ),
            ),
        };
        format!(
            "{} {} is in namespace {}, which neither {release} nor a Namespace manifest of \
             manifests/ or openshift/ creates.{guess} cluster-bootstrap would retry it for ever \
             and the bootstrap would not complete. {fix}. (Checked: {}.)",
            self.kind, self.name, self.namespace, COVERED
        )
    }
}

/// What the judgement covers, for the messages that rest on it.
pub const COVERED: &str = "the namespaces the release creates (the API server's own, the \
                           payload's Namespace manifests, the operators' render output and \
                           the namespaces operators create at run time, each with its source: \
                           `okd-install explain releases`) and the Namespace manifests of \
                           manifests/ and openshift/";

/// The objects of `files` (both directories) in a namespace that neither `release` (`None`:
/// any supported release) nor a Namespace object of `files` creates, in file order.
pub fn unknown_namespaces<'a>(
    files: impl IntoIterator<Item = &'a UserFile>,
    release: Option<Minor>,
) -> Vec<UnknownNamespace> {
    let files: Vec<&UserFile> = files.into_iter().collect();
    let created: Vec<&str> = files
        .iter()
        .flat_map(|f| &f.objects)
        .filter(|o| o.kind == "Namespace" && o.api_version == "v1")
        .map(|o| o.name.as_str())
        .collect();
    let known_release: Vec<&str> = release_names(release).collect();
    let mut out = Vec::new();
    for file in &files {
        for o in &file.objects {
            let Some(ns) = o.namespace.as_deref().filter(|n| !n.is_empty()) else {
                continue;
            };
            if created.contains(&ns) || created_by_release(ns, release).is_some() {
                continue;
            }
            let known = known_release.iter().chain(created.iter()).copied();
            out.push(UnknownNamespace {
                file: file.rel_path(),
                kind: o.kind.clone(),
                name: o.name.clone(),
                namespace: ns.to_string(),
                did_you_mean: did_you_mean(ns, known).map(String::from),
                release,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dir::Dir;
    use std::path::Path;

    fn file(dir: Dir, name: &str, yaml: &str) -> UserFile {
        let objects = crate::user::parse_objects(Path::new(name), yaml.as_bytes()).unwrap();
        UserFile {
            dir,
            name: name.into(),
            data: yaml.as_bytes().to_vec(),
            objects,
        }
    }

    #[test]
    fn a_namespace_nothing_creates_is_named_with_its_file() {
        let probe = file(
            Dir::Openshift,
            "99-heldout-probe.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: heldout-probe\n  namespace: heldout-never-created\n",
        );
        let platform = file(
            Dir::Manifests,
            "cluster-monitoring-config.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-monitoring-config\n  namespace: openshift-monitoring\n",
        );
        let team = file(
            Dir::Manifests,
            "team.yaml",
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: team-a\n",
        );
        let found = unknown_namespaces([&probe, &platform, &team], None);
        assert_eq!(
            found,
            [UnknownNamespace {
                file: "openshift/99-heldout-probe.yaml".into(),
                kind: "ConfigMap".into(),
                name: "heldout-probe".into(),
                namespace: "heldout-never-created".into(),
                did_you_mean: None,
                release: None,
            }]
        );
        let message = found[0].message();
        assert!(message.starts_with("openshift/99-heldout-probe.yaml: ConfigMap heldout-probe is in namespace heldout-never-created"));
        assert!(!message.contains("Did you mean"), "{message}");
    }

    /// A namespace under `openshift-` is judged too: one letter off the release's
    /// `openshift-monitoring` is named with it, and one off the directory's own namespace
    /// with that one.
    #[test]
    fn a_near_miss_is_named_with_the_namespace_meant() {
        let typo = file(
            Dir::Manifests,
            "cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: openshift-monitorng\n",
        );
        let team = file(
            Dir::Manifests,
            "team.yaml",
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-alpha-prod\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: team-alpah-prod\n",
        );
        let release: Minor = "4.19".parse().unwrap();
        let found = unknown_namespaces([&typo, &team], Some(release));
        let meant: Vec<_> = found
            .iter()
            .map(|u| (u.namespace.as_str(), u.did_you_mean.as_deref()))
            .collect();
        assert_eq!(
            meant,
            [
                ("openshift-monitorng", Some("openshift-monitoring")),
                ("team-alpah-prod", Some("team-alpha-prod")),
            ]
        );
        let message = found[0].message();
        assert!(
            message.contains("Did you mean openshift-monitoring?"),
            "{message}"
        );
        assert!(message.contains("release 4.19"), "{message}");
    }

    /// A namespace a later release brings is unknown to an earlier one.
    #[test]
    fn the_release_judged_against_matters() {
        let f = file(
            Dir::Manifests,
            "cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: openshift-cluster-api-operator\n",
        );
        assert!(unknown_namespaces([&f], Some("4.22".parse().unwrap())).is_empty());
        assert_eq!(
            unknown_namespaces([&f], Some("4.19".parse().unwrap())).len(),
            1
        );
    }
}
