//! The causes of a failed bootstrap that okd-install can name.
//!
//! `wait-for bootstrap-complete` (from the API, the TLS handshake and name resolution) and
//! `gather bootstrap`'s analysis (from the log bundle) each recognise causes on their own
//! evidence; both name them with this one catalogue, so a cause reads the same from either
//! command, and the README's troubleshooting table lists exactly these.

use serde::{Deserialize, Serialize};

use crate::registry_error::{self, PullContext, PulledImage};

/// Why a bootstrap failed, as far as okd-install can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// The release image (or another payload image the bootstrap pulls) could not be pulled.
    ReleaseImagePull,
    /// The node (OS) image the bootstrap host pivots to could not be pulled.
    NodeImagePull,
    /// `api-int.<cluster>.<domain>` does not resolve on the bootstrap host.
    ApiIntDns,
    /// `api.<cluster>.<domain>` does not resolve where okd-install runs.
    ApiDns,
    /// etcd on the bootstrap host did not start (data directory, port).
    EtcdStart,
    /// The certificates are not valid yet on the host's clock (clock behind, or configs made
    /// with a creation time in the future).
    CertificatesNotYetValid,
    /// The certificates have expired on the host's clock (clock ahead, or configs too old).
    CertificatesExpired,
    /// A manifest the user added was refused by the API server, or its kind never appeared.
    UserManifest,
    /// A manifest is in a namespace that nothing creates: cluster-bootstrap retries it for
    /// ever and the bootstrap never completes.
    ManifestNamespace,
    /// A render stage of bootkube.sh failed.
    RenderStage,
    /// The Machine Config Server could not listen on :22623.
    MachineConfigServerPort,
    /// The bootstrap host ran out of disk space.
    DiskFull,
}

impl Cause {
    /// Every cause, in the order the README's table lists them.
    pub const ALL: [Cause; 12] = [
        Cause::ReleaseImagePull,
        Cause::NodeImagePull,
        Cause::ApiIntDns,
        Cause::ApiDns,
        Cause::EtcdStart,
        Cause::CertificatesNotYetValid,
        Cause::CertificatesExpired,
        Cause::UserManifest,
        Cause::ManifestNamespace,
        Cause::RenderStage,
        Cause::MachineConfigServerPort,
        Cause::DiskFull,
    ];

