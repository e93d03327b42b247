//! Taking a pull error apart: the operation that failed, the image, registry, repository
//! and digest it names, the HTTP status and registry error code it carries, and from those
//! the reason class. The words read are the tools' own (containers/image's wrapping, Go's
//! net, crypto/tls and crypto/x509, the registry protocol's error codes as containers/image
//! prints them); each shape read is a unit test of `registry_error`.

use super::{FailedPull, Operation, PullError, RegistryFault, registry_of_image, split_reference};

/// The opening of the part of podman's error that lists the mirrors that failed.
pub(super) const MIRRORS_FAILED: &str = "(Mirrors also failed: ";
/// Where the mirrors' list ends and the source's part begins.
pub(super) const MIRRORS_END: &str = "]): ";

/// Words only a pull's error has: containers/image's steps, the runtimes' wrapping of
/// them (CRI-O through the kubelet, crictl, ostree's image proxy). A line without one is
/// read only for the transport's and certificate's faults the reader always knew, never
/// as an unrecognised pull.
const PULL_MARKERS: &[&str] = &[
    "docker://",
    "pinging container registry",
    "reading manifest",
    "reading blob",
    "fetching blob",
    "writing blob",
    "storing blob",
    "parsing image configuration",
    "choosing an image from manifest list",
    "initializing image from source",
    "copying system image",
    "too many requests to registry",
    "invalid status code from registry",
    "received unexpected http status",
    "failed to pull image",
    "pullimage from image service failed",
    "pulling image: ",
    "error pulling image",
    "unable to retrieve auth token",
];

/// containers/image's steps, each with the operation it is; the innermost (last) one named
/// in a line is the step that failed.
const OPERATIONS: &[(&str, Operation)] = &[
    ("pinging container registry", Operation::Ping),
    ("reading manifest", Operation::ReadManifest),
    ("/manifests/", Operation::ReadManifest),
    ("initializing image from source", Operation::ReadManifest),
    ("failed to invoke method openimage", Operation::ReadManifest),
    ("reading blob", Operation::ReadBlob),
    ("fetching blob", Operation::ReadBlob),
    ("/blobs/", Operation::ReadBlob),
    ("parsing image configuration", Operation::ReadBlob),
    ("happened during read", Operation::ReadBlob),
    // What the registry served, decompressed as it is stored.
    ("flate: ", Operation::ReadBlob),
    ("gzip: ", Operation::ReadBlob),
    ("failed to invoke method getblob", Operation::ReadBlob),
    ("writing blob", Operation::Store),
    ("storing blob", Operation::Store),
    ("adding layer", Operation::Store),
    ("applylayer", Operation::Store),
    ("committing the finished image", Operation::Store),
    ("writing manifest", Operation::Store),
    ("storing signatures", Operation::Store),
    ("copying system image", Operation::Copy),
    ("choosing an image from manifest list", Operation::Copy),
];

/// The registry protocol's error codes as containers/image prints them (`blob unknown:
/// ...`, the code lower-cased, `_` as a space), each with the code; the longer first.
const CODES: &[(&str, &str)] = &[
    ("manifest blob unknown", "MANIFEST_BLOB_UNKNOWN"),
    ("blob unknown", "BLOB_UNKNOWN"),
    ("manifest unknown", "MANIFEST_UNKNOWN"),
    ("name unknown", "NAME_UNKNOWN"),
    ("unauthorized", "UNAUTHORIZED"),
    ("denied", "DENIED"),
    ("toomanyrequests", "TOOMANYREQUESTS"),
    ("digest invalid", "DIGEST_INVALID"),
    ("manifest invalid", "MANIFEST_INVALID"),
    ("manifest unverified", "MANIFEST_UNVERIFIED"),
    ("name invalid", "NAME_INVALID"),
    ("size invalid", "SIZE_INVALID"),
    ("range invalid", "RANGE_INVALID"),
    ("unsupported", "UNSUPPORTED"),
];

/// The words before an HTTP status in the tools' errors: containers/image's
/// (`invalid status code from registry 404 (Not Found)`, `StatusCode: 403, BODY`), the
/// Distribution client's (`received unexpected HTTP status: 500 Internal Server Error`,
/// `error parsing HTTP 404 response body`).
const STATUS_BEFORE: &[&str] = &[
    "invalid status code from registry ",
    "statuscode: ",
    "status code: ",
    "received unexpected http status: ",
    "unexpected http status: ",
    "error parsing http ",
    "unexpected status code ",
    "http status ",
];

/// Whether `line` is a pull's error by its words ([`PULL_MARKERS`]): a line the reader takes
/// apart, and an unrecognised one is said to be one.
pub fn is_pull_error(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    PULL_MARKERS.iter().any(|m| l.contains(m))
}

/// The registry error one line holds, if it holds one: the first failure to act on
/// ([`FailedPull::first`]).
///
/// A pull error the reader cannot classify reads as [`RegistryFault::Unrecognised`]; a
/// line that names no pull reads as nothing.
pub fn read(line: &str) -> Option<PullError> {
    read_pull(line).and_then(|p| p.first().cloned())
}

