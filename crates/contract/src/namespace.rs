//! Which namespaces exist on a cluster without a manifest of the asset directory creating
//! them, as far as okd-install can know before the cluster runs.
//!
//! The API server creates its own four. Names under `openshift-` and `kube-` (and
//! `openshift`) are reserved for the platform: the release's manifests and its operators
//! create them, many only at run time, and okd-install does not hold the release's list, so
//! a manifest in such a namespace is not judged. Any other namespace exists only when a
//! Namespace manifest creates it. `create ignition-configs` warns before booting and the log
//! bundle's analysis judges a refused manifest by this one rule.

/// The namespaces the API server creates itself.
pub const BUILT_IN: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/// What the rule covers, for the messages that rest on it.
pub const COVERED: &str = "namespaces created by a Namespace manifest of manifests/ or \
                           openshift/, and the API server's own (default, kube-system, \
                           kube-public, kube-node-lease); names under openshift- and kube- \
                           are the platform's and not checked, since its operators create \
                           many of them at run time";

/// Whether `namespace` is the API server's own or reserved for the platform.
pub fn is_platform(namespace: &str) -> bool {
    BUILT_IN.contains(&namespace)
        || namespace == "openshift"
        || namespace.starts_with("openshift-")
        || namespace.starts_with("kube-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_names_and_others() {
        for ns in [
            "default",
            "kube-system",
            "openshift-config",
            "openshift-monitoring",
        ] {
            assert!(is_platform(ns), "{ns}");
        }
        for ns in [
            "heldout-never-created",
            "my-app",
            "openshiftx",
            "kubernetes",
        ] {
            assert!(!is_platform(ns), "{ns}");
        }
    }
}
