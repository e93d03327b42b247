//! The fault matrix of pulls: every class of registry fault the reader knows, and answers
//! no registry gives on purpose, each made for real and read twice, from what the real
//! pullers say and from what the preflight says.
//!
//! The registry is Debian's docker-registry in a network namespace of the test's own
//! (`real_host::mirror`), holding a release image and its component images; in front of it,
//! on a port per case, the test's fault-injecting HTTPS front (`real_host::front`): a
//! certificate of the case's choosing, or no TLS, or silence, and per path a status with a
//! registry error, a dropped connection, a body cut short, damaged bytes. For each case:
//!
//! - skopeo (or podman, for the host's own storage) pulls a component image through the
//!   front; its stderr, as it printed it, goes to the reader (`contract::registry_error`):
//!   the class must be the case's, the line read must name the failing pull's registry,
//!   and its words name the registry and repository and no remedy the class does not
//!   support (no credential advice for a missing blob);
//! - `okd-install verify --online=pulls` is pointed at the front (`--resolve`) and must
//!   name the same class as its one error, under the same rule for its words.
//!
//! No line is written here: every line read comes from the programs at test time.
//! Needs root, the registry's programs, skopeo and podman: skips without them, fails
//! without them under CI=true. Cases run in parallel, each with short timeouts.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use contract::registry_error::{self, Advice, PullContext, PullError, RegistryFault as F};
use real_host::front::{Action, Front, Rule, Serving};
use real_host::mirror::{CONTENT_PATH, CONTENT_SOURCE, Login, Mirror, RELEASE_VERSION, SiteConfig};
use real_host::registry::{Certificate, PORT, RegistrySpec};
use real_host::release::Component;

use crate::support::{bin_path, both, okd, repo_root};

/// The registry's name (its certificate's).
const NAME: &str = "registry.example.com";
/// A name the lab's name server has no record for.
const NOWHERE: &str = "nowhere.example.com";
/// A port of the lab address nothing listens on.
const CLOSED_PORT: u16 = 5399;
/// The first front's port; case `i` gets `FIRST_PORT + i`.
const FIRST_PORT: u16 = 5400;
/// Cases run at once.
const PARALLEL: usize = 8;

/// Where the puller goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// The case's front.
    Front(Face),
    /// A port nobody listens on.
    Closed,
    /// A name nobody made a record for.
    Nowhere,
    /// The registry itself, with the lab's name server stopped.
    ResolverDown,
}

/// What the front serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Face {
    Tls(Certificate),
    Plain,
    Silent,
}

/// Which image is pulled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pulled {
    /// A component image, by digest.
    Component,
    /// An index with no linux/amd64 image.
    ForeignIndex,
}

/// Which program pulls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Puller {
    /// `skopeo copy` to a directory.
    Skopeo,
    /// `podman pull` into a storage whose file system is full.
    PodmanFullStorage,
}

/// What the test knows of the registry's content, for the rules.
struct Known {
    /// The component's manifest digest.
    manifest: String,
    /// Its layer's digest.
    layer: String,
}

struct Case {
    name: &'static str,
    target: Target,
    rules: fn(&Known) -> Vec<Rule>,
    pulled: Pulled,
    login: Login,
    puller: Puller,
    /// The classes the pullers' error may read as (one, but for a 401, whose line alone
    /// cannot tell a missing login from a refused one).
    pullers: &'static [F],
    /// The class the preflight must name, `None` where it cannot see the fault (a blob's
    /// bytes, which it does not fetch; the host's own storage).
    preflight: Option<F>,
    /// Answers no registry gives on purpose.
    odd: bool,
}

const fn case(
    name: &'static str,
    target: Target,
    pullers: &'static [F],
    preflight: Option<F>,
) -> Case {
    Case {
        name,
        target,
        rules: no_rules,
        pulled: Pulled::Component,
        login: Login::Right,
        puller: Puller::Skopeo,
        pullers,
        preflight,
        odd: false,
    }
}