    /// The stable kebab-case id (JSON output, tests, the README's table).
    pub fn id(self) -> &'static str {
        match self {
            Cause::ReleaseImagePull => "release-image-pull",
            Cause::NodeImagePull => "node-image-pull",
            Cause::ApiIntDns => "api-int-dns",
            Cause::ApiDns => "api-dns",
            Cause::EtcdStart => "etcd-start",
            Cause::CertificatesNotYetValid => "certificates-not-yet-valid",
            Cause::CertificatesExpired => "certificates-expired",
            Cause::UserManifest => "user-manifest",
            Cause::ManifestNamespace => "manifest-namespace",
            Cause::RenderStage => "render-stage",
            Cause::MachineConfigServerPort => "machine-config-server-port",
            Cause::DiskFull => "disk-full",
        }
    }
    /// What happened, in one line in the user's words (the troubleshooting table's middle
    /// column, the first line of every diagnosis).
    pub fn summary(self) -> &'static str {
        match self {
            Cause::ReleaseImagePull => {
                "the bootstrap host could not pull the release image (or a payload image)"
            }
            Cause::NodeImagePull => "the bootstrap host could not pull the node (OS) image",
            Cause::ApiIntDns => "`api-int.<cluster domain>` does not resolve on the bootstrap host",
            Cause::ApiDns => "`api.<cluster domain>` does not resolve where okd-install runs",
            Cause::EtcdStart => "etcd on the bootstrap host did not start",
            Cause::CertificatesNotYetValid => {
                "the certificates are not valid yet: a clock is behind the time the configs were made"
            }
            Cause::CertificatesExpired => {
                "the certificates have expired: a clock is ahead, or the configs are older than 24 hours"
            }
            Cause::UserManifest => {
                "the API server refused a manifest from manifests/ or openshift/"
            }
            Cause::ManifestNamespace => {
                "a manifest from manifests/ or openshift/ is in a namespace that nothing \
                 creates: cluster-bootstrap retries it and the bootstrap never completes"
            }
            Cause::RenderStage => "a render step of bootkube.sh failed",
            Cause::MachineConfigServerPort => {
                "the Machine Config Server could not listen on port 22623"
            }
            Cause::DiskFull => "the bootstrap host ran out of disk space",
        }
    }

    /// What to do about it, in one line (the troubleshooting table's last column).
    pub fn remedy(self) -> &'static str {
        match self {
            Cause::ReleaseImagePull => {
                "check the pull secret, the mirror settings (imageDigestSources) and the \
                 additionalTrustBundle, and that the bootstrap host reaches the registry"
            }
            Cause::NodeImagePull => {
                "check that the pull secret and the mirrors cover the release's node image and \
                 that the bootstrap host reaches its registry"
            }
            Cause::ApiIntDns => {
                "create the DNS record `api-int.<cluster domain>` pointing at the API load \
                 balancer (or the bootstrap host) and check the host's resolver"
            }
            Cause::ApiDns => {
                "create the DNS record `api.<cluster domain>` pointing at the API load balancer \
                 (or the bootstrap host), or run okd-install where it resolves"
            }
            Cause::EtcdStart => {
                "read the etcd error line: free or fix /var/lib/etcd, free ports 2379/2380, \
                 then reboot the bootstrap host"
            }
            Cause::CertificatesNotYetValid => {
                "set the clock of the bootstrap host (NTP, chrony) and of the machine that \
                 ran create ignition-configs, then boot again"
            }
            Cause::CertificatesExpired => {
                "set the hosts' clocks, or create the Ignition configs again (they hold \
                 certificates valid for 24 hours) and boot again"
            }
            Cause::UserManifest => {
                "correct or take out the file the finding names, as the API server's reason \
                 says (a kind nothing defines: add its CustomResourceDefinition to manifests/ \
                 or create the object after the install), then create the Ignition configs \
                 again"
            }
            Cause::ManifestNamespace => {
                "add a Namespace manifest for that namespace to manifests/ (or correct the \
                 object's namespace), then create the Ignition configs again; an object in a \
                 namespace an operator creates later belongs after the install"
            }
            Cause::RenderStage => {
                "read the stage's error line: usually an install-config or manifest value the \
                 operator rejects; fix it and create the Ignition configs again"
            }
            Cause::MachineConfigServerPort => {
                "free port 22623 on the bootstrap host (another process or a second \
                 machine-config-server holds it)"
            }
            Cause::DiskFull => {
                "give the bootstrap host a larger disk (at least 100 GB) or free /var, then \
                 boot again"
            }
        }
    }

    /// The troubleshooting table's name for the fault behind this cause, where it differs
    /// from [`Cause::id`]: the fault says what went wrong, the cause what it did.
    pub fn fault(self) -> &'static str {
        match self {
            Cause::CertificatesExpired => "clock-ahead",
            Cause::CertificatesNotYetValid => "clock-behind",
            Cause::UserManifest => "bad-user-manifest",
            Cause::RenderStage => "render-fails",
            Cause::MachineConfigServerPort => "mcs-port",
            other => other.id(),
        }
    }

    /// The cause a single error line of the bootstrap host (a service record's message, a
    /// journal or container log line, an event) names, if it names one. `service` is the
    /// unit the line came from (without `.service`), which tells the two image pulls apart.
    ///
    /// The patterns are the real tools' own words: podman/containers-image ("initializing
    /// source docker://", "pinging container registry", "reading manifest"), Go's crypto/x509
    /// ("x509: certificate has expired or is not yet valid: current time T is before|after
    /// T'"), etcd ("failed to start etcd", "cannot access data directory"), the kernel's
    /// ENOSPC ("no space left on device") and our own scripts' record messages.
    pub fn recognise(line: &str, service: Option<&str>) -> Option<Cause> {
        let l = line.to_ascii_lowercase();
        let has = |p: &str| l.contains(p);
        if has("no space left on device") || has("disk quota exceeded") {
            return Some(Cause::DiskFull);
        }
        if let Some(cause) = certificate_time(&l) {
            return Some(cause);
        }
        if is_pull_failure(&l) {
            return Some(match service {
                // The OS pivot of older scripts rebases onto the node (machine-OS) image.
                Some("node-image-pull" | "node-image-overlay" | "release-image-pivot") => {
                    Cause::NodeImagePull
                }
                _ if has("node image") => Cause::NodeImagePull,
                _ => Cause::ReleaseImagePull,
            });
        }
        if is_name_lookup_failure(&l) {
            if has("api-int.") {
                return Some(Cause::ApiIntDns);
            }
            if names_api(&l) {
                return Some(Cause::ApiDns);
            }
        }
        if has(":22623") && (has("address already in use") || has("bind:")) {
            return Some(Cause::MachineConfigServerPort);
        }
        if is_etcd_failure(&l) {
            return Some(Cause::EtcdStart);
        }
        if is_manifest_refusal(line, &l) {
            return Some(Cause::UserManifest);
        }
        None
    }
}

