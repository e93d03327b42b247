//! cluster-bootstrap's failures to create a manifest, as it writes them on the bootstrap host.
//!
//! cluster-bootstrap (its create loop is library-go's `pkg/assets/create/creater.go`) creates
//! every file of `/opt/openshift/manifests` (okd-install's, the renders', and the user's from
//! `manifests/` and `openshift/`) and tries the ones refused again until all are taken; the
//! bootstrap cannot complete before. Each refusal reaches bootkube's journal in the shapes
//! read here, one per operation:
//!
//! - `Failed to create "FILE" RESOURCE.VERSION.GROUP/NAME -n NAMESPACE: REASON` (and `get`,
//!   and `update status for the`), written as it happens, and
//! - after `[#N] failed to create some manifests:`, the loop's summary of the attempt:
//!   `"FILE": failed to create RESOURCE.VERSION.GROUP/NAME -n NAMESPACE: REASON` (and
//!   `failed to get`, `failed to update status for`), and
//!   `"FILE": unable to get REST mapping for "FILE": REASON` when the API serves no such kind
//!   (this one has no line of the first shape, and names no resource, name or namespace).
//!
//! The namespace is empty for a cluster-scoped object. Whatever stands before a shape (the
//! journal's time, host and unit) is left out of the failure and kept as its prefix. The
//! reason is read by the API server's status reasons (apimachinery's `StatusReason` messages,
//! the admission webhooks' and the client's transport errors); a reason outside them is
//! [`Refusal::Other`], said as written.

use serde::{Deserialize, Serialize};

/// What cluster-bootstrap was doing with the manifest when it was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Operation {
    /// Finding the API resource of the manifest's kind (discovery).
    Mapping,
    /// Reading the object, to know whether it exists.
    Get,
    /// Creating it.
    Create,
    /// Setting the status the manifest carries.
    UpdateStatus,
}

impl Operation {
    /// In words, after "cannot".
    pub fn words(self) -> &'static str {
        match self {
            // The mapping is the first step of creating it.
            Operation::Mapping => "create",
            Operation::Get => "read",
            Operation::Create => "create",
            Operation::UpdateStatus => "set the status of",
        }
    }
}

/// Why the API server refused the object, in the kinds a person acts on differently.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Refusal {
    /// `namespaces "NS" not found`: the object's namespace does not exist (yet).
    NamespaceMissing {
        /// The namespace.
        namespace: String,
    },
    /// `no matches for kind "K" in version "G/V"` (or `in versions [...]`, `in group "G"`):
    /// the API serves no such kind; nothing defines it (yet).
    KindUnknown {
        /// The kind (`Widget`).
        #[serde(rename = "object-kind")]
        kind: String,
        /// The API group of the kind (empty for the core group).
        group: String,
        /// The versions looked for (`widgets.example.com/v1`), as the reason lists them.
        versions: Vec<String>,
    },
    /// `the server could not find the requested resource`: the kind's CRD is registered but
    /// its API is not served yet.
    NotServed,
    /// `... is invalid: ...`: the API server rejects a field of the object.
    Invalid,
    /// `unable to create new content in namespace NS because it is being terminated`.
    NamespaceTerminating {
        /// The namespace.
        namespace: String,
    },
    /// `... is forbidden: ...`: an admission plugin or policy refuses the object.
    Forbidden,
    /// `admission webhook "W" denied the request: ...`.
    WebhookDenied {
        /// The webhook's name.
        webhook: String,
    },
    /// `failed calling webhook "W": ...`: the API server could not ask the webhook.
    WebhookUnreachable {
        /// The webhook's name.
        webhook: String,
    },
    /// `... already exists`.
    AlreadyExists,
    /// `Operation cannot be fulfilled on ...`: someone else changed the object meanwhile.
    Conflict,
    /// The API server, or the client, gave up waiting (`Timeout:`, `the server was unable
    /// to return a response in the time allotted`, `context deadline exceeded`).
    Timeout,
    /// The API server is not taking requests now (`the server is currently unable to handle
    /// the request`, too many requests, etcd changing leaders).
    Unavailable,
    /// The API server did not answer at all (connection refused or reset, EOF).
    Unreachable,
    /// `Unauthorized`: the API server did not accept cluster-bootstrap's credentials.
    Unauthorized,
    /// `Internal error occurred: ...` not about a webhook.
    Internal,
    /// Any other reason.
    Other,
}