fn no_rules(_: &Known) -> Vec<Rule> {
    Vec::new()
}

const TRUSTED: Target = Target::Front(Face::Tls(Certificate::Trusted));

/// A case answered by the trusted front with `rules`.
const fn front(
    name: &'static str,
    rules: fn(&Known) -> Vec<Rule>,
    class: F,
    preflight: Option<F>,
) -> Case {
    Case {
        rules,
        ..case(name, TRUSTED, one(class), preflight)
    }
}

const fn one(class: F) -> &'static [F] {
    match class {
        F::ConnectionReset => &[F::ConnectionReset],
        F::Timeout => &[F::Timeout],
        F::Denied => &[F::Denied],
        F::ManifestUnknown => &[F::ManifestUnknown],
        F::BlobUnknown => &[F::BlobUnknown],
        F::TooManyRequests => &[F::TooManyRequests],
        F::ServerError => &[F::ServerError],
        F::HttpStatus => &[F::HttpStatus],
        F::DigestMismatch => &[F::DigestMismatch],
        F::UnsupportedMediaType => &[F::UnsupportedMediaType],
        F::Unrecognised => &[F::Unrecognised],
        _ => &[],
    }
}

fn layer_path(k: &Known) -> String {
    format!("/blobs/{}", k.layer)
}

fn manifest_path(k: &Known) -> String {
    format!("/manifests/{}", k.manifest)
}

fn html_502() -> Action {
    Action::Answer {
        status: 502,
        headers: vec![("content-type".into(), "text/html".into())],
        body: b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n".to_vec(),
    }
}

