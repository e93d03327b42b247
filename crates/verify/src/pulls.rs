//! `--online`'s pull preflight: will the bootstrap host be able to pull the release image
//! and every image the release names?
//!
//! Each image is routed as the host's registries.conf routes it (the entries come from
//! [`assets::bootstrap::registries`], the code that writes that file): the longest source
//! prefix that covers the image's repository decides; a pull by digest tries that entry's
//! mirrors in order, then the source unless it is blocked; a pull by tag, and an image no
//! entry covers, goes to the source. Every candidate is asked with the host's trust
//! (system store plus `additionalTrustBundle`), proxy and pull secret
//! ([`registry_probe::Prober`]); the first that serves the manifest is the one the host
//! would use, and from it the host then fetches the platform's manifest of a list, the
//! config and every layer: each is asked of that registry too (a mirror left incomplete
//! serves the manifest and lacks a layer). Verdicts are grouped: many images failing the
//! same way are one finding.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use contract::registry_error::{PullError, RegistryFault};
use ignition::RegistryContext;
use registry_probe::{Contents, Failure, ImageRef, Pin, Prober, Proxy, PullSecret, Settings};
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;

use crate::Options;
use crate::material::Material;
use crate::report::{Report, Status};

/// Where a release lists the images it is made of.
const IMAGE_REFERENCES: &str = "release-manifests/image-references";
/// The largest layer read while looking for it (a release keeps it in a small last layer).
const MAX_LAYER: usize = 256 << 20;
/// Bound of each TLS handshake and each request with its answer.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// Images named in one finding before "and N more".
const NAMED_IMAGES: usize = 3;
/// The bootstrap host's proxy settings, as okd-install writes them into its config.
const PROXY_ENV: &str = "/etc/systemd/system.conf.d/10-default-env.conf";
/// The bootstrap config's script that pulls the release image, and the variable naming it.
const RELEASE_SCRIPT: (&str, &str) = ("/usr/local/bin/release-image.sh", "RELEASE_IMAGE");
/// bootkube.sh, and the variable naming the release (`MAJOR.MINOR`) the config is for.
const TARGET_SCRIPT: (&str, &str) = ("/usr/local/bin/bootkube.sh", "TARGET_MINOR");

/// The release image the bootstrap host pulls and the release it was generated for, as
/// the bootstrap config says them (the state file does not keep the release flags).
fn release_of(m: &Material) -> Result<(String, &'static releases::Release), String> {
    let bootstrap = m.bootstrap.as_ref().ok_or(
        "no bootstrap config to read the release image from, so no pull was checked; run \
         `okd-install create ignition-configs` first",
    )?;
    let value = |(file, var): (&str, &str)| {
        let text = bootstrap.text(file)?;
        text.lines().find_map(|l| {
            l.trim()
                .strip_prefix(var)?
                .strip_prefix("='")?
                .strip_suffix('\'')
                .map(str::to_string)
        })
    };
    let missing = |what: &str| {
        format!(
            "{}: {what} not found, so no pull was checked",
            bootstrap.name
        )
    };
    let image = value(RELEASE_SCRIPT).ok_or_else(|| missing(RELEASE_SCRIPT.0))?;
    let minor = value(TARGET_SCRIPT).ok_or_else(|| missing(TARGET_SCRIPT.0))?;
    let release = minor
        .parse()
        .ok()
        .and_then(|m| releases::table().get(m))
        .ok_or_else(|| {
            format!(
                "{}: release {minor} is not one okd-install knows",
                bootstrap.name
            )
        })?;
    Ok((image, release))
}

/// How the host's registries.conf sends the pull of one image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Route {
    /// Where to pull from, in the host's order.
    pub candidates: Vec<ImageRef>,
    /// The registries.conf source that covers the image, if any.
    pub rule: Option<String>,
    /// That source is blocked (`NeverContactSource`).
    pub blocked: bool,
    /// registries.conf has mirror entries at all (a mirrored site): there an image no entry
    /// covers is a gap in them; without any, pulling from the source is the plan.
    pub mirrored_site: bool,
}

