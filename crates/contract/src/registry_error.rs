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

mod context;
mod parse;

pub use context::{MirrorRule, PULLING, PullContext};
pub use parse::{is_pull_error, join_continued, read, read_pull, repository_of_image};

/// What went wrong between the host and the registry: the reason class of a failed pull.
///
/// Each class has its own reason and its own fix ([`PullError::reason`],
/// [`PullError::remedy`]); only the classes about credentials, trust or mirror rules
/// ([`RegistryFault::advice`]) say anything of the pull secret, the additionalTrustBundle
/// or imageDigestSources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegistryFault {
    /// Nothing listens on the registry's port: `connect: connection refused`.
    ConnectionRefused,
    /// The registry's host name does not resolve: `lookup NAME ...: no such host`.
    NameNotResolved,
    /// The host's resolver did not answer the lookup of the registry's name (`lookup NAME on
    /// DNS: read udp ...: connection refused`, or a timeout): the name server is down or
    /// unreachable, which is not the same as a record nobody made.
    ResolverUnreachable,
    /// No route to the registry's address (`no route to host`, `network is unreachable`).
    Unreachable,
    /// The registry did not answer in time (`i/o timeout`, a TLS handshake timeout).
    Timeout,
    /// The connection broke in the middle of an answer: `connection reset by peer`,
    /// `unexpected EOF`, a body shorter than announced.
    ConnectionReset,
    /// The registry's certificate is signed by a CA the host does not trust.
    UntrustedCertificate,
    /// The registry's certificate is for other names than the one pulled from.
    CertificateForOtherName,
    /// The registry's certificate has expired on the host's clock.
    CertificateExpired,
    /// The registry's certificate is not valid yet on the host's clock.
    CertificateNotYetValid,
    /// A TLS failure that is none of the certificate's reasons: `first record does not look
    /// like a TLS handshake` (plain HTTP on the port), a handshake failure alert, a bad
    /// record MAC.
    TlsHandshake,
    /// The registry wants credentials the pull secret lacks, or refused them (401): the
    /// registry answers both alike, so the line alone cannot tell which.
    Unauthorized,
    /// The registry wants credentials and the pull secret has none for it (401), as the
    /// pull secret's registries tell ([`FailedPull::with_credentials_for`]).
    NoCredentials,
    /// The registry refused the credentials the pull secret has for it (401).
    CredentialsRefused,
    /// The registry knows the credentials but denies access to the repository (403).
    Denied,
    /// The repository or the manifest (tag or digest) is not in the registry.
    ManifestUnknown,
    /// The registry does not know the repository at all (`NAME_UNKNOWN`).
    NameUnknown,
    /// The registry served the manifest but not a blob (layer or config) it names: 404 or
    /// `BLOB_UNKNOWN` while reading a blob. A mirroring run cut short leaves this.
    BlobUnknown,
    /// The registry's rate limit: 429 Too Many Requests (`TOOMANYREQUESTS`).
    TooManyRequests,
    /// The registry failed with a server error (5xx).
    ServerError,
    /// An HTTP status the reader has no sentence for; the status is kept in
    /// [`PullError::status`].
    HttpStatus,
    /// What the registry served does not match its digest.
    DigestMismatch,
    /// The manifest's media type is one the host's tools do not read.
    UnsupportedMediaType,
    /// A manifest list without an image for the host's OS and architecture.
    PlatformMissing,
    /// The host's container storage is full: `no space left on device`.
    StorageFull,
    /// The host could not store the image for another reason (permissions, a read-only or
    /// broken container storage).
    StorageError,
    /// `registries.conf` blocks the registry, and no mirror served the image.
    Blocked,
    /// A pull error the reader cannot classify: said to be one, with the operation and the
    /// status it could read, and no advice.
    Unrecognised,
}

/// What a fault's fix may speak of: the things a pull's fix often names, each only when
/// the evidence is about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Advice {
    /// The pull secret's credentials.
    Credentials,
    /// The CAs the host trusts (additionalTrustBundle).
    Trust,
    /// The mirror rules (imageDigestSources) and where a mirror's repository is.
    MirrorRules,
}

impl RegistryFault {
    /// Every class, for tables and property tests.
    pub const ALL: [RegistryFault; 28] = [
        RegistryFault::ConnectionRefused,
        RegistryFault::NameNotResolved,
        RegistryFault::ResolverUnreachable,
        RegistryFault::Unreachable,
        RegistryFault::Timeout,
        RegistryFault::ConnectionReset,
        RegistryFault::UntrustedCertificate,
        RegistryFault::CertificateForOtherName,
        RegistryFault::CertificateExpired,
        RegistryFault::CertificateNotYetValid,
        RegistryFault::TlsHandshake,
        RegistryFault::Unauthorized,
        RegistryFault::NoCredentials,
        RegistryFault::CredentialsRefused,
        RegistryFault::Denied,
        RegistryFault::ManifestUnknown,
        RegistryFault::NameUnknown,
        RegistryFault::BlobUnknown,
        RegistryFault::TooManyRequests,
        RegistryFault::ServerError,
        RegistryFault::HttpStatus,
        RegistryFault::DigestMismatch,
        RegistryFault::UnsupportedMediaType,
        RegistryFault::PlatformMissing,
        RegistryFault::StorageFull,
        RegistryFault::StorageError,
        RegistryFault::Blocked,
        RegistryFault::Unrecognised,
    ];

