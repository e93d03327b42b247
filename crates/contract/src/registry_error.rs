//! One reader of registry errors: what podman, skopeo, `ostree container` (all through
//! containers/image) and the registry protocol say when a pull fails, told apart by kind.
//!
//! The analysis of a gathered bundle and `wait-for --bootstrap` name a failed pull with it;
//! the preflight (`verify --online`) is to report its own findings in the same words, so a
//! fault reads the same before and after boot. Two different faults never read the same:
//! each kind has its own reason and its own fix.
//!
//! The shapes read are the tools' own words: Go's net package (`dial tcp ADDR: connect:
//! connection refused`, `lookup NAME on DNS: no such host`, `i/o timeout`), Go's crypto/x509
//! (`certificate signed by unknown authority`, `certificate is valid for A, B, not C`,
//! `certificate has expired or is not yet valid: current time T is before|after T'`), the
//! registry protocol's error codes as containers/image prints them (`unauthorized:`,
//! `denied:`, `manifest unknown`, `name unknown`) and containers/image's own
//! (`initializing source docker://IMAGE:`, `pinging container registry REGISTRY:`,
//! `reading manifest REF in REPO:`, `registry PREFIX is blocked in FILE`).

/// What went wrong between the host and the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegistryFault {
    /// Nothing listens on the registry's port: `connect: connection refused`.
    ConnectionRefused,
    /// The registry's host name does not resolve: `lookup NAME ...: no such host`.
    NameNotResolved,
    /// No route to the registry's address (`no route to host`, `network is unreachable`).
    Unreachable,
    /// The registry did not answer in time (`i/o timeout`, a TLS handshake timeout).
    Timeout,
    /// The registry's certificate is signed by a CA the host does not trust.
    UntrustedCertificate,
    /// The registry's certificate is for other names than the one pulled from.
    CertificateForOtherName,
    /// The registry's certificate has expired on the host's clock.
    CertificateExpired,
    /// The registry's certificate is not valid yet on the host's clock.
    CertificateNotYetValid,
    /// The registry wants credentials the pull secret lacks, or refused them (401).
    Unauthorized,
    /// The registry knows the credentials but denies access to the repository (403).
    Denied,
    /// The repository or the manifest (tag or digest) is not in the registry.
    ManifestUnknown,
    /// `registries.conf` blocks the registry, and no mirror served the image.
    Blocked,
}

impl RegistryFault {
    /// A stable kebab-case id (JSON, tests).
    pub fn id(self) -> &'static str {
        match self {
            RegistryFault::ConnectionRefused => "connection-refused",
            RegistryFault::NameNotResolved => "name-not-resolved",
            RegistryFault::Unreachable => "unreachable",
            RegistryFault::Timeout => "timeout",
            RegistryFault::UntrustedCertificate => "untrusted-certificate",
            RegistryFault::CertificateForOtherName => "certificate-for-other-name",
            RegistryFault::CertificateExpired => "certificate-expired",
            RegistryFault::CertificateNotYetValid => "certificate-not-yet-valid",
            RegistryFault::Unauthorized => "unauthorized",
            RegistryFault::Denied => "denied",
            RegistryFault::ManifestUnknown => "manifest-unknown",
            RegistryFault::Blocked => "blocked",
        }
    }
}

/// One failed pull as the error line tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullError {
    /// What went wrong.
    pub fault: RegistryFault,
    /// The image pulled (`REGISTRY/REPO@sha256:...` or `REGISTRY/REPO:TAG`), when named.
    pub image: Option<String>,
    /// The registry (`host[:port]`) that failed, when named or implied by the image.
    pub registry: Option<String>,
    /// What the line says beyond the kind: the certificate's names, the clock's times, the
    /// address dialled.
    pub detail: Option<String>,
}

/// The registry's name, or words for it when the line does not say.
fn or_registry(registry: Option<&str>) -> String {
    registry.map_or_else(|| "the registry".to_string(), |r| format!("`{r}`"))
}