fn cases() -> Vec<Case> {
    let tls = |c| Target::Front(Face::Tls(c));
    vec![
        case(
            "name not resolved",
            Target::Nowhere,
            &[F::NameNotResolved],
            Some(F::NameNotResolved),
        ),
        case(
            "connection refused",
            Target::Closed,
            &[F::ConnectionRefused],
            Some(F::ConnectionRefused),
        ),
        case(
            "silence: no TLS handshake ever",
            Target::Front(Face::Silent),
            &[F::Timeout],
            Some(F::Timeout),
        ),
        case(
            "untrusted CA",
            tls(Certificate::OtherCa),
            &[F::UntrustedCertificate],
            Some(F::UntrustedCertificate),
        ),
        case(
            "certificate for another name",
            tls(Certificate::OtherName),
            &[F::CertificateForOtherName],
            Some(F::CertificateForOtherName),
        ),
        case(
            "certificate not valid yet",
            tls(Certificate::NotYetValid),
            &[F::CertificateNotYetValid],
            Some(F::CertificateNotYetValid),
        ),
        case(
            "certificate expired",
            tls(Certificate::Expired),
            &[F::CertificateExpired],
            Some(F::CertificateExpired),
        ),
        case(
            "plain HTTP on the TLS port",
            Target::Front(Face::Plain),
            &[F::TlsHandshake],
            Some(F::TlsHandshake),
        ),
        Case {
            login: Login::Missing,
            ..case(
                "no credentials (401)",
                TRUSTED,
                &[F::Unauthorized, F::NoCredentials],
                Some(F::Unauthorized),
            )
        },
        Case {
            login: Login::WrongPassword,
            ..case(
                "credentials refused (401)",
                TRUSTED,
                &[F::Unauthorized, F::CredentialsRefused],
                Some(F::Unauthorized),
            )
        },
        front(
            "denied (403)",
            |k| vec![Rule::registry_error(manifest_path(k), 403, "DENIED")],
            F::Denied,
            Some(F::Denied),
        ),
        front(
            "manifest unknown (404)",
            |k| {
                vec![Rule::registry_error(
                    manifest_path(k),
                    404,
                    "MANIFEST_UNKNOWN",
                )]
            },
            F::ManifestUnknown,
            Some(F::ManifestUnknown),
        ),
        front(
            "blob unknown (404): a layer missing",
            |k| vec![Rule::registry_error(layer_path(k), 404, "BLOB_UNKNOWN")],
            F::BlobUnknown,
            Some(F::BlobUnknown),
        ),
        front(
            "too many requests (429)",
            |k| {
                let mut r = Rule::registry_error(manifest_path(k), 429, "TOOMANYREQUESTS");
                if let Action::Answer { headers, .. } = &mut r.action {
                    headers.push(("retry-after".into(), "1".into()));
                }
                vec![r]
            },
            F::TooManyRequests,
            Some(F::TooManyRequests),
        ),
        front(
            "server error (503) on a blob",
            |k| vec![Rule::registry_error(layer_path(k), 503, "UNAVAILABLE")],
            F::ServerError,
            Some(F::ServerError),
        ),
        // containers/image words a registry code it does not know as `unknown: MESSAGE`,
        // without the status: from that line the class cannot be more than unrecognised.
        Case {
            pullers: &[F::HttpStatus, F::Unrecognised],
            ..front(
                "unknown status (451) with a registry code",
                |k| {
                    vec![Rule::registry_error(
                        manifest_path(k),
                        451,
                        "UNAVAILABLE_FOR_LEGAL_REASONS",
                    )]
                },
                F::HttpStatus,
                Some(F::HttpStatus),
            )
        },
        front(
            "unknown status (418) on a blob, no registry body",
            |k| {
                vec![Rule::on(
                    layer_path(k),
                    Action::Answer {
                        status: 418,
                        headers: Vec::new(),
                        body: Vec::new(),
                    },
                )]
            },
            F::HttpStatus,
            Some(F::HttpStatus),
        ),
        front(
            "connection dropped on a blob",
            |k| vec![Rule::on(layer_path(k), Action::Drop)],
            F::ConnectionReset,
            Some(F::ConnectionReset),
        ),
        front(
            "manifest bytes damaged",
            |k| vec![Rule::on(manifest_path(k), Action::Corrupt)],
            F::DigestMismatch,
            Some(F::DigestMismatch),
        ),
        front(
            "layer bytes damaged",
            |k| {
                vec![Rule {
                    method: Some("GET".into()),
                    ..Rule::on(layer_path(k), Action::Corrupt)
                }]
            },
            F::DigestMismatch,
            None,
        ),
        front(
            "manifest of an unknown media type",
            |k| {
                vec![Rule::on(
                    manifest_path(k),
                    Action::Header(
                        "content-type".into(),
                        "application/vnd.example.thing.v1+json".into(),
                    ),
                )]
            },
            F::UnsupportedMediaType,
            Some(F::UnsupportedMediaType),
        ),
        Case {
            pulled: Pulled::ForeignIndex,
            ..case(
                "no image for linux/amd64 in the index",
                TRUSTED,
                &[F::PlatformMissing],
                Some(F::PlatformMissing),
            )
        },
        Case {
            puller: Puller::PodmanFullStorage,
            ..case("the host's storage full", TRUSTED, &[F::StorageFull], None)
        },
        // Answers no registry gives on purpose.
        Case {
            odd: true,
            ..front(
                "200 with the manifest cut short",
                |k| vec![Rule::on(manifest_path(k), Action::Truncate(40))],
                F::ConnectionReset,
                Some(F::ConnectionReset),
            )
        },
        Case {
            odd: true,
            ..front(
                "an HTML error page with 502 for a blob",
                |k| vec![Rule::on(layer_path(k), html_502())],
                F::ServerError,
                Some(F::ServerError),
            )
        },
        Case {
            odd: true,
            ..front(
                "garbage instead of the manifest's JSON",
                |k| {
                    vec![Rule::on(
                        manifest_path(k),
                        Action::Answer {
                            status: 200,
                            headers: vec![(
                                "content-type".into(),
                                "application/vnd.oci.image.manifest.v1+json".into(),
                            )],
                            body: b"\x00\x01not json at all {{{".to_vec(),
                        },
                    )]
                },
                F::DigestMismatch,
                Some(F::DigestMismatch),
            )
        },
        Case {
            odd: true,
            ..front(
                "a blob redirected to itself for ever",
                |k| {
                    let path = format!("/v2/{CONTENT_PATH}/blobs/{}", k.layer);
                    vec![Rule::on(
                        layer_path(k),
                        Action::Answer {
                            status: 307,
                            headers: vec![("location".into(), path)],
                            body: Vec::new(),
                        },
                    )]
                },
                F::Unrecognised,
                Some(F::Unrecognised),
            )
        },
    ]
}

