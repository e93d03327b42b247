//! The cause in the catalogue `wait-for` names too ([`contract::Cause`]), with the host's own
//! error line as evidence and the unit and stage it showed in.
//!
//! The ordered checks and the component diagnosis say *where* the bootstrap stopped; the
//! error lines say *why*. A stopped bootkube looks the same whether etcd's disk was full or
//! its certificates not valid yet, so every line the bundle holds about the failure (the
//! service records' messages, the failing container's log, the journals' ends) is read
//! against the real tools' words ([`contract::Cause::recognise`]) and the most fundamental
//! cause found wins: a full disk explains a failed pull, a wrong clock a failed etcd.

use contract::cause::{Cause, Finding};
use contract::registry_error::{self, PulledImage};

use super::bundle::{BundleFile, Wanted};
use super::create_failures::{self, ManifestFailure};
use super::diagnosis::{self, Component};
use super::pull_evidence;
use super::records::{ServiceSummary, pick};
use super::{Verdict, last_lines};

/// Causes in the order one explains the next: the first found is the root.
const PRIORITY: [Cause; 11] = [
    Cause::DiskFull,
    Cause::CertificatesNotYetValid,
    Cause::CertificatesExpired,
    Cause::NodeImagePull,
    Cause::ReleaseImagePull,
    Cause::ApiIntDns,
    Cause::ApiDns,
    Cause::MachineConfigServerPort,
    Cause::EtcdStart,
    Cause::UserManifest,
    Cause::ManifestNamespace,
];

/// How many lines of each journal are read for error lines.
const JOURNAL_LINES: usize = 60;

/// One line the host wrote, with where it came from.
#[derive(Debug, Clone)]
struct Line {
    text: String,
    unit: Option<String>,
    stage: Option<String>,
}

/// Everything the finding reads.
pub(crate) struct Sources<'a> {
    pub files: &'a [BundleFile],
    pub verdict: &'a Verdict,
    pub component: Option<&'a diagnosis::Cause>,
    pub services: &'a [ServiceSummary],
    /// cluster-bootstrap's manifests not created by the end of bootkube's journal.
    pub manifest_failures: &'a [ManifestFailure],
    /// Whether the bundle holds the asset tree's manifests.
    pub manifests_seen: bool,
}

/// The cause the bundle's lines name, else the one the failed stage or component implies.
///
/// A bootstrap whose services all succeeded, with no failing component, was recovered from
/// what its logs and its failed runs say (a fault since removed, a retry): only a failure
/// its successful runs went past names a cause there, such as an API name that does not
/// resolve on the host, which bootkube.sh checks and tolerates.
///
/// A manifest cluster-bootstrap could not create to the end of its journal, and that nothing
/// will make the API server take, is named with the file, the object, the reason and how
/// often it was tried ([`create_failures::finding`]), whatever bootkube's record says.
pub(crate) fn finding(src: &Sources) -> Option<Finding> {
    let refused = refused_manifest(src);
    let pulls = Pulls::of(src.files);
    if matches!(src.verdict, Verdict::Healthy) && src.component.is_none() {
        return recognised(&service_lines(src, true), refused.as_ref(), &pulls);
    }
    let lines = candidate_lines(src);
    recognised(&lines, refused.as_ref(), &pulls)
        .or_else(|| recognised(&container_lines(src), None, &pulls))
        .or_else(|| implied(src, &lines))
}

/// What the bundle says about the host's pulls beyond a failing line.
struct Pulls<'a> {
    /// The bundle's files: the failing line's journal, the mirror rules.
    files: &'a [BundleFile],
    /// The release image node-image-pull looks the node image up in.
    release: Option<String>,
    /// The registries the pull secret has credentials for, when the bundle names them.
    credentials: Option<Vec<String>>,
}