impl PullError {
    /// Why the pull failed, in the user's words, naming the registry.
    pub fn reason(&self) -> String {
        let reg = or_registry(self.registry.as_deref());
        let detail = self
            .detail
            .as_deref()
            .map_or_else(String::new, |d| format!(" ({d})"));
        match self.fault {
            RegistryFault::ConnectionRefused => {
                format!("{reg} refused the connection: nothing listens on its port{detail}")
            }
            RegistryFault::NameNotResolved => format!("{reg} does not resolve on the host{detail}"),
            RegistryFault::Unreachable => format!("the host has no route to {reg}{detail}"),
            RegistryFault::Timeout => format!("{reg} did not answer in time{detail}"),
            RegistryFault::UntrustedCertificate => {
                format!("{reg}'s certificate is signed by a CA the host does not trust")
            }
            RegistryFault::CertificateForOtherName => {
                format!("{reg}'s certificate is for other names{detail}")
            }
            RegistryFault::CertificateExpired => {
                format!("{reg}'s certificate has expired on the host's clock{detail}")
            }
            RegistryFault::CertificateNotYetValid => {
                format!("{reg}'s certificate is not valid yet on the host's clock{detail}")
            }
            RegistryFault::Unauthorized => format!(
                "{reg} wants credentials: the pull secret has none for it, or it refused them (401)"
            ),
            RegistryFault::Denied => {
                format!("{reg} denied access to the repository with these credentials (403)")
            }
            RegistryFault::ManifestUnknown => format!(
                "{reg} does not hold {}: the repository or the manifest is unknown",
                self.image
                    .as_deref()
                    .map_or_else(|| "the image".to_string(), |i| format!("`{i}`"))
            ),
            RegistryFault::Blocked => {
                format!("{reg} is blocked in registries.conf and no mirror served the image")
            }
        }
    }

    /// What to do about it, in one sentence.
    pub fn remedy(&self) -> String {
        let reg = or_registry(self.registry.as_deref());
        match self.fault {
            RegistryFault::ConnectionRefused => format!(
                "start the registry {reg} (or correct its port in imageDigestSources), then \
                 check that the bootstrap host reaches it"
            ),
            RegistryFault::NameNotResolved => format!(
                "create the DNS record for {reg}'s host name, or correct the name in \
                 imageDigestSources, and check the bootstrap host's resolver"
            ),
            RegistryFault::Unreachable => format!(
                "give the bootstrap host a route to {reg} (network, firewall, proxy settings)"
            ),
            RegistryFault::Timeout => format!(
                "check the network path from the bootstrap host to {reg} (firewall, proxy \
                 settings in install-config) and that the registry is not overloaded"
            ),
            RegistryFault::UntrustedCertificate => format!(
                "add the CA that signed {reg}'s certificate to additionalTrustBundle in \
                 install-config.yaml, then create the Ignition configs again"
            ),
            RegistryFault::CertificateForOtherName => format!(
                "give {reg} a certificate whose subject alternative names include the name \
                 pulled from, or pull from a name the certificate has (imageDigestSources)"
            ),
            RegistryFault::CertificateExpired => format!(
                "renew {reg}'s certificate, or set the bootstrap host's clock if it is ahead"
            ),
            RegistryFault::CertificateNotYetValid => format!(
                "set the bootstrap host's clock (NTP, chrony), or give {reg} a certificate \
                 valid from an earlier time"
            ),
            RegistryFault::Unauthorized => format!(
                "add credentials for {reg} to the pull secret (or correct them), then create \
                 the Ignition configs again"
            ),
            RegistryFault::Denied => format!(
                "give the pull secret's account for {reg} read access to the repository, or \
                 use an account that has it"
            ),
            RegistryFault::ManifestUnknown => format!(
                "mirror the image to {reg} (oc adm release mirror / oc-mirror), or correct \
                 the mirror's repository in imageDigestSources"
            ),
            RegistryFault::Blocked => format!(
                "add a mirror for the image's repository to imageDigestSources, or unblock \
                 {reg}, then create the Ignition configs again"
            ),
        }
    }
}

