//! `wait-for bootstrap-complete`: API up, bootstrap ConfigMap complete, (pivot: control-plane
//! nodes Ready with the pivoted host's kubelet certificates approved, then the pivot's etcd
//! override removed), bootstrap etcd member removed. After this it is safe to delete the
//! bootstrap machine (in pivot mode there is none left: it is the third master).

use std::future::Future;
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Node};
use kube::Api;
use kube::api::{DynamicObject, ListParams};
use tokio::time::Instant;

use crate::client::Cluster;
use crate::conditions::{conditions, find};
use crate::error::{GatherHint, WaitError};
use crate::events::{Event, Summary};
use crate::phase::Phase;
use crate::pivot_configmap::PivotState;
use crate::pivot_mode;
use crate::report::{Class, Reporter};
use crate::resources::etcd_resource;
use crate::watch::{Check, watch_named};

const API_POLL: Duration = Duration::from_secs(2);
const ETCD_POLL: Duration = Duration::from_secs(1);
const NODES_POLL: Duration = Duration::from_secs(1);

/// Budgets and mode of `wait-for bootstrap-complete`. The binary maps its flags onto these
/// fields; tests shorten the same fields.
#[derive(Debug, Clone)]
pub struct BootstrapWaitOptions {
    /// Phase "Kubernetes API" (default 20 min).
    pub api_timeout: Duration,
    /// Phase "bootstrap configmap", plus the control-plane nodes phase in pivot mode
    /// (default 45 min, 60 min on baremetal and vSphere).
    pub bootstrap_timeout: Duration,
    /// Phase "etcd bootstrap member removed" (default 5 min).
    pub etcd_timeout: Duration,
    /// Bootstrap pivot mode: also wait for Ready control-plane nodes and report the pivot
    /// stage from ConfigMap `kube-system/bootstrap-pivot`.
    pub pivot: bool,
    /// How many Ready control-plane nodes the pivot mode waits for (default 3).
    pub control_plane_nodes: usize,
    /// Addresses for the `gather bootstrap` command in a diagnosis.
    pub gather: GatherHint,
    /// Cap on the whole wait (`wait-for --timeout`): every phase ends by then at the latest.
    /// `None` keeps upstream's per-phase budgets.
    pub total: Option<Duration>,
}

impl BootstrapWaitOptions {
    /// Upstream's budgets, with the one that varies by platform given as a setting (the
    /// caller knows the platform: installconfig's `WaitBudgets`).
    pub fn new(bootstrap_timeout: Duration, gather: GatherHint) -> Self {
        BootstrapWaitOptions {
            api_timeout: Duration::from_secs(20 * 60),
            bootstrap_timeout,
            etcd_timeout: Duration::from_secs(5 * 60),
            pivot: false,
            control_plane_nodes: 3,
            gather,
            total: None,
        }
    }
}

/// Wait until bootstrapping is complete. `events` receives progress; `cancel` (e.g. Ctrl-C)
/// stops the wait with [`WaitError::Interrupted`] (exit code 8). Every failure is also sent
/// as [`Event::Failed`].
pub async fn wait_bootstrap_complete(
    cluster: &Cluster,
    opts: &BootstrapWaitOptions,
    events: &dyn Fn(Event),
    cancel: impl Future<Output = ()>,
) -> Result<Summary, WaitError> {
    let rep = Reporter::new(events, cluster, Phase::Api);
    let hint = &opts.gather;
    let end = opts.total.map(|t| Instant::now() + t);
    // A phase's budget, cut to what is left of `--timeout`.
    let cap = |budget: Duration| match end {
        Some(end) => budget.min(end.saturating_duration_since(Instant::now())),
        None => budget,
    };
    let work = async {
        let version = rep
            .run(Phase::Api, cap(opts.api_timeout), hint, wait_api(&rep))
            .await?;
        let deadline = Instant::now() + cap(opts.bootstrap_timeout);
        rep.run(
            Phase::BootstrapConfigMap,
            cap(opts.bootstrap_timeout),
            hint,
            wait_configmap(&rep),
        )
        .await?;
        let mut pivot = None;
        if opts.pivot {
            let left = cap(deadline.saturating_duration_since(Instant::now()));
            pivot = Some(
                rep.run(
                    Phase::ControlPlaneNodes,
                    left,
                    hint,
                    wait_nodes(&rep, opts.control_plane_nodes),
                )
                .await?,
            );
        }
        rep.run(
            Phase::EtcdBootstrapMemberRemoved,
            cap(opts.etcd_timeout),
            hint,
            wait_etcd(&rep),
        )
        .await?;
        let (pivot_stage, approved_csrs, etcd_override_removed) = match pivot {
            Some(p) => (p.stage, p.approved_csrs, p.etcd_override_removed),
            None => (None, Vec::new(), false),
        };
        Ok(Summary {
            api_version: Some(version),
            pivot_stage,
            approved_csrs,
            etcd_override_removed,
            ..rep.summary()
        })
    };
    rep.guard(hint, work, cancel).await
}

async fn wait_api(rep: &Reporter<'_>) -> Result<(String, String), String> {
    // Name the API name's missing DNS record before the first request, in the probe's words
    // (the same line every later failed request gives, so it is shown once).
    rep.check_dns().await;
    loop {
        if let Some(info) = rep.request(rep.cluster.client.apiserver_version()).await {
            let detail = format!("API {} up", info.git_version);
            return Ok((info.git_version, detail));
        }
        tokio::time::sleep(API_POLL).await;
    }
}