impl Refusal {
    /// The reason in the user's words.
    pub fn words(&self) -> String {
        match self {
            Refusal::NamespaceMissing { namespace } => {
                format!("its namespace {namespace} does not exist")
            }
            Refusal::KindUnknown { kind, versions, .. } => format!(
                "the API server serves no kind {kind} in {}: no CustomResourceDefinition \
                 defines it",
                versions.join(" or ")
            ),
            Refusal::NotServed => "its kind's API is not served (yet)".into(),
            Refusal::Invalid => "the API server rejects the object as invalid".into(),
            Refusal::NamespaceTerminating { namespace } => {
                format!("its namespace {namespace} is being deleted")
            }
            Refusal::Forbidden => "the API server forbids creating it".into(),
            Refusal::WebhookDenied { webhook } => {
                format!("the admission webhook {webhook} denies it")
            }
            Refusal::WebhookUnreachable { webhook } => {
                format!("the API server cannot call the admission webhook {webhook}")
            }
            Refusal::AlreadyExists => "the API server says it exists already".into(),
            Refusal::Conflict => "the object was changed meanwhile (a conflict)".into(),
            Refusal::Timeout => "the request timed out".into(),
            Refusal::Unavailable => "the API server is not taking requests now".into(),
            Refusal::Unreachable => "the API server did not answer".into(),
            Refusal::Unauthorized => "the API server does not accept cluster-bootstrap's \
                                      credentials"
                .into(),
            Refusal::Internal => "the API server failed internally".into(),
            Refusal::Other => "the API server refused it with a reason okd-install does not \
                               recognise (see the evidence line)"
                .into(),
        }
    }
}

/// One refusal cluster-bootstrap wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateFailure {
    /// The manifest file, as named in `/opt/openshift/manifests`.
    pub file: String,
    /// What cluster-bootstrap was doing.
    pub operation: Operation,
    /// The plural resource (`configmaps`); empty when the line names none (a kind the API
    /// does not serve).
    pub resource: String,
    /// The kind (`Widget`), when the line names it (a kind the API does not serve) or the
    /// manifest was read.
    pub kind: String,
    /// The API version (`v1`).
    pub version: String,
    /// The API group (empty for the core group).
    pub group: String,
    /// The object's name (empty when the line does not name it).
    pub name: String,
    /// The object's namespace (empty for a cluster-scoped object, or when not named).
    pub namespace: String,
    /// The API server's reason, as written.
    pub reason: String,
    /// The reason's kind.
    pub refusal: Refusal,
}

/// The first shape's openings (written as it happens).
const AS_IT_HAPPENS: [(&str, Operation); 3] = [
    ("Failed to create \"", Operation::Create),
    ("Failed to get \"", Operation::Get),
    (
        "Failed to update status for the \"",
        Operation::UpdateStatus,
    ),
];

/// The summary's words after `"FILE": `.
const SUMMARISED: [(&str, Operation); 3] = [
    ("\": failed to create ", Operation::Create),
    ("\": failed to get ", Operation::Get),
    ("\": failed to update status for ", Operation::UpdateStatus),
];

/// The summary's words for a kind the API does not serve.
const MAPPING: &str = "\": unable to get REST mapping for \"";