/// Which pull of the bootstrap host failed: what the unit and stage it failed in say it was
/// pulling. The line alone cannot say it: the release image and the node image come from the
/// same registries, and node-image-pull pulls the release image first to look the node
/// image up in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PulledImage {
    /// The release image itself (release-image.service).
    Release,
    /// The release image, pulled to look the node image up in it (node-image-pull's
    /// `resolve-node-image` stage).
    ReleaseForNodeImage,
    /// The node (OS) image.
    Node,
    /// The payload image a render stage of bootkube.sh runs.
    Component {
        /// The render stage.
        stage: String,
    },
    /// A payload image the release names, pulled elsewhere.
    Payload,
}

impl PulledImage {
    /// The image in words, as the object of "could not pull".
    pub fn noun(&self) -> String {
        match self {
            PulledImage::Release | PulledImage::ReleaseForNodeImage => "the release image".into(),
            PulledImage::Node => "the node (OS) image".into(),
            PulledImage::Component { stage } => format!("the image of render stage {stage}"),
            PulledImage::Payload => "a payload image of the release".into(),
        }
    }

    /// One line naming the pull and, when `error` was read, the registry and why: the
    /// mirror is named as such when the registry that failed is not the image's own.
    pub fn summary(&self, error: Option<&PullError>) -> String {
        let mut s = format!("the bootstrap host could not pull {}", self.noun());
        let Some(e) = error else {
            if *self == PulledImage::ReleaseForNodeImage {
                s.push_str(", in which it looks up the node image");
            }
            return s;
        };
        if let Some(image) = &e.image {
            s.push_str(&format!(" `{image}`"));
            if let Some(reg) = e.registry.as_deref()
                && registry_of_image(image) != reg
            {
                s.push_str(&format!(" through the mirror `{reg}`"));
            }
        }
        if *self == PulledImage::ReleaseForNodeImage {
            s.push_str(", in which it looks up the node image,");
        }
        s.push_str(&format!(" because {}", e.reason()));
        s
    }
}

/// The registry error one line holds, if it holds one.
///
/// A line that names a pull (the image, the registry) but no known fault, and a line that
/// names no pull, read as nothing: the reader never guesses.
pub fn read(line: &str) -> Option<PullError> {
    let (fault, detail) = fault_of(line)?;
    let image = image_of(line);
    let registry = registry_of(line, fault).or_else(|| image.as_deref().map(registry_of_image));
    Some(PullError {
        fault,
        image,
        registry,
        detail,
    })
}

/// The kind of fault, with its detail; the transport's faults first (they are what stopped
/// the pull), then the certificate's, then the registry's own answers.
fn fault_of(line: &str) -> Option<(RegistryFault, Option<String>)> {
    let l = line.to_ascii_lowercase();
    let has = |p: &str| l.contains(p);
    let after = |p: &str| after_ci(line, p).map(|s| s.trim().to_string());
    let fault = if has(" is blocked in ") && has("registry ") {
        (RegistryFault::Blocked, None)
    } else if has("no such host")
        || (has("lookup ") && (has("server misbehaving") || has("no answer from dns")))
        || has("temporary failure in name resolution")
        || has("name or service not known")
    {
        (RegistryFault::NameNotResolved, dns_server(line))
    } else if has("connection refused") {
        (RegistryFault::ConnectionRefused, dialled(line))
    } else if has("no route to host") || has("network is unreachable") {
        (RegistryFault::Unreachable, dialled(line))
    } else if has("i/o timeout")
        || has("tls handshake timeout")
        || has("client.timeout exceeded")
        || has("context deadline exceeded")
    {
        (RegistryFault::Timeout, dialled(line))
    } else if has("certificate signed by unknown authority") {
        (RegistryFault::UntrustedCertificate, None)
    } else if has("x509: certificate is valid for") || has("x509: certificate is not valid for") {
        (
            RegistryFault::CertificateForOtherName,
            after("x509: certificate is ").map(|d| format!("it is {d}")),
        )
    } else if has("x509: certificate has expired or is not yet valid") {
        let when = after("current time ").map(|d| format!("current time {d}"));
        if has(" is before ") {
            (RegistryFault::CertificateNotYetValid, when)
        } else {
            (RegistryFault::CertificateExpired, when)
        }
    } else if has("manifest unknown") || has("name unknown") || has("repository name not known") {
        (RegistryFault::ManifestUnknown, None)
    } else if has("unauthorized")
        || has("authentication required")
        || has("invalid username/password")
        || has("401 (unauthorized)")
    {
        (RegistryFault::Unauthorized, None)
    } else if has("requested access to the resource is denied")
        || has("denied:")
        || has("403 (forbidden)")
    {
        (RegistryFault::Denied, None)
    } else {
        return None;
    };
    Some(fault)
}