    /// A stable kebab-case id (JSON, tests).
    pub fn id(self) -> &'static str {
        match self {
            RegistryFault::ConnectionRefused => "connection-refused",
            RegistryFault::NameNotResolved => "name-not-resolved",
            RegistryFault::ResolverUnreachable => "resolver-unreachable",
            RegistryFault::Unreachable => "unreachable",
            RegistryFault::Timeout => "timeout",
            RegistryFault::ConnectionReset => "connection-reset",
            RegistryFault::UntrustedCertificate => "untrusted-certificate",
            RegistryFault::CertificateForOtherName => "certificate-for-other-name",
            RegistryFault::CertificateExpired => "certificate-expired",
            RegistryFault::CertificateNotYetValid => "certificate-not-yet-valid",
            RegistryFault::TlsHandshake => "tls-handshake",
            RegistryFault::Unauthorized => "unauthorized",
            RegistryFault::NoCredentials => "no-credentials",
            RegistryFault::CredentialsRefused => "credentials-refused",
            RegistryFault::Denied => "denied",
            RegistryFault::ManifestUnknown => "manifest-unknown",
            RegistryFault::NameUnknown => "name-unknown",
            RegistryFault::BlobUnknown => "blob-unknown",
            RegistryFault::TooManyRequests => "too-many-requests",
            RegistryFault::ServerError => "server-error",
            RegistryFault::HttpStatus => "http-status",
            RegistryFault::DigestMismatch => "digest-mismatch",
            RegistryFault::UnsupportedMediaType => "unsupported-media-type",
            RegistryFault::PlatformMissing => "platform-missing",
            RegistryFault::StorageFull => "storage-full",
            RegistryFault::StorageError => "storage-error",
            RegistryFault::Blocked => "blocked",
            RegistryFault::Unrecognised => "unrecognised",
        }
    }

    /// What this class's fix may speak of: credentials for the 401/403 classes, trust for
    /// an untrusted CA, mirror rules for a manifest or repository missing and a blocked
    /// registry. Every other class's words name none of them.
    pub fn advice(self) -> &'static [Advice] {
        match self {
            RegistryFault::Unauthorized
            | RegistryFault::NoCredentials
            | RegistryFault::CredentialsRefused
            | RegistryFault::Denied => &[Advice::Credentials],
            RegistryFault::UntrustedCertificate => &[Advice::Trust],
            RegistryFault::ManifestUnknown
            | RegistryFault::NameUnknown
            | RegistryFault::Blocked
            | RegistryFault::ConnectionRefused
            | RegistryFault::NameNotResolved
            | RegistryFault::CertificateForOtherName => &[Advice::MirrorRules],
            _ => &[],
        }
    }
}

/// What the failing step of a pull was doing, as containers/image names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Operation {
    /// `pinging container registry R`: the first request, `GET /v2/`.
    Ping,
    /// `reading manifest REF in REPO`, a `/v2/REPO/manifests/REF` request.
    ReadManifest,
    /// `reading blob DIGEST`, `fetching blob`, a `/v2/REPO/blobs/DIGEST` request.
    ReadBlob,
    /// A step of copying the image that is none of the above (choosing from a manifest
    /// list, converting it).
    Copy,
    /// Writing to the host's container storage (`writing blob`, committing the image).
    Store,
    /// The line does not say.
    #[default]
    Unknown,
}

impl Operation {
    /// A stable kebab-case id (JSON, tests).
    pub fn id(self) -> &'static str {
        match self {
            Operation::Ping => "ping",
            Operation::ReadManifest => "read-manifest",
            Operation::ReadBlob => "read-blob",
            Operation::Copy => "copy",
            Operation::Store => "store",
            Operation::Unknown => "unknown",
        }
    }

    /// Whether the step is one where containers/image picks the registry (a mirror, else the
    /// source) and names every one tried when all fail: a failure of a later step (a blob,
    /// storing) is from the registry whose manifest was read, and says nothing of mirrors.
    pub fn chooses_registry(self) -> bool {
        matches!(
            self,
            Operation::Ping | Operation::ReadManifest | Operation::Unknown
        )
    }

    /// The step in words, after "while".
    pub fn words(self) -> &'static str {
        match self {
            Operation::Ping => "pinging the registry",
            Operation::ReadManifest => "reading the manifest",
            Operation::ReadBlob => "reading a blob (a layer or the config)",
            Operation::Copy => "copying the image",
            Operation::Store => "storing the image on the host",
            Operation::Unknown => "pulling",
        }
    }
}