/// The failed pull one line (its continuation lines joined, see [`join_continued`]) tells,
/// with each registry tried and why it failed.
pub fn read_pull(line: &str) -> Option<FailedPull> {
    let Some(at) = find_ci(line, MIRRORS_FAILED) else {
        return one_registry(line);
    };
    let image = image_of(&line[..at]);
    let rest = &line[at + MIRRORS_FAILED.len()..];
    let end = rest.find(MIRRORS_END)?;
    let mut mirrors: Vec<PullError> = rest[..end]
        .trim_start_matches('[')
        .split("]\n[")
        .flat_map(|part| part.split("] ["))
        .filter_map(attempt)
        .collect();
    let mut source = None;
    if let Some(last) = attempt(&rest[end + MIRRORS_END.len()..]) {
        match &image {
            Some(i) if last.registry.as_deref() != Some(registry_of_image(i).as_str()) => {
                mirrors.push(last)
            }
            _ => source = Some(last),
        }
    }
    let pull = FailedPull {
        image,
        mirrors,
        source,
    };
    pull.first().is_some().then_some(pull)
}

/// A pull podman reports with one registry: the image's own, or its only mirror.
fn one_registry(line: &str) -> Option<FailedPull> {
    let error = error_of(line, None)?;
    let own = match (&error.image, &error.registry) {
        (Some(i), Some(r)) => registry_of_image(i) == *r,
        _ => true,
    };
    let image = error.image.clone();
    Some(match own {
        true => FailedPull {
            image,
            mirrors: Vec::new(),
            source: Some(error),
        },
        false => FailedPull {
            image,
            mirrors: vec![error],
            source: None,
        },
    })
}

/// One registry's part of a mirrored pull's error, `REF: ERROR`: ERROR taken apart, at the
/// registry it names or REF's.
fn attempt(part: &str) -> Option<PullError> {
    let (reference, error) = part.split_once(": ")?;
    error_of(error, Some(reference.trim()))
}

/// `text` taken apart, `reference` the image it is about when the caller knows it (a
/// mirror's part of a mirrored pull). `None` when `text` is no pull error.
pub(super) fn error_of(text: &str, reference: Option<&str>) -> Option<PullError> {
    let text = text.trim();
    let l = text.to_ascii_lowercase();
    let marked = reference.is_some() || is_pull_error(text);
    let operation = operation_of(&l);
    let status = status_of(&l);
    let code = code_of(text);
    let (fault, detail) = match known_fault(text) {
        Some(f) => f,
        None if !marked => return None,
        None => structural_fault(text, operation, status, code),
    };
    let image = reference.map(str::to_string).or_else(|| image_of(text));
    let named = registry_of(text, fault);
    let registry_implied = named.is_none() && reference.is_none() && image.is_some();
    let registry = named.or_else(|| image.as_deref().map(registry_of_image));
    let repository = repository_of(text).or_else(|| image.as_deref().map(repository_of_image));
    Some(PullError {
        fault,
        operation,
        image,
        registry,
        registry_implied,
        repository,
        digest: digest_of(text, operation),
        status: status.or((fault == RegistryFault::TooManyRequests).then_some(429)),
        code: code.map(str::to_string),
        detail,
        line: Some(text.to_string()),
    })
}

/// `lines` with the continuation lines of a mirrored pull's error joined to the line they
/// continue: podman separates the mirrors' parts with line breaks, so a journal (and a
/// service record's message) holds one line per mirror after the first. A continuation is
/// the line's text from its `[`, after the journal's prefix; the parts are joined with a
/// line break, as podman wrote them.
pub fn join_continued(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in lines {
        let open = out.last().is_some_and(|prev| {
            find_ci(prev, MIRRORS_FAILED).is_some_and(|at| !prev[at..].contains(MIRRORS_END))
        });
        match continuation(line) {
            Some(part) if open => {
                let prev = out.last_mut().expect("open means a line before");
                prev.push('\n');
                prev.push_str(part);
            }
            _ => out.push(line.clone()),
        }
    }
    out
}

/// The text of a continuation line from its `[`: the whole line, or what follows a
/// journal line's `PROCESS[PID]: ` prefix.
fn continuation(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    if trimmed.starts_with('[') {
        return Some(trimmed);
    }
    line.find("]: [").map(|i| &line[i + 3..])
}

/// Where `pat` starts in `line`, ASCII case-insensitively.
pub(super) fn find_ci(line: &str, pat: &str) -> Option<usize> {
    line.to_ascii_lowercase().find(&pat.to_ascii_lowercase())
}

/// The step that failed: the innermost step the (lower-cased) line names.
fn operation_of(l: &str) -> Operation {
    OPERATIONS
        .iter()
        .filter_map(|(m, op)| l.rfind(m).map(|at| (at, *op)))
        .max_by_key(|(at, _)| *at)
        .map_or(Operation::Unknown, |(_, op)| op)
}

/// The HTTP status the (lower-cased) line names.
fn status_of(l: &str) -> Option<u16> {
    STATUS_BEFORE.iter().find_map(|p| {
        let rest = &l[l.find(p)? + p.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits
            .parse()
            .ok()
            .filter(|s| (100..600).contains(s) && digits.len() == 3)
    })
}

/// The registry's error code: printed lower-case as `CODE: message` after a `": "` (or
/// at the start), or quoted upper-case from the answer's body.
fn code_of(text: &str) -> Option<&'static str> {
    let l = text.to_ascii_lowercase();
    CODES.iter().find_map(|(words, code)| {
        let printed = [format!(": {words}:"), format!(": {words}")]
            .iter()
            .any(|p| {
                l.match_indices(p.as_str()).any(|(at, _)| {
                    let end = at + p.len();
                    p.ends_with(':') || end == l.len() || l[end..].starts_with(']')
                })
            })
            || l.starts_with(&format!("{words}:"));
        (printed || text.contains(&format!("\"{code}\""))).then_some(*code)
    })
}