/// The lab, its install directories and what it holds.
struct Lab {
    mirror: Mirror,
    work: PathBuf,
    known: Known,
    /// The index with no linux/amd64 image.
    index: String,
    certs: PathBuf,
}

/// An install directory whose configs send the pulls as `config` says.
fn install_dir(lab: &Lab, name: &str, config: &SiteConfig, release: &str) -> PathBuf {
    let dir = lab.work.join(name);
    std::fs::create_dir_all(&dir).expect("install dir");
    let example = std::fs::read_to_string(repo_root().join("examples/disconnected-mirror.yaml"))
        .expect("the example");
    std::fs::write(
        dir.join("install-config.yaml"),
        lab.mirror.install_config(&example, config),
    )
    .expect("install-config");
    okd(&dir)
        .args(["create", "ignition-configs", "--release-image", release])
        .args(["--release-version", RELEASE_VERSION])
        .assert()
        .success();
    dir
}

/// The digest part of `name@digest`.
fn digest_of(spec: &str) -> String {
    spec.rsplit_once('@').expect("by digest").1.to_string()
}

fn start_lab(work: &Path) -> Lab {
    let spec = RegistrySpec {
        name: NAME.into(),
        user: "matrix".into(),
        password: "matrix-password".into(),
    };
    let names = vec!["etcd".to_string(), "machine-config-operator".to_string()];
    let mirror = Mirror::start("matrix", spec, &names, work)
        .unwrap_or_else(|e| panic!("starting the mirror: {e}"));
    let certs = work.join("certs");
    std::fs::create_dir_all(&certs).expect("certs");
    std::fs::write(certs.join("ca.crt"), &mirror.registry.ca_pem).expect("ca");
    let manifest = digest_of(&mirror.components[0].pull_spec);
    let raw = mirror
        .command("skopeo")
        .args(["inspect", "--raw", "--cert-dir"])
        .arg(&certs)
        .args(["--creds", "matrix:matrix-password"])
        .arg(format!("docker://{NAME}:{PORT}/{CONTENT_PATH}@{manifest}"))
        .output()
        .expect("skopeo inspect");
    assert!(raw.status.success(), "{}", both(&raw));
    let json: serde_json::Value = serde_json::from_slice(&raw.stdout).expect("manifest JSON");
    let known = Known {
        manifest,
        layer: json["layers"][0]["digest"]
            .as_str()
            .expect("layer")
            .to_string(),
    };
    let index = real_host::images::push_index(
        &mirror.registry,
        &mirror.lab,
        CONTENT_PATH,
        "arm64-only",
        ("linux", "arm64"),
        &work.join("index"),
    )
    .unwrap_or_else(|e| panic!("pushing the index: {e}"));
    Lab {
        mirror,
        work: work.to_path_buf(),
        known,
        index,
        certs,
    }
}

/// The install directories: one per pull secret, one whose mirror rules name a name without
/// a record, one whose release names the foreign index.
struct Dirs {
    good: PathBuf,
    no_login: PathBuf,
    wrong_login: PathBuf,
    nowhere: PathBuf,
    index: PathBuf,
}