/// One failed pull from one registry, taken apart: what was being done, from where, and
/// why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullError {
    /// What went wrong.
    pub fault: RegistryFault,
    /// The step that failed.
    pub operation: Operation,
    /// The image pulled (`REGISTRY/REPO@sha256:...` or `REGISTRY/REPO:TAG`), when named.
    pub image: Option<String>,
    /// The registry (`host[:port]`) that failed, when named or implied by the image.
    pub registry: Option<String>,
    /// Whether `registry` is only the image's own, no line having named it: the host's
    /// mirror rules may have sent the pull elsewhere (see `PullContext`).
    pub registry_implied: bool,
    /// The repository on that registry (`okd/scos-release`), when named or implied.
    pub repository: Option<String>,
    /// The digest the failing step read (the blob's, or the manifest's), when named.
    pub digest: Option<String>,
    /// The HTTP status the registry answered, when the line has it.
    pub status: Option<u16>,
    /// The registry's error code (`BLOB_UNKNOWN`, `MANIFEST_UNKNOWN`, `TOOMANYREQUESTS`),
    /// when it sent one.
    pub code: Option<String>,
    /// What the line says beyond the kind: the certificate's names, the clock's times, the
    /// address dialled.
    pub detail: Option<String>,
    /// The error line (or the part of it about this registry) the failure was read from.
    pub line: Option<String>,
}

/// The registry's name, or words for it when the line does not say.
fn or_registry(registry: Option<&str>) -> String {
    registry.map_or_else(|| "the registry".to_string(), |r| format!("`{r}`"))
}

/// The standard reason phrase of an HTTP status, as Go's net/http words it.
fn status_text(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        407 => "Proxy Authentication Required",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        416 => "Requested Range Not Satisfiable",
        418 => "I'm a teapot",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}

impl PullError {
    /// A failure of class `fault` with nothing else known: the start of a struct literal
    /// (`PullError { registry: ..., ..PullError::new(fault) }`).
    pub fn new(fault: RegistryFault) -> PullError {
        PullError {
            fault,
            operation: Operation::Unknown,
            image: None,
            registry: None,
            registry_implied: false,
            repository: None,
            digest: None,
            status: None,
            code: None,
            detail: None,
            line: None,
        }
    }

    /// Why the pull failed, in the user's words, naming the registry.
    pub fn reason(&self) -> String {
        self.reason_of(&or_registry(self.registry.as_deref()))
    }

    /// The repository in words: `` `REG/REPO` ``, the image, or "the image".
    fn repo_words(&self) -> String {
        match (&self.registry, &self.repository, &self.image) {
            (Some(r), Some(p), _) => format!("`{r}/{p}`"),
            (None, Some(p), _) => format!("`{p}`"),
            (_, None, Some(i)) => format!("`{}`", split_reference(i).0),
            _ => "the image's repository".to_string(),
        }
    }

    /// The digest in words.
    fn digest_words(&self) -> String {
        self.digest
            .as_deref()
            .map_or_else(|| "a blob".to_string(), |d| format!("blob `{d}`"))
    }

    /// ` (404 Not Found, BLOB_UNKNOWN)`: the status and code the line had, or nothing.
    fn answer_words(&self) -> String {
        let status = self.status.map(|s| format!("{s} {}", status_text(s)));
        let parts: Vec<String> = status
            .into_iter()
            .map(|s| s.trim().to_string())
            .chain(self.code.clone())
            .collect();
        match parts.is_empty() {
            true => String::new(),
            false => format!(" ({})", parts.join(", ")),
        }
    }