/// The faults the reader has always read from any line, pull or not: the registry being
/// blocked, the transport's (name resolution, connection, timeout) and the certificate's.
fn known_fault(line: &str) -> Option<(RegistryFault, Option<String>)> {
    let l = line.to_ascii_lowercase();
    let has = |p: &str| l.contains(p);
    let after = |p: &str| after_ci(line, p).map(|s| s.trim().to_string());
    let fault = if has(" is blocked in ") && has("registry ") {
        (RegistryFault::Blocked, None)
    } else if let Some(resolver) = resolver_silent(line) {
        (RegistryFault::ResolverUnreachable, Some(resolver))
    } else if has("no such host")
        || (has("lookup ") && (has("server misbehaving") || has("no answer from dns")))
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
    } else if has("x509: certificate relies on legacy common name field") {
        (
            RegistryFault::CertificateForOtherName,
            Some(
                "it names the host in its Common Name only, without subject alternative names"
                    .into(),
            ),
        )
    } else if has("x509: certificate has expired or is not yet valid") {
        let when = after("current time ").map(|d| format!("current time {d}"));
        if has(" is before ") {
            (RegistryFault::CertificateNotYetValid, when)
        } else {
            (RegistryFault::CertificateExpired, when)
        }
    } else if has("name unknown") || has("repository name not known") {
        (RegistryFault::NameUnknown, None)
    } else if has("manifest unknown") {
        (RegistryFault::ManifestUnknown, None)
    } else if has("unauthorized")
        || has("authentication required")
        || has("invalid username/password")
        || has("401 (unauthorized)")
    {
        (RegistryFault::Unauthorized, None)
    } else if has("requested access to the resource is denied") || has("denied:") {
        (RegistryFault::Denied, None)
    } else {
        return None;
    };
    Some(fault)
}

/// The fault of a pull error none of [`known_fault`]'s words name: from the TLS layer's,
/// the content's and the local storage's words, then the registry's code and the HTTP
/// status with the operation they answered; else unrecognised.
fn structural_fault(
    text: &str,
    operation: Operation,
    status: Option<u16>,
    code: Option<&str>,
) -> (RegistryFault, Option<String>) {
    let l = text.to_ascii_lowercase();
    let has = |p: &str| l.contains(p);
    let tail = || last_part(text);
    if has("first record does not look like a tls handshake")
        || has("server gave http response to https client")
        || has("remote error: tls:")
        || has("tls: ")
        || has("x509: ")
    {
        return (RegistryFault::TlsHandshake, tls_words(text));
    }
    if has("digest did not match") || (has("digest") && has("does not match")) {
        return (RegistryFault::DigestMismatch, tail());
    }
    if let Some(words) = decompression_words(text) {
        return (RegistryFault::DigestMismatch, Some(words.to_string()));
    }
    if has("no image found in manifest list for architecture")
        || has("no image found in image index for architecture")
        || has("no matching manifest for")
    {
        return (RegistryFault::PlatformMissing, tail());
    }
    if has("unsupported schema version")
        || has("unsupported manifest")
        || has("unsupported mime type")
        || has("unsupported media type")
        || has("unknown media type")
    {
        return (RegistryFault::UnsupportedMediaType, tail());
    }
    if has("no space left on device") || has("disk quota exceeded") {
        return (RegistryFault::StorageFull, None);
    }
    // A line may end in the quote of logrus's `msg="..."`, as skopeo prints its fatal error.
    let unquoted = l.trim_end_matches('"');
    if has("connection reset by peer")
        || has("unexpected eof")
        || unquoted.ends_with(": eof")
        || has(": eof:")
        || has("broken pipe")
        || has("server closed")
    {
        return (RegistryFault::ConnectionReset, tail());
    }
    let fault = match (code, status, operation) {
        (Some("BLOB_UNKNOWN" | "MANIFEST_BLOB_UNKNOWN"), _, _) => RegistryFault::BlobUnknown,
        (Some("DIGEST_INVALID"), _, _) => RegistryFault::DigestMismatch,
        (Some("TOOMANYREQUESTS"), _, _) | (_, Some(429), _) => RegistryFault::TooManyRequests,
        _ if has("too many requests to registry") => RegistryFault::TooManyRequests,
        (_, Some(401), _) => RegistryFault::Unauthorized,
        (_, Some(404), Operation::ReadBlob) => RegistryFault::BlobUnknown,
        (_, Some(404), Operation::ReadManifest) => RegistryFault::ManifestUnknown,
        (_, Some(403), Operation::Ping | Operation::ReadManifest) => RegistryFault::Denied,
        (_, Some(s), _) if s >= 500 => RegistryFault::ServerError,
        (Some(_), _, _) | (_, Some(_), _) => RegistryFault::HttpStatus,
        (None, None, Operation::Store) => return (RegistryFault::StorageError, tail()),
        (None, None, _) => RegistryFault::Unrecognised,
    };
    (fault, None)
}

