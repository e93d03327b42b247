//! Turning "what was last seen in which phase" into a likely cause and a next command.
//!
//! The causes follow how installs actually fail: an API that never answers is a bootstrap-host
//! problem (DNS, load balancer, the machine itself); a bootstrap that never completes is a
//! control-plane-host problem; TLS errors mean the kubeconfig and the server come from
//! different installations.

use contract::cause::{Cause, Finding};

use crate::class::Class;
use crate::client::Cluster;
use crate::conditions::UnhealthyCondition;
use crate::error::{GatherHint, shell_word};
use crate::phase::Phase;
use crate::pivot_configmap::{PivotState, stage_cause};

pub(crate) fn likely_cause(
    phase: Phase,
    seen: Option<Class>,
    pivot: Option<&PivotState>,
    cluster: &Cluster,
) -> String {
    let ep = &cluster.endpoint;
    if let Some(class) = seen
        && let Some(cause) = transport_cause(class, &ep.server, &ep.host)
    {
        return cause;
    }
    if phase == Phase::ControlPlaneNodes
        && let Some(pivot) = pivot
    {
        return stage_cause(pivot);
    }
    phase_cause(phase, &ep.server)
}

/// The likely cause of a phase that ran out of time without a transport error.
fn phase_cause(phase: Phase, server: &str) -> String {
    let cause = match phase {
        Phase::Api => {
            return format!(
                "the API at {server} did not answer; this usually is a problem on the \
                 bootstrap host (is the bootstrap machine booted with its Ignition config, \
                 does bootkube.service run?)"
            );
        }
        Phase::BootstrapConfigMap => {
            "the temporary control plane is up but bootstrapping did not complete; this \
             usually is a problem with the control-plane hosts: they did not boot, could not \
             fetch their Ignition config from api-int:22623, or the control plane operators \
             could not start on them"
        }
        Phase::ControlPlaneNodes => {
            "not enough control-plane nodes became Ready; check that every control-plane host \
             booted and that its kubelet joined (pending CSRs, networking)"
        }
        Phase::EtcdBootstrapMemberRemoved => {
            "the etcd operator did not remove the bootstrap etcd member; usually an etcd \
             member on a control-plane host is not healthy yet"
        }
        Phase::ClusterInitialized => {
            "the cluster version operator did not finish; see the unhealthy operators"
        }
        Phase::RouterCa => {
            "the cluster did not publish its router CA, or it could not be added to the \
             kubeconfig"
        }
        Phase::OperatorsStable => {
            "the cluster operators named above kept progressing (or were unavailable or \
             degraded) during the settle time"
        }
        Phase::Console => "the console route was not admitted",
    };
    cause.to_string()
}

/// Causes that do not depend on the phase: the network or TLS is the problem. What exactly
/// failed is the diagnosis' "last seen", so it is not repeated here.
fn transport_cause(class: Class, server: &str, host: &str) -> Option<String> {
    Some(match class {
        Class::Refused | Class::Unreachable => format!(
            "nothing answered at {server}: the API is not being served. Check that \
             {host} resolves to the API load balancer, that the load balancer forwards port \
             6443 to the bootstrap machine (and later the control-plane machines), and that \
             the bootstrap machine booted"
        ),
        Class::Dns => format!(
            "{host} does not resolve: create the DNS record for the API name pointing \
             at the API load balancer (or the bootstrap host)"
        ),
        Class::CertExpired => format!(
            "the API server's certificate at {server} has expired on this machine's clock: \
             {}; {}",
            Cause::CertificatesExpired.summary(),
            Cause::CertificatesExpired.remedy()
        ),
        Class::CertNotYetValid => format!(
            "the API server's certificate at {server} is not valid yet on this machine's \
             clock: {}; {}",
            Cause::CertificatesNotYetValid.summary(),
            Cause::CertificatesNotYetValid.remedy()
        ),
        Class::ServerCert => format!(
            "the kubeconfig and the server disagree about the server's certificate: the \
             kubeconfig most likely belongs to another installation directory than the \
             cluster, or something else answers at {server}"
        ),
        Class::ClientCert => "the API server does not accept this kubeconfig's client \
                              certificate: use the auth/kubeconfig of the installation \
                              directory the cluster was created from"
            .to_string(),
        Class::Observation | Class::Http | Class::Other => return None,
    })
}

/// The catalogue's cause for a transport failure this machine saw itself, with what it saw as
/// the evidence: an API name that does not resolve here, a certificate outside its dates.
pub(crate) fn transport_finding(class: Class, seen: &str, host: &str) -> Option<Finding> {
    let cause = match class {
        Class::Dns => Cause::ApiDns,
        Class::CertExpired => Cause::CertificatesExpired,
        Class::CertNotYetValid => Cause::CertificatesNotYetValid,
        _ => return None,
    };
    let mut finding = Finding::new(cause, seen);
    // Name the very host rather than the pattern.
    finding.summary = finding.summary.replace("`api.<cluster domain>`", host);
    Some(finding)
}

pub(crate) fn next_command(
    phase: Phase,
    operators: &[UnhealthyCondition],
    hint: &GatherHint,
    cluster: &Cluster,
) -> String {
    let kc = shell_word(&cluster.kubeconfig_path().display().to_string());
    match phase {
        Phase::Api
        | Phase::BootstrapConfigMap
        | Phase::ControlPlaneNodes
        | Phase::EtcdBootstrapMemberRemoved => hint.gather_command(),
        Phase::RouterCa => format!(
            "oc --kubeconfig {kc} -n openshift-config-managed get configmap \
             default-ingress-cert -o yaml"
        ),
        _ => match operators.first() {
            Some(op) => format!("oc --kubeconfig {kc} describe clusteroperator {}", op.name),
            None => hint.install_complete_command(),
        },
    }
}