impl CreateFailure {
    /// The failure `line` holds in any of the shapes, and what stands before it (the
    /// journal's time and unit, or nothing).
    pub fn parse(line: &str) -> Option<(&str, CreateFailure)> {
        if let Some(found) = Self::parse_mapping(line) {
            return Some(found);
        }
        let (prefix, file, operation, rest) = Self::split(line)?;
        let (object, rest) = rest.split_once(" -n ")?;
        let (namespace, reason) = rest.split_once(": ")?;
        let (typed, name) = object.split_once('/')?;
        let (resource, version_group) = typed.split_once('.')?;
        let (version, group) = version_group.split_once('.').unwrap_or((version_group, ""));
        if file.is_empty() || resource.is_empty() || name.is_empty() {
            return None;
        }
        let reason = reason.trim().to_string();
        let refusal = refusal(&reason);
        let kind = match &refusal {
            Refusal::KindUnknown { kind, .. } => kind.clone(),
            _ => String::new(),
        };
        Some((
            prefix.trim_end(),
            CreateFailure {
                file: file.to_string(),
                operation,
                resource: resource.to_string(),
                kind,
                version: version.to_string(),
                group: group.to_string(),
                name: name.to_string(),
                namespace: namespace.trim().to_string(),
                refusal,
                reason,
            },
        ))
    }

    /// (prefix, file, operation, what follows the file) of the first or second shape.
    fn split(line: &str) -> Option<(&str, &str, Operation, &str)> {
        for (opening, op) in AS_IT_HAPPENS {
            if let Some(at) = line.find(opening) {
                let (file, rest) = line[at + opening.len()..].split_once("\" ")?;
                return Some((&line[..at], file, op, rest));
            }
        }
        for (words, op) in SUMMARISED {
            if let Some(at) = line.find(words) {
                let open = line[..at].rfind('"')?;
                return Some((
                    &line[..open],
                    &line[open + 1..at],
                    op,
                    &line[at + words.len()..],
                ));
            }
        }
        None
    }

    /// `"FILE": unable to get REST mapping for "FILE": REASON`.
    fn parse_mapping(line: &str) -> Option<(&str, CreateFailure)> {
        let at = line.find(MAPPING)?;
        let open = line[..at].rfind('"')?;
        let file = &line[open + 1..at];
        let rest = line[at + MAPPING.len()..].strip_prefix(file)?;
        let reason = rest.strip_prefix("\": ")?.trim().to_string();
        if file.is_empty() {
            return None;
        }
        let refusal = refusal(&reason);
        let (kind, group, version) = match &refusal {
            Refusal::KindUnknown {
                kind,
                group,
                versions,
            } => {
                let version = match versions.as_slice() {
                    [one] => one.rsplit('/').next().unwrap_or_default().to_string(),
                    _ => String::new(),
                };
                (kind.clone(), group.clone(), version)
            }
            _ => Default::default(),
        };
        Some((
            line[..open].trim_end(),
            CreateFailure {
                file: file.to_string(),
                operation: Operation::Mapping,
                resource: String::new(),
                kind,
                version,
                group,
                name: String::new(),
                namespace: String::new(),
                reason,
                refusal,
            },
        ))
    }

    /// The failure in one sentence, as every reader says it (the bundle's analysis, and
    /// wait-for where it sees the same line).
    pub fn summary(&self) -> String {
        format!(
            "cluster-bootstrap cannot {} {} ({}): {}",
            self.operation.words(),
            self.file,
            self.object(),
            self.refusal.words()
        )
    }

    /// Whether nothing will make the API server take the object, as far as the line alone
    /// tells: a rejected field, a refusal by policy or webhook, a webhook it cannot call, or
    /// a kind nothing serves outside the OpenShift API groups (whose CRDs the release's
    /// operators install). A missing namespace, a CRD defined beside it and a passing
    /// reason need the bundle's manifests to judge, which the line does not carry.
    pub fn refused_for_good(&self) -> bool {
        match &self.refusal {
            Refusal::KindUnknown { group, .. } => !group.ends_with(".openshift.io"),
            Refusal::Invalid
            | Refusal::Forbidden
            | Refusal::WebhookDenied { .. }
            | Refusal::WebhookUnreachable { .. } => true,
            _ => false,
        }
    }