/// The route of `image` through `registries` (registries.conf's entries).
pub(crate) fn route(image: &ImageRef, registries: &[RegistryContext]) -> Route {
    let name = image.name();
    let rule = registries
        .iter()
        .filter(|r| covers(&r.source, &name))
        .max_by_key(|r| r.source.len());
    let Some(rule) = rule else {
        return Route {
            candidates: vec![image.clone()],
            rule: None,
            blocked: false,
            mirrored_site: !registries.is_empty(),
        };
    };
    let mut candidates = Vec::new();
    // registries.conf sets mirror-by-digest-only: a tag is never asked of a mirror.
    if let Pin::Digest(_) = image.pin {
        let rest = &name[rule.source.len()..];
        for mirror in &rule.mirrors {
            if let Ok(m) = ImageRef::parse(&format!("{mirror}{rest}@{}", image.reference())) {
                candidates.push(m);
            }
        }
    }
    if !rule.blocked {
        candidates.push(image.clone());
    }
    Route {
        candidates,
        rule: Some(rule.source.clone()),
        blocked: rule.blocked,
        mirrored_site: true,
    }
}

/// Whether a registries.conf location covers the repository `name`: the same, or a
/// parent path of it.
fn covers(source: &str, name: &str) -> bool {
    name == source || name.starts_with(&format!("{source}/"))
}

/// What happened to one image.
#[derive(Debug, Clone)]
struct Verdict {
    image: ImageRef,
    route: Route,
    /// The candidate that served it, if one did.
    served: Option<ImageRef>,
    /// Candidates that failed before it (all of them when none served).
    failed: Vec<(ImageRef, Failure)>,
    /// What the serving candidate's manifest says the pull fetches next.
    contents: Option<Contents>,
    /// The candidate that served the manifest lacks a blob (or the platform's manifest):
    /// the last of `failed` is why the pull fails; the host tries no other candidate then.
    blob_failed: bool,
}

/// Runs the preflight.
pub(crate) fn check_all(m: &Material, opts: &Options, report: &mut Report) {
    let Some(ic) = &m.install_config else {
        return report.error(
            "pull.release",
            assets::layout::INSTALL_CONFIG,
            "needed for the pull checks (mirrors, pull secret, trust bundle, proxy)",
        );
    };
    let (release_image, release) = match release_of(m) {
        Ok(r) => r,
        Err(e) => return report.error("pull.release", "release image", e),
    };
    let release_image = match ImageRef::parse(&release_image) {
        Ok(r) => r,
        Err(e) => return report.error("pull.release", "release image", e.to_string()),
    };
    let registries = assets::bootstrap::registries(ic, release);
    let settings = match settings(m, ic, opts) {
        Ok(s) => s,
        Err(e) => return report.error("pull.proxy", assets::layout::INSTALL_CONFIG, e),
    };
    let prober = Arc::new(Prober::new(settings, PullSecret::parse(&ic.pull_secret)));
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return report.error("pull.release", "release image", e.to_string()),
    };
    runtime.block_on(run(prober, release_image, registries, report));
}

/// The release image first (its references are read from the registry that serves it),
/// then every image it names, all at once.
async fn run(
    prober: Arc<Prober>,
    release_image: ImageRef,
    registries: Vec<RegistryContext>,
    report: &mut Report,
) {
    let release_subject = format!("release image {release_image}");
    let started = Instant::now();
    let mut release = [pull(
        &prober,
        release_image.clone(),
        route(&release_image, &registries),
    )
    .await];
    let mut blob_time = check_blobs(&prober, &mut release).await;
    let [release] = release;
    let Some(served) = release.served.clone() else {
        report_group(report, &release_subject, &[release]);
        if let Some(last) = report.checks.last_mut() {
            last.message
                .push_str("; the images the release names were not checked, as it was not read");
        }
        return;
    };
    report_group(report, &release_subject, std::slice::from_ref(&release));
    let images = match prober.read_file(&served, IMAGE_REFERENCES, MAX_LAYER).await {
        Ok(Some(text)) => references(&text),
        Ok(None) => Err(format!("{served} holds no {IMAGE_REFERENCES}")),
        Err(e) => Err(e.to_string()),
    };
    let images = match images {
        Ok(i) => i,
        Err(e) => {
            return report.warn(
                "pull.references",
                &release_image.to_string(),
                format!(
                    "the images the release names were not checked: {e}; the bootstrap host \
                     pulls them as it runs"
                ),
            );
        }
    };
    let mut tasks = tokio::task::JoinSet::new();
    for (index, image) in images.into_iter().enumerate() {
        let prober = prober.clone();
        let route = route(&image, &registries);
        tasks.spawn(async move { (index, pull(&prober, image, route).await) });
    }
    let mut verdicts = Vec::new();
    while let Some(done) = tasks.join_next().await {
        if let Ok(v) = done {
            verdicts.push(v);
        }
    }
    verdicts.sort_by_key(|(i, _)| *i);
    let mut verdicts: Vec<Verdict> = verdicts.into_iter().map(|(_, v)| v).collect();
    blob_time += check_blobs(&prober, &mut verdicts).await;
    report_all(report, &verdicts);
    report_blobs(report, &release, &verdicts, started.elapsed(), blob_time);
}

