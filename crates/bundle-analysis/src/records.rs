//! Service records: the JSON arrays that the bootstrap scripts append to while they run.
//!
//! Every bootstrap service (bootkube, release-image, ...) writes one record per phase change.
//! Reading them back tells us how often a service started, whether its last run finished, and
//! which stage failed with which journal lines, without having to read whole journals.

use serde::{Deserialize, Serialize};

/// One entry of a service record file. Unknown keys are ignored so that newer bootstrap
/// scripts with extra fields can still be analysed.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct RecordEntry {
    pub timestamp: Option<String>,
    pub stage: Option<String>,
    pub phase: Option<String>,
    pub result: Option<String>,
    pub error_line: Option<String>,
    pub error_message: Option<String>,
}

impl RecordEntry {
    fn phase_is(&self, phase: &str) -> bool {
        self.phase.as_deref() == Some(phase)
    }

    fn failed(&self) -> bool {
        self.result.as_deref() == Some("failure")
    }

    fn succeeded(&self) -> bool {
        self.result.as_deref() == Some("success")
    }

    fn stage_name(&self) -> Option<String> {
        self.stage.clone().filter(|s| !s.is_empty())
    }
}

/// Where a service stood when the logs were gathered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServiceStatus {
    /// The record file exists but holds no entries: the service never got going.
    NotStarted,
    /// The last entry is the end of the service (or of its post-command) with success.
    Succeeded,
    /// The last run recorded a failure and did not finish successfully afterwards.
    Failed,
    /// The last run has neither finished nor failed: it was still busy (or was killed).
    Running,
}

/// The most recent failure a service recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// The stage that failed, when the failure happened inside a stage.
    pub stage: Option<String>,
    /// Where in the script the failure was raised (`errorLine`).
    pub error_line: Option<String>,
    /// The last journal lines of the unit at the time of the failure (`errorMessage`).
    pub error_message: Option<String>,
    /// When the failure was recorded (UTC, as written by the host).
    pub timestamp: Option<String>,
}

/// What one service record file says about its service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServiceSummary {
    /// Service name without `.service` (the record file's stem).
    pub name: String,
    /// Path of the record file inside the bundle.
    pub file: String,
    /// How many times the service started (`service start` entries).
    pub starts: usize,
    /// Status of the last run.
    pub status: ServiceStatus,
    /// The stage the last run was in, when it is still running.
    pub current_stage: Option<String>,
    /// How many entries recorded a failed service end, i.e. how many runs failed.
    pub failed_runs: usize,
    /// The most recent failure, from any run.
    pub last_failure: Option<Failure>,
    /// Whether the last run recorded a failure (then it is [`ServiceSummary::last_failure`])
    /// that no later success of the same stage settled: in a run that went on to succeed, a
    /// failed check it tolerates.
    pub last_run_recorded_failure: bool,
    /// Timestamp of the last entry.
    pub last_timestamp: Option<String>,
}

impl ServiceSummary {
    /// Whether the service counts as healthy: its last entry ended it successfully.
    pub fn succeeded(&self) -> bool {
        self.status == ServiceStatus::Succeeded
    }

    /// Whether the service failed at some point (now or in an earlier run).
    pub fn has_failure(&self) -> bool {
        self.status == ServiceStatus::Failed || self.last_failure.is_some()
    }
}

/// Parses a record file, its strings escaped ([`crate::shown`]). The error is serde_json's,
/// which names line and column.
pub(crate) fn parse_records(text: &str) -> Result<Vec<RecordEntry>, serde_json::Error> {
    let mut entries: Vec<RecordEntry> = crate::shown::json(text)?;
    for e in &mut entries {
        for field in [
            &mut e.timestamp,
            &mut e.stage,
            &mut e.phase,
            &mut e.result,
            &mut e.error_line,
        ] {
            crate::shown::escape_line_in_place(field);
        }
        crate::shown::escape_lines_in_place(&mut e.error_message);
    }
    Ok(entries)
}