    /// The object in words: `configmaps heldout-probe in namespace X` (or without the
    /// namespace for a cluster-scoped one), with its group when it has one; the kind and
    /// group/version when the line names no resource (`Widget widgets.example.com/v1`).
    pub fn object(&self) -> String {
        let kind = match (self.resource.as_str(), self.group.as_str()) {
            ("", "") => format!("{} {}", self.kind, self.version),
            ("", g) if self.version.is_empty() => format!("{} {g}", self.kind),
            ("", g) => format!("{} {g}/{}", self.kind, self.version),
            (r, "") => r.to_string(),
            (r, g) => format!("{r}.{g}"),
        };
        match (self.name.as_str(), self.namespace.as_str()) {
            ("", _) => kind,
            (name, "") => format!("{kind} {name}"),
            (name, ns) => format!("{kind} {name} in namespace {ns}"),
        }
    }
}

/// The text between the first pair of double quotes after `after` in `text`.
fn quoted_after<'a>(text: &'a str, after: &str) -> Option<&'a str> {
    let rest = &text[text.find(after)? + after.len()..];
    let rest = &rest[rest.find('"')? + 1..];
    rest.split('"').next()
}

/// apimachinery's `NoKindMatchError`: `no matches for kind "K" in version "G/V"`, `in
/// versions ["G/V1" "G/V2"]`, or `in group "G"`.
fn kind_unknown(reason: &str) -> Option<Refusal> {
    let kind = quoted_after(reason, "no matches for kind")?.to_string();
    let after_kind = &reason[reason.find("no matches for kind")?..];
    let tail = after_kind.split_once(&format!("\"{kind}\""))?.1;
    let quoted: Vec<&str> = tail.split('"').skip(1).step_by(2).collect();
    let (group, versions) = if let Some(rest) = tail.trim_start().strip_prefix("in group ") {
        let group = rest.trim_matches(|c| c == '"' || c == ' ').to_string();
        (group, Vec::new())
    } else {
        let versions: Vec<String> = quoted.iter().map(|v| v.to_string()).collect();
        let group = versions
            .first()
            .and_then(|gv| gv.rsplit_once('/').map(|(g, _)| g.to_string()))
            .unwrap_or_default();
        (group, versions)
    };
    Some(Refusal::KindUnknown {
        kind,
        group,
        versions,
    })
}