    /// Why the pull failed, the registry called `reg` (its name, or its role and name).
    fn reason_of(&self, reg: &str) -> String {
        let detail = self
            .detail
            .as_deref()
            .map_or_else(String::new, |d| format!(" ({d})"));
        let repo = self.repo_words();
        let answer = self.answer_words();
        let op = self.operation.words();
        match self.fault {
            RegistryFault::ConnectionRefused => {
                format!("{reg} refused the connection: nothing listens on its port{detail}")
            }
            RegistryFault::NameNotResolved => format!("{reg} does not resolve on the host{detail}"),
            RegistryFault::ResolverUnreachable => format!(
                "{reg}'s name could not be looked up: the host's resolver {}",
                self.detail.as_deref().unwrap_or("did not answer")
            ),
            RegistryFault::Unreachable => format!("the host has no route to {reg}{detail}"),
            RegistryFault::Timeout => format!("{reg} did not answer in time{detail}"),
            RegistryFault::ConnectionReset => format!(
                "the connection to {reg} broke in the middle of an answer while {op}{detail}"
            ),
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
            RegistryFault::TlsHandshake => format!(
                "the TLS handshake with {reg} failed, for a reason other than its \
                 certificate{detail}"
            ),
            RegistryFault::Unauthorized => format!(
                "{reg} wants credentials: the pull secret has none for it, or it refused them (401)"
            ),
            RegistryFault::NoCredentials => {
                format!("{reg} wants credentials: the pull secret has none for it (401)")
            }
            // A blob is read after its manifest, from the same registry with the same
            // credentials: they were accepted for the manifest.
            RegistryFault::CredentialsRefused if self.operation == Operation::ReadBlob => format!(
                "{reg} served the manifest of {repo} with the pull secret's credentials, then \
                 refused them for {} (401): it, a proxy in front of it or the storage it sends \
                 blobs from authorizes blob requests otherwise",
                self.digest_words()
            ),
            RegistryFault::CredentialsRefused => {
                format!("{reg} refused the pull secret's credentials for it (401)")
            }
            RegistryFault::Denied => {
                format!("{reg} denied access to the repository with these credentials (403)")
            }
            RegistryFault::ManifestUnknown => format!(
                "{reg} does not hold {}: the repository or the manifest is unknown",
                self.image
                    .as_deref()
                    .map_or_else(|| "the image".to_string(), |i| format!("`{i}`"))
            ),
            RegistryFault::NameUnknown => {
                format!("{reg} does not know the repository {repo}{answer}")
            }
            RegistryFault::BlobUnknown => format!(
                "{reg} has the manifest but not {} it names, in {repo}{answer}: the image \
                 was copied there incompletely",
                self.digest_words()
            ),
            RegistryFault::TooManyRequests => format!(
                "{reg} refused the request for {repo}: too many requests{answer}, its rate \
                 limit"
            ),
            RegistryFault::ServerError => {
                format!("{reg} failed with a server error while {op} of {repo}{answer}{detail}")
            }
            RegistryFault::HttpStatus => {
                format!("{reg} answered an unexpected HTTP status while {op} of {repo}{answer}")
            }
            RegistryFault::DigestMismatch => {
                match self.detail.as_deref().and_then(parse::decompression_words) {
                    Some(words) => format!(
                        "what {reg} served for {repo} is damaged: its compressed data does not \
                     decompress ({words})"
                    ),
                    None => format!(
                        "what {reg} served for {repo} does not match its digest{}{detail}",
                        self.digest
                            .as_deref()
                            .map_or_else(String::new, |d| format!(" `{d}`"))
                    ),
                }
            }
            RegistryFault::UnsupportedMediaType => format!(
                "{reg} served {repo} with a manifest type the host's tools do not \
                 read{detail}"
            ),
            RegistryFault::PlatformMissing => format!(
                "the manifest list of {repo} on {reg} has no image for the host's OS and \
                 architecture{detail}"
            ),
            RegistryFault::StorageFull => format!(
                "the host's container storage is full: no space left while storing {repo} \
                 pulled from {reg}"
            ),
            RegistryFault::StorageError => format!(
                "the host could not store {repo} pulled from {reg} in its container \
                 storage{detail}"
            ),
            RegistryFault::Blocked => {
                format!("{reg} is blocked in registries.conf and no mirror served the image")
            }
            RegistryFault::Unrecognised => format!(
                "the pull of {} from {reg} failed with an error okd-install does not \
                 recognise, while {op}{answer}: {}",
                self.image
                    .as_deref()
                    .map_or_else(|| repo.clone(), |i| format!("`{i}`")),
                self.line.as_deref().unwrap_or("(no line)")
            ),
        }
    }

