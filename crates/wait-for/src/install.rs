//! `wait-for install-complete`: cluster initialized, router CA into the kubeconfig, operators
//! stable, console route (never fatal).

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::Api;
use kube::api::DynamicObject;
use kube::core::{ApiResource, GroupVersionKind};
use serde_json::Value;
use tokio::time::Instant;

use crate::client::Cluster;
use crate::conditions::{Condition, conditions, find, is};
use crate::error::{GatherHint, WaitError};
use crate::events::{Event, Summary};
use crate::kubeconfig::{PrependOutcome, prepend_router_ca};
use crate::phase::Phase;
use crate::report::{Class, Reporter, list_operators};
use crate::watch::{Check, watch_named};

const OPERATORS_POLL: Duration = Duration::from_secs(1);
const CONSOLE_POLL: Duration = Duration::from_secs(2);
const ROUTER_CA_RETRY: Duration = Duration::from_secs(2);

/// Budgets of `wait-for install-complete`.
#[derive(Debug, Clone)]
pub struct InstallWaitOptions {
    /// Phase "cluster initialization" (default 40 min, 60 min on baremetal).
    pub cluster_timeout: Duration,
    /// Phase "router CA in kubeconfig": how long to retry reading the CA (default 2 min).
    pub router_ca_timeout: Duration,
    /// Phase "cluster operators stable" (default 30 min).
    pub operators_timeout: Duration,
    /// How long an operator must have stopped progressing to count as stable (default 30 s).
    pub settle: Duration,
    /// Phase "console route" (default 2 min, not fatal).
    pub console_timeout: Duration,
    /// Directory and addresses for the commands in a diagnosis.
    pub gather: GatherHint,
}

impl InstallWaitOptions {
    /// Upstream's budgets, with the one that varies by platform given as a setting (the
    /// caller knows the platform: installconfig's `WaitBudgets`).
    pub fn new(cluster_timeout: Duration, gather: GatherHint) -> Self {
        InstallWaitOptions {
            cluster_timeout,
            router_ca_timeout: Duration::from_secs(120),
            operators_timeout: Duration::from_secs(30 * 60),
            settle: Duration::from_secs(30),
            console_timeout: Duration::from_secs(120),
            gather,
        }
    }
}

/// Wait until the installation is complete. Rewrites the client's kubeconfig once (router CA
/// prepended, previous file kept as `kubeconfig.bak-<unix seconds>`). `cancel` stops the wait
/// with exit code 8.
pub async fn wait_install_complete(
    cluster: &Cluster,
    opts: &InstallWaitOptions,
    events: &dyn Fn(Event),
    cancel: impl Future<Output = ()>,
) -> Result<Summary, WaitError> {
    let rep = Reporter::new(events, cluster, Phase::ClusterInitialized);
    let hint = &opts.gather;
    let work = async {
        rep.run(
            Phase::ClusterInitialized,
            opts.cluster_timeout,
            hint,
            wait_cluster_version(&rep),
        )
        .await?;
        let backup = rep
            .run(
                Phase::RouterCa,
                opts.router_ca_timeout,
                hint,
                add_router_ca(&rep),
            )
            .await?;
        rep.run(
            Phase::OperatorsStable,
            opts.operators_timeout,
            hint,
            wait_operators_stable(&rep, opts.settle),
        )
        .await?;
        let console = wait_console(&rep, opts.console_timeout).await;
        let mut summary = Summary {
            kubeconfig_backup: backup,
            ..rep.summary()
        };
        match console {
            Ok(url) => summary.console_url = Some(url),
            Err(warning) => summary.warnings.push(warning),
        }
        Ok(summary)
    };
    rep.guard(hint, work, cancel).await
}

fn cluster_version_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("config.openshift.io", "v1", "ClusterVersion"),
        "clusterversions",
    )
}

fn status_of(conds: &[Condition], t: &str) -> String {
    find(conds, t).map_or("unknown".into(), |c| c.status.clone())
}

/// Done when Available=True, Failing=False, Progressing=False; otherwise the Failing message
/// (if failing) or the Progressing message.
fn cluster_version_check(obj: Option<&DynamicObject>) -> Check<((), String)> {
    let Some(obj) = obj else {
        return Check::Wait("clusterversion/version not created yet".into());
    };
    let conds = conditions(&serde_json::to_value(obj).unwrap_or_default());
    if is(&conds, "Available", "True")
        && is(&conds, "Failing", "False")
        && is(&conds, "Progressing", "False")
    {
        let version = find(&conds, "Available")
            .map(|c| c.message.clone())
            .unwrap_or_default();
        return Check::Done(((), format!("cluster initialized: {version}")));
    }
    for t in ["Failing", "Progressing"] {
        if let Some(c) = find(&conds, t).filter(|c| c.status == "True" && !c.message.is_empty()) {
            return Check::Wait(format!("{t}: {}", c.message));
        }
    }
    Check::Wait(format!(
        "Available={} Failing={} Progressing={}",
        status_of(&conds, "Available"),
        status_of(&conds, "Failing"),
        status_of(&conds, "Progressing")
    ))
}

async fn wait_cluster_version(rep: &Reporter<'_>) -> Result<((), String), String> {
    let api: Api<DynamicObject> =
        Api::all_with(rep.cluster.client.clone(), &cluster_version_resource());
    Ok(watch_named(&api, "version", rep, cluster_version_check).await)
}