/// The causes CI proves on the real bootstrap host (`testing/real-host`: a Debian host booted
/// under systemd-nspawn with real Ignition, systemd, podman, registry and sshd): each injected
/// at its real cause, named with the host's own line by `wait-for --bootstrap`, `gather` and
/// `analyze`, then fixed and recovered from. The real-host faults test fails when the causes
/// its faults name are not exactly these. Every cause of [`Cause::ALL`] was proven on the
/// real OKD 4.19 payload in November 2026 (the README's "Proven earlier on the OKD 4.19
/// payload"), whose harness was retired with the payload.
pub const PROVEN_ON_REAL_HOST: [Cause; 3] = [
    Cause::ReleaseImagePull,
    Cause::CertificatesNotYetValid,
    Cause::DiskFull,
];

/// The name `verify --online`'s pull preflight goes by in the troubleshooting table.
const PULL_PREFLIGHT: &str = "`verify --online` (pull preflight)";

impl Cause {
    /// Where okd-install's naming of this cause was proven against real programs: the
    /// troubleshooting table's "proven on" column ([`PROVEN_ON_REAL_HOST`]).
    pub fn proven_on(self) -> &'static str {
        if PROVEN_ON_REAL_HOST.contains(&self) {
            "real host, 4.19 payload"
        } else {
            "4.19 payload"
        }
    }

    /// Which check run before booting catches this cause, and how far: the troubleshooting
    /// table's "caught before boot" column. Said of the checks as they are: `verify --online`
    /// checks names and registries where it runs, not on the bootstrap host; `verify` judges
    /// certificates by the clock of the machine it runs on.
    pub fn caught_before_boot(self) -> &'static str {
        match self {
            Cause::ReleaseImagePull | Cause::NodeImagePull => PULL_PREFLIGHT,
            Cause::ApiIntDns => {
                "partly: `verify --online` resolves it where verify runs, not on the host"
            }
            Cause::ApiDns => "`verify --online` (online.dns), where verify runs",
            Cause::CertificatesNotYetValid | Cause::CertificatesExpired => {
                "partly: `verify` (cert.expiry), by its own machine's clock, not the host's"
            }
            Cause::UserManifest => "no (`verify` only parses manifests)",
            Cause::ManifestNamespace => {
                "`create` and `verify` warn (manifests.namespace), judged against the namespaces \
                 the release creates (`explain releases`) and those of manifests/ and \
                 openshift/, with \"did you mean\" for a near miss"
            }
            Cause::EtcdStart
            | Cause::RenderStage
            | Cause::MachineConfigServerPort
            | Cause::DiskFull => "no",
        }
    }
}

