//! The ordered checks: each bootstrap service depends on the one before it, so the first
//! service that did not succeed explains the rest. The order is the node image (pulled,
//! then laid over the host OS), release image, the OS pivot onto the release's machine-OS
//! image of older scripts (see `release_image_pivot`), bootkube. The
//! bootstrap pivot, which waits for all of them, is checked last (see the `pivot` module).

use super::UnreadableRecord;
use super::problem::Problem;
use super::records::{ServiceStatus, ServiceSummary, pick};
use super::release_image_pivot;

impl Problem {
    /// A problem found in the record `s`: the service, its status, how often it started and
    /// the error lines of its last failure come from the record.
    pub(crate) fn of_service(
        s: &ServiceSummary,
        summary: String,
        stage: Option<String>,
        hint: &str,
    ) -> Problem {
        let error_lines = s
            .last_failure
            .as_ref()
            .and_then(|f| f.error_message.as_deref())
            .map(|m| m.lines().map(str::to_string).collect())
            .unwrap_or_default();
        Problem {
            service: s.name.clone(),
            summary,
            status: s.status,
            starts: s.starts,
            stage,
            error_lines,
            hint: hint.to_string(),
        }
    }
}

/// One check: the service, whether a missing record file is a problem, what it does, and
/// what to check when it fails (by the stage it failed in, or was still in).
struct Check {
    service: &'static str,
    required: bool,
    task: &'static str,
    hint: fn(Option<&str>) -> &'static str,
}

const CHECKS: &[Check] = &[
    Check {
        service: "node-image-pull",
        required: false,
        task: "pull the node (operating system) image",
        hint: node_image_hint,
    },
    Check {
        service: "node-image-overlay",
        required: false,
        task: "lay the node image over the host's operating system",
        hint: node_image_overlay_hint,
    },
    Check {
        service: "release-image",
        required: true,
        task: "pull the release image",
        hint: release_image_hint,
    },
    Check {
        service: release_image_pivot::SERVICE,
        required: false,
        task: release_image_pivot::TASK,
        hint: release_image_pivot::stage_hint,
    },
    Check {
        service: "bootkube",
        required: true,
        task: "bring up the bootstrap control plane",
        hint: bootkube_hint,
    },
];

fn node_image_hint(_stage: Option<&str>) -> &'static str {
    "check the pull secret, DNS, proxy or mirror settings and that the bootstrap host can reach \
     the registry of the node image"
}

fn node_image_overlay_hint(_stage: Option<&str>) -> &'static str {
    "see the end of bootstrap/journals/node-image-overlay.log: the mount of the node image's \
     /usr, the /etc sync or the SELinux policy reload failed"
}

fn release_image_hint(_stage: Option<&str>) -> &'static str {
    "check the pull secret, DNS, proxy or mirror settings (imageDigestSources) and that the \
     bootstrap host can reach the registry of the release image"
}

/// Runs the checks in order, then the pivot check, and returns the first problem.
pub(crate) fn first_problem(
    services: &[ServiceSummary],
    unreadable: &[UnreadableRecord],
) -> Option<Problem> {
    let ordered = CHECKS.iter().find_map(|check| {
        let record_unreadable = unreadable.iter().any(|u| {
            u.file
                .ends_with(&format!("services/{}.json", check.service))
        });
        match pick(services, check.service) {
            Some(summary) => judge(check, summary),
            None if check.required && !record_unreadable => Some(never_started(check)),
            None => None,
        }
    });
    ordered.or_else(|| super::bootstrap_pivot::pivot_problem(services))
}

fn never_started(check: &Check) -> Problem {
    Problem {
        service: check.service.to_string(),
        summary: format!(
            "{}.service never ran on the bootstrap host (no service record), so it could not {}",
            check.service, check.task
        ),
        status: ServiceStatus::NotStarted,
        starts: 0,
        stage: None,
        error_lines: Vec::new(),
        hint: "check that the bootstrap host booted with the bootstrap Ignition config and that \
               the services before it succeeded (see the failed units below)"
            .to_string(),
    }
}