/// The text after `pat` (ASCII case-insensitive), up to the line's end.
fn after_ci<'a>(line: &'a str, pat: &str) -> Option<&'a str> {
    let at = line.to_ascii_lowercase().find(&pat.to_ascii_lowercase())?;
    Some(&line[at + pat.len()..])
}

/// The text after `pat` up to the first `": "` (containers/image's separator), trimmed of
/// quotes.
fn field<'a>(line: &'a str, pat: &str) -> Option<&'a str> {
    let rest = after_ci(line, pat)?;
    let end = rest.find(": ").unwrap_or(rest.len());
    let v = rest[..end].trim().trim_matches('"');
    (!v.is_empty()).then_some(v)
}

/// The address Go's dialer names: `dial tcp 192.168.111.1:5000: ...`.
fn dialled(line: &str) -> Option<String> {
    field(line, "dial tcp ").map(|a| format!("dialled {a}"))
}

/// The resolver Go asked: `lookup NAME on 10.0.0.1:53: no such host`.
fn dns_server(line: &str) -> Option<String> {
    let rest = after_ci(line, "lookup ")?;
    let on = rest.find(" on ")?;
    let end = rest.find(": ").unwrap_or(rest.len());
    (on < end).then(|| format!("asked the resolver {}", &rest[on + 4..end]))
}

/// The image the line names: `initializing source docker://IMAGE:`, ostree's
/// `docker://IMAGE`, or `reading manifest REF in REPO:`.
fn image_of(line: &str) -> Option<String> {
    if let Some(i) = field(line, "docker://") {
        return Some(i.to_string());
    }
    let rest = after_ci(line, "reading manifest ")?;
    let (reference, rest) = rest.split_once(" in ")?;
    let repo = rest.split(": ").next()?.trim();
    let sep = if reference.contains(':') { "@" } else { ":" };
    Some(format!("{repo}{sep}{reference}"))
}

/// The registry the line names for the fault: the one pinged, the one blocked, the name
/// looked up, or the host of the certificate's URL.
fn registry_of(line: &str, fault: RegistryFault) -> Option<String> {
    if let Some(r) = field(line, "pinging container registry ") {
        return Some(r.to_string());
    }
    if fault == RegistryFault::Blocked {
        let rest = after_ci(line, "registry ")?;
        return rest
            .split(" is blocked")
            .next()
            .map(|r| r.trim().to_string());
    }
    if let Some(u) = after_ci(line, "\"https://") {
        return u.split('/').next().map(str::to_string);
    }
    None
}

/// The registry part of an image reference, as containers/image reads it: the first path
/// component when it has a dot, a colon or is `localhost`; Docker Hub otherwise.
pub fn registry_of_image(image: &str) -> String {
    match image.split_once('/') {
        Some((first, _)) if first.contains(['.', ':']) || first == "localhost" => first.to_string(),
        _ => "docker.io".to_string(),
    }
}