/// Go's crypto/x509 validity error, told apart by its direction.
fn certificate_time(l: &str) -> Option<Cause> {
    if l.contains("certificate has expired or is not yet valid") {
        return Some(if l.contains(" is before ") {
            Cause::CertificatesNotYetValid
        } else {
            Cause::CertificatesExpired
        });
    }
    if l.contains("certificate is not yet valid") || l.contains("not valid yet") {
        return Some(Cause::CertificatesNotYetValid);
    }
    if l.contains("x509") && l.contains("expired") {
        return Some(Cause::CertificatesExpired);
    }
    None
}

/// A name that did not resolve, in the words of our scripts, Go's resolver, glibc and curl.
fn is_name_lookup_failure(l: &str) -> bool {
    [
        "does not resolve",
        "no such host",
        "name or service not known",
        "could not resolve host",
        "temporary failure in name resolution",
        "server misbehaving",
    ]
    .iter()
    .any(|p| l.contains(p))
}

/// Whether the line names the `api.` host itself (not `api-int.`, not a registry).
fn names_api(l: &str) -> bool {
    l.starts_with("api.")
        || [" api.", "//api.", "\"api.", "'api."]
            .iter()
            .any(|p| l.contains(p))
}

/// cluster-bootstrap (and the API server behind it) refusing a manifest: an invalid object,
/// or a kind no CRD provides. Not what it waits for: cluster-bootstrap creates every manifest
/// again until it is taken, and on every bootstrap some wait for a namespace or a CRD that
/// the cluster-version operator brings from the release ([`is_awaited`]).
fn is_manifest_refusal(line: &str, l: &str) -> bool {
    // A line of cluster-bootstrap's create loop is read by its structure, as the analysis of
    // a bundle reads it (with the manifests beside it, which a single line lacks).
    if let Some((_, failure)) = crate::create_failure::CreateFailure::parse(line) {
        return failure.refused_for_good();
    }
    let refused = (l.contains("failed to create") && l.contains(".yaml"))
        || l.contains("no matches for kind")
        || (l.contains("is invalid:") && l.contains("invalid value"))
        || (l.contains("unable to determine") && l.contains(".yaml"))
        || (l.contains("failed to create") && l.contains(" is forbidden:"));
    refused && !is_awaited(l)
}

/// A manifest waiting for what the release brings: its namespace (`openshift-config` and
/// the operators' namespaces come from the cluster-version operator), a resource whose CRD
/// is registered but not served yet, or a kind of an OpenShift API group whose CRD the
/// payload's operators install. The cluster-version operator's own sync errors are about
/// the release's manifests, never the user's (cluster-bootstrap creates those): a
/// `ServiceMonitor` waits for the monitoring operator's CRD on every bootstrap.
///
/// A missing namespace is awaited for one line: whether anything will create it is known
/// only with the manifests beside it, so [`Cause::ManifestNamespace`] is judged on the whole
/// bundle (the gather analysis, by the release's namespace table), never on a line.
fn is_awaited(l: &str) -> bool {
    let release_sync = l.contains("updatepayload") || l.contains("sync_worker.go");
    let missing_namespace = l.contains("namespaces \"") && l.ends_with("\" not found");
    let not_served = l.contains("the server could not find the requested resource");
    let openshift_kind = l.contains("no matches for kind")
        && l.split("in version \"")
            .nth(1)
            .and_then(|v| v.split('/').next())
            .is_some_and(|group| group.ends_with(".openshift.io"));
    release_sync || missing_namespace || not_served || openshift_kind
}