async fn wait_configmap(rep: &Reporter<'_>) -> Result<((), String), String> {
    let api: Api<ConfigMap> = Api::namespaced(rep.cluster.client.clone(), "kube-system");
    let done = watch_named(&api, "bootstrap", rep, |cm| {
        let Some(cm) = cm else {
            return Check::Wait("configmap kube-system/bootstrap not created yet".into());
        };
        match cm.data.as_ref().and_then(|d| d.get("status")) {
            Some(s) if s == "complete" => Check::Done(((), "bootstrap status: complete".into())),
            Some(s) => Check::Wait(format!("bootstrap status: {s}")),
            None => Check::Wait("configmap present, no status yet".into()),
        }
    })
    .await;
    Ok(done)
}

fn is_control_plane(n: &Node) -> bool {
    n.metadata.labels.as_ref().is_some_and(|l| {
        l.contains_key("node-role.kubernetes.io/master")
            || l.contains_key("node-role.kubernetes.io/control-plane")
    })
}

fn is_ready(n: &Node) -> bool {
    n.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

/// Names of Ready control-plane nodes, sorted.
fn ready_control_plane(nodes: &[Node]) -> Vec<String> {
    let mut ready: Vec<String> = nodes
        .iter()
        .filter(|n| is_control_plane(n) && is_ready(n))
        .filter_map(|n| n.metadata.name.clone())
        .collect();
    ready.sort();
    ready
}

/// What the control-plane nodes phase of pivot mode found out.
struct PivotOutcome {
    stage: Option<String>,
    approved_csrs: Vec<String>,
    etcd_override_removed: bool,
}

/// The pivot's ConfigMap, kept as the last known state when it cannot be read.
async fn read_pivot(rep: &Reporter<'_>, maps: &Api<ConfigMap>, last: PivotState) -> PivotState {
    match rep
        .request(maps.get_opt(contract::pivot::CONFIG_MAP_NAME))
        .await
    {
        Some(Some(cm)) => {
            let state = PivotState::from_data(&cm.data.unwrap_or_default());
            PivotState {
                stage: state.stage.or(last.stage),
                ..state
            }
        }
        _ => last,
    }
}

/// Poll nodes and the pivot stage until `want` control-plane nodes are Ready, approving the
/// kubelet certificate requests of the pivoted host meanwhile; then remove the etcd
/// override.
async fn wait_nodes(rep: &Reporter<'_>, want: usize) -> Result<(PivotOutcome, String), String> {
    let nodes: Api<Node> = Api::all(rep.cluster.client.clone());
    let maps: Api<ConfigMap> = Api::namespaced(
        rep.cluster.client.clone(),
        contract::pivot::CONFIG_MAP_NAMESPACE,
    );
    let mut pivot = PivotState::default();
    let mut approved_csrs = Vec::new();
    let ready = loop {
        pivot = read_pivot(rep, &maps, pivot).await;
        rep.set_pivot(pivot.clone());
        if let Some(list) = rep.request(nodes.list(&ListParams::default())).await {
            let ready = ready_control_plane(&list.items);
            let msg = format!(
                "{}/{want} control-plane nodes Ready [{}]{}",
                ready.len(),
                ready.join(", "),
                pivot.status_suffix()
            );
            if ready.len() >= want {
                break msg;
            }
            rep.observe(msg, Class::Observation);
            approved_csrs.extend(pivot_mode::approve_pending_csrs(rep).await);
        }
        tokio::time::sleep(NODES_POLL).await;
    };
    rep.observe(ready.clone(), Class::Observation);
    let removed = loop {
        if let Some(removed) = pivot_mode::remove_etcd_override(rep).await {
            break removed;
        }
        tokio::time::sleep(NODES_POLL).await;
    };
    let detail = if removed {
        format!("{ready}; etcd override removed")
    } else {
        ready
    };
    let outcome = PivotOutcome {
        stage: pivot.stage,
        approved_csrs,
        etcd_override_removed: removed,
    };
    Ok((outcome, detail))
}

async fn wait_etcd(rep: &Reporter<'_>) -> Result<((), String), String> {
    let api: Api<DynamicObject> = Api::all_with(rep.cluster.client.clone(), &etcd_resource());
    loop {
        match rep.request(api.get_opt("cluster")).await {
            None => {}
            Some(None) => rep.observe(
                "etcds.operator.openshift.io/cluster not found yet",
                Class::Observation,
            ),
            Some(Some(obj)) => {
                let conds = conditions(&serde_json::to_value(&obj).unwrap_or_default());
                match find(&conds, "EtcdBootstrapMemberRemoved") {
                    Some(c) if c.status == "True" => {
                        return Ok(((), "bootstrap etcd member removed".into()));
                    }
                    Some(c) => rep.observe(
                        format!(
                            "EtcdBootstrapMemberRemoved={} {}: {}",
                            c.status, c.reason, c.message
                        ),
                        Class::Observation,
                    ),
                    None => rep.observe(
                        "etcd operator has not reported EtcdBootstrapMemberRemoved yet",
                        Class::Observation,
                    ),
                }
            }
        }
        tokio::time::sleep(ETCD_POLL).await;
    }
}
