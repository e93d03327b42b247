//! The steps of a wait ([`Phase`]) and how their durations read: shared by the events the
//! waits send and the errors they end with.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

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
}
