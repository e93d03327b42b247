//! Topology rules for the Infrastructure object and the Scheduler.

use crate::inputs::ManifestInputs;

/// `status.controlPlaneTopology`.
///
/// One replica is `SingleReplica`; two are `DualReplica`, or `HighlyAvailableArbiter` when an
/// arbiter pool has replicas; three or more are `HighlyAvailable`.
pub fn control_plane_topology(inputs: &ManifestInputs) -> &'static str {
    let arbiter = inputs.arbiter.as_ref().map_or(0, |p| p.replicas);
    match inputs.control_plane.replicas {
        0 | 1 => "SingleReplica",
        _ if arbiter > 0 => "HighlyAvailableArbiter",
        2 => "DualReplica",
        _ => "HighlyAvailable",
    }
}

/// `status.infrastructureTopology` (current rule).
///
/// Infrastructure workloads run wherever workloads run: the compute replicas, plus the
/// control-plane replicas when fewer than two compute nodes exist (masters are then
/// schedulable or share the load). Exactly one node means `SingleReplica`.
pub fn infrastructure_topology(inputs: &ManifestInputs) -> &'static str {
    let mut nodes = inputs.compute_replicas();
    if nodes < 2 {
        nodes += inputs.control_plane.replicas;
    }
    if nodes == 1 {
        "SingleReplica"
    } else {
        "HighlyAvailable"
    }
}

/// `spec.mastersSchedulable`: true when no compute replicas exist, since the cluster's own
/// workloads (ingress, monitoring, ...) need somewhere to run.
pub fn masters_schedulable(inputs: &ManifestInputs) -> bool {
    inputs.compute_replicas() == 0
}
