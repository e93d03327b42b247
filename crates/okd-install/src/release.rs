//! The release a run installs: the pull spec (flag, environment or the table's default) and
//! which supported release it is, decided once per run from `data/releases.toml`.

use releases::{Feature, Release, ResolveError, ResolvedRelease};

use crate::cli::ReleaseArgs;

/// The pull spec of a run and its release.
#[derive(Debug, Clone)]
pub(crate) struct Chosen {
    /// The pull spec written into bootstrap.ign.
    pub image: String,
    /// Whether it is the built-in default.
    pub is_default: bool,
    /// The supported release it is.
    pub resolved: ResolvedRelease,
}

/// Resolves `image` (None: the default) with the `--release-version` value.
pub(crate) fn choose(image: Option<&str>, version: Option<&str>) -> Result<Chosen, ResolveError> {
    let table = releases::table();
    let (image, is_default) = match image.filter(|i| !i.trim().is_empty()) {
        Some(i) => (i.trim().to_string(), false),
        None => (table.default.image.clone(), true),
    };
    let resolved = releases::resolve(&image, version)?;
    Ok(Chosen {
        image,
        is_default,
        resolved,
    })
}

impl ReleaseArgs {
    /// The pull spec and release an install with these flags generates for.
    pub(crate) fn choose(&self) -> Result<Chosen, ResolveError> {
        choose(
            self.release_image.as_deref(),
            self.release_version.as_deref(),
        )
    }

    /// The supported release a command about a release (`coreos`) is for: as
    /// [`ReleaseArgs::choose`], except that `--release-version` alone names the release (there
    /// is no pull spec to agree with).
    pub(crate) fn release(&self) -> Result<&'static Release, ResolveError> {
        let image = self
            .release_image
            .as_deref()
            .filter(|i| !i.trim().is_empty());
        match (image, self.release_version.as_deref()) {
            (None, Some(version)) => Ok(releases::resolve_version(version)?.release),
            _ => Ok(self.choose()?.resolved.release),
        }
    }
}

/// The supported releases, one line each, then what no release turns on: for `version` and
/// `explain releases`.
pub(crate) fn supported_text() -> String {
    let table = releases::table();
    let mut out = String::from("supported OKD releases (data/releases.toml):\n");
    for r in &table.releases {
        let stream = r
            .os_image_stream
            .as_ref()
            .map(|s| format!(", osImageStream {}", s.values.join("|")))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {}: Kubernetes {}, {} (payload tag {}){stream}, channel {}\n",
            r.version, r.kubernetes, r.node_os, r.node_image_tag, r.channel
        ));
    }
    out.push_str("release differences of the bootstrap (on from the release named):\n");
    for f in Feature::ALL {
        let since = table
            .first_with(*f)
            .map(|r| r.version.to_string())
            .unwrap_or_else(|| "never (no supported release accepts it)".into());
        out.push_str(&format!("  {}: {since}\n", f.describe()));
    }
    out.push_str(
        "  Konnectivity (bootstrap API server network proxy): off on every release; upstream \
         turns it on only with TechPreview feature gates and never for bootstrap-in-place\n",
    );
    out.push_str(
        "  OSImageStream manifest: not written for OKD (its one stream, centos-10 on 5.0, is the \
         machine-config operator's built-in default; upstream's 5.0 installer writes none for \
         OKD either)\n",
    );
    out.push_str(
        "  kept on every release by choice: podman --replace --log-driver=k8s-file for the \
         renders\n",
    );
    out.push_str(
        "  kept on 5.0 by choice: the machine-config-operator image after the \
         machine-config-osimagestream helper ran (upstream removes it; bootkube.sh runs that \
         image for the machine-config render)\n",
    );
    out.push_str(
        "A release image's version comes from its tag (4.22.0-okd-scos.7, 5.0.0-okd-scos.0, \
         4.19), a known digest, or --release-version.\n",
    );
    out.push_str(&namespaces_text());
    out
}

/// The namespaces the releases create, each with how and where the fact was read: what a
/// user manifest's namespace is judged against before boot and in the analysis.
fn namespaces_text() -> String {
    let mut out = String::from(
        "namespaces the releases create (data/release-namespaces.toml; a manifest in any other \
         namespace needs a Namespace manifest in manifests/ or openshift/):\n",
    );
    for f in releases::namespaces::facts() {
        out.push_str(&format!(
            "  {}: {}, {}\n",
            f.name,
            f.created.words(),
            f.source()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_default_is_the_newest_supported_release() {
        let chosen = super::choose(None, None).unwrap();
        assert!(chosen.is_default);
        assert!(chosen.image.starts_with("quay.io/okd/"), "{}", chosen.image);
        let newest = releases::table().releases.last().unwrap();
        assert_eq!(chosen.resolved.release.version, newest.version);
    }

    /// Every namespace of the table is listed with its source.
    #[test]
    fn the_listing_names_every_namespace_with_its_source() {
        let text = super::supported_text();
        for f in releases::namespaces::facts() {
            assert!(
                text.lines()
                    .any(|l| l.starts_with(&format!("  {}: ", f.name)) && l.contains(&f.path)),
                "{}:\n{text}",
                f.name
            );
        }
    }

    #[test]
    fn the_listing_names_every_release_and_konnectivity() {
        let text = super::supported_text();
        for r in ["4.19", "4.20", "4.21", "4.22", "5.0"] {
            assert!(text.contains(&format!("\n  {r}: Kubernetes")), "{text}");
        }
        assert!(text.contains("Konnectivity"), "{text}");
        assert!(
            text.contains("CVO render with --cluster-version-manifest-path: 4.22"),
            "{text}"
        );
    }

    /// The README's opening names the supported releases: the table's, no more, no fewer.
    #[test]
    fn the_readme_names_the_supported_releases() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
        let readme = std::fs::read_to_string(path).expect("README.md");
        let list = readme
            .split_once("okd-install installs **OKD ")
            .and_then(|(_, rest)| rest.split_once("**"))
            .map(|(list, _)| list)
            .expect("README.md says which releases okd-install installs, in bold");
        let named: Vec<&str> = list.split([',', ' ']).filter(|w| w.contains('.')).collect();
        let table: Vec<String> = releases::table()
            .releases
            .iter()
            .map(|r| r.version.to_string())
            .collect();
        assert_eq!(
            named, table,
            "README.md's release list and data/releases.toml differ"
        );
    }

    /// The node-image differences name the release of each variant.
    #[test]
    fn the_listing_says_which_release_has_which_tmpfs_and_sshd_restart() {
        let text = super::supported_text();
        for line in [
            "var-ostreecontainer.mount at /var/ostreecontainer (earlier releases: \
             var-ostree\\x2dcontainer.mount at /var/ostree-container): 4.21\n",
            "tmpfs skipped when /etc/no-var-tmpfs exists: 4.22\n",
            "sshd try-restart after the node-image overlay: 4.22\n",
            "sshd try-restart after the node-image overlay dropped again: 5.0\n",
        ] {
            assert!(text.contains(line), "{line}\n{text}");
        }
    }
}