async fn add_router_ca(rep: &Reporter<'_>) -> Result<(Option<PathBuf>, String), String> {
    let api: Api<ConfigMap> =
        Api::namespaced(rep.cluster.client.clone(), "openshift-config-managed");
    let bundle = loop {
        match rep.request(api.get_opt("default-ingress-cert")).await {
            None => {}
            Some(Some(cm)) => match cm.data.and_then(|d| d.get("ca-bundle.crt").cloned()) {
                Some(b) => break b,
                None => rep.observe(
                    "configmap default-ingress-cert has no ca-bundle.crt yet",
                    Class::Observation,
                ),
            },
            Some(None) => rep.observe(
                "configmap openshift-config-managed/default-ingress-cert not found yet",
                Class::Observation,
            ),
        }
        tokio::time::sleep(ROUTER_CA_RETRY).await;
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let path = rep.cluster.kubeconfig_path();
    match prepend_router_ca(path, &bundle, now) {
        Ok(PrependOutcome::Updated { backup }) => {
            let detail = format!(
                "router CA prepended to {} (previous file kept as {})",
                path.display(),
                backup.display()
            );
            Ok((Some(backup), detail))
        }
        Ok(PrependOutcome::AlreadyPresent) => Ok((
            None,
            format!("{} already trusts the router CA", path.display()),
        )),
        Err(e) => Err(e.to_string()),
    }
}

fn parse_time(s: &str) -> Option<SystemTime> {
    let t = time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).ok()?;
    let secs = u64::try_from(t.unix_timestamp()).ok()?;
    Some(UNIX_EPOCH + Duration::from_secs(secs))
}

/// Tracks since when each operator has been seen not progressing.
struct Stability {
    settle: Duration,
    since: HashMap<String, Instant>,
}

impl Stability {
    /// Returns the names of operators that are not (yet) stable.
    fn unstable(&mut self, ops: &[Value]) -> Vec<String> {
        let now = Instant::now();
        let mut out = Vec::new();
        for op in ops {
            let name = op
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                .unwrap_or("?");
            let conds = conditions(op);
            let progressing = find(&conds, "Progressing");
            let stopped = progressing.is_some_and(|c| c.status == "False");
            if !stopped {
                self.since.remove(name);
                out.push(name.to_string());
                continue;
            }
            let local = *self.since.entry(name.to_string()).or_insert(now);
            let by_server = progressing
                .and_then(|c| c.last_transition.as_deref())
                .and_then(parse_time)
                .and_then(|t| SystemTime::now().duration_since(t).ok())
                .is_some_and(|age| age >= self.settle);
            if !(by_server || now.duration_since(local) >= self.settle) {
                out.push(name.to_string());
            }
        }
        out.sort();
        out
    }
}

async fn wait_operators_stable(
    rep: &Reporter<'_>,
    settle: Duration,
) -> Result<((), String), String> {
    let mut stability = Stability {
        settle,
        since: HashMap::new(),
    };
    loop {
        match rep.request(list_operators(rep.cluster)).await {
            None => {}
            Some(ops) if ops.is_empty() => {
                rep.observe("no ClusterOperators reported yet", Class::Observation)
            }
            Some(ops) => {
                let unstable = stability.unstable(&ops);
                if unstable.is_empty() {
                    return Ok(((), format!("all {} cluster operators stable", ops.len())));
                }
                rep.observe(
                    format!(
                        "these cluster operators were not stable: [{}]",
                        unstable.join(", ")
                    ),
                    Class::Observation,
                );
            }
        }
        tokio::time::sleep(OPERATORS_POLL).await;
    }
}

fn route_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("route.openshift.io", "v1", "Route"),
        "routes",
    )
}

/// The URL of an admitted route, if any ingress admitted it.
fn admitted_url(route: &Value) -> Option<String> {
    let ingresses = route.pointer("/status/ingress")?.as_array()?;
    ingresses.iter().find_map(|ing| {
        let admitted = ing
            .get("conditions")?
            .as_array()?
            .iter()
            .any(|c| c["type"] == "Admitted" && c["status"] == "True");
        let host = ing
            .get("host")
            .or_else(|| route.pointer("/spec/host"))?
            .as_str()?;
        admitted.then(|| format!("https://{host}"))
    })
}

/// Returns the console URL, or a warning text. Never fails the install.
async fn wait_console(rep: &Reporter<'_>, timeout: Duration) -> Result<String, String> {
    rep.start(Phase::Console, timeout);
    let api: Api<DynamicObject> = Api::namespaced_with(
        rep.cluster.client.clone(),
        "openshift-console",
        &route_resource(),
    );
    let poll = async {
        loop {
            match rep.request(api.get_opt("console")).await {
                None => {}
                Some(None) => {
                    return Err("route openshift-console/console does not exist".to_string());
                }
                Some(Some(r)) => {
                    if let Some(url) = admitted_url(&serde_json::to_value(&r).unwrap_or_default()) {
                        return Ok(url);
                    }
                    rep.observe("console route exists, not admitted yet", Class::Observation);
                }
            }
            tokio::time::sleep(CONSOLE_POLL).await;
        }
    };
    let result = tokio::time::timeout(timeout, poll)
        .await
        .unwrap_or_else(|_| {
            Err(format!(
                "console route not admitted within {}: {}",
                crate::phase::human_duration(timeout),
                rep.last_seen().map(|s| s.0).unwrap_or_default()
            ))
        });
    match &result {
        Ok(url) => rep.done(format!("console at {url}")),
        // The reason is the summary's warning; said here too, it would be printed twice.
        Err(_) => rep.done("no console"),
    }
    result
}