    /// What to do about it, in one sentence.
    pub fn remedy(&self) -> String {
        let reg = or_registry(self.registry.as_deref());
        let repo = self.repo_words();
        let status = self
            .status
            .map_or_else(|| "its answer".to_string(), |s| format!("the {s} answer"));
        match self.fault {
            RegistryFault::ConnectionRefused => format!(
                "start the registry {reg} (or correct its port in imageDigestSources), then \
                 check that the bootstrap host reaches it"
            ),
            RegistryFault::NameNotResolved => format!(
                "create the DNS record for {reg}'s host name, or correct the name in \
                 imageDigestSources, and check the bootstrap host's resolver"
            ),
            RegistryFault::ResolverUnreachable => format!(
                "start the name server the bootstrap host asks, or give the host one that \
                 answers (its network settings), so that {reg}'s name can be looked up"
            ),
            RegistryFault::Unreachable => format!(
                "give the bootstrap host a route to {reg} (network, firewall, proxy settings)"
            ),
            RegistryFault::Timeout => format!(
                "check the network path from the bootstrap host to {reg} (firewall, proxy \
                 settings in install-config) and that the registry is not overloaded"
            ),
            RegistryFault::ConnectionReset => format!(
                "check what sits between the bootstrap host and {reg} (a proxy, a load \
                 balancer or a firewall cutting connections) and {reg}'s own log for {repo}"
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
            RegistryFault::TlsHandshake => format!(
                "check that {reg} serves HTTPS on that port (not plain HTTP) with a TLS \
                 version and ciphers the host accepts, and what sits in between"
            ),
            RegistryFault::Unauthorized => format!(
                "add credentials for {reg} to the pull secret (or correct them), then create \
                 the Ignition configs again"
            ),
            RegistryFault::NoCredentials => format!(
                "add credentials for {reg} to the pull secret in install-config.yaml, then \
                 create the Ignition configs again"
            ),
            RegistryFault::CredentialsRefused if self.operation == Operation::ReadBlob => format!(
                "check how {reg} authorizes blob requests for {repo} (its access rules, a proxy \
                 in front of it, the storage it redirects blobs to): the pull secret's \
                 credentials were accepted for the manifest"
            ),
            RegistryFault::CredentialsRefused => format!(
                "correct the credentials for {reg} in the pull secret (a user and password or \
                 a token {reg} accepts), then create the Ignition configs again"
            ),
            RegistryFault::Denied => format!(
                "give the pull secret's account for {reg} read access to the repository, or \
                 use an account that has it"
            ),
            RegistryFault::ManifestUnknown => format!(
                "mirror the image to {reg} (oc adm release mirror / oc-mirror), or correct \
                 the mirror's repository in imageDigestSources"
            ),
            RegistryFault::NameUnknown => format!(
                "push the repository {repo} to {reg} (oc adm release mirror / oc-mirror), or \
                 correct the repository named in imageDigestSources"
            ),
            RegistryFault::BlobUnknown => format!(
                "mirror the image to {reg} again and let the run complete (oc adm release \
                 mirror / oc-mirror), so that {repo} holds {} as well as the manifest",
                self.digest_words()
            ),
            RegistryFault::TooManyRequests => format!(
                "wait for {reg}'s rate limit to pass, or pull less often from it; the pull of \
                 {repo} retries by itself"
            ),
            RegistryFault::ServerError => format!(
                "look in {reg}'s own log for {status} on {repo}: the fault is on the \
                 registry's side (its storage, its backend)"
            ),
            RegistryFault::HttpStatus => format!(
                "look in {reg}'s log (and any proxy in front of it) for {status} on {repo}; \
                 okd-install has no fix of its own for this status"
            ),
            RegistryFault::DigestMismatch => format!(
                "copy the image to {reg} again (its copy in {repo} is damaged), and check that \
                 nothing between the host and {reg} alters what it serves"
            ),
            RegistryFault::UnsupportedMediaType => format!(
                "copy the image to {reg} with a tool that keeps its manifest type (oc adm \
                 release mirror), so that {repo} is served as the release has it"
            ),
            RegistryFault::PlatformMissing => format!(
                "copy every architecture of the image to {repo} on {reg} (not only one), or \
                 install a release built for the host's architecture"
            ),
            RegistryFault::StorageFull => format!(
                "free space on the bootstrap host's /var (container storage), or give it a \
                 larger disk; the pull of {repo} from {reg} retries by itself"
            ),
            RegistryFault::StorageError => format!(
                "check the bootstrap host's container storage (/var/lib/containers: its file \
                 system, permissions, SELinux labels); the pull of {repo} from {reg} retries \
                 by itself"
            ),
            RegistryFault::Blocked => format!(
                "add a mirror for the image's repository to imageDigestSources, or unblock \
                 {reg}, then create the Ignition configs again"
            ),
            RegistryFault::Unrecognised => format!(
                "read the error line: it is what {reg} or the host's tools said while {}; \
                 okd-install has no fix for it",
                self.operation.words()
            ),
        }
    }
}

/// One failed pull as podman tells it: the image, every mirror tried (in the host's order)
/// and the image's own registry, each with why it failed.
///
/// containers/image tries a mirror rule's mirrors before the source and, when all fail,
/// names each: `initializing source docker://IMAGE: (Mirrors also failed: [MIRROR-REF:
/// ERROR]` then, one line each, `[MIRROR-REF: ERROR]` and `): SOURCE-REF: ERROR` after the
/// last (the source's part is the last mirror's when the source is blocked). Without a
/// mirror rule it names one registry only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedPull {
    /// The image as pulled (`docker://IMAGE`), when named.
    pub image: Option<String>,
    /// Each mirror that failed, in the order the host tried them.
    pub mirrors: Vec<PullError>,
    /// The image's own registry, when it was tried and failed.
    pub source: Option<PullError>,
}

impl FailedPull {
    /// The pull with each 401 told apart by the registries the pull secret has credentials
    /// for (`registries`, as its `auths` keys name them): none for the registry, or refused.
    pub fn with_credentials_for(mut self, registries: &[String]) -> FailedPull {
        let has = |registry: &str| registries.iter().any(|key| key_host(key) == registry);
        for e in self.mirrors.iter_mut().chain(self.source.as_mut()) {
            if e.fault != RegistryFault::Unauthorized {
                continue;
            }
            e.fault = match e.registry.as_deref().is_some_and(has) {
                true => RegistryFault::CredentialsRefused,
                false => RegistryFault::NoCredentials,
            };
        }
        self
    }

    /// Every failure, the mirrors' first.
    pub fn attempts(&self) -> impl Iterator<Item = &PullError> {
        self.mirrors.iter().chain(self.source.as_ref())
    }

    /// The failure to act on first: the first mirror's (where the image should have come
    /// from), else the source's.
    pub fn first(&self) -> Option<&PullError> {
        self.attempts().next()
    }

    /// The one mirror the image came through, when no other registry was tried: the image
    /// then names its source, yet only the mirror failed.
    fn only_mirror(&self) -> Option<&str> {
        match (self.mirrors.as_slice(), &self.source) {
            ([m], None) => m.registry.as_deref(),
            _ => None,
        }
    }

    /// Why, each registry named with its role when more than one was tried.
    pub fn reason(&self) -> String {
        let named = |e: &PullError, role: &str| {
            e.reason_of(&format!("{role} {}", or_registry(e.registry.as_deref())))
        };
        match (self.mirrors.as_slice(), &self.source) {
            ([], Some(s)) if s.operation.chooses_registry() => {
                format!("{}; no mirror was tried for it", s.reason())
            }
            ([], Some(s)) => s.reason(),
            ([m], None) => m.reason(),
            (mirrors, source) => mirrors
                .iter()
                .map(|m| named(m, "its mirror"))
                .chain(source.iter().map(|s| named(s, "its own registry")))
                .collect::<Vec<_>>()
                .join("; "),
        }
    }

