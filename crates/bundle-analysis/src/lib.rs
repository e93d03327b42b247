//! Analysis of a bootstrap log bundle: which bootstrap service went wrong, where, and why.
//!
//! The checks follow the order in which the services depend on each other on the bootstrap
//! host (node image, release image, the OS pivot onto the release's machine-OS image,
//! bootkube, then the bootstrap pivot when it recorded a failure), so the first problem found
//! is the cause and later ones are consequences. The [diagnosis](Cause) then reads the
//! containers, the etcd member list and the cluster dumps to name the component that failed
//! (a render step, etcd, the API server, the masters' config fetch, a crash-looping static
//! pod). Beyond that the analysis collects the evidence a person would look for next: every
//! failed unit, other failed services, the end of the bootkube journal, the state of
//! on-cluster layering builds and, with image mode, whether each pool's OS image reached its
//! rendered config and its hosts.
//!
//! Reading a bundle needs no network and no SSH: `gather` fetches bundles, this crate reads
//! them, for `analyze`, `gather bootstrap` and `wait-for --bootstrap` alike.

#![deny(missing_docs)]

mod booted;
mod bootstrap_pivot;
mod bundle;
mod checks;
mod completion;
mod containers;
mod create_failures;
mod diagnosis;
mod error;
mod evidence;
mod finding;
#[cfg(test)]
mod fuzz;
mod image_mode;
mod image_ref;
mod problem;
mod pull_evidence;
mod reader;
mod records;
mod release_image_pivot;
mod render;
mod repeated;
mod shown;
mod unreadable;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use booted::OsTool;
pub use completion::Completion;
pub use containers::CrashLoop;
pub use create_failures::{Judgement, ManifestFailure};
pub use diagnosis::{Cause, Component};
pub use evidence::{FailedUnit, MachineOsBuildState, MachineOsConfigState, MachineOsState};
pub use image_mode::{
    HostOsImage, ImageModeProblem, ImageModeState, PoolOsImage, RenderedBy, RenderedOsImage,
    ToldImage,
};
pub use problem::Problem;
pub use records::{Failure, ServiceStatus, ServiceSummary};
pub use repeated::RepeatedError;
pub use shown::{escape_controls, escape_json_strings};

use bundle::{BundleFile, Wanted};
pub use error::AnalysisError;

/// How many lines of a journal or container log are shown: of the bootkube journal when
/// bootkube did not succeed, of the OS pivot's journal when the pivot is the problem, and of
/// the output of the failing or crash-looping container.
pub const JOURNAL_TAIL_LINES: usize = 20;

/// The overall finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Verdict {
    /// The bundle holds no service records, so nothing can be said about the bootstrap
    /// services (old bootstrap scripts, or the host was not reachable).
    NoServiceRecords,
    /// The ordered checks found nothing wrong.
    Healthy,
    /// Service records are in the bundle, but some (or all) could not be read, and those
    /// that could show no failure: never an all-clear, since an unread record may hold one.
    /// [`Analysis::unreadable_records`] says which and why.
    UnreadableRecords {
        /// Whether no record at all could be read.
        none_read: bool,
        /// What shows the bootstrap not complete, when something does (each naming its file).
        not_complete: Vec<String>,
    },
    /// The ordered checks found nothing wrong, yet the bundle shows the bootstrap not
    /// complete: never an all-clear.
    Incomplete {
        /// What shows it, each naming the file it rests on.
        reasons: Vec<String>,
    },
    /// The first problem found by the ordered checks.
    Problem(Problem),
}

/// A record file that could not be parsed; the other files are still analysed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnreadableRecord {
    /// Path inside the bundle.
    pub file: String,
    /// Why it could not be parsed.
    pub error: String,
}

