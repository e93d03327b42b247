//! The namespaces each supported release creates itself (`data/release-namespaces.toml`),
//! each with where the fact was read.
//!
//! A user manifest's namespace must come from somewhere: cluster-bootstrap retries an object
//! whose namespace never appears for ever, and the bootstrap never completes. What comes is
//! this table for the release (the API server's own, the payload's Namespace manifests, the
//! operators' render output and what operators create at run time) plus the Namespace
//! manifests of the asset directory. `create ignition-configs`, `verify` and the log
//! bundle's analysis judge by this one table, not by a name prefix: `openshift-monitorng` is
//! nobody's namespace although it starts with `openshift-`.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::Minor;

/// How the release brings a namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Created {
    /// The kube-apiserver creates it itself.
    ApiServer,
    /// A Namespace manifest of the release payload, applied by the cluster-version operator.
    Manifest,
    /// A Namespace manifest an operator's render step writes for bootkube.sh, created by
    /// cluster-bootstrap on the bootstrap host.
    Render,
    /// An operator (or the API server) creates it while the cluster runs.
    RunTime,
}

impl Created {
    /// In words, for `explain releases` and the messages.
    pub fn words(self) -> &'static str {
        match self {
            Created::ApiServer => "the API server's own",
            Created::Manifest => "a Namespace manifest of the release payload",
            Created::Render => "an operator's render output for the bootstrap",
            Created::RunTime => "created by an operator at run time",
        }
    }
}

/// One namespace and where the fact comes from.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamespaceFact {
    /// The namespace.
    pub name: String,
    /// How the release brings it.
    pub created: Created,
    /// The public repository the fact was read in (`openshift/cluster-monitoring-operator`).
    pub repository: String,
    /// The file in that repository.
    pub path: String,
    /// `BRANCH@COMMIT` the fact was read at; `release-X.Y` holds for that release, any
    /// other branch for every release.
    pub read: Vec<String>,
}

impl NamespaceFact {
    /// Whether the fact holds for `release` (`None`: for any supported release).
    pub fn holds_for(&self, release: Option<Minor>) -> bool {
        let Some(release) = release else { return true };
        self.read.iter().any(|r| match r.strip_prefix("release-") {
            Some(rest) => rest.split('@').next() == Some(release.to_string().as_str()),
            None => true,
        })
    }

    /// `openshift/cluster-monitoring-operator manifests/…yaml (release-4.19@d7be4f8c4a07)`.
    pub fn source(&self) -> String {
        format!(
            "{} {} ({})",
            self.repository,
            self.path,
            self.read.join(", ")
        )
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    namespace: Vec<NamespaceFact>,
}

/// Every entry of `data/release-namespaces.toml` (parsed once).
pub fn facts() -> &'static [NamespaceFact] {
    static CELL: OnceLock<Vec<NamespaceFact>> = OnceLock::new();
    CELL.get_or_init(|| {
        toml::from_str::<File>(include_str!("../../../data/release-namespaces.toml"))
            .expect("data/release-namespaces.toml is checked by this crate's tests")
            .namespace
    })
}

/// The fact that `release` (`None`: any supported release) creates `namespace`.
pub fn created_by_release(
    namespace: &str,
    release: Option<Minor>,
) -> Option<&'static NamespaceFact> {
    facts()
        .iter()
        .find(|f| f.name == namespace && f.holds_for(release))
}

/// The names `release` (`None`: any supported release) creates, for "did you mean".
pub fn release_names(release: Option<Minor>) -> impl Iterator<Item = &'static str> {
    facts()
        .iter()
        .filter(move |f| f.holds_for(release))
        .map(|f| f.name.as_str())
}

/// The known name `namespace` is most likely a typo of: the nearest of `known` by
/// Damerau–Levenshtein distance (a swapped pair counts one edit), at most 1 for names
/// shorter than 10 characters and 2 from there on, so that short names are not matched to
/// every other short name. `None` when `namespace` is itself known or nothing is near.
pub fn did_you_mean<'a>(
    namespace: &str,
    known: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = if namespace.chars().count() < 10 { 1 } else { 2 };
    let mut best: Option<(usize, &str)> = None;
    for k in known {
        let d = strsim::damerau_levenshtein(namespace, k);
        if d == 0 {
            return None;
        }
        if d <= limit && best.is_none_or(|(b, name)| (d, k) < (b, name)) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every fact names its source: the repository, the file and a branch@commit read.
    #[test]
    fn every_namespace_has_a_source() {
        assert!(facts().len() > 40, "{}", facts().len());
        for f in facts() {
            assert!(
                f.repository.split('/').count() == 2 && !f.path.is_empty(),
                "{f:?}"
            );
            assert!(!f.read.is_empty(), "{f:?}");
            for r in &f.read {
                let (branch, commit) = r.split_once('@').unwrap_or_else(|| panic!("{r}"));
                assert!(!branch.is_empty(), "{r}");
                assert!(
                    commit.len() >= 12 && commit.bytes().all(|b| b.is_ascii_hexdigit()),
                    "{r}: a commit"
                );
                if let Some(minor) = branch.strip_prefix("release-") {
                    let minor: Minor = minor.parse().unwrap_or_else(|e| panic!("{r}: {e}"));
                    assert!(
                        crate::table().get(minor).is_some(),
                        "{r}: not a supported release"
                    );
                }
            }
        }
    }

    /// Every supported release creates the namespaces the bootstrap itself needs.
    #[test]
    fn every_release_has_its_core_namespaces() {
        for release in &crate::table().releases {
            for ns in [
                "kube-system",
                "default",
                "openshift-config",
                "openshift-monitoring",
                "openshift-kube-apiserver",
                "openshift-etcd",
            ] {
                assert!(
                    created_by_release(ns, Some(release.version)).is_some(),
                    "{ns} in {}",
                    release.version
                );
            }
        }
    }

    /// The marketplace's namespace (created by its operator's manifest when the capability is
    /// on) was the one name the first reading of the table missed; a typo of it is caught.
    #[test]
    fn the_marketplace_namespace_is_known_and_its_typos_are_named() {
        for release in &crate::table().releases {
            assert!(created_by_release("openshift-marketplace", Some(release.version)).is_some());
        }
        assert_eq!(
            did_you_mean("openshift-marketplce", release_names(None)),
            Some("openshift-marketplace")
        );
    }

    #[test]
    fn a_fact_holds_only_for_the_releases_it_was_read_for() {
        let f = NamespaceFact {
            name: "x".into(),
            created: Created::Manifest,
            repository: "o/r".into(),
            path: "p".into(),
            read: vec!["release-5.0@0123456789ab".into()],
        };
        assert!(f.holds_for(Some("5.0".parse().unwrap())));
        assert!(!f.holds_for(Some("4.19".parse().unwrap())));
        assert!(f.holds_for(None));
    }

    #[test]
    fn near_names_are_suggested_and_far_or_equal_ones_not() {
        let known = || release_names(None);
        assert_eq!(
            did_you_mean("openshift-monitorng", known()),
            Some("openshift-monitoring")
        );
        assert_eq!(
            did_you_mean("openshfit-monitoring", known()),
            Some("openshift-monitoring")
        );
        assert_eq!(did_you_mean("openshift-monitoring", known()), None);
        assert_eq!(did_you_mean("team-a", known()), None);
        // Short names take one edit only.
        assert_eq!(did_you_mean("defualt", ["default"]), Some("default"));
        assert_eq!(did_you_mean("dfeualt", ["default"]), None);
    }
}
