//! Objects of `manifests/` and `openshift/` in a namespace nothing creates, found before
//! booting.
//!
//! cluster-bootstrap creates every manifest on the bootstrap host and tries a refused one
//! again until it is taken; an object whose namespace never comes is tried for ever, and the
//! bootstrap never completes. Which namespaces come is judged by one rule shared with the
//! log bundle's analysis ([`contract::namespace`]): a Namespace manifest of the two
//! directories, or the API server's own; names under `openshift-` and `kube-` belong to the
//! platform, whose operators create many of them at run time, so they are not judged.

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
}

impl UnknownNamespace {
    /// The warning, naming the file, the object, what was checked and the fix.
    pub fn message(&self) -> String {
        format!("{}: {}", self.file, self.problem())
    }

    /// [`UnknownNamespace::message`] without the file, for a report that names it apart.
    pub fn problem(&self) -> String {
        format!(
            "{} {} is in namespace {}, which no manifest of manifests/ or openshift/ \
             creates: cluster-bootstrap would retry it for ever and the bootstrap would not \
             complete. Add a Namespace manifest for {} or correct the namespace. (Checked: {}; \
             okd-install cannot know the namespaces an operator creates at run time.)",
            self.kind,
            self.name,
            self.namespace,
            self.namespace,
            contract::namespace::COVERED
        )
    }
}

/// The objects of `files` (both directories) in a namespace that no Namespace object of
/// `files` creates and that is not the platform's, in file order.
pub fn unknown_namespaces<'a>(
    files: impl IntoIterator<Item = &'a UserFile>,
) -> Vec<UnknownNamespace> {
    let files: Vec<&UserFile> = files.into_iter().collect();
    let created: Vec<&str> = files
        .iter()
        .flat_map(|f| &f.objects)
        .filter(|o| o.kind == "Namespace" && o.api_version == "v1")
        .map(|o| o.name.as_str())
        .collect();
    let mut out = Vec::new();
    for file in &files {
        for o in &file.objects {
            let Some(ns) = o.namespace.as_deref().filter(|n| !n.is_empty()) else {
                continue;
            };
            if created.contains(&ns) || contract::namespace::is_platform(ns) {
                continue;
            }
            out.push(UnknownNamespace {
                file: file.rel_path(),
                kind: o.kind.clone(),
                name: o.name.clone(),
                namespace: ns.to_string(),
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
        let found = unknown_namespaces([&probe, &platform, &team]);
        assert_eq!(
            found,
            [UnknownNamespace {
                file: "openshift/99-heldout-probe.yaml".into(),
                kind: "ConfigMap".into(),
                name: "heldout-probe".into(),
                namespace: "heldout-never-created".into(),
            }]
        );
        let message = found[0].message();
        assert!(message.starts_with("openshift/99-heldout-probe.yaml: ConfigMap heldout-probe is in namespace heldout-never-created"));
        assert!(message.contains("cannot know the namespaces an operator creates at run time"));
    }
}