/// A failed image pull, as podman, CRI-O and the kubelet say it.
fn is_pull_failure(l: &str) -> bool {
    [
        "initializing source docker://",
        "pinging container registry",
        "reading manifest",
        "manifest unknown",
        "errimagepull",
        "imagepullbackoff",
        "failed to pull image",
        "error pulling image",
        "unable to pull",
        "pull access denied",
        "authentication required",
        // containers/image refusing a registry that registries.conf blocks.
        "is blocked in /etc/containers/registries.conf",
        // The retry lines of the release image pull: upstream's release-image-download.sh,
        // then ours (release-image-download.sh, node-image-pull.sh), for a journal whose
        // podman error is gone.
        "pull failed. retrying",
        "could not be fetched; trying again",
    ]
    .iter()
    .any(|p| l.contains(p))
        // Any other error of a pull, by its structure (containers/image's steps).
        || registry_error::is_pull_error(l)
}

/// etcd's own words for not starting, and our bootkube stage's.
fn is_etcd_failure(l: &str) -> bool {
    // etcd logs its start-up at info level through etcdmain too ("failed to detect default
    // host" in a namespace without a default route); only its warnings and errors count.
    if l.starts_with('{') && (l.contains("\"level\":\"info\"") || l.contains("\"level\":\"debug\""))
    {
        return false;
    }
    [
        "failed to start etcd",
        "cannot access data directory",
        "etcdmain:",
        "\"caller\":\"etcdmain/",
        "listen tcp 0.0.0.0:2379",
        "listen tcp 0.0.0.0:2380",
        ":2380: bind: address already in use",
        ":2379: bind: address already in use",
        "etcd cluster did not become healthy",
    ]
    .iter()
    .any(|p| l.contains(p))
}

/// One diagnosis as `wait-for`, `gather` and `analyze` print it and emit it as their JSON
/// `diagnosis` event: the cause, where on the host it showed, the host's own line, and what
/// to do. The same shape from every command, so a script reads it once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The cause; its id in JSON.
    pub cause: Cause,
    /// [`Cause::summary`], sometimes with the unit or stage named.
    pub summary: String,
    /// The unit the evidence comes from (`bootkube.service`), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    /// The failed stage of that unit's service record, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<String>,
    /// The bootstrap host's (or the API's, or the TLS handshake's) own error line.
    pub evidence: String,
    /// What else the evidence shows, a sentence each: how often and since when a refused
    /// manifest was retried, what creates (or does not create) its namespace.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
    /// [`Cause::remedy`], or the same made specific to the object the evidence names.
    pub remedy: String,
}

impl Finding {
    /// A finding with the cause's own summary and remedy.
    pub fn new(cause: Cause, evidence: impl Into<String>) -> Finding {
        Finding {
            cause,
            summary: cause.summary().to_string(),
            unit: None,
            stage: None,
            evidence: evidence.into(),
            details: Vec::new(),
            remedy: cause.remedy().to_string(),
        }
    }

    /// A failed pull's finding: the summary names which image (what the unit and stage
    /// were pulling), and when the evidence reads as a registry error
    /// ([`registry_error::read_pull`]) every registry tried (each mirror, then the image's
    /// own), why each failed, and the fix for those faults; otherwise
    /// the cause's own remedy (the release image's when that is what was pulled).
    ///
    /// `credentials`, the registries the host's pull secret has credentials for when known,
    /// tells a registry's 401 for missing credentials from one for refused credentials.
    pub fn pull(
        cause: Cause,
        evidence: impl Into<String>,
        image: &PulledImage,
        credentials: Option<&[String]>,
    ) -> Finding {
        Finding::pull_in(cause, evidence, image, credentials, &PullContext::default())
    }