/// Everything the analysis found in one bundle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// The analysed bundle.
    pub bundle: PathBuf,
    /// The cause in the catalogue `wait-for` names too, with the host's own error line and
    /// the unit and stage it showed in; `None` when the bundle shows no failure it can name.
    pub finding: Option<contract::cause::Finding>,
    /// The first problem, or why there is none.
    pub verdict: Verdict,
    /// The component the evidence names as the one that failed, with its output.
    pub cause: Option<Cause>,
    /// Containers kubelet kept restarting, on any host, except the one the cause shows.
    pub crash_loops: Vec<CrashLoop>,
    /// One summary per service record file, sorted by service name.
    pub services: Vec<ServiceSummary>,
    /// Services other than the one named in the verdict that recorded a failure.
    pub other_failures: Vec<String>,
    /// Record files that could not be parsed.
    pub unreadable_records: Vec<UnreadableRecord>,
    /// Failed systemd units from every `failed-units.txt` (bootstrap and masters).
    pub failed_units: Vec<FailedUnit>,
    /// Whether the bundle shows the bootstrap complete.
    pub completion: Completion,
    /// The manifests cluster-bootstrap had not created by the end of bootkube's journal
    /// (none when the bundle shows the bootstrap complete).
    pub manifest_failures: Vec<ManifestFailure>,
    /// The most repeated error lines of the bootstrap's journals and container logs, when
    /// the bootstrap did not complete and no cause was named.
    pub repeated_errors: Vec<RepeatedError>,
    /// The last lines of the bootkube journal, when bootkube did not succeed or the
    /// bootstrap is not complete.
    pub bootkube_journal_tail: Vec<String>,
    /// The last lines of the release-image-pivot journal (all boots), when the OS pivot is the
    /// problem: its record keeps only three journal lines, and the rebase retries say more.
    pub os_pivot_journal_tail: Vec<String>,
    /// On-cluster layering objects, when the cluster dump contains them.
    pub machine_os: Option<MachineOsState>,
    /// Per pool, the OS image it was told to boot and what its configs and hosts show;
    /// `None` when image mode is not used.
    pub image_mode: Option<ImageModeState>,
    /// Other remarks: damaged archive, unreadable resource dumps.
    pub notes: Vec<String>,
}

/// Reads the bundle at `path` and analyses it.
///
/// Fails only when the file cannot be opened or is not a gzip-compressed tar archive at all;
/// a damaged tail or an unparsable record file is reported inside the [`Analysis`].
pub fn analyze_bundle(path: &Path) -> Result<Analysis, AnalysisError> {
    let contents = reader::read_bundle(path)?;
    Ok(analyze_contents(path, &contents))
}

/// The analysis of what was read of a bundle: a service record the budget left out counts as
/// unreadable, and every part left out is named in a note.
fn analyze_contents(path: &Path, contents: &reader::BundleContents) -> Analysis {
    let mut not_read: Vec<UnreadableRecord> = contents
        .skipped
        .iter()
        .filter(|s| matches!(s.kind, Wanted::ServiceRecord(_)))
        .map(|s| UnreadableRecord {
            file: s.path.clone(),
            error: format!("not read: {}", s.reason),
        })
        .collect();
    if contents.records_unlisted > 0 {
        not_read.push(UnreadableRecord {
            file: format!(
                "{} more bootstrap/services/*.json",
                contents.records_unlisted
            ),
            error: "not read: the bundle holds more than the analysis reads".into(),
        });
    }
    let mut analysis = analyze_files(path, &contents.files, not_read);
    analysis.notes.extend(contents.budget_notes());
    analysis.notes.extend(contents.stopped.clone());
    analysis.notes.extend(contents.damaged.clone());
    analysis
}