/// Asks the registry that served each verdict's manifest for every blob its pull fetches
/// (all verdicts' blobs at once, bounded by the prober's requests in flight); a missing
/// one fails the verdict. Returns the wall time it took.
async fn check_blobs(prober: &Arc<Prober>, verdicts: &mut [Verdict]) -> Duration {
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for (index, v) in verdicts.iter().enumerate() {
        let Some(contents) = &v.contents else {
            continue;
        };
        for (order, blob) in contents.blobs.iter().enumerate() {
            let prober = prober.clone();
            let image = contents.manifest.clone();
            let blob = blob.clone();
            tasks.spawn(async move {
                let result = prober.blob_present(&image, &blob).await;
                (index, order, result)
            });
        }
    }
    // The first failing blob in the manifest's order is the one named.
    let mut first: BTreeMap<usize, (usize, Failure)> = BTreeMap::new();
    while let Some(done) = tasks.join_next().await {
        if let Ok((index, order, Err(f))) = done
            && first.get(&index).is_none_or(|(o, _)| order < *o)
        {
            first.insert(index, (order, f));
        }
    }
    for (index, (_, failure)) in first {
        let v = &mut verdicts[index];
        if let Some(served) = v.served.take() {
            v.failed.push((served, failure));
            v.blob_failed = true;
        }
    }
    started.elapsed()
}

/// One finding counting the blobs asked of the serving registries, and the time the
/// checks took beside the whole preflight's.
fn report_blobs(
    report: &mut Report,
    release: &Verdict,
    verdicts: &[Verdict],
    total: Duration,
    blobs: Duration,
) {
    let all: Vec<&Verdict> = std::iter::once(release).chain(verdicts).collect();
    let count = |v: &&Verdict| v.contents.as_ref().map_or(0, |c| c.blobs.len());
    let present: usize = all.iter().filter(|v| v.served.is_some()).map(count).sum();
    let images = all.iter().filter(|v| v.served.is_some()).count();
    report.ok(
        "pull.blobs",
        &format!("{images} images"),
        format!(
            "the registries that serve them hold all {present} blobs (configs and layers) \
             their pulls fetch; asking for them took {:.2} s of the preflight's {:.2} s",
            blobs.as_secs_f64(),
            total.as_secs_f64()
        ),
    );
}

/// Tries the route's candidates in order until one serves the manifest (and, for a
/// list, the platform's manifest).
async fn pull(prober: &Prober, image: ImageRef, route: Route) -> Verdict {
    let mut failed = Vec::new();
    for candidate in &route.candidates {
        match prober.contents(candidate).await {
            Ok(contents) => {
                return Verdict {
                    served: Some(candidate.clone()),
                    image,
                    route,
                    failed,
                    contents: Some(contents),
                    blob_failed: false,
                };
            }
            Err(f) => failed.push((candidate.clone(), f)),
        }
    }
    Verdict {
        image,
        route,
        served: None,
        failed,
        contents: None,
        blob_failed: false,
    }
}

/// The images `image-references` (an ImageStream) names, each once, in its order.
fn references(text: &[u8]) -> Result<Vec<ImageRef>, String> {
    let json: serde_json::Value =
        serde_json::from_slice(text).map_err(|e| format!("{IMAGE_REFERENCES} is not JSON: {e}"))?;
    let tags = json["spec"]["tags"]
        .as_array()
        .ok_or_else(|| format!("{IMAGE_REFERENCES} has no spec.tags"))?;
    let mut out: Vec<ImageRef> = Vec::new();
    for tag in tags {
        let Some(name) = tag["from"]["name"].as_str() else {
            continue;
        };
        let image = ImageRef::parse(name).map_err(|e| format!("{IMAGE_REFERENCES}: {e}"))?;
        if !out.contains(&image) {
            out.push(image);
        }
    }
    Ok(out)
}

