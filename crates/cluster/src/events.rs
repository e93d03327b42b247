//! What the waits tell their caller while they run.
//!
//! Events are plain data so the binary can render them twice: as a spinner line for humans
//! (via [`std::fmt::Display`]) and as one JSON object per line for CI (via serde). Durations
//! are serialized as whole milliseconds (`timeout_ms`, `elapsed_ms`) so JSON consumers never
//! have to parse a human duration.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Serialize, Serializer};

use crate::error::Diagnosis;

/// One step of a wait. The order of the variants is the order in which they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// `GET /version` answers: the temporary control plane on the bootstrap host is up.
    Api,
    /// ConfigMap `kube-system/bootstrap` has `data.status: complete`.
    BootstrapConfigMap,
    /// (pivot mode) three control-plane nodes are Ready (approving the pivoted host's kubelet
    /// certificate requests meanwhile), then the pivot's etcd override is removed.
    ControlPlaneNodes,
    /// `etcds.operator.openshift.io/cluster` reports `EtcdBootstrapMemberRemoved=True`.
    EtcdBootstrapMemberRemoved,
    /// ClusterVersion `version` is Available, not Failing, not Progressing.
    ClusterInitialized,
    /// The router CA was prepended to the kubeconfig.
    RouterCa,
    /// Every ClusterOperator stopped progressing for the settle time.
    OperatorsStable,
    /// The console route is admitted (never fatal).
    Console,
}

impl Phase {
    /// Human name used in messages and spinner lines.
    pub fn title(self) -> &'static str {
        match self {
            Phase::Api => "Kubernetes API",
            Phase::BootstrapConfigMap => "bootstrap configmap",
            Phase::ControlPlaneNodes => "control-plane nodes",
            Phase::EtcdBootstrapMemberRemoved => "etcd bootstrap member removal",
            Phase::ClusterInitialized => "cluster initialization",
            Phase::RouterCa => "router CA in kubeconfig",
            Phase::OperatorsStable => "cluster operators stable",
            Phase::Console => "console route",
        }
    }

    /// What the phase waits for, as the end of "waiting up to 20m for ...".
    pub fn goal(self) -> &'static str {
        match self {
            Phase::Api => "the Kubernetes API",
            Phase::BootstrapConfigMap => {
                "bootstrapping to complete (configmap kube-system/bootstrap)"
            }
            Phase::ControlPlaneNodes => "the control-plane nodes to be Ready",
            Phase::EtcdBootstrapMemberRemoved => "the bootstrap etcd member to be removed",
            Phase::ClusterInitialized => "the cluster to initialize",
            Phase::RouterCa => "the ingress router CA, to add it to the kubeconfig",
            Phase::OperatorsStable => "every cluster operator to finish progressing",
            Phase::Console => "the console route",
        }
    }

    /// Process exit code when this phase fails (reference: commands §8).
    pub fn exit_code(self) -> i32 {
        match self {
            Phase::Api
            | Phase::BootstrapConfigMap
            | Phase::ControlPlaneNodes
            | Phase::EtcdBootstrapMemberRemoved => 5,
            Phase::ClusterInitialized | Phase::RouterCa | Phase::Console => 6,
            Phase::OperatorsStable => 7,
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}

pub(crate) fn ms<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Something the caller should show. `Status` is only sent when its message differs from the
/// previous one of the same phase, so a renderer can print every event without flooding.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A phase began; it fails after `timeout`.
    PhaseStarted {
        /// Which phase.
        phase: Phase,
        /// Its budget.
        #[serde(rename = "timeout_ms", serialize_with = "ms")]
        timeout: Duration,
    },
    /// What the cluster reports changed.
    Status {
        /// Which phase.
        phase: Phase,
        /// What was seen, e.g. `connection refused` or `configmap present, no status yet`.
        message: String,
        /// Time since the phase started.
        #[serde(rename = "elapsed_ms", serialize_with = "ms")]
        elapsed: Duration,
    },
    /// A phase finished successfully.
    PhaseDone {
        /// Which phase.
        phase: Phase,
        /// How long it took.
        #[serde(rename = "elapsed_ms", serialize_with = "ms")]
        elapsed: Duration,
        /// What finished it, e.g. `API v1.34.1 up`.
        detail: String,
    },
    /// The wait failed; the same diagnosis is in the returned error.
    Failed {
        /// The phase that failed.
        phase: Phase,
        /// Time spent in that phase.
        #[serde(rename = "elapsed_ms", serialize_with = "ms")]
        elapsed: Duration,
        /// The error message.
        error: String,
        /// Exit code the binary should use.
        exit_code: i32,
        /// Why, most likely, and what to run next.
        diagnosis: Box<Diagnosis>,
    },
}