fn analyze_files(path: &Path, files: &[BundleFile], not_read: Vec<UnreadableRecord>) -> Analysis {
    let mut unreadable_records = not_read;
    let mut services: Vec<ServiceSummary> = Vec::new();
    for file in files {
        let Wanted::ServiceRecord(name) = &file.kind else {
            continue;
        };
        match records::parse_records(&file.text) {
            Ok(entries) => services.push(records::summarize(name, &file.path, &entries)),
            Err(e) => unreadable_records.push(UnreadableRecord {
                file: file.path.clone(),
                error: shown::escape_line(&e.to_string()).into_owned(),
            }),
        }
    }
    services.sort_by(|a, b| a.name.cmp(&b.name).then(a.file.cmp(&b.file)));
    let found_records = !services.is_empty() || !unreadable_records.is_empty();
    let manifests_seen = create_failures::manifests_seen(files);
    let completion = completion::completion(files, manifests_seen);
    let manifest_failures = match completion {
        Completion::Complete => Vec::new(),
        _ => create_failures::manifest_failures(files),
    };
    let verdict = if found_records {
        checks::first_problem(&services, &unreadable_records)
            .map_or(Verdict::Healthy, Verdict::Problem)
    } else {
        Verdict::NoServiceRecords
    };
    let verdict = judge_completion(verdict, &completion, &manifest_failures);
    let verdict = judge_unreadable(verdict, services.is_empty(), &unreadable_records);
    let problem_service = match &verdict {
        Verdict::Problem(p) => Some(p.service.as_str()),
        _ => None,
    };
    let mut other_failures: Vec<String> = services
        .iter()
        .filter(|s| s.has_failure() && Some(s.name.as_str()) != problem_service)
        .map(|s| s.name.clone())
        .collect();
    other_failures.dedup();
    let bootkube = records::pick(&services, "bootkube");
    let incomplete = matches!(verdict, Verdict::Incomplete { .. });
    let bootkube_journal_tail = match bootkube {
        Some(s) if s.succeeded() && !incomplete => Vec::new(),
        _ if found_records => journal_tail(files, "bootkube", bootkube.map(|s| s.file.as_str())),
        _ => Vec::new(),
    };
    let os_pivot_journal_tail = match problem_service {
        Some(release_image_pivot::SERVICE) => journal_tail(
            files,
            release_image_pivot::SERVICE,
            records::pick(&services, release_image_pivot::SERVICE).map(|s| s.file.as_str()),
        ),
        _ => Vec::new(),
    };
    let failed_units = failed_units(files);
    let all_containers = containers::containers(files);
    let mut crash_loops = containers::crash_loops(&all_containers, JOURNAL_TAIL_LINES);
    let evidence = diagnosis::Evidence {
        files,
        containers: &all_containers,
        crash_loops: &crash_loops,
        failed_units: &failed_units,
    };
    let mut cause = diagnosis::diagnose(&evidence, &verdict);
    // The loop the cause shows already is not listed again.
    if let Some(shown) = cause.as_ref().and_then(|c| c.log_file.as_ref()) {
        crash_loops.retain(|l| l.log_file.as_ref() != Some(shown));
    }
    let finding = finding::finding(&finding::Sources {
        files,
        verdict: &verdict,
        component: cause.as_ref(),
        services: &services,
        manifest_failures: &manifest_failures,
        manifests_seen,
    });
    let mut verdict = verdict;
    if let Some(f) = &finding {
        finding::align_pull(&mut verdict, cause.as_mut(), &services, f);
    }
    let repeated_errors = match (&finding, &verdict) {
        (
            None,
            Verdict::Problem(_)
            | Verdict::Incomplete { .. }
            | Verdict::NoServiceRecords
            | Verdict::UnreadableRecords { .. },
        ) => repeated::most_repeated(files),
        _ => Vec::new(),
    };
    let mut notes = Vec::new();
    let machine_os = machine_os(files, &mut notes);
    let image_mode = image_mode::image_mode(files, machine_os.as_ref());
    Analysis {
        bundle: path.to_path_buf(),
        finding,
        verdict,
        cause,
        crash_loops,
        services,
        other_failures,
        unreadable_records,
        failed_units,
        completion,
        manifest_failures,
        repeated_errors,
        bootkube_journal_tail,
        os_pivot_journal_tail,
        machine_os,
        image_mode,
        notes,
    }
}