/// How the host connects: its trust, proxy, the `--resolve` overrides, bounded waits.
fn settings(
    m: &Material,
    ic: &installconfig::InstallConfig,
    opts: &Options,
) -> Result<Settings, String> {
    let mut anchors = registry_probe::system_anchors();
    let bundle = ic.additional_trust_bundle.clone().unwrap_or_default();
    anchors.extend(
        CertificateDer::pem_slice_iter(bundle.as_bytes())
            .filter_map(Result::ok)
            .map(CertificateDer::into_owned),
    );
    let (https_proxy, no_proxy) = host_proxy(m).unwrap_or_else(|| {
        let p = ic.proxy.clone().unwrap_or_default();
        (p.https_proxy, p.no_proxy)
    });
    let proxy = Proxy::new(&https_proxy, &no_proxy).map_err(|e| e.to_string())?;
    Ok(Settings {
        anchors,
        overrides: opts.endpoints.clone(),
        proxy,
        connect_timeout: opts.connect_timeout,
        request_timeout: REQUEST_TIMEOUT,
        max_connections: opts.pull_connections,
    })
}

/// `HTTPS_PROXY` and `NO_PROXY` as the bootstrap config gives them to the host's units
/// (its computed no-proxy list, not only the install-config's), when a config is there.
fn host_proxy(m: &Material) -> Option<(String, String)> {
    let text = m.bootstrap.as_ref()?.text(PROXY_ENV)?;
    let value = |key: &str| {
        text.lines()
            .find_map(|l| {
                l.trim()
                    .strip_prefix("DefaultEnvironment=\"")?
                    .strip_prefix(key)?
                    .strip_prefix('=')?
                    .strip_suffix('"')
                    .map(str::to_string)
            })
            .unwrap_or_default()
    };
    Some((value("HTTPS_PROXY"), value("NO_PROXY")))
}

/// Findings for the images the release names, grouped by what happened to them.
fn report_all(report: &mut Report, verdicts: &[Verdict]) {
    let mut groups: BTreeMap<String, Vec<Verdict>> = BTreeMap::new();
    for v in verdicts {
        groups.entry(signature(v)).or_default().push(v.clone());
    }
    // Failures first, then detours, then the served: what to fix is read first.
    let mut ordered: Vec<Vec<Verdict>> = groups.into_values().collect();
    ordered.sort_by_key(|g| (std::cmp::Reverse(status(&g[0])), std::cmp::Reverse(g.len())));
    for group in &ordered {
        let subject = match group.as_slice() {
            [one] => one.image.to_string(),
            many => format!("{} images", many.len()),
        };
        report_group(report, &subject, group);
    }
}

/// What makes two verdicts one finding: who served (or that none did), and each failed
/// candidate's registry, fault and detail (not its image).
fn signature(v: &Verdict) -> String {
    let failed: Vec<String> = v
        .failed
        .iter()
        .map(|(c, f)| {
            format!(
                "{}|{:?}|{}",
                c.registry,
                f.fault,
                f.detail.as_deref().unwrap_or_default()
            )
        })
        .collect();
    format!(
        "{:?}|{:?}|{}|{}|{}",
        v.served.as_ref().map(|s| &s.registry),
        v.blob_failed,
        v.route.rule.is_some(),
        v.route.blocked,
        failed.join("||")
    )
}

fn status(v: &Verdict) -> Status {
    match (&v.served, v.failed.is_empty()) {
        (None, _) => Status::Error,
        (Some(_), false) => Status::Warning,
        (Some(_), true) => Status::Ok,
    }
}

/// One finding for verdicts that went the same way.
fn report_group(report: &mut Report, subject: &str, group: &[Verdict]) {
    let first = &group[0];
    let one = group.len() == 1;
    let image = |c: &ImageRef| one.then(|| c.to_string());
    let tried: Vec<String> = first
        .failed
        .iter()
        .map(|(c, f)| f.reason(image(c)))
        .collect();
    let named = if one {
        String::new()
    } else {
        let mut names: Vec<String> = group
            .iter()
            .take(NAMED_IMAGES)
            .map(|v| v.image.to_string())
            .collect();
        if group.len() > NAMED_IMAGES {
            names.push(format!("and {} more", group.len() - NAMED_IMAGES));
        }
        format!(": {}", names.join(", "))
    };
    match &first.served {
        Some(by) => {
            let via = match &first.route.rule {
                Some(source) if by.registry != first.image.registry => {
                    format!(" (a mirror of {source})")
                }
                _ => String::new(),
            };
            let msg = format!("served by `{}`{via}{named}", by.registry);
            if tried.is_empty() {
                report.ok("pull.served", subject, msg);
            } else {
                report.warn(
                    "pull.detour",
                    subject,
                    format!(
                        "{msg}, but only after {}; the host tries in the same order on every pull",
                        tried.join("; then ")
                    ),
                );
            }
        }
        None => {
            let (id, why, fix) = failure_words(first, &tried);
            report.error(
                &format!("pull.{id}"),
                subject,
                format!(
                    "cannot be pulled: {why}. Fix: {fix}{}",
                    if one {
                        String::new()
                    } else {
                        format!(". The images{named}")
                    }
                ),
            );
        }
    }
}