/// The parts of `name[:tag][@digest]` as written, without judging them: a tag follows the
/// last colon after the last slash (a colon before that slash belongs to the registry's
/// port). The one split both readers of references use: the analysis comparing what a host
/// booted with what it was told, and the pull preflight parsing what it will pull.
pub fn split_reference(reference: &str) -> (&str, Option<&str>, Option<&str>) {
    let (rest, digest) = match reference.split_once('@') {
        Some((rest, digest)) => (rest, Some(digest)),
        None => (reference, None),
    };
    let last_part = rest.rfind('/').map_or(0, |i| i + 1);
    match rest[last_part..].rfind(':') {
        Some(i) => (
            &rest[..last_part + i],
            Some(&rest[last_part + i + 1..]),
            digest,
        ),
        None => (rest, None, digest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REG: &str = "registry.example.com:5000";
    const IMAGE: &str = "registry.example.com:5000/okd/release@sha256:4f8a0d1e2b3c";

    #[test]
    fn a_reference_splits_into_name_tag_and_digest_with_the_port_kept_in_the_name() {
        assert_eq!(
            split_reference("registry.example.com:5000/okd/release:4.19@sha256:ab"),
            (
                "registry.example.com:5000/okd/release",
                Some("4.19"),
                Some("sha256:ab")
            )
        );
        assert_eq!(
            split_reference("registry.example.com:5000/okd/release"),
            ("registry.example.com:5000/okd/release", None, None)
        );
        assert_eq!(split_reference("busybox:1"), ("busybox", Some("1"), None));
    }

    fn source(tail: &str) -> String {
        format!(
            "Error: initializing source docker://{IMAGE}: pinging container registry {REG}: \
             Get \"https://{REG}/v2/\": {tail}"
        )
    }

    /// Each fault as podman 4.9 (containers/image 5.29) and the Distribution registry 2.8 word
    /// it, with the kind the reader must name.
    fn shapes() -> Vec<(String, RegistryFault)> {
        vec![
            (
                source("dial tcp 192.168.111.1:5000: connect: connection refused"),
                RegistryFault::ConnectionRefused,
            ),
            (
                source("dial tcp: lookup registry.example.com on 10.0.0.1:53: no such host"),
                RegistryFault::NameNotResolved,
            ),
            (
                source("dial tcp 192.168.111.1:5000: i/o timeout"),
                RegistryFault::Timeout,
            ),
            (
                source("dial tcp 192.168.111.1:5000: connect: no route to host"),
                RegistryFault::Unreachable,
            ),
            (
                source(
                    "tls: failed to verify certificate: x509: certificate signed by unknown \
                     authority",
                ),
                RegistryFault::UntrustedCertificate,
            ),
            (
                source(
                    "tls: failed to verify certificate: x509: certificate is valid for \
                     mirror.example.com, localhost, not registry.example.com",
                ),
                RegistryFault::CertificateForOtherName,
            ),
            (
                source(
                    "tls: failed to verify certificate: x509: certificate has expired or is \
                     not yet valid: current time 2026-11-28T10:00:00Z is after \
                     2026-11-27T14:00:00Z",
                ),
                RegistryFault::CertificateExpired,
            ),
            (
                source(
                    "tls: failed to verify certificate: x509: certificate has expired or is \
                     not yet valid: current time 2026-11-25T10:00:00Z is before \
                     2026-11-26T14:00:00Z",
                ),
                RegistryFault::CertificateNotYetValid,
            ),
            (
                format!(
                    "Error: initializing source docker://{IMAGE}: reading manifest \
                     sha256:4f8a0d1e2b3c in {REG}/okd/release: unauthorized: authentication \
                     required"
                ),
                RegistryFault::Unauthorized,
            ),
            (
                format!(
                    "Error: initializing source docker://{IMAGE}: reading manifest \
                     sha256:4f8a0d1e2b3c in {REG}/okd/release: denied: requested access to \
                     the resource is denied"
                ),
                RegistryFault::Denied,
            ),
            (
                format!(
                    "Error: initializing source docker://{IMAGE}: reading manifest \
                     sha256:4f8a0d1e2b3c in {REG}/okd/release: manifest unknown"
                ),
                RegistryFault::ManifestUnknown,
            ),
            (
                format!(
                    "Error: initializing source docker://{IMAGE}: registry {REG} is blocked \
                     in /etc/containers/registries.conf or /etc/containers/registries.conf.d"
                ),
                RegistryFault::Blocked,
            ),
        ]
    }

    #[test]
    fn every_shape_names_its_kind_the_image_and_the_registry() {
        for (line, want) in shapes() {
            let got = read(&line).unwrap_or_else(|| panic!("nothing read from {line}"));
            assert_eq!(got.fault, want, "{line}");
            assert_eq!(got.image.as_deref(), Some(IMAGE), "{line}");
            assert_eq!(got.registry.as_deref(), Some(REG), "{line}");
            assert!(got.reason().contains(REG), "{}", got.reason());
            assert!(got.remedy().contains(REG), "{}", got.remedy());
        }
    }

    #[test]
    fn no_two_kinds_read_the_same() {
        let read: Vec<PullError> = shapes().iter().filter_map(|(l, _)| read(l)).collect();
        for (i, a) in read.iter().enumerate() {
            for b in &read[i + 1..] {
                assert_ne!(a.reason(), b.reason());
                assert_ne!(a.remedy(), b.remedy());
            }
        }
    }

    #[test]
    fn details_quote_what_the_line_says() {
        let refused = read(&source(
            "dial tcp 192.168.111.1:5000: connect: connection refused",
        ));
        assert_eq!(
            refused.and_then(|r| r.detail).as_deref(),
            Some("dialled 192.168.111.1:5000")
        );
        let dns = read(&source(
            "dial tcp: lookup registry.example.com on 10.0.0.1:53: no such host",
        ));
        assert_eq!(
            dns.and_then(|r| r.detail).as_deref(),
            Some("asked the resolver 10.0.0.1:53")
        );
        let name = read(&source(
            "x509: certificate is valid for mirror.example.com, not registry.example.com",
        ))
        .expect("read");
        assert_eq!(
            name.detail.as_deref(),
            Some("it is valid for mirror.example.com, not registry.example.com")
        );
    }

    /// The registry protocol's answers as skopeo and the Distribution registry word them
    /// with a tag, and Docker Hub's implied registry.
    #[test]
    fn tags_and_short_names() {
        let tag = read(
            "Error: initializing source docker://quay.io/okd/scos-release:4.19.0: reading \
             manifest 4.19.0 in quay.io/okd/scos-release: name unknown: repository name not \
             known to registry",
        )
        .expect("read");
        assert_eq!(tag.fault, RegistryFault::ManifestUnknown);
        assert_eq!(
            tag.image.as_deref(),
            Some("quay.io/okd/scos-release:4.19.0")
        );
        assert_eq!(tag.registry.as_deref(), Some("quay.io"));
        let bare = read(
            "reading manifest sha256:5e1f in quay.io/okd/scos-content: unauthorized: access to \
             the requested resource is not authorized",
        )
        .expect("read");
        assert_eq!(bare.fault, RegistryFault::Unauthorized);
        assert_eq!(
            bare.image.as_deref(),
            Some("quay.io/okd/scos-content@sha256:5e1f")
        );
        assert_eq!(registry_of_image("library/busybox:1"), "docker.io");
        assert_eq!(registry_of_image("localhost/x:1"), "localhost");
    }

    #[test]
    fn lines_without_a_registry_fault_read_as_nothing() {
        for line in [
            "Starting node-image-pull.service",
            "The node image quay.io/okd/scos-content@sha256:4f8a could not be fetched; trying again in 10s",
            "Error: writing blob: no space left on device",
        ] {
            assert_eq!(read(line), None, "{line}");
        }
    }
}