/// The decompressor's words for a compressed stream that breaks (Go's compress/flate and
/// compress/gzip, as containers/image decompresses a layer while storing it): what was
/// served is damaged, whatever its digest.
const DECOMPRESSION: &[&str] = &[
    "flate: corrupt input",
    "gzip: invalid header",
    "gzip: invalid checksum",
];

/// The decompressor's words in `text`, from the first of [`DECOMPRESSION`] on.
pub(crate) fn decompression_words(text: &str) -> Option<&str> {
    DECOMPRESSION
        .iter()
        .find_map(|w| find_ci(text, w).map(|at| text[at..].trim()))
}

/// The TLS layer's own words: from `tls:`, `x509:` or `remote error:` on.
fn tls_words(text: &str) -> Option<String> {
    ["remote error: ", "tls: ", "x509: ", "http: server gave"]
        .iter()
        .find_map(|p| find_ci(text, p).map(|at| text[at..].trim().to_string()))
}

/// The innermost part of a containers/image error: after its last `": "`.
fn last_part(text: &str) -> Option<String> {
    let part = text.rsplit(": ").next()?.trim();
    (!part.is_empty() && part.len() < text.len()).then(|| part.to_string())
}

/// The text after `pat` (ASCII case-insensitive), up to the line's end.
pub(super) fn after_ci<'a>(line: &'a str, pat: &str) -> Option<&'a str> {
    let at = find_ci(line, pat)?;
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

/// What Go's resolver says when the name server itself did not answer a lookup: `lookup
/// NAME on DNS: read udp A->DNS: read: connection refused`, or a timeout on the query.
fn resolver_silent(line: &str) -> Option<String> {
    let rest = after_ci(line, "lookup ")?;
    let l = rest.to_ascii_lowercase();
    let what = if l.contains("no such host") || l.contains("server misbehaving") {
        return None;
    } else if l.contains("temporary failure in name resolution") {
        // glibc's EAI_AGAIN (Go's cgo resolver, as skopeo and podman print it): no name
        // server answered, which is not a record nobody made. The preflight reads it alike.
        "did not answer"
    } else if l.contains("connection refused") {
        "refused the query"
    } else if l.contains("i/o timeout") {
        "did not answer in time"
    } else {
        return None;
    };
    let server = rest
        .find(" on ")
        .and_then(|on| rest[on + 4..].split(": ").next())
        .map(str::trim)
        .filter(|s| !s.is_empty());
    Some(match server {
        Some(s) => format!("({s}) {what}"),
        None => what.to_string(),
    })
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
/// `docker://IMAGE`, `reading manifest REF in REPO:`, or the kubelet's `Failed to pull
/// image "IMAGE"`.
fn image_of(line: &str) -> Option<String> {
    if let Some(i) = field(line, "docker://") {
        return Some(i.to_string());
    }
    if let Some(rest) = after_ci(line, "reading manifest ")
        && let Some((reference, rest)) = rest.split_once(" in ")
        && let Some(repo) = rest.split(": ").next()
    {
        let sep = if reference.contains(':') { "@" } else { ":" };
        return Some(format!("{}{sep}{reference}", repo.trim()));
    }
    let rest = after_ci(line, "failed to pull image \"")?;
    rest.split('"').next().map(str::to_string)
}

/// The registry the line names for the fault: the one pinged, the one blocked, the host of
/// the URL requested, or the registry of the repository a manifest was read in.
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
    if let Some(u) = after_ci(line, "\"https://").or_else(|| after_ci(line, "\"http://")) {
        return u.split(['/', '"']).next().map(str::to_string);
    }
    let rest = after_ci(line, "reading manifest ")?;
    let (_, repo) = rest.split_once(" in ")?;
    repo.split(": ").next().map(|r| registry_of_image(r.trim()))
}

/// The repository the line names: in the URL requested (`/v2/REPO/blobs/...`), or the one a
/// manifest was read in.
fn repository_of(line: &str) -> Option<String> {
    for kind in ["/manifests/", "/blobs/"] {
        if let Some(end) = line.find(kind)
            && let Some(start) = line[..end].rfind("/v2/")
        {
            return Some(line[start + 4..end].to_string());
        }
    }
    let rest = after_ci(line, "reading manifest ")?;
    let (_, repo) = rest.split_once(" in ")?;
    repo.split(": ")
        .next()
        .map(|r| repository_of_image(r.trim()))
}

/// The repository part of an image reference: its name without the registry.
pub fn repository_of_image(image: &str) -> String {
    let name = split_reference(image).0;
    let registry = registry_of_image(name);
    match name.strip_prefix(&format!("{registry}/")) {
        Some(repo) => repo.to_string(),
        None if registry == "docker.io" && !name.contains('/') => format!("library/{name}"),
        None => name.to_string(),
    }
}