fn make_dirs(lab: &Lab) -> Dirs {
    let release = lab
        .mirror
        .push_release(&lab.mirror.components, &lab.work.join("release"))
        .unwrap_or_else(|e| panic!("pushing the release: {e}"));
    let index_release = lab
        .mirror
        .push_release(
            &[Component {
                name: "etcd".into(),
                pull_spec: format!("{CONTENT_SOURCE}@{}", lab.index),
            }],
            &lab.work.join("index-release"),
        )
        .unwrap_or_else(|e| panic!("pushing the release: {e}"));
    Dirs {
        good: install_dir(lab, "good", &SiteConfig::default(), &release),
        no_login: install_dir(
            lab,
            "no-login",
            &SiteConfig::with_login(Login::Missing),
            &release,
        ),
        wrong_login: install_dir(
            lab,
            "wrong-login",
            &SiteConfig::with_login(Login::WrongPassword),
            &release,
        ),
        nowhere: install_dir(
            lab,
            "nowhere",
            &SiteConfig {
                mirror_name: Some(NOWHERE.into()),
                ..SiteConfig::default()
            },
            &release,
        ),
        index: install_dir(lab, "index", &SiteConfig::default(), &index_release),
    }
}

/// What a case's pull and preflight said.
struct Said {
    /// What the puller was given.
    reference: String,
    /// The digests the pull fetches that a line may name: the manifest's (or index's) and
    /// the layer's.
    digests: Vec<String>,
    puller: Output,
    preflight: Option<Output>,
    registry: String,
    took: Duration,
}

/// The registry (`host:port`) the case's puller pulls from.
fn puller_registry(case: &Case, port: u16) -> String {
    match case.target {
        Target::Front(_) => format!("{NAME}:{port}"),
        Target::Closed => format!("{NAME}:{CLOSED_PORT}"),
        Target::Nowhere => format!("{NOWHERE}:{PORT}"),
        Target::ResolverDown => format!("{NAME}:{PORT}"),
    }
}

fn run_case(lab: &Lab, dirs: &Dirs, case: &Case, port: u16) -> Said {
    let started = Instant::now();
    let _front = match case.target {
        Target::Front(face) => {
            let serving = match face {
                Face::Tls(c) => {
                    let (cert, key) = lab.mirror.registry.certificate_files(c);
                    Serving::Tls { cert, key }
                }
                Face::Plain => Serving::PlainHttp,
                Face::Silent => Serving::Silent,
            };
            Some(
                Front::start(
                    &lab.mirror.lab.lab_netns,
                    &lab.mirror.registry,
                    port,
                    serving,
                    (case.rules)(&lab.known),
                )
                .unwrap_or_else(|e| panic!("{}: starting the front: {e}", case.name)),
            )
        }
        _ => None,
    };
    let registry = puller_registry(case, port);
    let digest = match case.pulled {
        Pulled::Component => lab.known.manifest.clone(),
        Pulled::ForeignIndex => lab.index.clone(),
    };
    let reference = format!("{registry}/{CONTENT_PATH}@{digest}");
    let scratch = lab.work.join(format!("case-{port}"));
    std::fs::create_dir_all(&scratch).expect("scratch");
    let puller = match case.puller {
        Puller::Skopeo => skopeo(lab, case.login, &reference, &scratch),
        Puller::PodmanFullStorage => podman_full(lab, &reference, &scratch),
    };
    let preflight = case.preflight.map(|_| {
        let dir = match (case.login, case.target, case.pulled) {
            (Login::Missing, ..) => &dirs.no_login,
            (Login::WrongPassword, ..) => &dirs.wrong_login,
            (_, Target::Nowhere, _) => &dirs.nowhere,
            (_, _, Pulled::ForeignIndex) => &dirs.index,
            _ => &dirs.good,
        };
        let mut cmd = lab.mirror.command(bin_path());
        cmd.arg("--dir")
            .arg(dir)
            .args(["verify", "--online=pulls", "--output", "json"]);
        let to = match case.target {
            Target::Front(_) => Some(port),
            Target::Closed => Some(CLOSED_PORT),
            _ => None,
        };
        if let Some(to) = to {
            cmd.arg("--resolve")
                .arg(format!("{NAME}:{PORT}={}:{to}", real_host::LAB_ADDRESS));
        }
        cmd.output().expect("run verify")
    });
    Said {
        reference: reference.clone(),
        digests: vec![digest.clone(), lab.known.layer.clone()],
        puller,
        preflight,
        registry,
        took: started.elapsed(),
    }
}