    /// What to do: each failing mirror's fix (the image is to come from there); without a
    /// mirror, the source's, and that a mirror rule would send the pull elsewhere.
    pub fn remedy(&self) -> String {
        let mut fixes: Vec<String> = Vec::new();
        for m in &self.mirrors {
            let fix = m.remedy();
            if !fixes.contains(&fix) {
                fixes.push(fix);
            }
        }
        if let Some(s) = self
            .source
            .as_ref()
            .filter(|s| !s.operation.chooses_registry())
            && fixes.is_empty()
        {
            fixes.push(s.remedy());
        }
        if fixes.is_empty()
            && let Some(s) = &self.source
        {
            fixes.push(format!(
                "{}; if the image is to come from a mirror, add one for its repository to \
                 imageDigestSources (no mirror was tried)",
                s.remedy()
            ));
        }
        fixes.join("; ")
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
    /// A component image of the release that node-image-pull runs to look the node image up
    /// (the machine-config operator's, whose helper names the node image of an OS image
    /// stream), in the same stage.
    LookupComponent,
    /// One of the images node-image-pull pulls to look the node image up (the release
    /// image, or its machine-config operator image), when the line does not say which.
    LookupImage,
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
            PulledImage::LookupComponent => "the release's component image".into(),
            PulledImage::LookupImage => {
                "an image (the release image or its machine-config operator image)".into()
            }
            PulledImage::Node => "the node (OS) image".into(),
            PulledImage::Component { stage } => format!("the image of render stage {stage}"),
            PulledImage::Payload => "a payload image of the release".into(),
        }
    }

    /// What the pull was for, after the image, when that is not plain from the noun.
    fn purpose(&self) -> Option<&'static str> {
        match self {
            PulledImage::ReleaseForNodeImage => Some("in which it looks up the node image"),
            PulledImage::LookupComponent => Some("which it runs to look up the node image"),
            PulledImage::LookupImage => Some("which it pulls to look up the node image"),
            _ => None,
        }
    }

    /// One line naming the pull and, when `error` was read, the registries and why: the
    /// mirror is named as such when the registry that failed is not the image's own.
    pub fn summary(&self, error: Option<&FailedPull>) -> String {
        let mut s = format!("the bootstrap host could not pull {}", self.noun());
        let Some(e) = error else {
            if let Some(p) = self.purpose() {
                s.push_str(&format!(", {p}"));
            }
            return s;
        };
        if let Some(image) = &e.image {
            s.push_str(&format!(" `{image}`"));
            if let Some(reg) = e.only_mirror()
                && registry_of_image(image) != reg
            {
                s.push_str(&format!(" through the mirror `{reg}`"));
            }
        }
        if let Some(p) = self.purpose() {
            s.push_str(&format!(", {p},"));
        }
        s.push_str(&format!(" because {}", e.reason()));
        s
    }
}