impl<'a> Pulls<'a> {
    fn of(files: &'a [BundleFile]) -> Pulls<'a> {
        let credentials = files
            .iter()
            .find(|f| f.kind == Wanted::PullSecretRegistries)
            .map(|f| {
                f.text
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect()
            });
        Pulls {
            files,
            release: lookup_release_image(files),
            credentials,
        }
    }

    /// The finding of a failed pull of `image` whose error is `line`: what the line lacks
    /// taken from its attempt's other lines and the mirror rules, and how often it repeated
    /// (with the unit's own last line as context) as details.
    fn finding(&self, cause: Cause, line: &Line, image: &PulledImage) -> Finding {
        let unit = line.unit.as_deref();
        let context = pull_evidence::context(self.files, unit, &line.text);
        let credentials = self.credentials.as_deref();
        let mut f = Finding::pull_in(cause, &line.text, image, credentials, &context);
        if registry_error::read(&line.text).is_some() {
            f.details = pull_evidence::details(self.files, unit, &line.text, &context);
        }
        f
    }
}

/// The release image node-image-pull looks the node image up in, as it said entering that
/// stage last ([`contract::NODE_IMAGE_LOOKUP_SAYS`]).
fn lookup_release_image(files: &[BundleFile]) -> Option<String> {
    let journal = super::journal(files, "node-image-pull", None)?;
    journal.text.lines().rev().find_map(|l| {
        let at = l.find(contract::NODE_IMAGE_LOOKUP_SAYS)?;
        let rest = &l[at + contract::NODE_IMAGE_LOOKUP_SAYS.len()..];
        rest.split_whitespace().next().map(str::to_string)
    })
}

/// The manifest that holds the bootstrap, placed at bootkube and the stage it was in.
fn refused_manifest(src: &Sources) -> Option<Finding> {
    let stage = match src.verdict {
        Verdict::Problem(p) if p.service == "bootkube" => p.stage.clone(),
        _ => None,
    };
    create_failures::finding(
        src.manifest_failures,
        src.manifests_seen,
        Some(unit_name("bootkube")),
        stage,
    )
}

/// The ends of the bootstrap host's container logs, placed at the problem's unit and stage:
/// read only when no service record or journal names a cause. A container that exited once
/// (etcd that could not bind its port, the real etcd-start fault) is no crash loop, so no
/// component carries its log, yet its last line is the host's own reason; read second, a
/// transient error line of a healthy container cannot outrank what the records say.
fn container_lines(src: &Sources) -> Vec<Line> {
    let (unit, stage) = problem_place(src.verdict);
    let mut out = Vec::new();
    for file in src.files {
        if matches!(file.kind, Wanted::ContainerLog) && file.path.contains("/bootstrap/") {
            push_rev(
                &mut out,
                &last_lines(&file.text, JOURNAL_LINES),
                &unit,
                &stage,
            );
        }
    }
    out
}

fn unit_name(service: &str) -> String {
    format!("{service}.service")
}

/// Every service's last failure (newest line first); with `last_run`, only a failure
/// recorded by the service's last run.
fn service_lines(src: &Sources, last_run: bool) -> Vec<Line> {
    let mut out = Vec::new();
    for s in src.services {
        let Some(f) = &s.last_failure else { continue };
        if last_run && !s.last_run_recorded_failure {
            continue;
        }
        let msg: Vec<String> = f
            .error_message
            .as_deref()
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect();
        push_rev(&mut out, &msg, &Some(unit_name(&s.name)), &f.stage);
    }
    out
}

/// The problem's lines first (newest first), then the failing component's log, every
/// service's last failure, and the ends of the journals.
fn candidate_lines(src: &Sources) -> Vec<Line> {
    let mut out = Vec::new();
    let (p_unit, p_stage) = problem_place(src.verdict);
    if let Verdict::Problem(p) = src.verdict {
        // The lines are the service's last failure: placed at the stage that recorded them,
        // which a service still running went past (a tolerated check).
        let failed_in = pick(src.services, &p.service)
            .and_then(|s| s.last_failure.as_ref())
            .and_then(|f| f.stage.clone());
        push_rev(
            &mut out,
            &p.error_lines,
            &p_unit,
            &failed_in.or(p_stage.clone()),
        );
    }
    if let Some(c) = src.component {
        let stage = c.stage.clone().or(p_stage.clone());
        push_rev(&mut out, &c.log_tail, &p_unit, &stage);
    }
    out.extend(service_lines(src, false));
    for file in src.files {
        if let Wanted::Journal(unit) = &file.kind {
            let tail = last_lines(&file.text, JOURNAL_LINES);
            let unit = Some(unit_name(unit));
            // The problem unit's journal ends in the stage the problem names.
            let stage = if unit == p_unit {
                p_stage.clone()
            } else {
                None
            };
            push_rev(&mut out, &tail, &unit, &stage);
        }
    }
    out
}

/// `lines` newest first, a mirrored pull's error joined with its continuation lines
/// ([`registry_error::join_continued`]).
fn push_rev(out: &mut Vec<Line>, lines: &[String], unit: &Option<String>, stage: &Option<String>) {
    let lines = registry_error::join_continued(lines);
    for l in lines.iter().rev().filter(|l| !l.trim().is_empty()) {
        out.push(Line {
            text: tidy(l.trim()),
            unit: unit.clone(),
            stage: stage.clone(),
        });
    }
}

/// A zap (JSON) log line without its Go stack trace: the line is evidence, the trace is noise.
fn tidy(line: &str) -> String {
    match line.find(",\"stacktrace\":") {
        Some(cut) if line.starts_with('{') => format!("{}}}", &line[..cut]),
        _ => line.to_string(),
    }
}

/// The unit and stage of the ordered checks' problem.
fn problem_place(verdict: &Verdict) -> (Option<String>, Option<String>) {
    match verdict {
        Verdict::Problem(p) => (Some(unit_name(&p.service)), p.stage.clone()),
        _ => (None, None),
    }
}

/// The highest-priority cause any line names, with its first such line; `refused`, a
/// manifest cluster-bootstrap kept failing to create, takes its cause's place with what the
/// whole journal says of it. `pulls` tells which image a pull was and the pull secret's
/// registries.
fn recognised(lines: &[Line], refused: Option<&Finding>, pulls: &Pulls<'_>) -> Option<Finding> {
    let found: Vec<(Cause, &Line)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let service = l.unit.as_deref().map(|u| u.trim_end_matches(".service"));
            let cause = Cause::recognise(&l.text, service)?;
            // A line of cluster-bootstrap's create loop was judged with the manifests beside
            // it (`refused`, or a wait such as a CRD among the same manifests).
            let create_loop = cause == Cause::UserManifest
                && contract::create_failure::CreateFailure::parse(&l.text).is_some();
            let settled = create_loop
                || (cause == Cause::UserManifest && created_later(&lines[..i], &l.text))
                || pulled_again(&lines[..i], l);
            (!settled).then_some((cause, l))
        })
        .collect();
    PRIORITY.iter().find_map(|want| {
        if let Some(f) = refused.filter(|f| f.cause == *want) {
            return Some(f.clone());
        }
        // The pull's own error line, not a retry line of our scripts, when the unit has one.
        let (cause, line) = found
            .iter()
            .filter(|(c, _)| c == want)
            .min_by_key(|(_, l)| registry_error::read(&l.text).is_none())?;
        let place = (line.unit.clone(), line.stage.clone());
        Some(match render_stage(line.stage.as_deref()) {
            // A payload image a render step could not pull is that step's failure: the
            // release image itself was pulled, or no render would have started.
            Some(stage) if *cause == Cause::ReleaseImagePull => {
                let image = PulledImage::Component {
                    stage: stage.to_string(),
                };
                let mut f = pulls.finding(Cause::RenderStage, line, &image);
                f.summary = format!("{}: {}", Cause::RenderStage.summary(), f.summary);
                f.at(place.0, place.1)
            }
            _ => match pulled_image(*cause, line, pulls.release.as_deref(), pulls.files) {
                Some(image) => pulls.finding(pull_cause(*cause, &image), line, &image),
                None => Finding::new(*cause, line.text.clone()),
            }
            .at(place.0, place.1),
        })
    })
}