    /// [`Finding::pull`] with what the evidence line lacks (the image, the registry, the
    /// repository) taken from `context`: the attempt's other lines and the host's mirror
    /// rules.
    ///
    /// A line that is no registry's answer (a retry line of our scripts) gets no fix of a
    /// registry fault: it does not say which, so the fix is to find the line that does.
    pub fn pull_in(
        cause: Cause,
        evidence: impl Into<String>,
        image: &PulledImage,
        credentials: Option<&[String]>,
        context: &PullContext,
    ) -> Finding {
        let mut f = Finding::new(cause, evidence);
        let error = registry_error::read_pull(&f.evidence).map(|p| {
            let p = p.in_context(context);
            match credentials {
                Some(registries) => p.with_credentials_for(registries),
                None => p,
            }
        });
        f.summary = image.summary(error.as_ref());
        f.remedy = match &error {
            Some(e) => e.remedy(),
            None => UNREAD_PULL_REMEDY.to_string(),
        };
        f
    }

    /// Where it showed: unit and stage.
    pub fn at(mut self, unit: Option<String>, stage: Option<String>) -> Finding {
        self.unit = unit;
        self.stage = stage;
        self
    }

    /// The few lines a terminal shows: the cause (with unit and stage), the evidence line,
    /// the details, and the remedy.
    pub fn lines(&self) -> Vec<String> {
        let mut head = format!("cause ({}): {}", self.cause.id(), self.summary);
        match (&self.unit, &self.stage) {
            (Some(u), Some(s)) => head.push_str(&format!(" [{u}, stage {s}]")),
            (Some(u), None) => head.push_str(&format!(" [{u}]")),
            (None, Some(s)) => head.push_str(&format!(" [stage {s}]")),
            (None, None) => {}
        }
        let mut lines = vec![head, format!("evidence: {}", self.evidence)];
        lines.extend(self.details.iter().map(|d| format!("  - {d}")));
        lines.push(format!("what to do: {}", self.remedy));
        lines
    }
}

/// What to do about a failed pull whose evidence is no registry's answer (a script's retry
/// line): no guess at the fault, the way to the line that names it.
const UNREAD_PULL_REMEDY: &str = "find the pull's own error line (podman's or ostree's words) \
     in the unit's journal on the bootstrap host: the lines gathered say only that the pull \
     is retried, not why it failed";

/// The troubleshooting table's header row.
const TABLE_HEADER: &str =
    "| fault | what okd-install says | what to do | proven on | caught before boot |";