/// Summarises the entries of one service.
pub(crate) fn summarize(name: &str, file: &str, entries: &[RecordEntry]) -> ServiceSummary {
    let last_run_start = entries
        .iter()
        .rposition(|e| e.phase_is("service start"))
        .unwrap_or(0)
        .min(entries.len());
    let settled = settled_failures(entries);
    let last_run = Run {
        entries: &entries[last_run_start..],
        settled: &settled[last_run_start..],
    };
    let status = status_of(entries, &last_run);
    ServiceSummary {
        name: name.to_string(),
        file: file.to_string(),
        starts: entries
            .iter()
            .filter(|e| e.phase_is("service start"))
            .count(),
        status,
        current_stage: (status == ServiceStatus::Running)
            .then(|| open_stage(last_run.entries))
            .flatten(),
        failed_runs: entries
            .iter()
            .filter(|e| e.phase_is("service end") && e.failed())
            .count(),
        last_failure: last_failure(entries, &settled),
        last_run_recorded_failure: last_run.unsettled_failures().next().is_some(),
        last_timestamp: entries.last().and_then(|e| e.timestamp.clone()),
    }
}

/// A run that recorded a failure and then started another stage went past it: a check the
/// script tolerates (an API name that does not resolve yet) leaves the service running.
fn status_of(entries: &[RecordEntry], last_run: &Run) -> ServiceStatus {
    let Some(last) = entries.last() else {
        return ServiceStatus::NotStarted;
    };
    let ends = last.phase_is("service end") || last.phase_is("post-command end");
    let stopped_at_failure = last_run.unsettled_failures().last().is_some_and(|i| {
        !last_run.entries[i..]
            .iter()
            .any(|e| e.phase_is("stage start"))
    });
    if ends && last.succeeded() {
        ServiceStatus::Succeeded
    } else if stopped_at_failure {
        ServiceStatus::Failed
    } else {
        ServiceStatus::Running
    }
}

/// The entries of one run, with whether each is a settled failure ([`settled_failures`]).
struct Run<'a> {
    entries: &'a [RecordEntry],
    settled: &'a [bool],
}

impl Run<'_> {
    /// The positions of the run's failures that no later success of the same stage settled.
    fn unsettled_failures(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.entries.len()).filter(|&i| self.entries[i].failed() && !self.settled[i])
    }
}

/// Per entry, whether it is a failure settled by a later success of the same stage in the
/// same run: a check that failed before a name resolved and passed when run again. One pass
/// from the end, so a record of any length costs its length (a hostile one of a million
/// failures would take hours pair by pair).
fn settled_failures(entries: &[RecordEntry]) -> Vec<bool> {
    let mut succeeded_later: std::collections::HashSet<&str> = Default::default();
    let mut settled = vec![false; entries.len()];
    for (i, entry) in entries.iter().enumerate().rev() {
        let stage = entry.stage.as_deref().filter(|s| !s.is_empty());
        if let Some(stage) = stage {
            settled[i] = entry.failed() && succeeded_later.contains(stage);
        }
        if entry.phase_is("service start") {
            // An earlier run is settled by nothing of this one.
            succeeded_later.clear();
        } else if let Some(stage) = stage.filter(|_| entry.succeeded()) {
            succeeded_later.insert(stage);
        }
    }
    settled
}

/// The stage that was started in this run and not ended yet.
fn open_stage(run: &[RecordEntry]) -> Option<String> {
    let mut open = None;
    for entry in run {
        if entry.phase_is("stage start") {
            open = entry.stage_name();
        } else if entry.phase_is("stage end") {
            open = None;
        }
    }
    open
}