/// Which image a line of a pull cause (or of a certificate cause that is a registry's
/// certificate) was about, by the unit and stage it showed in: node-image-pull pulls the
/// release image first, in its `resolve-node-image` stage, to look the node image up, and
/// there may run a component image of the release too: the image the line names tells
/// which, against the release image the script named (`release`).
fn pulled_image(
    cause: Cause,
    line: &Line,
    release: Option<&str>,
    files: &[BundleFile],
) -> Option<PulledImage> {
    let is_pull = matches!(cause, Cause::NodeImagePull | Cause::ReleaseImagePull);
    let registry_certificate = matches!(
        cause,
        Cause::CertificatesExpired | Cause::CertificatesNotYetValid
    ) && registry_error::read(&line.text)
        .is_some_and(|e| e.image.is_some());
    if !is_pull && !registry_certificate {
        return None;
    }
    let service = line.unit.as_deref().map(|u| u.trim_end_matches(".service"));
    Some(match (service, line.stage.as_deref()) {
        (Some("node-image-pull"), Some(contract::NODE_IMAGE_LOOKUP_STAGE)) => {
            let attempt = pull_evidence::context(files, line.unit.as_deref(), &line.text).image;
            lookup_pull(&line.text, release, attempt)
        }
        (Some("node-image-pull" | "node-image-overlay" | "release-image-pivot"), _) => {
            PulledImage::Node
        }
        (Some("release-image"), _) => PulledImage::Release,
        _ if cause == Cause::NodeImagePull => PulledImage::Node,
        (None, _) => PulledImage::Release,
        _ => PulledImage::Payload,
    })
}