/// The registry an `auths` key of a pull secret is for: `host[:port]`, without a scheme or
/// a repository path.
fn key_host(key: &str) -> &str {
    let key = key
        .trim()
        .trim_start_matches("https://")
        .trim_start_matches("http://");
    key.split('/').next().unwrap_or(key)
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
                source(
                    "dial tcp: lookup registry.example.com on 10.0.0.1:53: read udp \
                     10.0.0.10:47544->10.0.0.1:53: read: connection refused",
                ),
                RegistryFault::ResolverUnreachable,
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
        assert_eq!(tag.fault, RegistryFault::NameUnknown);
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
        ] {
            assert_eq!(read(line), None, "{line}");
        }
    }

    /// The release's digest and the component's, as the real host's lines name them.
    const RELEASE: &str = "quay.io/okd/scos-release@sha256:0f5a0ecfc822";
    const CONTENT: &str = "quay.io/okd/scos-content@sha256:ead662e1ea91";
    const MIRROR: &str = "registry.example.com:5000";

    /// podman 4.3's line (as the real host's journal holds it, #44) for a pull through one
    /// mirror that failed with `mirror`, then from the source that failed with `source`.
    fn mirrored(image: &str, mirror: &str, source: &str) -> String {
        let path = image.split_once('/').map_or(image, |(_, p)| p);
        format!(
            "Error: initializing source docker://{image}: (Mirrors also failed: \
             [{MIRROR}/{path}: {mirror}]): {image}: {source}"
        )
    }

    const QUAY_NXDOMAIN: &str = "pinging container registry quay.io: Get \"https://quay.io/v2/\": \
         dial tcp: lookup quay.io on 198.18.0.1:53: no such host";

    fn ping(tail: &str) -> String {
        format!("pinging container registry {MIRROR}: Get \"https://{MIRROR}/v2/\": {tail}")
    }

    /// Each fault injected on the real host, the line its journal held (or, for the
    /// credentials, what the Distribution registry answers), and what the reader must name:
    /// the mirror's fault first, and the source's too.
    #[test]
    fn the_real_hosts_mirrored_lines_name_each_registry_and_why() {
        let cases = [
            (
                mirrored(
                    RELEASE,
                    &ping(
                        "dial tcp: lookup registry.example.com on 198.18.0.1:53: read udp \
                         198.18.0.10:47544->198.18.0.1:53: read: connection refused",
                    ),
                    "pinging container registry quay.io: Get \"https://quay.io/v2/\": dial \
                     tcp: lookup quay.io on 198.18.0.1:53: read udp \
                     198.18.0.10:37447->198.18.0.1:53: read: connection refused",
                ),
                RegistryFault::ResolverUnreachable,
                Some(RegistryFault::ResolverUnreachable),
            ),
            (
                mirrored(
                    CONTENT,
                    &ping("dial tcp 198.18.0.1:5000: connect: connection refused"),
                    QUAY_NXDOMAIN,
                ),
                RegistryFault::ConnectionRefused,
                Some(RegistryFault::NameNotResolved),
            ),
            (
                mirrored(
                    CONTENT,
                    &ping("x509: certificate signed by unknown authority"),
                    QUAY_NXDOMAIN,
                ),
                RegistryFault::UntrustedCertificate,
                Some(RegistryFault::NameNotResolved),
            ),
            (
                mirrored(
                    CONTENT,
                    &ping("dial tcp: lookup registry.example.com on 198.18.0.1:53: no such host"),
                    QUAY_NXDOMAIN,
                ),
                RegistryFault::NameNotResolved,
                Some(RegistryFault::NameNotResolved),
            ),
            (
                mirrored(
                    CONTENT,
                    "reading manifest sha256:ead662e1ea91 in \
                     registry.example.com:5000/okd/scos-content: manifest unknown: manifest \
                     unknown",
                    QUAY_NXDOMAIN,
                ),
                RegistryFault::ManifestUnknown,
                Some(RegistryFault::NameNotResolved),
            ),
        ];
        let mut reasons = std::collections::BTreeSet::new();
        for (line, mirror, source) in &cases {
            let pull = read_pull(line).unwrap_or_else(|| panic!("nothing read from {line}"));
            assert_eq!(pull.mirrors.len(), 1, "{line}");
            assert_eq!(pull.mirrors[0].fault, *mirror, "{line}");
            assert_eq!(pull.mirrors[0].registry.as_deref(), Some(MIRROR), "{line}");
            assert_eq!(pull.source.as_ref().map(|s| s.fault), *source, "{line}");
            assert_eq!(
                pull.source.as_ref().and_then(|s| s.registry.as_deref()),
                Some("quay.io")
            );
            // The first failure to act on is the mirror's.
            assert_eq!(read(line).map(|e| e.fault), Some(*mirror));
            let reason = pull.reason();
            assert!(
                reason.starts_with(&format!("its mirror `{MIRROR}`")),
                "{reason}"
            );
            assert!(reason.contains("its own registry `quay.io`"), "{reason}");
            // The fix is the mirror's: the source is not where a mirrored image comes from.
            assert_eq!(pull.remedy(), pull.mirrors[0].remedy());
            assert!(reasons.insert(reason.clone()), "{reason} twice");
        }
    }

    /// The mirror rule missing on the real host: one registry, the image's own, tried.
    #[test]
    fn a_pull_no_mirror_was_tried_for_says_so() {
        let line = format!("Error: initializing source docker://{CONTENT}: {QUAY_NXDOMAIN}");
        let pull = read_pull(&line).expect("read");
        assert!(pull.mirrors.is_empty());
        assert_eq!(
            pull.source.as_ref().map(|s| s.fault),
            Some(RegistryFault::NameNotResolved)
        );
        assert_eq!(
            pull.reason(),
            "`quay.io` does not resolve on the host (asked the resolver 198.18.0.1:53); no \
             mirror was tried for it"
        );
        assert!(
            pull.remedy()
                .contains("add one for its repository to imageDigestSources")
        );
    }

    /// Two mirrors: podman puts a line break between the mirrors' parts, so the journal
    /// holds two lines (each with its own prefix); joined, each mirror is named with its own
    /// fault, in the host's order.
    #[test]
    fn every_mirror_of_a_multi_line_error_is_named() {
        let prefix = "Nov 28 11:58:31 okdrh node-image-pull.sh[2305]: ";
        let lines = vec![
            "Nov 28 11:58:30 okdrh podman[2275]: image pull".to_string(),
            format!(
                "{prefix}Error: initializing source docker://{RELEASE}: (Mirrors also failed: \
                 [{MIRROR}/okd/scos-release@sha256:0f5a0ecfc822: {}]",
                ping("dial tcp 198.18.0.1:5000: connect: connection refused")
            ),
            format!(
                "{prefix}[mirror2.example.com/okd/scos-release@sha256:0f5a0ecfc822: reading \
                 manifest sha256:0f5a0ecfc822 in mirror2.example.com/okd/scos-release: \
                 unauthorized: authentication required]): {RELEASE}: {QUAY_NXDOMAIN}"
            ),
            format!("{prefix}The release's node image is not known yet; asking again in 10s"),
        ];
        let joined = join_continued(&lines);
        assert_eq!(joined.len(), 3, "{joined:#?}");
        assert_eq!(joined[0], lines[0]);
        assert_eq!(joined[2], lines[3]);
        let pull = read_pull(&joined[1]).expect("read");
        assert_eq!(pull.image.as_deref(), Some(RELEASE));
        let mirrors: Vec<(RegistryFault, Option<&str>)> = pull
            .mirrors
            .iter()
            .map(|m| (m.fault, m.registry.as_deref()))
            .collect();
        assert_eq!(
            mirrors,
            [
                (RegistryFault::ConnectionRefused, Some(MIRROR)),
                (RegistryFault::Unauthorized, Some("mirror2.example.com")),
            ]
        );
        assert_eq!(
            pull.source.as_ref().map(|s| s.fault),
            Some(RegistryFault::NameNotResolved)
        );
        let reason = pull.reason();
        assert!(
            reason.contains(&format!("its mirror `{MIRROR}` refused")),
            "{reason}"
        );
        assert!(
            reason.contains("its mirror `mirror2.example.com` wants credentials"),
            "{reason}"
        );
        let remedy = pull.remedy();
        assert!(
            remedy.contains(&format!("start the registry `{MIRROR}`")),
            "{remedy}"
        );
        assert!(
            remedy.contains("add credentials for `mirror2.example.com`"),
            "{remedy}"
        );
        // The same error as a service record's message keeps podman's line break.
        let message = joined[1].replace(prefix, "");
        assert_eq!(read_pull(&message), Some(pull));
    }

    /// With the source blocked, podman's last part is the last mirror's: no source is named.
    #[test]
    fn a_blocked_source_leaves_only_mirrors() {
        let line = format!(
            "Error: initializing source docker://{RELEASE}: (Mirrors also failed: \
             [{MIRROR}/okd/scos-release@sha256:0f5a0ecfc822: {}]): \
             mirror2.example.com/okd/scos-release@sha256:0f5a0ecfc822: reading manifest \
             sha256:0f5a0ecfc822 in mirror2.example.com/okd/scos-release: manifest unknown",
            ping("x509: certificate signed by unknown authority")
        );
        let pull = read_pull(&line).expect("read");
        assert_eq!(pull.source, None);
        assert_eq!(pull.mirrors.len(), 2);
        assert_eq!(pull.mirrors[1].fault, RegistryFault::ManifestUnknown);
        assert_eq!(
            pull.mirrors[1].image.as_deref(),
            Some("mirror2.example.com/okd/scos-release@sha256:0f5a0ecfc822")
        );
    }

    /// A 401 for a blob while the pull secret has credentials for the registry: a blob is
    /// read after its manifest, from the same registry with the same credentials, so they
    /// were accepted once; the words say the blob was refused after the manifest was
    /// served, and the fix is how the registry authorizes blobs, not another password. The
    /// line is podman's on the real host, its mirror's blobs answered 401 by a front.
    #[test]
    fn a_401_for_a_blob_with_credentials_is_not_a_wrong_password() {
        let line = "Error: parsing image configuration: unable to retrieve auth token: invalid \
                    username/password: unauthorized";
        let context = PullContext {
            image: Some("quay.io/okd/scos-release@sha256:77aa".into()),
            rules: vec![MirrorRule {
                source: "quay.io/okd/scos-release".into(),
                mirrors: vec!["registry.example.com:5000/okd/scos-release".into()],
                digest_only: true,
            }],
        };
        let pull = read_pull(line)
            .expect("read")
            .in_context(&context)
            .with_credentials_for(&["registry.example.com:5000".to_string()]);
        let e = pull.first().expect("an attempt");
        assert_eq!(e.fault, RegistryFault::CredentialsRefused);
        assert_eq!(e.operation, Operation::ReadBlob);
        let (reason, remedy) = (e.reason(), e.remedy());
        assert!(
            reason.contains("served the manifest of `registry.example.com:5000/okd/scos-release`"),
            "{reason}"
        );
        assert!(
            reason.contains("then refused them for a blob (401)"),
            "{reason}"
        );
        assert!(
            !reason.contains("refused the pull secret's credentials for it"),
            "{reason}"
        );
        assert!(remedy.contains("authorizes blob requests"), "{remedy}");
        assert!(!remedy.contains("correct the credentials"), "{remedy}");
    }

    /// A 401 reads the same with no credentials and with wrong ones (the Distribution
    /// registry's answer to both); the pull secret's registries tell them apart, each with
    /// its own words and fix.
    #[test]
    fn the_pull_secrets_registries_tell_a_401_apart() {
        let line = mirrored(
            CONTENT,
            "reading manifest sha256:ead662e1ea91 in registry.example.com:5000/okd/scos-content: \
             unauthorized: authentication required",
            QUAY_NXDOMAIN,
        );
        let pull = read_pull(&line).expect("read");
        assert_eq!(pull.mirrors[0].fault, RegistryFault::Unauthorized);
        let none = pull.clone().with_credentials_for(&["quay.io".to_string()]);
        let refused = pull
            .clone()
            .with_credentials_for(&["https://registry.example.com:5000/okd".to_string()]);
        assert_eq!(none.mirrors[0].fault, RegistryFault::NoCredentials);
        assert_eq!(refused.mirrors[0].fault, RegistryFault::CredentialsRefused);
        assert!(
            none.reason()
                .contains("the pull secret has none for it (401)")
        );
        assert!(
            refused
                .reason()
                .contains("refused the pull secret's credentials for it")
        );
        let all = [&pull, &none, &refused];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a.reason(), b.reason());
                assert_ne!(a.remedy(), b.remedy());
            }
        }
    }
}
