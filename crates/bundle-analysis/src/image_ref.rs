//! Container image references as image mode and the OS tools write them, reduced to what
//! decides whether two of them name the same image.
//!
//! okd-install's OS-image MachineConfig names a pool's image plainly
//! (`registry/repo@sha256:...`). rpm-ostree reports the booted deployment's origin with a
//! signature-policy prefix and sometimes a transport (`ostree-unverified-registry:...`,
//! `ostree-image-signed:docker://...`, `ostree-remote-registry:<remote>:...`) plus, for a
//! reference by tag, the digest it resolved; bootc reports the bare name and the digest apart.

/// The signature-policy prefixes of an ostree container reference. Those of a named remote
/// (`ostree-remote-*`) are followed by the remote's name and a colon.
const SIGNATURE_PREFIXES: &[&str] = &[
    "ostree-unverified-registry:",
    "ostree-unverified-image:",
    "ostree-image-signed:",
    "ostree-remote-registry:",
    "ostree-remote-image:",
];

/// Transports that mean "from a registry", in front of the image name.
const REGISTRY_TRANSPORTS: &[&str] = &["docker://", "registry:"];

/// One image reference: repository, tag and digest, without prefix or transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ImageRef {
    /// `registry[:port]/path`.
    pub name: String,
    /// The tag, when the reference has one.
    pub tag: Option<String>,
    /// `sha256:<hex>`, when the reference pins one.
    pub digest: Option<String>,
}

impl ImageRef {
    /// Reads a reference in any of the forms above.
    pub(super) fn parse(reference: &str) -> ImageRef {
        let bare = without_transport(reference.trim());
        let (name, tag, digest) = contract::registry_error::split_reference(bare);
        ImageRef {
            name: name.to_string(),
            tag: tag.map(str::to_string),
            digest: digest.map(str::to_string),
        }
    }

    /// Whether this reference, which a host booted (`resolved`: the digest its tool reports
    /// next to it, if any), is the image `told` names. Digests decide when both are known,
    /// whatever the names (a mirror serves the same image under another one); an image told
    /// by digest is not confirmed by a booted reference without one; otherwise name and tag
    /// must agree.
    pub(super) fn is_told(&self, resolved: Option<&str>, told: &ImageRef) -> bool {
        let booted_digest = self.digest.as_deref().or(resolved);
        match (told.digest.as_deref(), booted_digest) {
            (Some(told), Some(booted)) => told.eq_ignore_ascii_case(booted),
            (Some(_), None) => false,
            (None, _) => self.name == told.name && self.tag == told.tag,
        }
    }
}

/// The reference without its signature-policy prefix and registry transport.
fn without_transport(reference: &str) -> &str {
    let mut rest = reference;
    if let Some((prefix, after)) = SIGNATURE_PREFIXES
        .iter()
        .find_map(|p| reference.strip_prefix(p).map(|after| (*p, after)))
    {
        rest = match prefix.starts_with("ostree-remote-") {
            true => after.split_once(':').map_or(after, |(_remote, r)| r),
            false => after,
        };
    }
    REGISTRY_TRANSPORTS
        .iter()
        .find_map(|t| rest.strip_prefix(t))
        .unwrap_or(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "sha256:e2d1340ef2baa559d7637418a7b1e07397adb2d4bb9611959ec9763be82f3521";
    const OTHER: &str = "sha256:4f8a000000000000000000000000000000000000000000000000000000000000";

    fn told() -> ImageRef {
        ImageRef::parse(&format!(
            "registry.example.com:5000/okd-image-mode/master@{DIGEST}"
        ))
    }

    #[test]
    fn every_prefix_and_transport_is_taken_off() {
        let plain = format!("registry.example.com:5000/okd-image-mode/master@{DIGEST}");
        for written in [
            format!("ostree-unverified-registry:{plain}"),
            format!("ostree-unverified-image:docker://{plain}"),
            format!("ostree-unverified-image:registry:{plain}"),
            format!("ostree-image-signed:docker://{plain}"),
            format!("ostree-remote-registry:fedora:{plain}"),
            format!("ostree-remote-image:fedora:docker://{plain}"),
            format!("docker://{plain}"),
            plain.clone(),
        ] {
            assert_eq!(without_transport(&written), plain, "{written}");
            assert_eq!(ImageRef::parse(&written), told(), "{written}");
        }
    }

    #[test]
    fn a_registry_port_is_not_a_tag() {
        let r = ImageRef::parse("registry.example.com:5000/okd/os:4.19");
        assert_eq!(r.name, "registry.example.com:5000/okd/os");
        assert_eq!(r.tag.as_deref(), Some("4.19"));
        assert_eq!(r.digest, None);
        let r = ImageRef::parse("registry.example.com:5000/okd/os");
        assert_eq!((r.tag, r.digest), (None, None));
        let r = ImageRef::parse(&format!("quay.io/okd/os:4.19@{DIGEST}"));
        assert_eq!(r.name, "quay.io/okd/os");
        assert_eq!(r.tag.as_deref(), Some("4.19"));
        assert_eq!(r.digest.as_deref(), Some(DIGEST));
    }

    #[test]
    fn digests_decide_when_both_are_known() {
        let booted = ImageRef::parse(&format!(
            "ostree-unverified-registry:registry.example.com:5000/okd-image-mode/master@{DIGEST}"
        ));
        assert!(booted.is_told(None, &told()));
        // A mirror's name with the same digest is the same image.
        let mirrored = ImageRef::parse(&format!("mirror.example.com/okd/master@{DIGEST}"));
        assert!(mirrored.is_told(None, &told()));
        let other = ImageRef::parse(&format!(
            "ostree-unverified-registry:quay.io/okd/scos-content@{OTHER}"
        ));
        assert!(!other.is_told(None, &told()));
        // By tag, with the digest the tool resolved.
        let tagged = ImageRef::parse("ostree-image-signed:docker://quay.io/okd/master:4.19");
        assert!(tagged.is_told(Some(DIGEST), &told()));
        assert!(!tagged.is_told(Some(OTHER), &told()));
        assert!(
            !tagged.is_told(None, &told()),
            "a tag does not confirm a digest"
        );
    }

    #[test]
    fn an_image_told_by_tag_needs_the_same_name_and_tag() {
        let told = ImageRef::parse("quay.io/okd/master:4.19");
        let booted = ImageRef::parse("ostree-unverified-registry:quay.io/okd/master:4.19");
        assert!(booted.is_told(Some(DIGEST), &told));
        let other_tag = ImageRef::parse("ostree-unverified-registry:quay.io/okd/master:4.18");
        assert!(!other_tag.is_told(None, &told));
    }
}