/// The cause of a failed pull by the image it was: node-image-pull's lookup pulls the
/// release image and its component images, which is the release image's pull
/// ([`Cause::ReleaseImagePull`], "the release image or a payload image"), whatever unit
/// pulled it.
fn pull_cause(cause: Cause, image: &PulledImage) -> Cause {
    match image {
        PulledImage::ReleaseForNodeImage
        | PulledImage::LookupComponent
        | PulledImage::LookupImage
            if cause == Cause::NodeImagePull =>
        {
            Cause::ReleaseImagePull
        }
        _ => cause,
    }
}

/// Whether `line` is a registry's answer to a pull that its unit tried again since and got
/// another answer to (a newer line of `newer`, newest first): the pull's last answer is the
/// current fault, an earlier one (a certificate since replaced) is not, whatever its cause's
/// rank.
fn pulled_again(newer: &[Line], line: &Line) -> bool {
    let answered = |l: &Line| registry_error::read_pull(&l.text).is_some_and(|p| p.image.is_some());
    answered(line)
        && newer
            .iter()
            .any(|l| l.unit == line.unit && l.text != line.text && answered(l))
}

/// Which image a pull of the node image lookup stage failed on: a component image when the
/// line names an image other than the release image the script named, else the release
/// image (the only pull of that stage in scripts that name no release image there); the
/// image is the line's, else the one its attempt named (`attempt`).
fn lookup_pull(line: &str, release: Option<&str>, attempt: Option<String>) -> PulledImage {
    let image = registry_error::read_pull(line)
        .and_then(|p| p.image)
        .or(attempt);
    match (image, release) {
        (Some(image), Some(release)) if !same_image(&image, release) => {
            PulledImage::LookupComponent
        }
        (Some(_), _) => PulledImage::ReleaseForNodeImage,
        // podman names a blob by its digest only: either image of the stage.
        (None, _) => PulledImage::LookupImage,
    }
}

/// Whether two pull specs name the same image: the same digest, or the same spec.
fn same_image(a: &str, b: &str) -> bool {
    match (a.split_once('@'), b.split_once('@')) {
        (Some((_, da)), Some((_, db))) => da == db,
        _ => a == b,
    }
}

/// Whether a newer line (`newer`, newest first) says cluster-bootstrap created the manifest
/// file `refusal` names after all: a manifest whose kind's CRD came a little later is
/// refused at first on every bootstrap.
fn created_later(newer: &[Line], refusal: &str) -> bool {
    let Some(file) = refusal
        .split('"')
        .find(|part| part.ends_with(".yaml") || part.ends_with(".yml"))
    else {
        return false;
    };
    let created = format!("created \"{file}\"");
    newer.iter().any(|l| {
        l.text
            .to_ascii_lowercase()
            .contains(&created.to_ascii_lowercase())
    })
}

