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
use crate::phase::{Phase, human_duration};

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