/// The most recent failure that no later success of its stage settled ([`settled_failures`]). A
/// failed `service end` usually follows a failed `stage end` and carries no stage of its
/// own: the stage of the earlier entry in the same run is kept, and so is its message. The
/// two messages often differ (the stage's says what the script gave up on, the service
/// end's holds the journal's last lines), so both are kept, the stage's first; a repeated
/// message is kept once, and of a run that failed over and over only the end is kept
/// ([`MESSAGE_LINES`], [`MESSAGE_BYTES`]).
fn last_failure(entries: &[RecordEntry], settled: &[bool]) -> Option<Failure> {
    let mut failure: Option<Pending> = None;
    let mut stage_in_run: Option<String> = None;
    // Whether `failure` was recorded by the current run, whose messages it may join.
    let mut failed_in_run = false;
    for (i, entry) in entries.iter().enumerate() {
        if entry.phase_is("service start") {
            stage_in_run = None;
            failed_in_run = false;
        }
        if !entry.failed() || settled[i] {
            continue;
        }
        if let Some(stage) = entry.stage_name() {
            stage_in_run = Some(stage);
        }
        let mut pending = match failure.take() {
            Some(p) if failed_in_run && p.stage == stage_in_run => p,
            _ => Pending {
                stage: stage_in_run.clone(),
                ..Pending::default()
            },
        };
        if let Some(line) = entry.error_line.as_deref().filter(|l| !l.is_empty()) {
            pending.error_line = Some(line);
        }
        if let Some(message) = entry.error_message.as_deref().filter(|m| !m.is_empty())
            && pending.messages.last() != Some(&message)
        {
            pending.messages.push(message);
        }
        pending.timestamp = entry.timestamp.as_deref();
        failure = Some(pending);
        failed_in_run = true;
    }
    failure.map(Pending::into_failure)
}

/// How many lines of a failure's messages are kept: their end (a record holds three journal
/// lines a message).
const MESSAGE_LINES: usize = 60;

/// How many bytes of a failure's messages are kept: their end.
const MESSAGE_BYTES: usize = 64 * 1024;

/// The last `max` bytes of `line`, from a character boundary.
fn line_end(line: &str, max: usize) -> &str {
    let mut start = line.len().saturating_sub(max);
    while !line.is_char_boundary(start) {
        start += 1;
    }
    &line[start..]
}

/// A failure being read: its messages are joined once, at the end.
#[derive(Default)]
struct Pending<'a> {
    stage: Option<String>,
    error_line: Option<&'a str>,
    messages: Vec<&'a str>,
    timestamp: Option<&'a str>,
}

impl Pending<'_> {
    fn into_failure(self) -> Failure {
        let mut lines: Vec<&str> = Vec::new();
        let mut bytes = 0usize;
        'messages: for message in self.messages.iter().rev() {
            for line in message.rsplit('\n') {
                bytes += line.len() + 1;
                if lines.len() == MESSAGE_LINES || bytes > MESSAGE_BYTES {
                    if lines.is_empty() {
                        lines.push(line_end(line, MESSAGE_BYTES));
                    }
                    break 'messages;
                }
                lines.push(line);
            }
        }
        lines.reverse();
        Failure {
            stage: self.stage,
            error_line: self.error_line.map(str::to_string),
            error_message: (!lines.is_empty()).then(|| lines.join("\n")),
            timestamp: self.timestamp.map(str::to_string),
        }
    }
}