/// `skopeo copy` of `reference` into a directory, trusting the registry's CA, with the
/// login `login`.
fn skopeo(lab: &Lab, login: Login, reference: &str, scratch: &Path) -> Output {
    let mut cmd = lab.mirror.command("skopeo");
    cmd.args([
        "--insecure-policy",
        "--command-timeout",
        "40s",
        "copy",
        "--retry-times",
        "0",
        "--src-cert-dir",
    ])
    .arg(&lab.certs);
    match login {
        Login::Right => cmd.args(["--src-creds", "matrix:matrix-password"]),
        Login::WrongPassword => cmd.args(["--src-creds", "matrix:not-the-password"]),
        Login::Missing => cmd.arg("--src-no-creds"),
    };
    cmd.arg(format!("docker://{reference}"))
        .arg(format!("dir:{}", scratch.join("copy").display()))
        .env("REGISTRY_AUTH_FILE", scratch.join("no-auth.json"))
        .output()
        .expect("run skopeo")
}

/// `podman pull` into a storage on a small file system filled up after podman set it up,
/// as the host's would be.
fn podman_full(lab: &Lab, reference: &str, scratch: &Path) -> Output {
    let fs = scratch.join("fs");
    std::fs::create_dir_all(&fs).expect("fs");
    let mount = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=4m", "tmpfs"])
        .arg(&fs)
        .output()
        .expect("mount");
    assert!(mount.status.success(), "{}", both(&mount));
    let podman = |args: &[&str]| {
        let mut cmd = lab.mirror.command("podman");
        cmd.arg("--root")
            .arg(fs.join("root"))
            .arg("--runroot")
            .arg(fs.join("run"))
            .args(["--storage-driver", "vfs"])
            .args(args)
            .env("TMPDIR", fs.join("tmp"));
        cmd
    };
    std::fs::create_dir_all(fs.join("tmp")).expect("tmp");
    let _ = podman(&["images"]).output();
    let _ = std::process::Command::new("dd")
        .args(["if=/dev/zero", "bs=64k"])
        .arg(format!("of={}", fs.join("filler").display()))
        .output();
    let out = podman(&[
        "pull",
        "--cert-dir",
        &lab.certs.display().to_string(),
        "--creds",
        "matrix:matrix-password",
        reference,
    ])
    .output()
    .expect("run podman");
    let _ = std::process::Command::new("umount").arg(&fs).status();
    out
}

/// Words a remedy or reason may use only when the class's advice includes it.
fn advice_words(advice: Advice) -> &'static [&'static str] {
    match advice {
        Advice::Credentials => &["pull secret", "credentials"],
        Advice::Trust => &["additionaltrustbundle"],
        Advice::MirrorRules => &["imagedigestsources", "mirror rule"],
    }
}

/// The advice words in `text` that `class` does not support.
pub(crate) fn unsupported_advice(class: F, text: &str) -> Vec<&'static str> {
    let text = text.to_lowercase();
    [Advice::Credentials, Advice::Trust, Advice::MirrorRules]
        .into_iter()
        .filter(|a| !class.advice().contains(a))
        .flat_map(|a| advice_words(a).iter().copied())
        .filter(|w| text.contains(w))
        .collect()
}