/// The kind of `reason`, from the API server's own words (its status reasons' messages).
pub fn refusal(reason: &str) -> Refusal {
    let l = reason.to_ascii_lowercase();
    if let Some(ns) = l
        .strip_prefix("namespaces \"")
        .or_else(|| l.split_once(" namespaces \"").map(|(_, ns)| ns))
        .and_then(|r| r.split_once("\" not found"))
        .map(|(ns, _)| ns)
    {
        // The namespace's name as written (names are lower case anyway).
        return Refusal::NamespaceMissing {
            namespace: ns.to_string(),
        };
    }
    if let Some(found) = kind_unknown(reason) {
        return found;
    }
    if let Some(webhook) =
        quoted_after(reason, "admission webhook").filter(|_| l.contains("denied the request"))
    {
        return Refusal::WebhookDenied {
            webhook: webhook.to_string(),
        };
    }
    if let Some(webhook) = quoted_after(reason, "failed calling webhook") {
        return Refusal::WebhookUnreachable {
            webhook: webhook.to_string(),
        };
    }
    if let Some(ns) = l
        .split_once("unable to create new content in namespace ")
        .and_then(|(_, r)| r.split_once(" because it is being terminated"))
    {
        return Refusal::NamespaceTerminating {
            namespace: ns.0.to_string(),
        };
    }
    let any = |words: &[&str]| words.iter().any(|w| l.contains(w));
    if l.contains("the server could not find the requested resource") {
        Refusal::NotServed
    } else if any(&[" is invalid:", "invalid value"]) {
        Refusal::Invalid
    } else if l.contains("forbidden:") {
        Refusal::Forbidden
    } else if l.ends_with(" already exists") || l.contains(" already exists:") {
        Refusal::AlreadyExists
    } else if l.starts_with("operation cannot be fulfilled on ") {
        Refusal::Conflict
    } else if any(&[
        "timeout:",
        "the server was unable to return a response in the time allotted",
        "context deadline exceeded",
        "i/o timeout",
        "client.timeout exceeded",
        "request timed out",
        "handshake timeout",
        "could not be completed at this time",
    ]) {
        Refusal::Timeout
    } else if any(&[
        "the server is currently unable to handle the request",
        "the server has received too many requests",
        "too many requests",
        "etcdserver: leader changed",
        "etcdserver: no leader",
    ]) {
        Refusal::Unavailable
    } else if any(&[
        "connection refused",
        "connection reset by peer",
        "unexpected eof",
        "http2: client connection lost",
        "broken pipe",
    ]) || l.ends_with(": eof")
        || l == "eof"
    {
        Refusal::Unreachable
    } else if l == "unauthorized" || l.starts_with("unauthorized") {
        Refusal::Unauthorized
    } else if l.starts_with("internal error occurred:") {
        Refusal::Internal
    } else {
        Refusal::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two shapes the 4.19 bootstrap wrote for one manifest in a namespace nothing
    /// creates (from the issue's bundle), with the journal's prefix of `journalctl -o short`.
    #[test]
    fn both_shapes_read_the_same() {
        let one = r#"Nov 28 08:14:02 bootstrap bootkube.sh[2301]: Failed to create "99-heldout-probe.yaml" configmaps.v1./heldout-probe -n heldout-never-created: namespaces "heldout-never-created" not found"#;
        let two = r#""99-heldout-probe.yaml": failed to create configmaps.v1./heldout-probe -n heldout-never-created: namespaces "heldout-never-created" not found"#;
        let (prefix, a) = CreateFailure::parse(one).expect("first shape");
        assert_eq!(prefix, "Nov 28 08:14:02 bootstrap bootkube.sh[2301]:");
        let (none, b) = CreateFailure::parse(two).expect("second shape");
        assert_eq!(none, "");
        assert_eq!(a, b);
        assert_eq!(a.file, "99-heldout-probe.yaml");
        assert_eq!(a.operation, Operation::Create);
        assert_eq!(
            (a.resource.as_str(), a.version.as_str()),
            ("configmaps", "v1")
        );
        assert_eq!(a.group, "");
        assert_eq!(a.name, "heldout-probe");
        assert_eq!(a.namespace, "heldout-never-created");
        assert_eq!(
            a.refusal,
            Refusal::NamespaceMissing {
                namespace: "heldout-never-created".into()
            }
        );
        assert_eq!(
            a.object(),
            "configmaps heldout-probe in namespace heldout-never-created"
        );
    }

    /// library-go's create loop: a kind the API does not serve is written only in the
    /// summary, as a REST mapping failure naming the file twice; the kind, group and version
    /// come from the reason (apimachinery's NoKindMatchError, all three of its forms).
    #[test]
    fn a_kind_the_api_does_not_serve_is_read_from_the_rest_mapping_line() {
        let line = r#"Dec 07 10:00:05 bootstrap bootkube.sh[2301]: "99-user-widget.yaml": unable to get REST mapping for "99-user-widget.yaml": no matches for kind "Widget" in version "widgets.example.com/v1""#;
        let (prefix, f) = CreateFailure::parse(line).expect("mapping shape");
        assert_eq!(prefix, "Dec 07 10:00:05 bootstrap bootkube.sh[2301]:");
        assert_eq!(f.file, "99-user-widget.yaml");
        assert_eq!(f.operation, Operation::Mapping);
        assert_eq!(
            (f.kind.as_str(), f.group.as_str(), f.version.as_str()),
            ("Widget", "widgets.example.com", "v1")
        );
        assert_eq!((f.resource.as_str(), f.name.as_str()), ("", ""));
        assert_eq!(f.object(), "Widget widgets.example.com/v1");
        assert!(
            f.refusal
                .words()
                .contains("no kind Widget in widgets.example.com/v1")
        );

        let versions = r#""w.yaml": unable to get REST mapping for "w.yaml": no matches for kind "Widget" in versions ["widgets.example.com/v1" "widgets.example.com/v2"]"#;
        let (_, f) = CreateFailure::parse(versions).expect("versions");
        assert_eq!(
            f.refusal,
            Refusal::KindUnknown {
                kind: "Widget".into(),
                group: "widgets.example.com".into(),
                versions: vec![
                    "widgets.example.com/v1".into(),
                    "widgets.example.com/v2".into()
                ],
            }
        );
        assert_eq!(f.object(), "Widget widgets.example.com");

        let group = r#""w.yaml": unable to get REST mapping for "w.yaml": no matches for kind "Widget" in group "widgets.example.com""#;
        let (_, f) = CreateFailure::parse(group).expect("group");
        assert_eq!(f.group, "widgets.example.com");
        assert_eq!(f.kind, "Widget");

        let core = r#""f.yaml": unable to get REST mapping for "f.yaml": no matches for kind "Foo" in version "v1""#;
        let (_, f) = CreateFailure::parse(core).expect("core");
        assert_eq!((f.group.as_str(), f.version.as_str()), ("", "v1"));
    }

    /// The get and update-status operations of the loop, in both shapes.
    #[test]
    fn get_and_status_failures_name_their_operation() {
        let cases = [
            (
                r#"Failed to get "a.yaml" configmaps.v1./a -n x: Unauthorized"#,
                Operation::Get,
            ),
            (
                r#""a.yaml": failed to get configmaps.v1./a -n x: Unauthorized"#,
                Operation::Get,
            ),
            (
                r#"Failed to update status for the "a.yaml" configmaps.v1./a -n x: Unauthorized"#,
                Operation::UpdateStatus,
            ),
            (
                r#""a.yaml": failed to update status for configmaps.v1./a -n x: Unauthorized"#,
                Operation::UpdateStatus,
            ),
        ];
        for (line, op) in cases {
            let (_, f) = CreateFailure::parse(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(f.operation, op, "{line}");
            assert_eq!(
                (f.file.as_str(), f.name.as_str(), f.namespace.as_str()),
                ("a.yaml", "a", "x")
            );
            assert_eq!(f.refusal, Refusal::Unauthorized, "{line}");
        }
    }

    /// One line per reason the API server (apimachinery's status reasons), the admission
    /// webhooks and the client's transport give, each in the loop's line shape.
    #[test]
    fn every_reason_is_told_apart() {
        let webhook = |w: &str| w.to_string();
        let cases = [
            (
                r#"Failed to create "99-bad-configmap.yaml" configmaps.v1./Not_A_DNS_Name -n kube-system: ConfigMap "Not_A_DNS_Name" is invalid: metadata.name: Invalid value: "Not_A_DNS_Name": a lowercase RFC 1123 subdomain"#,
                Refusal::Invalid,
            ),
            (
                r#""99-quota.yaml": failed to create pods.v1./p -n kube-system: pods "p" is forbidden: exceeded quota: q"#,
                Refusal::Forbidden,
            ),
            (
                r#"Failed to create "c.yaml" configmaps.v1./c -n team-a: configmaps "c" is forbidden: unable to create new content in namespace team-a because it is being terminated"#,
                Refusal::NamespaceTerminating {
                    namespace: "team-a".into(),
                },
            ),
            (
                r#"Failed to create "99_openshift-machineconfig_99-worker-ssh.yaml" machineconfigs.v1.machineconfiguration.openshift.io/99-worker-ssh -n : the server could not find the requested resource"#,
                Refusal::NotServed,
            ),
            (
                r#""p.yaml": failed to create pods.v1./p -n team-a: admission webhook "vpod.policy.example.com" denied the request: image not signed"#,
                Refusal::WebhookDenied {
                    webhook: webhook("vpod.policy.example.com"),
                },
            ),
            (
                r#""p.yaml": failed to create pods.v1./p -n team-a: Internal error occurred: failed calling webhook "vpod.policy.example.com": failed to call webhook: Post "https://policy.team-a.svc:443/validate?timeout=10s": dial tcp 172.30.4.5:443: connect: connection refused"#,
                Refusal::WebhookUnreachable {
                    webhook: webhook("vpod.policy.example.com"),
                },
            ),
            (
                r#""c.yaml": failed to create configmaps.v1./c -n a: configmaps "c" already exists"#,
                Refusal::AlreadyExists,
            ),
            (
                r#""c.yaml": failed to update status for configmaps.v1./c -n a: Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again"#,
                Refusal::Conflict,
            ),
            (
                r#""x.yaml": failed to create configmaps.v1./x -n a: Internal error occurred: etcdserver: request timed out"#,
                Refusal::Timeout,
            ),
            (
                r#""x.yaml": failed to create configmaps.v1./x -n a: Timeout: request did not complete within requested timeout - context deadline exceeded"#,
                Refusal::Timeout,
            ),
            (
                r#""x.yaml": failed to create configmaps.v1./x -n a: the server was unable to return a response in the time allotted, but may still be processing the request (post configmaps)"#,
                Refusal::Timeout,
            ),
            (
                r#""x.yaml": failed to create configmaps.v1./x -n a: The create operation against configmaps could not be completed at this time, please try again."#,
                Refusal::Timeout,
            ),
            (
                r#""x.yaml": failed to create configmaps.v1./x -n a: the server is currently unable to handle the request (post configmaps)"#,
                Refusal::Unavailable,
            ),
            (
                r#""x.yaml": failed to create configmaps.v1./x -n a: the server has received too many requests and has asked us to try again later (post configmaps)"#,
                Refusal::Unavailable,
            ),
            (
                r#""x.yaml": failed to get configmaps.v1./x -n a: Get "https://localhost:6443/api/v1/namespaces/a/configmaps/x": dial tcp [::1]:6443: connect: connection refused"#,
                Refusal::Unreachable,
            ),
            (
                r#""x.yaml": failed to get configmaps.v1./x -n a: Get "https://localhost:6443/api/v1/namespaces/a/configmaps/x": EOF"#,
                Refusal::Unreachable,
            ),
            (
                r#""x.yaml": failed to create configmaps.v1./x -n a: Unauthorized"#,
                Refusal::Unauthorized,
            ),
            (
                r#""x.yaml": failed to create configmaps.v1./x -n a: Internal error occurred: resource quota evaluation timed out"#,
                Refusal::Internal,
            ),
            (
                r#""x.yaml": failed to create configmaps.v1./x -n a: the widget subsystem is sulking"#,
                Refusal::Other,
            ),
        ];
        for (line, want) in cases {
            let (_, f) = CreateFailure::parse(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(f.refusal, want, "{line}");
            assert!(
                line.ends_with(&f.reason),
                "the reason is kept as written: {line}"
            );
        }
        // A reason outside every class says so, and nothing else.
        assert!(Refusal::Other.words().contains("does not recognise"));
    }

    #[test]
    fn a_cluster_scoped_object_has_no_namespace() {
        let line = r#"Failed to create "99_openshift-machineconfig_99-worker-ssh.yaml" machineconfigs.v1.machineconfiguration.openshift.io/99-worker-ssh -n : the server could not find the requested resource"#;
        let (_, mc) = CreateFailure::parse(line).unwrap();
        assert_eq!(mc.namespace, "");
        assert_eq!(mc.group, "machineconfiguration.openshift.io");
        assert_eq!(
            mc.object(),
            "machineconfigs.machineconfiguration.openshift.io 99-worker-ssh"
        );
    }

    #[test]
    fn other_lines_are_no_failure() {
        for line in [
            "[#499] failed to create some manifests:",
            "[#3] failed to fetch discovery: Get \"https://localhost:6443/api\": EOF",
            r#"Created "99-heldout-probe.yaml" configmaps.v1./heldout-probe -n heldout-never-created"#,
            r#"Skipped creating "a.yaml" configmaps.v1./a -n x as it already exists"#,
            r#""a.yaml": unable to get REST mapping for "b.yaml": no matches for kind "K" in version "v1""#,
            "Failed to create pod sandbox",
            "",
        ] {
            assert_eq!(CreateFailure::parse(line), None, "{line}");
        }
    }
}