/// The record of `name`; with several copies (nested single-node layout) the most recent.
pub(crate) fn pick<'a>(services: &'a [ServiceSummary], name: &str) -> Option<&'a ServiceSummary> {
    services
        .iter()
        .filter(|s| s.name == name)
        .max_by(|a, b| a.last_timestamp.cmp(&b.last_timestamp))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(phase: &str, stage: &str, result: &str, message: &str) -> RecordEntry {
        let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
        RecordEntry {
            timestamp: Some("2026-01-01T00:00:00Z".into()),
            stage: some(stage),
            phase: some(phase),
            result: some(result),
            error_line: None,
            error_message: some(message),
        }
    }

    #[test]
    fn failed_stage_survives_the_service_end_entry() {
        let entries = vec![
            entry("service start", "", "", ""),
            entry("stage start", "cb-bootstrap", "", ""),
            entry("stage end", "cb-bootstrap", "failure", "timed out"),
            entry("service end", "", "failure", "exit 1"),
        ];
        let s = summarize("bootkube", "x", &entries);
        assert_eq!(s.status, ServiceStatus::Failed);
        assert_eq!(s.failed_runs, 1);
        let f = s.last_failure.unwrap();
        assert_eq!(f.stage.as_deref(), Some("cb-bootstrap"));
        assert_eq!(f.error_message.as_deref(), Some("timed out\nexit 1"));
    }

    #[test]
    fn messages_join_within_a_run_only() {
        let entries = vec![
            entry("service start", "", "", ""),
            entry("stage start", "pull", "", ""),
            entry("stage end", "pull", "failure", "gave up"),
            entry("service end", "", "failure", "gave up"),
            entry("service start", "", "", ""),
            entry("stage start", "pull", "", ""),
            entry("stage end", "pull", "failure", "gave up again"),
            entry("service end", "", "failure", "registry said 401"),
        ];
        let f = summarize("svc", "x", &entries).last_failure.unwrap();
        assert_eq!(f.stage.as_deref(), Some("pull"));
        assert_eq!(
            f.error_message.as_deref(),
            Some("gave up again\nregistry said 401"),
            "the second run's two messages, nothing from the first run"
        );
    }

    #[test]
    fn a_restarted_run_in_progress_is_running_and_keeps_the_old_failure() {
        let entries = vec![
            entry("service start", "", "", ""),
            entry("stage start", "wait-for-etcd", "", ""),
            entry("stage end", "wait-for-etcd", "failure", "etcd down"),
            entry("service end", "", "failure", ""),
            entry("service start", "", "", ""),
            entry("stage start", "wait-for-etcd", "", ""),
        ];
        let s = summarize("bootkube", "x", &entries);
        assert_eq!(s.status, ServiceStatus::Running);
        assert_eq!(s.starts, 2);
        assert_eq!(s.current_stage.as_deref(), Some("wait-for-etcd"));
        let f = s.last_failure.unwrap();
        assert_eq!(f.error_message.as_deref(), Some("etcd down"));
    }

    /// bootkube.sh checks api-int before cb-bootstrap and goes on when it does not resolve.
    #[test]
    fn a_tolerated_check_leaves_the_service_running_until_it_passes() {
        let mut entries = vec![
            entry("service start", "", "", ""),
            entry("stage start", "check-api-int-url", "", ""),
            entry("stage end", "check-api-int-url", "failure", "no address"),
            entry("stage start", "cb-bootstrap", "", ""),
        ];
        let s = summarize("bootkube", "x", &entries);
        assert_eq!(s.status, ServiceStatus::Running);
        assert_eq!(s.current_stage.as_deref(), Some("cb-bootstrap"));
        assert!(s.last_run_recorded_failure);
        let f = s.last_failure.unwrap();
        assert_eq!(f.stage.as_deref(), Some("check-api-int-url"));

        entries.extend([
            entry("stage end", "cb-bootstrap", "success", ""),
            entry("stage start", "check-api-int-url", "", ""),
            entry("stage end", "check-api-int-url", "success", ""),
            entry("service end", "", "success", ""),
        ]);
        let s = summarize("bootkube", "x", &entries);
        assert_eq!(s.status, ServiceStatus::Succeeded);
        assert!(!s.last_run_recorded_failure, "the later pass settles it");
        assert_eq!(s.last_failure, None);
    }

    #[test]
    fn a_failure_with_nothing_after_it_is_a_failed_run() {
        let entries = vec![
            entry("service start", "", "", ""),
            entry("stage start", "check-api-int-url", "", ""),
            entry("stage end", "check-api-int-url", "failure", "no address"),
            entry("stage start", "cb-bootstrap", "", ""),
            entry("stage end", "cb-bootstrap", "failure", "timed out"),
        ];
        let s = summarize("bootkube", "x", &entries);
        assert_eq!(s.status, ServiceStatus::Failed);
        assert_eq!(
            s.last_failure.unwrap().stage.as_deref(),
            Some("cb-bootstrap")
        );
    }

    proptest::proptest! {
        /// Any sequence of entries summarises without panicking, and success is decided by
        /// the last entry alone.
        #[test]
        fn summaries_are_consistent(raw in proptest::collection::vec((0usize..6, 0usize..3, 0usize..3), 0..40)) {
            let phases = ["service start", "service end", "stage start", "stage end", "post-command end", "pre-command start"];
            let stages = ["", "a", "b"];
            let results = ["", "success", "failure"];
            let entries: Vec<RecordEntry> = raw
                .iter()
                .map(|(p, s, r)| entry(phases[*p], stages[*s], results[*r], "msg"))
                .collect();
            let s = summarize("svc", "f", &entries);
            let last_ends_well = entries.last().is_some_and(|e| {
                (e.phase_is("service end") || e.phase_is("post-command end")) && e.succeeded()
            });
            proptest::prop_assert_eq!(s.succeeded(), last_ends_well);
            proptest::prop_assert_eq!(s.status == ServiceStatus::NotStarted, entries.is_empty());
            if s.status == ServiceStatus::Failed {
                proptest::prop_assert!(s.last_failure.is_some());
            }
        }
    }

    /// The definition [`settled_failures`] computes in one pass: a later success of the same
    /// stage before the next service start.
    fn settled_pairwise(entries: &[RecordEntry], i: usize) -> bool {
        let Some(stage) = entries[i].stage_name() else {
            return false;
        };
        entries[i].failed()
            && entries[i + 1..]
                .iter()
                .take_while(|e| !e.phase_is("service start"))
                .any(|e| e.succeeded() && e.stage_name().as_deref() == Some(stage.as_str()))
    }

    proptest::proptest! {
        #[test]
        fn settled_failures_match_their_pairwise_definition(raw in proptest::collection::vec((0usize..4, 0usize..3, 0usize..3), 0..40)) {
            let phases = ["service start", "stage end", "service end", "stage start"];
            let stages = ["", "a", "b"];
            let results = ["", "success", "failure"];
            let entries: Vec<RecordEntry> = raw
                .iter()
                .map(|(p, s, r)| entry(phases[*p], stages[*s], results[*r], "m"))
                .collect();
            let settled = settled_failures(&entries);
            for (i, &one_pass) in settled.iter().enumerate() {
                proptest::prop_assert_eq!(one_pass, settled_pairwise(&entries, i), "entry {}", i);
            }
        }
    }

    /// A hostile record: 200 000 failures of one stage in one run, each with its own message.
    /// Summarised like any other, keeping the end of the messages.
    #[test]
    fn a_record_of_many_failures_keeps_the_end_of_its_messages() {
        let mut entries = vec![entry("service start", "", "", "")];
        entries.extend((0..200_000).map(|i| entry("stage end", "s", "failure", &format!("e{i}"))));
        let s = summarize("svc", "f", &entries);
        assert_eq!(s.status, ServiceStatus::Failed);
        let message = s.last_failure.unwrap().error_message.unwrap();
        assert_eq!(message.lines().count(), MESSAGE_LINES);
        assert!(message.ends_with("e199998\ne199999"), "{message}");
        let huge = "x".repeat(3 * MESSAGE_BYTES);
        let one = [entry("service end", "", "failure", &format!("é{huge}"))];
        let kept = summarize("svc", "f", &one)
            .last_failure
            .unwrap()
            .error_message
            .unwrap();
        assert_eq!(kept.len(), MESSAGE_BYTES);
    }

    #[test]
    fn post_command_end_counts_as_success() {
        let entries = vec![
            entry("service start", "", "", ""),
            entry("service end", "", "success", ""),
            entry("post-command end", "", "success", ""),
        ];
        assert!(summarize("a", "x", &entries).succeeded());
        assert_eq!(summarize("a", "x", &[]).status, ServiceStatus::NotStarted);
    }
}