/// `stage` when it is one of bootkube's render stages.
fn render_stage(stage: Option<&str>) -> Option<&str> {
    stage.filter(|s| {
        contract::BOOTKUBE_RENDER_STAGES
            .iter()
            .any(|(st, _)| st == s)
    })
}

/// No line names a cause: the failed stage or the component does, with a line of the
/// bundle as its evidence (the failing container's last line, else a line of the problem's
/// own unit); with none, no cause is named (the verdict and the component still say where
/// it stopped).
fn implied(src: &Sources, lines: &[Line]) -> Option<Finding> {
    let (unit, stage) = problem_place(src.verdict);
    // The failing container's own last line says more than the script's message about it.
    let own_line = src
        .component
        .and_then(|c| c.log_tail.iter().rev().find(|l| !l.trim().is_empty()))
        .map(|l| l.trim().to_string());
    let unit_line = lines
        .iter()
        .find(|l| unit.is_some() && l.unit == unit)
        .map(|l| l.text.clone());
    let evidence = own_line.or(unit_line)?;
    let cause = match (src.verdict, src.component.map(|c| c.component)) {
        (_, Some(Component::RenderStage)) => Cause::RenderStage,
        (_, Some(Component::Etcd)) => Cause::EtcdStart,
        (Verdict::Problem(p), _)
            if p.service == "node-image-pull"
                && p.stage.as_deref() == Some(contract::NODE_IMAGE_LOOKUP_STAGE) =>
        {
            Cause::ReleaseImagePull
        }
        (Verdict::Problem(p), _) if p.service.starts_with("node-image") => Cause::NodeImagePull,
        (Verdict::Problem(p), _) if p.service == "release-image" => Cause::ReleaseImagePull,
        (Verdict::Problem(p), _) if render_stage(p.stage.as_deref()).is_some() => {
            Cause::RenderStage
        }
        _ => return None,
    };
    let stage = stage.or_else(|| src.component.and_then(|c| c.stage.clone()));
    // A pull no line of which is the registry's answer: which image, and no guessed fix.
    let line = Line {
        text: evidence,
        unit: unit.clone(),
        stage: stage.clone(),
    };
    let f = match pulled_image(cause, &line, None, src.files) {
        Some(image) => Finding::pull(cause, line.text, &image, None),
        None => Finding::new(cause, line.text),
    };
    Some(f.at(unit, stage))
}

/// The ordered checks' problem and the component's cause worded as the finding when the
/// finding is a failed pull of the same unit: the report then says in every place which
/// image, in which unit and stage, from which registry, why, and what to do, instead of the
/// check's general task ("pull the node image") next to the finding's precise words.
pub(crate) fn align_pull(
    verdict: &mut Verdict,
    component: Option<&mut diagnosis::Cause>,
    services: &[ServiceSummary],
    f: &Finding,
) {
    if !is_pull(f) {
        return;
    }
    let Verdict::Problem(p) = verdict else {
        return;
    };
    if f.unit.as_deref() != Some(unit_name(&p.service).as_str()) {
        return;
    }
    let Some(standing) = pick(services, &p.service).and_then(super::checks::standing) else {
        return;
    };
    let was = std::mem::replace(&mut p.summary, format!("{standing}: {}", f.summary));
    p.hint = f.remedy.clone();
    let Some(c) = component else { return };
    for fact in c.evidence.iter_mut().filter(|e| **e == was) {
        fact.clone_from(&p.summary);
    }
    if c.component == Component::NodeImage && p.service == "node-image-pull" {
        c.summary = format!(
            "{} ({}{})",
            f.summary,
            unit_name(&p.service),
            stage_words(f)
        );
    }
    c.hint = f.remedy.clone();
}

/// `, stage X` when the finding names its stage.
fn stage_words(f: &Finding) -> String {
    f.stage
        .as_deref()
        .map_or_else(String::new, |s| format!(", stage {s}"))
}

/// Whether a finding is a failed pull its evidence tells the image and the registry's answer
/// of ([`Finding::pull`]); a pull still under way, or a retry line alone, says less than
/// the check's own words.
fn is_pull(f: &Finding) -> bool {
    registry_error::read_pull(&f.evidence).is_some()
}