/// A verdict of no problem stands only when the bundle does not show the bootstrap
/// unfinished: the asset tree without bootkube.sh's end marker, the ConfigMaps without the
/// complete `kube-system/bootstrap`, or cluster-bootstrap still refusing a manifest that
/// nothing will make the API server take.
fn judge_completion(
    verdict: Verdict,
    completion: &Completion,
    manifest_failures: &[ManifestFailure],
) -> Verdict {
    if verdict != Verdict::Healthy {
        return verdict;
    }
    let mut reasons = match completion {
        Completion::Complete => return verdict,
        Completion::NotComplete { reasons } => reasons.clone(),
        Completion::Unknown => Vec::new(),
    };
    if let Some(m) = manifest_failures
        .iter()
        .find(|m| m.judgement == Judgement::Blocks)
    {
        reasons.push(format!(
            "{} ends with cluster-bootstrap still failing to create {}",
            m.journal, m.failure.file
        ));
    }
    if reasons.is_empty() {
        Verdict::Healthy
    } else {
        Verdict::Incomplete { reasons }
    }
}

/// No problem found stands only when every service record was read: with one unread, the
/// verdict says the records could not be read (keeping what shows the bootstrap unfinished).
fn judge_unreadable(verdict: Verdict, none_read: bool, unreadable: &[UnreadableRecord]) -> Verdict {
    if unreadable.is_empty() {
        return verdict;
    }
    match verdict {
        Verdict::Healthy => Verdict::UnreadableRecords {
            none_read,
            not_complete: Vec::new(),
        },
        Verdict::Incomplete { reasons } => Verdict::UnreadableRecords {
            none_read,
            not_complete: reasons,
        },
        other => other,
    }
}

fn failed_units(files: &[BundleFile]) -> Vec<FailedUnit> {
    files
        .iter()
        .filter(|f| f.kind == Wanted::FailedUnits)
        .flat_map(|f| evidence::parse_failed_units(&evidence::host_of(&f.path), &f.text))
        .collect()
}

/// The journal of `unit`, preferring the copy next to the service's record file (the nested
/// single-node layout can hold two).
pub(crate) fn journal<'a>(
    files: &'a [BundleFile],
    unit: &str,
    record_file: Option<&str>,
) -> Option<&'a BundleFile> {
    let prefix = record_file.and_then(|f| f.rsplit_once("services/").map(|(dir, _)| dir));
    let wanted = Wanted::Journal(unit.to_string());
    let journals: Vec<&BundleFile> = files.iter().filter(|f| f.kind == wanted).collect();
    journals
        .iter()
        .find(|f| prefix.is_some_and(|p| f.path.starts_with(p)))
        .or(journals.first())
        .copied()
}

/// The last lines of the journal of `unit` (see [`journal`]).
fn journal_tail(files: &[BundleFile], unit: &str, record_file: Option<&str>) -> Vec<String> {
    let Some(journal) = journal(files, unit, record_file) else {
        return Vec::new();
    };
    last_lines(&journal.text, JOURNAL_TAIL_LINES)
}

/// The last `n` of `items` (all of them when there are fewer): the end of a log is what says
/// why it stopped.
pub(crate) fn last_n<T>(items: &[T], n: usize) -> &[T] {
    &items[items.len().saturating_sub(n)..]
}

/// The last `n` lines of `text`.
pub(crate) fn last_lines(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    last_n(&lines, n).iter().map(|l| l.to_string()).collect()
}

fn machine_os(files: &[BundleFile], notes: &mut Vec<String>) -> Option<MachineOsState> {
    let mut state = MachineOsState::default();
    let mut found = false;
    for file in files {
        let is_config = match file.kind {
            Wanted::MachineOsConfigs => true,
            Wanted::MachineOsBuilds => false,
            _ => continue,
        };
        found = true;
        match evidence::items(&file.text) {
            Ok(items) if is_config => state
                .configs
                .extend(items.iter().map(evidence::config_state)),
            Ok(items) => state.builds.extend(items.iter().map(evidence::build_state)),
            Err(e) => notes.push(format!("could not read {}: {e}", file.path)),
        }
    }
    found.then_some(state)
}