/// What is wrong with the reader's reading of the puller's stderr, if anything.
fn judge_puller(case: &Case, said: &Said) -> Vec<String> {
    let mut wrong = Vec::new();
    let stderr = String::from_utf8_lossy(&said.puller.stderr).to_string();
    if said.puller.status.success() {
        return vec![format!("the puller succeeded:\n{}", both(&said.puller))];
    }
    let lines: Vec<String> = stderr.lines().map(str::to_string).collect();
    // What the attempt itself says of the image: podman's `Trying to pull IMAGE...`, or the
    // reference skopeo was given (as a host's gather has the unit's command line).
    let context = PullContext {
        image: PullContext::image_of_lines(lines.iter().map(String::as_str))
            .or_else(|| Some(said.reference.clone())),
        rules: Vec::new(),
    };
    let read: Vec<(String, PullError)> = registry_error::join_continued(&lines)
        .into_iter()
        .filter_map(|l| {
            let pull = registry_error::read_pull(&l)?.in_context(&context);
            let first = pull.first()?.clone();
            Some((l, first))
        })
        .collect();
    let Some((line, error)) = read.last() else {
        return vec![format!(
            "no line of the puller's stderr reads as a pull error:\n{stderr}"
        )];
    };
    if !case.pullers.contains(&error.fault) {
        wrong.push(format!(
            "read as {} instead of {:?}: {line}",
            error.fault.id(),
            case.pullers.iter().map(|f| f.id()).collect::<Vec<_>>()
        ));
    }
    // containers/image's blob errors name the blob, not the registry: the line then
    // belongs to the pull by its digest, and the registry comes from the attempt's context.
    // A local storage error names neither: it belongs to the pull podman announced.
    let announced = PullContext::image_of_lines(lines.iter().map(String::as_str))
        .is_some_and(|i| i == said.reference);
    let names_registry = line.contains(&said.registry);
    if !names_registry && !announced && !said.digests.iter().any(|d| line.contains(d.as_str())) {
        wrong.push(format!(
            "the line read names neither the pull's registry {} nor its digests: {line}",
            said.registry
        ));
    }
    if let Some(evidence) = &error.line
        && !stderr.contains(evidence.as_str())
    {
        wrong.push(format!(
            "the evidence is no line of the puller's: {evidence}"
        ));
    }
    let words = format!("{}\n{}", error.reason(), error.remedy());
    if error.registry.as_deref() != Some(said.registry.as_str()) || !words.contains(&said.registry)
    {
        wrong.push(format!(
            "the registry {} is not named: {error:?}\n{words}",
            said.registry
        ));
    }
    let repository_named = error.repository.as_deref() == Some(CONTENT_PATH)
        || error
            .image
            .as_deref()
            .is_some_and(|i| i.contains(CONTENT_PATH));
    if !repository_named {
        wrong.push(format!(
            "the repository {CONTENT_PATH} is not named: {error:?}"
        ));
    }
    let extra = unsupported_advice(error.fault, &words);
    if !extra.is_empty() {
        wrong.push(format!(
            "advice the evidence does not support ({extra:?}): {words}"
        ));
    }
    wrong
}