/// `4m05s`, `12.3s`, `850ms`: short and exact enough for a spinner.
pub(crate) fn human_duration(d: Duration) -> String {
    let secs = d.as_secs();
    if secs >= 3600 {
        format!("{}h{:02}m{:02}s", secs / 3600, secs % 3600 / 60, secs % 60)
    } else if secs >= 60 {
        format!("{}m{:02}s", secs / 60, secs % 60)
    } else if secs >= 1 {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        format!("{}ms", d.as_millis())
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::PhaseStarted { phase, timeout } => {
                write!(
                    f,
                    "waiting up to {} for {}",
                    human_duration(*timeout),
                    phase.goal()
                )
            }
            Event::Status {
                phase,
                message,
                elapsed,
            } => write!(f, "[{phase} {}] {message}", human_duration(*elapsed)),
            Event::PhaseDone {
                phase,
                elapsed,
                detail,
            } => write!(f, "{phase}: {detail} (after {})", human_duration(*elapsed)),
            Event::Failed {
                phase,
                elapsed,
                error,
                diagnosis,
                ..
            } => {
                write!(
                    f,
                    "{phase} failed after {}: {error}\n{diagnosis}",
                    human_duration(*elapsed)
                )
            }
        }
    }
}

/// How long one finished phase took.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseTiming {
    /// The phase.
    pub phase: Phase,
    /// Its duration.
    #[serde(rename = "elapsed_ms", serialize_with = "ms")]
    pub elapsed: Duration,
}

/// What a successful wait found out.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Every phase that ran, in order.
    pub phases: Vec<PhaseTiming>,
    /// `gitVersion` of the API server, when the API phase ran.
    pub api_version: Option<String>,
    /// Last pivot stage read from `kube-system/bootstrap-pivot` (pivot mode).
    pub pivot_stage: Option<String>,
    /// Certificate signing requests approved for the pivoted host's kubelet (pivot mode).
    pub approved_csrs: Vec<String>,
    /// Whether the pivot's etcd override was removed by this run (pivot mode; `false` when
    /// it was not set, e.g. removed by an earlier run).
    pub etcd_override_removed: bool,
    /// Console URL, when the console route was admitted in time.
    pub console_url: Option<String>,
    /// Backup of the kubeconfig written before the router CA was prepended.
    pub kubeconfig_backup: Option<PathBuf>,
    /// Non-fatal problems (e.g. no console), meant to be shown as warnings.
    pub warnings: Vec<String>,
}

impl Summary {
    /// Total time of all phases.
    pub fn total(&self) -> Duration {
        self.phases.iter().map(|p| p.elapsed).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human_duration(Duration::from_millis(850)), "850ms");
        assert_eq!(human_duration(Duration::from_millis(12_340)), "12.3s");
        assert_eq!(human_duration(Duration::from_secs(245)), "4m05s");
        assert_eq!(human_duration(Duration::from_secs(3723)), "1h02m03s");
    }

    #[test]
    fn event_lines_for_humans() {
        let started = Event::PhaseStarted {
            phase: Phase::BootstrapConfigMap,
            timeout: Duration::from_secs(45 * 60),
        };
        assert_eq!(
            started.to_string(),
            "waiting up to 45m00s for bootstrapping to complete (configmap kube-system/bootstrap)"
        );
        let status = Event::Status {
            phase: Phase::Api,
            message: "connection refused".into(),
            elapsed: Duration::from_secs(75),
        };
        assert_eq!(
            status.to_string(),
            "[Kubernetes API 1m15s] connection refused"
        );
        let json = serde_json::to_string(&status).expect("json");
        assert_eq!(
            json,
            r#"{"event":"status","phase":"api","message":"connection refused","elapsed_ms":75000}"#
        );
    }
}