/// The README's troubleshooting table, generated from [`Cause::ALL`]: one row per cause,
/// [`TABLE_HEADER`]'s columns.
pub fn troubleshooting_table() -> String {
    let mut out = format!("{TABLE_HEADER}\n|---|---|---|---|---|\n");
    for c in Cause::ALL {
        out.push_str(&format!(
            "| `{}` | {} (`{}`) | {} | {} | {} |\n",
            c.fault(),
            c.summary(),
            c.id(),
            c.remedy(),
            c.proven_on(),
            c.caught_before_boot()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_are_the_serialized_names() {
        let mut seen = std::collections::BTreeSet::new();
        for cause in Cause::ALL {
            assert!(seen.insert(cause.id()), "{} twice", cause.id());
            let json = serde_json::to_string(&cause).expect("a unit variant serializes");
            assert_eq!(json, format!("\"{}\"", cause.id()));
        }
    }
    /// Real lines, each from the tool that writes it on a bootstrap host (run by hand against
    /// the 4.19 payload's binaries, 2026-11-26), and the cause each must name.
    const REAL_LINES: &[(&str, Option<&str>, Cause)] = &[
        // podman pull of a release image whose registry does not answer (podman 4.9).
        (
            r#"Error: initializing source docker://localhost:5999/okd/release:4.19: pinging container registry localhost:5999: Get "https://localhost:5999/v2/": dial tcp 127.0.0.1:5999: connect: connection refused"#,
            Some("release-image"),
            Cause::ReleaseImagePull,
        ),
        // The same failure in the node image's unit is the node image's.
        (
            r#"Error: initializing source docker://quay.io/okd/scos-release-missing:4.19.0-okd-scos.0: pinging container registry quay.io: Get "https://quay.io/v2/": dial tcp: lookup quay.io on 10.255.255.53:53: no such host"#,
            Some("node-image-pull"),
            Cause::NodeImagePull,
        ),
        // etcd 3.5 of the payload (zap logger), data directory not writable.
        (
            r#"{"level":"warn","ts":"2026-11-26T14:03:21.460Z","caller":"etcdmain/etcd.go:176","msg":"failed to start etcd","error":"cannot access data directory: mkdir /var/lib/etcd/member-x: read-only file system"}"#,
            None,
            Cause::EtcdStart,
        ),
        // The same etcd with its default (capnslog) logger.
        (
            "2026-11-26 14:03:14.888645 C | etcdmain: cannot access data directory: mkdir /proc/nope: no such file or directory",
            None,
            Cause::EtcdStart,
        ),
        // Go crypto/x509 (x509.CertificateInvalidError, reason Expired), both directions.
        (
            "x509: certificate has expired or is not yet valid: current time 2026-11-25T10:00:00Z is before 2026-11-26T14:00:00Z",
            None,
            Cause::CertificatesNotYetValid,
        ),
        (
            "x509: certificate has expired or is not yet valid: current time 2026-11-28T10:00:00Z is after 2026-11-27T14:00:00Z",
            None,
            Cause::CertificatesExpired,
        ),
        // bootstrap-verify-api-server-urls.sh's record message.
        (
            "api-int.compact.example.com does not resolve to any address",
            Some("bootkube"),
            Cause::ApiIntDns,
        ),
        // The same record message for check-api-url names the API name itself.
        (
            "api.compact.example.com does not resolve to any address",
            Some("bootkube"),
            Cause::ApiDns,
        ),
        // The payload's machine-config-server (bootstrap) with port 22623 taken.
        (
            "F1126 14:08:07.400182       1 api.go:89] Machine Config Server exited with error: listen tcp :22623: bind: address already in use",
            None,
            Cause::MachineConfigServerPort,
        ),
        // The payload's kubectl (Go crypto/x509) against a certificate valid from 2099.
        (
            "Unable to connect to the server: tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-11-26T14:08:31Z is before 2099-01-01T00:00:00Z",
            None,
            Cause::CertificatesNotYetValid,
        ),
        // ENOSPC as podman reports a blob write.
        (
            "Error: writing blob: storing blob to file \"/var/tmp/container_images_storage1/1\": write /var/tmp/container_images_storage1/1: no space left on device",
            Some("release-image"),
            Cause::DiskFull,
        ),
    ];

    #[test]
    fn real_lines_name_their_cause_and_no_other() {
        for (line, service, want) in REAL_LINES {
            assert_eq!(Cause::recognise(line, *service), Some(*want), "{line}");
        }
        assert_eq!(Cause::recognise("Starting bootkube.service", None), None);
        // The payload's etcd starting normally in a namespace without a default route (the
        // first mcs-port fault run took this info line for etcd failing).
        let info = r#"{"level":"info","ts":"2026-11-26T22:13:37.237Z","caller":"etcdmain/etcd.go:110","msg":"failed to detect default host","error":"could not find default route"}"#;
        assert_eq!(Cause::recognise(info, None), None);
    }

    /// cluster-bootstrap's retries while the cluster-version operator has not yet created a
    /// namespace or served a CRD (from the mcs-port fault run, where the masters never came),
    /// and the cluster-version operator's own sync error for a release manifest whose CRD the
    /// monitoring operator brings later (from the api-int-dns fault run), against what
    /// cluster-bootstrap is refused for good (the bad-user-manifest fault's manifests).
    #[test]
    fn the_pull_retry_lines_name_the_pull_upstreams_and_ours() {
        let upstream = "Pull failed. Retrying quay.io/okd/scos-release:4.19.0-okd-scos.19...";
        assert_eq!(
            Cause::recognise(upstream, Some("release-image")),
            Some(Cause::ReleaseImagePull)
        );
        let ours = "The release image quay.io/okd/scos-release:4.19.0-okd-scos.19 could not be \
                    fetched; trying again in 4s";
        assert_eq!(
            Cause::recognise(ours, Some("release-image")),
            Some(Cause::ReleaseImagePull)
        );
        let node = "The node image quay.io/okd/scos-content@sha256:4f8a could not be fetched; \
                    trying again in 10s";
        assert_eq!(Cause::recognise(node, None), Some(Cause::NodeImagePull));
    }

    #[test]
    fn a_manifest_waiting_for_the_release_is_no_refusal() {
        for waiting in [
            r#""0000_00_cluster-version-operator_01_admingate_configmap.yaml": failed to create configmaps.v1./admin-gates -n openshift-config-managed: namespaces "openshift-config-managed" not found"#,
            r#"Failed to create "99_openshift-machineconfig_99-worker-ssh.yaml" machineconfigs.v1.machineconfiguration.openshift.io/99-worker-ssh -n : the server could not find the requested resource"#,
            r#"Failed to create "99_openshift-machineconfig_99-master-ssh.yaml" machineconfigs.v1.machineconfiguration.openshift.io/99-master-ssh -n : no matches for kind "MachineConfig" in version "machineconfiguration.openshift.io/v1""#,
            r#"I1127 06:00:13.810222       1 sync_worker.go:1213] Update error 316 of 325: UpdatePayloadResourceTypeMissing Could not update servicemonitor "openshift-machine-config-operator/machine-config-operator" (316 of 325): the server does not recognize this resource, check extension API servers (*errors.withStack: failed to get resource type: no matches for kind "ServiceMonitor" in version "monitoring.coreos.com/v1")"#,
        ] {
            assert_eq!(
                Cause::recognise(waiting, Some("bootkube")),
                None,
                "{waiting}"
            );
        }
        for refused in [
            r#"Failed to create "99-user-widget.yaml" widgets.v1.widgets.example.com/my-widget -n default: no matches for kind "Widget" in version "widgets.example.com/v1""#,
            r#"Failed to create "99-bad-configmap.yaml" configmaps.v1./Not_A_DNS_Name -n kube-system: ConfigMap "Not_A_DNS_Name" is invalid: metadata.name: Invalid value: "Not_A_DNS_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters"#,
        ] {
            assert_eq!(
                Cause::recognise(refused, Some("bootkube")),
                Some(Cause::UserManifest),
                "{refused}"
            );
        }
    }

    /// The table's fault column names one cause per row: no fault name is another cause's
    /// fault or id.
    #[test]
    fn fault_names_name_one_cause_each() {
        for c in Cause::ALL {
            assert!(!c.summary().is_empty() && !c.remedy().is_empty());
            for other in Cause::ALL.into_iter().filter(|o| *o != c) {
                assert_ne!(c.fault(), other.fault());
                assert_ne!(c.fault(), other.id());
            }
        }
        assert_eq!(Cause::CertificatesExpired.fault(), "clock-ahead");
    }

    /// The README's `## Troubleshooting` table is generated from the catalogue;
    /// `OKD_INSTALL_BLESS=1 cargo test -p contract` rewrites it.
    #[test]
    fn readme_troubleshooting_table_is_generated() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
        let readme = std::fs::read_to_string(&path).expect("README.md");
        let start = readme
            .find("| fault | what okd-install says | what to do |")
            .expect("README.md has the troubleshooting table under ## Troubleshooting");
        let end = readme[start..]
            .find("\n\n")
            .map_or(readme.len(), |e| start + e + 1);
        let want = troubleshooting_table();
        if readme[start..end] == want {
            return;
        }
        if std::env::var_os("OKD_INSTALL_BLESS").is_some() {
            let fresh = format!("{}{want}{}", &readme[..start], &readme[end..]);
            std::fs::write(&path, fresh).expect("write README.md");
            return;
        }
        panic!(
            "README.md's troubleshooting table is not the generated one; run \
             OKD_INSTALL_BLESS=1 cargo test -p contract to rewrite it. Want:\n{want}"
        );
    }
}