/// What is wrong with the preflight's findings, if anything.
fn judge_preflight(case: &Case, said: &Said) -> Vec<String> {
    let (Some(class), Some(out)) = (case.preflight, &said.preflight) else {
        return Vec::new();
    };
    let json: serde_json::Value = match serde_json::from_slice(&out.stdout) {
        Ok(j) => j,
        Err(e) => return vec![format!("verify's JSON: {e}\n{}", both(out))],
    };
    let errors: Vec<(String, String)> = json["checks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["status"] == "error")
        .map(|c| {
            (
                c["id"].as_str().unwrap_or_default().to_string(),
                format!(
                    "{}: {}",
                    c["subject"].as_str().unwrap_or_default(),
                    c["message"].as_str().unwrap_or_default()
                ),
            )
        })
        .collect();
    let ids: BTreeSet<&str> = errors.iter().map(|e| e.0.as_str()).collect();
    let want = format!("pull.{}", class.id());
    let mut wrong = Vec::new();
    if ids != BTreeSet::from([want.as_str()]) {
        wrong.push(format!(
            "the preflight named {ids:?}, not {want}: {errors:#?}"
        ));
    }
    let mirror = match case.target {
        Target::Nowhere => format!("{NOWHERE}:{PORT}"),
        _ => format!("{NAME}:{PORT}"),
    };
    for (_, message) in &errors {
        if !message.contains(&mirror) {
            wrong.push(format!("the registry {mirror} is not named: {message}"));
        }
        let extra = unsupported_advice(class, message);
        if !extra.is_empty() {
            wrong.push(format!(
                "advice the evidence does not support ({extra:?}): {message}"
            ));
        }
    }
    if out.status.code() != Some(9) {
        wrong.push(format!("verify exited {:?}, not 9", out.status.code()));
    }
    wrong
}

/// Every class of the reader, and four answers no registry gives on purpose, each made for
/// real against Debian's docker-registry behind the test's front: the real pullers' stderr
/// reads as the case's class, naming the registry and repository, with no advice the class
/// does not support; the preflight names the same class the same way, where it can see it.
#[test]
fn every_fault_class_reads_the_same_from_the_pullers_and_the_preflight() {
    let mut missing = real_host::registry::missing();
    for (program, package) in [("skopeo", "skopeo"), ("podman", "podman")] {
        if testkit::require::find_program(program).is_none() {
            missing.push(format!("{program} (apt-get install {package})"));
        }
    }
    if !testkit::require(missing.is_empty(), &missing.join("; ")) {
        return;
    }
    let started = Instant::now();
    let work = tempfile::tempdir().expect("temp dir");
    let mut lab = start_lab(work.path());
    let dirs = make_dirs(&lab);
    let set_up = started.elapsed();
    let cases = cases();
    let classes: BTreeSet<&str> = cases
        .iter()
        .flat_map(|c| c.pullers.iter().map(|f| f.id()))
        .collect();
    for class in F::ALL {
        let covered = classes.contains(class.id())
            || matches!(
                class,
                F::ResolverUnreachable
                    | F::Blocked
                    | F::Unreachable
                    | F::NameUnknown
                    | F::StorageError
            );
        assert!(covered, "no case for the class {}", class.id());
    }
    assert!(cases.iter().filter(|c| c.odd).count() >= 3);

    let mut results: Vec<(usize, Said)> = Vec::new();
    let indexed: Vec<(usize, &Case)> = cases.iter().enumerate().collect();
    for chunk in indexed.chunks(PARALLEL) {
        let lab = &lab;
        let dirs = &dirs;
        std::thread::scope(|s| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|(i, case)| {
                    let port = FIRST_PORT + *i as u16;
                    (*i, s.spawn(move || run_case(lab, dirs, case, port)))
                })
                .collect();
            for (i, h) in handles {
                results.push((i, h.join().expect("a case panicked")));
            }
        });
    }
    // The lab's name server down: nothing answers the lookup (every case above needs it).
    let resolver = case(
        "resolver down",
        Target::ResolverDown,
        &[F::ResolverUnreachable],
        Some(F::ResolverUnreachable),
    );
    lab.mirror.registry.stop_name_server();
    let down = run_case(&lab, &dirs, &resolver, 0);
    let m = &mut lab.mirror;
    m.registry
        .answer_name(&m.lab, true)
        .expect("name server back");

    let mut table = Vec::new();
    let mut failures = Vec::new();
    let all: Vec<(&Case, &Said)> = results
        .iter()
        .map(|(i, s)| (&cases[*i], s))
        .chain([(&resolver, &down)])
        .collect();
    for (case, said) in all {
        let mut wrong = judge_puller(case, said);
        wrong.extend(judge_preflight(case, said));
        table.push(format!(
            "{:<45} pullers: {:<40} preflight: {:<28} {:>5.1}s{}",
            case.name,
            case.pullers
                .iter()
                .map(|f| f.id())
                .collect::<Vec<_>>()
                .join("|"),
            case.preflight.map_or("(cannot see it)", F::id),
            said.took.as_secs_f64(),
            if wrong.is_empty() { "" } else { "  WRONG" }
        ));
        if !wrong.is_empty() {
            failures.push(format!("{}:\n  {}", case.name, wrong.join("\n  ")));
        }
    }
    eprintln!(
        "fault matrix: set-up {:.1}s, all {:.1}s\n{}",
        set_up.as_secs_f64(),
        started.elapsed().as_secs_f64(),
        table.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases wrong:\n{}",
        failures.len(),
        cases.len() + 1,
        failures.join("\n")
    );
}