/// The check id, the reason and the remedy of a verdict no candidate served.
fn failure_words(v: &Verdict, tried: &[String]) -> (String, String, String) {
    let name = v.image.name();
    let first = if v.blob_failed {
        v.failed.last()
    } else {
        v.failed.first()
    }
    .map(|(_, f)| f);
    let remedy = first
        .and_then(|f| f.pull_error(None))
        .map(|e| e.remedy())
        .unwrap_or_else(|| {
            "check the registry's log for what it answered, and that it is a container \
             registry"
                .to_string()
        });
    // The registry answered and sent the host to its token service, which did not: the fix
    // is the token service's (the registry's own fix would point at imageDigestSources).
    let remedy = match v
        .failed
        .first()
        .filter(|_| !v.blob_failed)
        .and_then(|(c, f)| Some((c, f.token_service.as_deref()?)))
    {
        Some((candidate, realm)) => format!(
            "make the token service `{realm}` that `{}` sends clients to reachable from the \
             bootstrap host (running, its name resolving, its certificate from a CA the host \
             trusts: additionalTrustBundle), or correct the realm in the registry's token \
             settings",
            candidate.registry
        ),
        None => remedy,
    };
    if let Some(proxy) = first.and_then(|f| f.proxy.as_deref()) {
        return (
            "proxy".to_string(),
            tried.join("; then "),
            format!(
                "check proxy.httpsProxy and proxy.noProxy in install-config.yaml (the host sends \
                 `{}` through `{proxy}`), and that the proxy runs and may reach it",
                v.failed[0].1.registry
            ),
        );
    }
    // A blob that failed is the registry's own fault, whatever the route: the rules are right.
    let route = (!v.blob_failed).then_some((&v.route.rule, v.route.blocked));
    match route {
        Some((None, _)) if v.route.mirrored_site => (
            "no-mirror-rule".to_string(),
            format!(
                "no imageDigestSources (or imageContentSources) entry covers {name}, so the \
                 host pulls from the source, and {}",
                tried.join("; then ")
            ),
            format!(
                "add a mirror of {name} to imageDigestSources and mirror the image there, then \
                 create the Ignition configs again (or make {} reachable from the bootstrap \
                 host)",
                v.image.registry
            ),
        ),
        Some((Some(_), true)) => {
            let blocked = PullError {
                image: None,
                registry: Some(v.image.registry.clone()),
                ..PullError::new(RegistryFault::Blocked)
            };
            let mut why = tried.join("; then ");
            if why.is_empty() {
                why = format!(
                    "it is pulled by tag and mirrors serve pulls by digest only, and {}",
                    blocked.reason()
                );
            } else {
                why = format!("{why}; and {}", blocked.reason());
            }
            let id = first
                .and_then(|f| f.fault)
                .map_or("blocked", RegistryFault::id);
            let fix = if first.is_some() {
                remedy
            } else {
                blocked.remedy()
            };
            (id.to_string(), why, fix)
        }
        _ => (
            first
                .and_then(|f| f.fault)
                .map_or("unrecognised", RegistryFault::id)
                .to_string(),
            tried.join("; then "),
            remedy,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(source: &str, mirrors: &[&str], blocked: bool) -> RegistryContext {
        RegistryContext {
            source: source.into(),
            mirrors: mirrors.iter().map(|m| m.to_string()).collect(),
            blocked,
        }
    }

    fn image(s: &str) -> ImageRef {
        ImageRef::parse(s).unwrap()
    }

    /// The longest covering source wins; mirrors by digest in order, then the source unless
    /// blocked; a tag goes to the source only; a neighbour path is not covered.
    #[test]
    fn images_route_as_registries_conf_routes_them() {
        let regs = [
            rule("quay.io/okd", &["m1.example.com/okd"], false),
            rule(
                "quay.io/okd/scos-content",
                &["m2.example.com:5000/c", "m3.example.com/c"],
                true,
            ),
        ];
        let content = route(&image("quay.io/okd/scos-content@sha256:aa"), &regs);
        assert_eq!(
            content
                .candidates
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            [
                "m2.example.com:5000/c@sha256:aa",
                "m3.example.com/c@sha256:aa"
            ]
        );
        assert!(content.blocked);
        let release = route(&image("quay.io/okd/scos-release@sha256:bb"), &regs);
        assert_eq!(
            release
                .candidates
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            [
                "m1.example.com/okd/scos-release@sha256:bb",
                "quay.io/okd/scos-release@sha256:bb"
            ]
        );
        let tagged = route(&image("quay.io/okd/scos-content:4.19"), &regs);
        assert!(tagged.candidates.is_empty() && tagged.blocked);
        let neighbour = route(&image("quay.io/okdx/a@sha256:cc"), &regs);
        assert_eq!(neighbour.rule, None);
        assert_eq!(neighbour.candidates, [image("quay.io/okdx/a@sha256:cc")]);
    }

    #[test]
    fn image_references_are_read_once_each() {
        let text = br#"{"kind":"ImageStream","spec":{"tags":[
            {"name":"a","from":{"kind":"DockerImage","name":"quay.io/okd/c@sha256:1"}},
            {"name":"b","from":{"kind":"DockerImage","name":"quay.io/okd/c@sha256:1"}},
            {"name":"c","from":{"kind":"DockerImage","name":"quay.io/okd/c@sha256:2"}}]}}"#;
        let refs = references(text).unwrap();
        assert_eq!(refs.len(), 2);
        assert!(references(b"{}").is_err());
    }

    fn failed(reg: &str, fault: RegistryFault) -> Failure {
        Failure {
            registry: reg.into(),
            fault: Some(fault),
            detail: None,
            proxy: None,
            token_service: None,
            status: None,
            code: None,
            operation: Default::default(),
        }
    }

    /// Many images failing the same way are one finding that counts and names some of them.
    #[test]
    fn failures_of_one_kind_are_one_finding() {
        let regs = [rule(
            "quay.io/okd/c",
            &["mirror.example.com:5000/okd/c"],
            false,
        )];
        let verdicts: Vec<Verdict> = (0..5)
            .map(|i| {
                let img = image(&format!("quay.io/okd/c@sha256:{i}"));
                let r = route(&img, &regs);
                let failed = r
                    .candidates
                    .iter()
                    .map(|c| {
                        let fault = if c.registry == "quay.io" {
                            RegistryFault::NameNotResolved
                        } else {
                            RegistryFault::ManifestUnknown
                        };
                        (c.clone(), failed(&c.registry, fault))
                    })
                    .collect();
                Verdict {
                    image: img,
                    route: r,
                    served: None,
                    failed,
                    contents: None,
                    blob_failed: false,
                }
            })
            .collect();
        let mut report = Report::default();
        report_all(&mut report, &verdicts);
        assert_eq!(report.checks.len(), 1, "{report:?}");
        let check = &report.checks[0];
        assert_eq!(check.id, "pull.manifest-unknown");
        assert_eq!(check.subject, "5 images");
        assert!(check.message.ends_with("and 2 more"), "{}", check.message);
        assert!(
            check
                .message
                .contains("`mirror.example.com:5000` does not hold"),
            "{}",
            check.message
        );
        assert!(
            check.message.contains("`quay.io` does not resolve"),
            "{}",
            check.message
        );
    }

    /// Without any mirror entry (a connected install) the source is the plan: its failure is
    /// named as such, never as a missing mirror rule; on a mirrored site the same image is.
    #[test]
    fn a_missing_mirror_rule_is_named_only_on_a_mirrored_site() {
        let img = image("quay.io/okd/scos-release@sha256:1");
        let named = |regs: &[RegistryContext]| {
            let r = route(&img, regs);
            let failed = vec![(
                img.clone(),
                failed("quay.io", RegistryFault::NameNotResolved),
            )];
            let mut report = Report::default();
            report_all(
                &mut report,
                &[Verdict {
                    image: img.clone(),
                    route: r,
                    served: None,
                    failed,
                    contents: None,
                    blob_failed: false,
                }],
            );
            report.checks[0].id.clone()
        };
        assert_eq!(named(&[]), "pull.name-not-resolved");
        let other = [rule(
            "quay.io/okd/scos-content",
            &["m.example.com/c"],
            false,
        )];
        assert_eq!(named(&other), "pull.no-mirror-rule");
    }
}
