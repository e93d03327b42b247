//! The bootstrap pivot check: with `bootstrapPivot` the bootstrap host installs itself as the
//! last control-plane node (bootstrap-pivot.service), one service-record stage per step.
//!
//! It runs after the ordered checks because the pivot waits for bootkube: a bootkube problem
//! explains a stuck pivot, not the other way round. Unlike those services, a pivot that is
//! still running is normal (it waits for the other masters for a long time), so only a
//! recorded failure is a problem. Its unit restarts on failure and resumes at the failed
//! step, so a failure from an earlier run counts even when a new run is under way.

use super::problem::Problem;
use super::records::{ServiceStatus, ServiceSummary, pick};

/// The record file stem of the pivot service.
pub(crate) const SERVICE: &str = "bootstrap-pivot";

/// The pivot's problem, when its record holds a failure.
pub(crate) fn pivot_problem(services: &[ServiceSummary]) -> Option<Problem> {
    let s = pick(services, SERVICE)?;
    let failing = match s.status {
        ServiceStatus::Failed => true,
        ServiceStatus::Running => s.failed_runs > 0,
        ServiceStatus::Succeeded | ServiceStatus::NotStarted => false,
    };
    let failure = s.last_failure.as_ref().filter(|_| failing)?;
    let stage = failure.stage.clone();
    let at = stage
        .as_deref()
        .map(|st| format!(" at pivot stage {st}"))
        .unwrap_or_default();
    let mut summary = format!(
        "{SERVICE}.service failed{at}, so the bootstrap host did not install itself as the \
         last control-plane node (started {} time(s), {} failed run(s))",
        s.starts, s.failed_runs
    );
    if s.status == ServiceStatus::Running {
        let now = s
            .current_stage
            .as_deref()
            .map(|st| format!(", in stage {st}"))
            .unwrap_or_default();
        summary.push_str(&format!(
            "; it was running again{now} when the logs were gathered"
        ));
    }
    let hint = stage_hint(stage.as_deref());
    Some(Problem::of_service(s, summary, stage, hint))
}

/// What to look at for a failed step of our bootstrap-pivot.sh.
fn stage_hint(stage: Option<&str>) -> &'static str {
    match stage {
        Some("pivot-allow-reduced-etcd") => {
            "the etcd override could not be set: check that the bootstrap control plane's API \
             answered (see the bootkube journal) and that etcds.operator.openshift.io/cluster \
             exists (resources/ in the bundle)"
        }
        Some("pivot-wait-for-masters") => {
            "the other control-plane hosts did not become Ready: check that they booted with \
             master.ign and joined (control-plane/*/journals, pending CSRs in resources/csr)"
        }
        Some("pivot-wait-for-bootkube") => {
            "bootkube.service did not finish: see the bootkube journal lines below"
        }
        Some("pivot-pointer-config") => {
            "the master pointer config /opt/openshift/pivot-master.ign could not be written: \
             check /opt/openshift/tls/root-ca.crt and the free space on the bootstrap host"
        }
        Some("pivot-coreos-installer") => {
            "coreos-installer could not write the OS to the installation disk: check that \
             bootstrapPivot.installationDisk in install-config.yaml names the right device \
             (lsblk on the host) and read the error lines above"
        }
        Some("reboot") => {
            "the reboot could not be scheduled: the OS is installed, reboot the host by hand \
             and it joins as a control-plane node"
        }
        _ => "see `journalctl -u bootstrap-pivot.service` on the bootstrap host",
    }
}
