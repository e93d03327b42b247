//! What the bootstrap pivot publishes in ConfigMap `kube-system/bootstrap-pivot`, and the
//! likely cause it implies. Read by the wait (pivot mode) and by the diagnosis; its own module
//! so that neither has to import the other.

use std::collections::BTreeMap;

use contract::pivot::{KEY_FAILURE, KEY_STAGE, PivotStep};

/// What ConfigMap `kube-system/bootstrap-pivot` says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PivotState {
    /// The step the pivot script is in (or stopped at).
    pub stage: Option<String>,
    /// `<step>: exit status N` while a step has failed.
    pub failure: Option<String>,
}

impl PivotState {
    pub(crate) fn from_data(data: &BTreeMap<String, String>) -> PivotState {
        let get = |k: &str| data.get(k).filter(|v| !v.is_empty()).cloned();
        PivotState {
            stage: get(KEY_STAGE),
            failure: get(KEY_FAILURE),
        }
    }

    /// `; pivot stage: X` (with `, failed: Y`), or nothing when no stage is known.
    pub(crate) fn status_suffix(&self) -> String {
        match (&self.stage, &self.failure) {
            (Some(s), Some(f)) => format!("; pivot stage: {s} (failed: {f})"),
            (Some(s), None) => format!("; pivot stage: {s}"),
            (None, _) => String::new(),
        }
    }
}

/// Why the third control-plane node is missing, from the pivot step it stopped at.
pub(crate) fn stage_cause(state: &PivotState) -> String {
    let Some(stage) = state.stage.as_deref() else {
        return "the bootstrap host never published a pivot stage: check that \
                bootstrap-pivot.service runs on it and can reach the API at api-int"
            .to_string();
    };
    let what = match PivotStep::from_name(stage) {
        Some(PivotStep::AllowReducedEtcd) => {
            "it could not set the etcd override (the etcd operator configuration was not \
             there or the API did not answer)"
        }
        Some(PivotStep::WaitForMasters) => "the other control-plane nodes did not become Ready",
        Some(PivotStep::WaitForBootkube) => "bootkube.service on it did not finish",
        Some(PivotStep::PointerConfig) => "it could not write its master pointer config",
        Some(PivotStep::CoreosInstaller) => {
            "coreos-installer did not write the OS to the installation disk (check \
             bootstrapPivot.installationDisk and the host's console)"
        }
        Some(PivotStep::Reboot) => {
            "it rebooted into the installed system but its kubelet has not joined as a Ready \
             node (can it reach the machine-config server on api-int:22623? are its \
             certificate requests approved?)"
        }
        None => "it stopped at a step this installer does not know",
    };
    let failed = state
        .failure
        .as_deref()
        .map(|f| format!(", and reported a failure ({f})"))
        .unwrap_or_default();
    format!(
        "the bootstrap host did not come back as the third control-plane node: its pivot is \
         at stage {stage}{failed}; {what}. Its service record \
         bootstrap-pivot.json in the log bundle names the failing step"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_failure_is_no_failure() {
        let data: BTreeMap<String, String> = [("stage", "reboot"), ("failure", "")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let state = PivotState::from_data(&data);
        assert_eq!(state.stage.as_deref(), Some("reboot"));
        assert_eq!(state.failure, None);
        assert_eq!(state.status_suffix(), "; pivot stage: reboot");
    }

    #[test]
    fn causes_name_the_stage_and_the_failure() {
        let state = PivotState {
            stage: Some("pivot-coreos-installer".into()),
            failure: Some("pivot-coreos-installer: exit status 1".into()),
        };
        let cause = stage_cause(&state);
        assert!(cause.contains("at stage pivot-coreos-installer"), "{cause}");
        assert!(cause.contains("exit status 1"), "{cause}");
        assert!(cause.contains("installationDisk"), "{cause}");
        assert!(stage_cause(&PivotState::default()).contains("never published"));
        assert_eq!(
            state.status_suffix(),
            "; pivot stage: pivot-coreos-installer (failed: pivot-coreos-installer: exit status 1)"
        );
    }
}