fn judge(check: &Check, s: &ServiceSummary) -> Option<Problem> {
    let (summary, stage) = match s.status {
        ServiceStatus::Succeeded => return None,
        ServiceStatus::NotStarted => {
            return Some(never_started(check));
        }
        ServiceStatus::Failed => {
            let text = format!(
                "{}.service failed{} and could not {} (started {} time(s))",
                s.name,
                failed_at(s),
                check.task,
                s.starts
            );
            (text, last_failed_stage(s).cloned())
        }
        ServiceStatus::Running => running_summary(check, s),
    };
    let hint = (check.hint)(stage.as_deref());
    Some(Problem::of_service(s, summary, stage, hint))
}

/// Where a failed or running service stands, without what it could not do: the failed
/// stage and how often it started, or the stage it was still in and its failed runs. The
/// analysis puts what it could not do after it when the evidence says more than the check's
/// task (which pull failed, and why).
pub(crate) fn standing(s: &ServiceSummary) -> Option<String> {
    match s.status {
        ServiceStatus::Failed => Some(format!(
            "{}.service failed{} (started {} time(s))",
            s.name,
            failed_at(s),
            s.starts
        )),
        ServiceStatus::Running => Some(format!(
            "{}.service had not finished{} when the logs were gathered{}",
            s.name,
            running_at(s),
            earlier_failures(s)
        )),
        ServiceStatus::Succeeded | ServiceStatus::NotStarted => None,
    }
}

/// ` at stage X` of the last failure, when it was in a stage.
fn failed_at(s: &ServiceSummary) -> String {
    last_failed_stage(s).map_or_else(String::new, |st| format!(" at stage {st}"))
}

/// ` (in stage X)` of a running service, when it is in a stage.
fn running_at(s: &ServiceSummary) -> String {
    s.current_stage
        .as_ref()
        .map_or_else(String::new, |st| format!(" (in stage {st})"))
}

/// The stage of the service's last failure.
fn last_failed_stage(s: &ServiceSummary) -> Option<&String> {
    s.last_failure.as_ref().and_then(|f| f.stage.as_ref())
}

fn running_summary(check: &Check, s: &ServiceSummary) -> (String, Option<String>) {
    let text = format!(
        "{}.service had not finished{} when the logs were gathered; it did not yet {}{}",
        s.name,
        running_at(s),
        check.task,
        earlier_failures(s)
    );
    (text, running_stage(s))
}

/// `; N earlier run(s) failed, last at stage X` when runs before the current one failed.
fn earlier_failures(s: &ServiceSummary) -> String {
    if s.failed_runs == 0 {
        return String::new();
    }
    let before =
        last_failed_stage(s).map_or_else(String::new, |st| format!(", last at stage {st}"));
    format!("; {} earlier run(s) failed{before}", s.failed_runs)
}

/// The stage a running service is in; a run restarted after a failure that has not entered
/// a stage yet is still held up where the failed run stopped, so that stage is the one named.
fn running_stage(s: &ServiceSummary) -> Option<String> {
    s.current_stage.clone().or_else(|| {
        (s.failed_runs > 0)
            .then(|| s.last_failure.as_ref()?.stage.clone())
            .flatten()
    })
}

/// What to look at for a bootkube stage; the stages are those of our bootkube script.
fn bootkube_hint(stage: Option<&str>) -> &'static str {
    match stage {
        Some("wait-for-etcd") => {
            "the bootstrap etcd did not become healthy: look at the etcd container logs under \
             bootstrap/containers/ and at the etcd certificates"
        }
        Some("cb-bootstrap") => {
            "cluster-bootstrap could not start the control plane or create the manifests: look at \
             bootstrap/containers/ (kube-apiserver) and at the control-plane hosts' kubelet \
             journals; check that the masters booted and can reach api-int"
        }
        Some("wait-for-ceo") => {
            "etcd did not move to the control-plane hosts: check that the masters joined \
             (control-plane/*/journals) and that they reach each other on ports 2379/2380"
        }
        Some(s) if s.ends_with("-bootstrap") => {
            "an operator render step failed: usually a manifest the operator rejected or an \
             image it could not run; the journal lines below name it"
        }
        Some(s) if s.contains("api") => {
            "the api / api-int names did not resolve or answer: check DNS records and the load \
             balancer for ports 6443 and 22623"
        }
        _ => "see the bootkube journal lines below and bootstrap/journals/bootkube.log",
    }
}