/// The digest the failing step read: the blob's (`reading blob D`, `/blobs/D`, the digest
/// expected of a mismatch, `adding layer with blob "D"`) or the manifest's.
fn digest_of(text: &str, operation: Operation) -> Option<String> {
    let after: &[&str] = match operation {
        Operation::ReadBlob | Operation::Store => &[
            "reading blob ",
            "/blobs/",
            "expected ",
            "with blob \"",
            "copying blob ",
        ],
        Operation::ReadManifest => &["reading manifest ", "/manifests/"],
        _ => &[],
    };
    after.iter().find_map(|p| {
        let rest = after_ci(text, p)?;
        let hex: String = rest
            .strip_prefix("sha256:")?
            .chars()
            .take_while(|c| c.is_ascii_hexdigit() || *c == '…')
            .collect();
        (!hex.is_empty()).then(|| format!("sha256:{hex}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry_error::Advice;

    const LAYER: &str = "sha256:e53887aebbc9f3c0a080a4043cb4abca4e96049725b427d0527e454f51aee3a2";
    const CONFIG: &str = "sha256:4564f9fa3ec7c8e32f5b6b6e958c7a9d0dac299d6dabddb205c959fb6ef6e292";

    /// What one line must read as.
    struct Shape {
        line: String,
        fault: RegistryFault,
        operation: Operation,
        registry: Option<&'static str>,
        repository: Option<&'static str>,
        digest: Option<&'static str>,
        status: Option<u16>,
        code: Option<&'static str>,
    }

    fn shape(line: impl Into<String>, fault: RegistryFault, operation: Operation) -> Shape {
        Shape {
            line: line.into(),
            fault,
            operation,
            registry: None,
            repository: None,
            digest: None,
            status: None,
            code: None,
        }
    }

    impl Shape {
        fn at(mut self, registry: &'static str, repository: &'static str) -> Shape {
            self.registry = Some(registry);
            self.repository = Some(repository);
            self
        }
        fn digest(mut self, digest: &'static str) -> Shape {
            self.digest = Some(digest);
            self
        }
        fn status(mut self, status: u16) -> Shape {
            self.status = Some(status);
            self
        }
        fn code(mut self, code: &'static str) -> Shape {
            self.code = Some(code);
            self
        }
    }

    const R: &str = "localhost:5940";
    const REPO: &str = "okd/scos-release";

    fn init(tail: &str) -> String {
        format!("Error: initializing source docker://{R}/{REPO}:1: {tail}")
    }

    /// Every line here was printed by podman 4.3.1 (containers/image 5.23, the bootstrap
    /// host's) pulling from Debian's docker-registry 2.8 on loopback with TLS, directly or
    /// through a front that changed one answer (2026-12-07); the platform and storage lines
    /// from a manifest list of one architecture and a full tmpfs.
    fn real_shapes() -> Vec<Shape> {
        use Operation as O;
        use RegistryFault as F;
        vec![
            // A blob deleted from the registry's storage: the incomplete mirror.
            shape(
                format!(
                    "Error: reading blob {LAYER}: Error fetching blob: invalid status code \
                     from registry 404 (Not Found)"
                ),
                F::BlobUnknown,
                O::ReadBlob,
            )
            .digest(LAYER)
            .status(404),
            shape(
                format!(
                    "{}reading manifest 2 in {R}/{REPO}: manifest unknown: manifest unknown",
                    "Error: initializing source docker://localhost:5940/okd/scos-release:2: "
                ),
                F::ManifestUnknown,
                O::ReadManifest,
            )
            .at(R, REPO)
            .code("MANIFEST_UNKNOWN"),
            shape(
                init(&format!(
                    "pinging container registry {R}: Get \"https://{R}/v2/\": dial tcp \
                     127.0.0.1:5940: connect: connection refused"
                )),
                F::ConnectionRefused,
                O::Ping,
            )
            .at(R, REPO),
            shape(
                init(&format!(
                    "pinging container registry {R}: Get \"https://{R}/v2/\": x509: \
                     certificate signed by unknown authority (possibly because of \"x509: \
                     invalid signature: parent certificate cannot sign this kind of \
                     certificate\" while trying to verify candidate authority certificate \
                     \"localhost\")"
                )),
                F::UntrustedCertificate,
                O::Ping,
            )
            .at(R, REPO),
            shape(
                init(&format!(
                    "pinging container registry {R}: Get \"https://{R}/v2/\": tls: first \
                     record does not look like a TLS handshake"
                )),
                F::TlsHandshake,
                O::Ping,
            )
            .at(R, REPO),
            shape(
                init(&format!(
                    "pinging container registry {R}: Get \"https://{R}/v2/\": remote error: \
                     tls: internal error"
                )),
                F::TlsHandshake,
                O::Ping,
            )
            .at(R, REPO),
            shape(
                init(&format!(
                    "pinging container registry {R}: Get \"https://{R}/v2/\": remote error: \
                     tls: certificate required"
                )),
                F::TlsHandshake,
                O::Ping,
            )
            .at(R, REPO),
            shape(
                format!(
                    "Error: writing blob: storing blob to file \"/var/tmp/storage2366927191/1\": \
                     happened during read: Digest did not match, expected {LAYER}, got \
                     sha256:d29f1382c9dbb1b49afc527638b5a1d4438b9ecabf247e1b0ed48df281513acc"
                ),
                F::DigestMismatch,
                O::ReadBlob,
            )
            .digest(LAYER),
            // A layer whose stored bytes went bad on the mirror (the real host, podman
            // decompressing as it stores: the gzip stream breaks before any digest is
            // checked).
            shape(
                "Error: writing blob: storing blob to file \"/var/tmp/storage2133548207/1\": \
                 flate: corrupt input before offset 629768",
                F::DigestMismatch,
                O::ReadBlob,
            ),
            shape(
                "Error: writing blob: storing blob to file \"/var/tmp/storage3088236434/1\": \
                 happened during read: unexpected EOF",
                F::ConnectionReset,
                O::ReadBlob,
            ),
            shape(
                format!(
                    "Error: reading blob {LAYER}: Get \"https://{R}/v2/{REPO}/blobs/{LAYER}\": \
                     read tcp 127.0.0.1:48880->127.0.0.1:5940: read: connection reset by peer"
                ),
                F::ConnectionReset,
                O::ReadBlob,
            )
            .at(R, REPO)
            .digest(LAYER),
            shape(
                init(&format!(
                    "Get \"https://{R}/v2/{REPO}/manifests/1\": read tcp \
                     127.0.0.1:49826->127.0.0.1:5940: read: connection reset by peer"
                )),
                F::ConnectionReset,
                O::ReadManifest,
            )
            .at(R, REPO),
            shape(
                init(&format!("Get \"https://{R}/v2/{REPO}/manifests/1\": EOF")),
                F::ConnectionReset,
                O::ReadManifest,
            )
            .at(R, REPO),
            shape(
                "Error: parsing image configuration: unexpected EOF",
                F::ConnectionReset,
                O::ReadBlob,
            ),
            shape(
                format!(
                    "Error: reading blob {LAYER}: Error fetching blob: invalid status code \
                     from registry 500 (Internal Server Error)"
                ),
                F::ServerError,
                O::ReadBlob,
            )
            .digest(LAYER)
            .status(500),
            shape(
                "Error: parsing image configuration: Error fetching blob: invalid status code \
                 from registry 503 (Service Unavailable)",
                F::ServerError,
                O::ReadBlob,
            )
            .status(503),
            shape(
                init(&format!(
                    "reading manifest 1 in {R}/{REPO}: received unexpected HTTP status: 500 \
                     Internal Server Error"
                )),
                F::ServerError,
                O::ReadManifest,
            )
            .at(R, REPO)
            .status(500),
            shape(
                init(&format!(
                    "pinging container registry {R}: invalid status code from registry 503 \
                     (Service Unavailable)"
                )),
                F::ServerError,
                O::Ping,
            )
            .at(R, REPO)
            .status(503),
            shape(
                format!("Error: reading blob {LAYER}: too many requests to registry"),
                F::TooManyRequests,
                O::ReadBlob,
            )
            .digest(LAYER)
            .status(429),
            shape(
                format!(
                    "Error: reading blob {LAYER}: Error fetching blob: invalid status code \
                     from registry 403 (Forbidden)"
                ),
                F::HttpStatus,
                O::ReadBlob,
            )
            .digest(LAYER)
            .status(403),
            shape(
                init(&format!(
                    "reading manifest 1 in {R}/{REPO}: StatusCode: 403, oops"
                )),
                F::Denied,
                O::ReadManifest,
            )
            .at(R, REPO)
            .status(403),
            shape(
                init(&format!(
                    "reading manifest 1 in {R}/{REPO}: StatusCode: 418, oops"
                )),
                F::HttpStatus,
                O::ReadManifest,
            )
            .at(R, REPO)
            .status(418),
            shape(
                init(&format!(
                    "reading manifest 1 in {R}/{REPO}: StatusCode: 404, oops"
                )),
                F::ManifestUnknown,
                O::ReadManifest,
            )
            .at(R, REPO)
            .status(404),
            shape(
                "Error: parsing image configuration: Error fetching blob: invalid status code \
                 from registry 400 (Bad Request)",
                F::HttpStatus,
                O::ReadBlob,
            )
            .status(400),
            shape(
                init(&format!(
                    "pinging container registry {R}: invalid status code from registry 404 \
                     (Not Found)"
                )),
                F::HttpStatus,
                O::Ping,
            )
            .at(R, REPO)
            .status(404),
            shape(
                "Error: parsing image configuration: unable to retrieve auth token: invalid \
                 username/password: unauthorized: authentication required",
                F::Unauthorized,
                O::ReadBlob,
            )
            .code("UNAUTHORIZED"),
            shape(
                "Error: initializing image from source docker://localhost:5940/okd/scos-release:1: \
                 unsupported schema version 2",
                F::UnsupportedMediaType,
                O::ReadManifest,
            )
            .at(R, REPO),
            shape(
                "Error: choosing an image from manifest list docker://localhost:5931/okd/multi:1: \
                 no image found in image index for architecture amd64, variant \"\", OS linux",
                F::PlatformMissing,
                O::Copy,
            )
            .at("localhost:5931", "okd/multi"),
            shape(
                "Error: writing blob: storing blob to file \
                 \"/tmp/pullreader/small/storage1390136549/1\": write \
                 /tmp/pullreader/small/storage1390136549/1: no space left on device",
                F::StorageFull,
                O::Store,
            ),
            shape(
                format!(
                    "Error: writing blob: adding layer with blob \"{LAYER}\": ApplyLayer \
                     stdout:  stderr: write /bin/busybox: no space left on device exit status 1"
                ),
                F::StorageFull,
                O::Store,
            )
            .digest(LAYER),
        ]
    }

    /// A blob whose compressed stream breaks is said to be damaged, in the decompressor's
    /// words, not to mismatch a digest nobody computed.
    #[test]
    fn a_blob_that_does_not_decompress_is_damaged_not_a_digest_mismatch() {
        for (line, words) in [
            (
                "Error: writing blob: storing blob to file \"/var/tmp/s/1\": flate: corrupt \
                 input before offset 629768",
                "flate: corrupt input before offset 629768",
            ),
            (
                "Error: writing blob: storing blob to file \"/var/tmp/s/1\": gzip: invalid \
                 header",
                "gzip: invalid header",
            ),
        ] {
            let e = error_of(line, None).expect("read");
            assert_eq!(e.fault, RegistryFault::DigestMismatch, "{line}");
            let reason = e.reason();
            assert!(reason.contains("does not decompress"), "{reason}");
            assert!(reason.contains(words), "{reason}");
            assert!(!reason.contains("digest"), "{reason}");
        }
    }

    /// Shapes from containers/image's and the registry's code, not produced here: the
    /// registry codes a Distribution registry sends in a JSON body, a storage error that is
    /// not space, and an error nobody classified.
    fn read_shapes() -> Vec<Shape> {
        use Operation as O;
        use RegistryFault as F;
        vec![
            shape(
                init(&format!(
                    "reading manifest 1 in {R}/{REPO}: name unknown: repository name not \
                     known to registry"
                )),
                F::NameUnknown,
                O::ReadManifest,
            )
            .at(R, REPO)
            .code("NAME_UNKNOWN"),
            shape(
                format!(
                    "Error: reading blob {CONFIG}: Error fetching blob: StatusCode: 404, \
                     {{\"errors\":[{{\"code\":\"BLOB_UNKNOWN\",\"message\":\"blob unknown to \
                     registry\"}}]}}"
                ),
                F::BlobUnknown,
                O::ReadBlob,
            )
            .digest(CONFIG)
            .status(404)
            .code("BLOB_UNKNOWN"),
            shape(
                init(&format!(
                    "reading manifest 1 in {R}/{REPO}: toomanyrequests: You have reached your \
                     pull rate limit"
                )),
                F::TooManyRequests,
                O::ReadManifest,
            )
            .at(R, REPO)
            .status(429)
            .code("TOOMANYREQUESTS"),
            shape(
                format!(
                    "Error: writing blob: adding layer with blob \"{LAYER}\": creating \
                     read-only layer: open /var/lib/containers/storage/overlay/l: \
                     read-only file system"
                ),
                F::StorageError,
                O::Store,
            )
            .digest(LAYER),
            shape(
                init(&format!(
                    "reading manifest 1 in {R}/{REPO}: the registry sent something odd"
                )),
                F::Unrecognised,
                O::ReadManifest,
            )
            .at(R, REPO),
        ]
    }

    /// Lines skopeo 1.9.3 printed in the fault matrix (crates/okd-install/tests/ops/
    /// pull_matrix.rs) through logrus, `msg="..."` quoting and all (2026-12-07).
    fn skopeo_shapes() -> Vec<Shape> {
        use Operation as O;
        use RegistryFault as F;
        const M: &str = "sha256:a728c74d92885bc133056f4984d1636f2e8220fc97554a0dd19ef8353181938a";
        const B: &str = "sha256:7989bb311baa38ef545250282aa065d23281c46dfb8faabe4c653487bdbded5c";
        let fatal =
            |msg: String| format!("time=\"2026-12-07T11:59:52Z\" level=fatal msg=\"{msg}\"");
        let src = |port: u16| {
            format!(
                "initializing source docker://registry.example.com:{port}/okd/scos-content@{M}: "
            )
        };
        vec![
            // The front closed the connection on a blob request unanswered.
            shape(
                fatal(format!(
                    "reading blob {B}: Get \\\"https://registry.example.com:5416/v2/okd/\
                     scos-content/blobs/{B}\\\": EOF"
                )),
                F::ConnectionReset,
                O::ReadBlob,
            )
            .at("registry.example.com:5416", "okd/scos-content")
            .digest(B),
            // A 200 whose manifest body was cut short, the connection closed.
            shape(
                fatal(format!(
                    "{}Get \\\"https://registry.example.com:5422/v2/okd/scos-content/manifests/\
                     {M}\\\": EOF",
                    src(5422)
                )),
                F::ConnectionReset,
                O::ReadManifest,
            )
            .at("registry.example.com:5422", "okd/scos-content")
            .digest(M),
            // The name server stopped: glibc's EAI_AGAIN.
            shape(
                fatal(format!(
                    "{}pinging container registry registry.example.com:5000: Get \\\"https://\
                     registry.example.com:5000/v2/\\\": dial tcp: lookup registry.example.com: \
                     Temporary failure in name resolution",
                    src(5000)
                )),
                F::ResolverUnreachable,
                O::Ping,
            )
            .at("registry.example.com:5000", "okd/scos-content"),
        ]
    }

    #[test]
    fn every_real_line_is_taken_apart() {
        for s in real_shapes()
            .into_iter()
            .chain(read_shapes())
            .chain(skopeo_shapes())
        {
            let e = error_of(&s.line, None).unwrap_or_else(|| panic!("nothing read: {}", s.line));
            let got = (
                e.fault,
                e.operation,
                e.registry.as_deref(),
                e.repository.as_deref(),
                e.digest.as_deref(),
                e.status,
                e.code.as_deref(),
            );
            let want = (
                s.fault,
                s.operation,
                s.registry,
                s.repository,
                s.digest,
                s.status,
                s.code,
            );
            assert_eq!(got, want, "{}", s.line);
            assert_eq!(e.line.as_deref(), Some(s.line.trim()));
        }
    }

    /// The fix's words of each thing a fix may speak of.
    fn advice_words(a: Advice) -> &'static [&'static str] {
        match a {
            Advice::Credentials => &["pull secret", "credentials"],
            Advice::Trust => &["additionalTrustBundle", "trust"],
            Advice::MirrorRules => &["imageDigestSources"],
        }
    }

    /// For every line read: its reason and fix name the registry (and repository when
    /// read), and speak of credentials, trust or mirror rules only when the class is about
    /// them.
    #[test]
    fn no_class_advises_what_its_evidence_lacks() {
        for s in real_shapes().into_iter().chain(read_shapes()) {
            let mut e = error_of(&s.line, None).expect("read");
            e.registry
                .get_or_insert_with(|| "mirror.example.com:5000".into());
            e.repository
                .get_or_insert_with(|| "okd/scos-content".into());
            let (reason, remedy) = (e.reason(), e.remedy());
            let reg = e.registry.clone().unwrap_or_default();
            assert!(reason.contains(&reg), "{reason}");
            assert!(remedy.contains(&reg), "{remedy}");
            for a in [Advice::Credentials, Advice::Trust, Advice::MirrorRules] {
                if e.fault.advice().contains(&a) {
                    continue;
                }
                for w in advice_words(a) {
                    assert!(!remedy.contains(w), "{:?} fix names {w}: {remedy}", e.fault);
                    assert!(
                        !reason.contains(w),
                        "{:?} reason names {w}: {reason}",
                        e.fault
                    );
                }
            }
        }
    }

    /// The classes no fault names by itself, with their repository in the fix.
    #[test]
    fn content_and_storage_fixes_name_the_repository() {
        for s in real_shapes() {
            let mut e = error_of(&s.line, None).expect("read");
            e.registry = Some("mirror.example.com:5000".into());
            e.repository = Some("okd/scos-content".into());
            if matches!(
                e.fault,
                RegistryFault::BlobUnknown
                    | RegistryFault::DigestMismatch
                    | RegistryFault::ServerError
                    | RegistryFault::HttpStatus
                    | RegistryFault::StorageFull
                    | RegistryFault::PlatformMissing
            ) {
                assert!(
                    e.remedy()
                        .contains("mirror.example.com:5000/okd/scos-content"),
                    "{}",
                    e.remedy()
                );
            }
        }
    }

    #[test]
    fn a_blob_missing_on_the_mirror_names_the_blob_and_the_fix_is_to_mirror_again() {
        let mut e = error_of(&real_shapes()[0].line, None).expect("read");
        e.registry = Some("mirror.example.com:5000".into());
        e.repository = Some("okd/scos-content".into());
        assert!(e.reason().contains(LAYER), "{}", e.reason());
        assert!(e.reason().contains("404 Not Found"), "{}", e.reason());
        assert!(
            e.remedy()
                .starts_with("mirror the image to `mirror.example.com:5000` again")
        );
    }

    #[test]
    fn an_unrecognised_error_says_so_with_what_it_could_read() {
        let line = init(&format!(
            "reading manifest 1 in {R}/{REPO}: the registry sent something odd"
        ));
        let e = error_of(&line, None).expect("read");
        let reason = e.reason();
        assert!(
            reason.starts_with(&format!(
                "the pull of `{R}/{REPO}:1` from `{R}` failed with an error okd-install does \
                 not recognise, while reading the manifest"
            )),
            "{reason}"
        );
        assert!(reason.ends_with(&line), "{reason}");
        let status = error_of(
            &init(&format!(
                "reading manifest 1 in {R}/{REPO}: StatusCode: 418, oops"
            )),
            None,
        )
        .expect("read");
        assert!(
            status.reason().contains("(418 I'm a teapot)"),
            "{}",
            status.reason()
        );
    }

    /// Our own scripts' lines and other programs' lines are no pull error, even with a
    /// digest or an image in them.
    #[test]
    fn lines_of_no_pull_read_as_nothing() {
        for line in [
            "The release's node image of OS image stream centos-10 is not known yet; asking \
             again in 10s",
            "The node image quay.io/okd/scos-content@sha256:4f8a could not be fetched; trying \
             again in 10s",
            "Looking up the node image in the release image quay.io/okd/scos-release@sha256:0f5a",
            "Copying blob sha256:e53887aebbc9f3c0a080a4043cb4abca4e96049725b427d0527e454f51aee3a2",
            "Trying to pull localhost:5931/okd/scos-release:1...",
            "etcdserver: mvcc: database space exceeded",
        ] {
            assert_eq!(error_of(line, None), None, "{line}");
        }
    }

    #[test]
    fn a_repository_is_the_name_without_its_registry() {
        assert_eq!(
            repository_of_image("quay.io/okd/scos-content@sha256:ab"),
            "okd/scos-content"
        );
        assert_eq!(repository_of_image("localhost:5000/x:1"), "x");
        assert_eq!(repository_of_image("busybox:1"), "library/busybox");
    }
}
