//! Image references as containers/image reads them: `[REGISTRY/]REPOSITORY[:TAG][@DIGEST]`.

use std::fmt;

/// Docker Hub's name in references, and the host its API answers on.
const DOCKER_HUB: &str = "docker.io";
const DOCKER_HUB_API: &str = "registry-1.docker.io";

/// What a reference pins: a manifest digest, or a tag (which the registry maps to one).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Pin {
    /// `sha256:...`.
    Digest(String),
    /// A tag, `latest` when the reference names none.
    Tag(String),
}

/// One image reference, parsed.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ImageRef {
    /// `host[:port]` as written (`docker.io` for names without a registry).
    pub registry: String,
    /// The repository path in the registry, e.g. `okd/scos-content`.
    pub repository: String,
    /// The digest or tag.
    pub pin: Pin,
}

/// Why a reference does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{reference}` is not an image reference: {why}")]
pub struct BadReference {
    reference: String,
    why: &'static str,
}

impl ImageRef {
    /// Parses `text`; a name without a registry is Docker Hub's, a one-part Docker Hub name
    /// is under `library/`, a reference without tag or digest means `latest`.
    pub fn parse(text: &str) -> Result<ImageRef, BadReference> {
        let bad = |why| BadReference {
            reference: text.to_string(),
            why,
        };
        let text = text.trim();
        let (name, tag, digest) = contract::registry_error::split_reference(text);
        if digest.is_some_and(|d| !d.contains(':')) {
            return Err(bad("the digest after `@` has no algorithm"));
        }
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(bad("the name is empty or holds a space"));
        }
        // The registry is the first part when it looks like a host, as the reader of
        // registry errors decides it.
        let registry = contract::registry_error::registry_of_image(name);
        let repository = match name.strip_prefix(&format!("{registry}/")) {
            Some(rest) => rest.to_string(),
            None if name.contains('/') => name.to_string(),
            None => format!("library/{name}"),
        };
        if repository.is_empty() {
            return Err(bad("the repository is empty"));
        }
        let pin = match (digest, tag) {
            (Some(d), _) => Pin::Digest(d.to_string()),
            (None, Some(t)) if !t.is_empty() => Pin::Tag(t.to_string()),
            (None, Some(_)) => return Err(bad("the tag after `:` is empty")),
            (None, None) => Pin::Tag("latest".into()),
        };
        Ok(ImageRef {
            registry,
            repository,
            pin,
        })
    }

    /// `registry/repository`, what registries.conf prefixes are matched against.
    pub fn name(&self) -> String {
        format!("{}/{}", self.registry, self.repository)
    }

    /// The digest or tag as the manifest URL takes it.
    pub fn reference(&self) -> &str {
        match &self.pin {
            Pin::Digest(d) | Pin::Tag(d) => d,
        }
    }

    /// The host and port the registry's API answers on.
    pub fn endpoint(&self) -> (String, u16) {
        endpoint(&self.registry)
    }
}

/// `host[:port]` of a registry as connected to: Docker Hub's API host for `docker.io`, 443
/// when no port is given.
pub(crate) fn endpoint(registry: &str) -> (String, u16) {
    if registry == DOCKER_HUB {
        return (DOCKER_HUB_API.to_string(), 443);
    }
    // `[v6]:port`, `[v6]`, `host:port`, `host`.
    if let Some(rest) = registry.strip_prefix('[')
        && let Some((host, after)) = rest.split_once(']')
    {
        let port = after.strip_prefix(':').and_then(|p| p.parse().ok());
        return (host.to_string(), port.unwrap_or(443));
    }
    match registry.rsplit_once(':') {
        Some((host, port)) if port.parse::<u16>().is_ok() => {
            (host.to_string(), port.parse().unwrap_or(443))
        }
        _ => (registry.to_string(), 443),
    }
}

impl fmt::Display for ImageRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.pin {
            Pin::Digest(d) => write!(f, "{}/{}@{d}", self.registry, self.repository),
            Pin::Tag(t) => write!(f, "{}/{}:{t}", self.registry, self.repository),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_parse_as_containers_image_reads_them() {
        let r = ImageRef::parse("registry.example.com:5000/okd/scos-content@sha256:ab12").unwrap();
        assert_eq!(r.registry, "registry.example.com:5000");
        assert_eq!(r.repository, "okd/scos-content");
        assert_eq!(r.pin, Pin::Digest("sha256:ab12".into()));
        assert_eq!(r.endpoint(), ("registry.example.com".into(), 5000));
        assert_eq!(
            r.to_string(),
            "registry.example.com:5000/okd/scos-content@sha256:ab12"
        );
        let t = ImageRef::parse("quay.io/okd/scos-release:4.19.0").unwrap();
        assert_eq!(t.pin, Pin::Tag("4.19.0".into()));
        assert_eq!(t.endpoint(), ("quay.io".into(), 443));
        let hub = ImageRef::parse("busybox").unwrap();
        assert_eq!(hub.name(), "docker.io/library/busybox");
        assert_eq!(hub.reference(), "latest");
        assert_eq!(hub.endpoint().0, "registry-1.docker.io");
        let v6 = ImageRef::parse("[fd00::1]:5000/a/b:1").unwrap();
        assert_eq!(v6.endpoint(), ("fd00::1".into(), 5000));
        assert!(ImageRef::parse("quay.io/a@nodigest").is_err());
        assert!(ImageRef::parse("quay.io/a:").is_err());
    }
}
