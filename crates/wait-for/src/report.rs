//! Phase bookkeeping shared by both waits: events, de-duplicated status, what was last seen,
//! classification of errors, and the diagnosis at the end.

use std::cell::RefCell;
use std::future::Future;
use std::time::Duration;

use kube::Api;
use kube::api::{DynamicObject, ListParams};
use kube::core::{ApiResource, GroupVersionKind};
use tokio::time::Instant;

pub(crate) use crate::class::Class;
use crate::client::Cluster;
use crate::conditions::{UnhealthyCondition, unhealthy_operators};
use crate::error::{Diagnosis, GatherHint, WaitError};
use crate::events::{Event, PhaseTiming, Summary};
use crate::phase::Phase;
use crate::pivot_configmap::PivotState;
use crate::probe::{ProbeOutcome, probe};

/// Longest wait for one API request, so that a hung connection cannot freeze the reporting.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

struct State {
    phase: Phase,
    started: Instant,
    last_message: Option<String>,
    last_seen: Option<(String, Class)>,
    /// Last kube error text and what the probe made of it, to probe once per distinct error.
    described: Option<(String, String, Class)>,
    timings: Vec<PhaseTiming>,
    /// What the bootstrap pivot last published (pivot mode only), for the diagnosis.
    pivot: Option<PivotState>,
}

pub(crate) struct Reporter<'a> {
    sink: &'a dyn Fn(Event),
    pub cluster: &'a Cluster,
    state: RefCell<State>,
}

impl<'a> Reporter<'a> {
    pub(crate) fn new(sink: &'a dyn Fn(Event), cluster: &'a Cluster, first: Phase) -> Self {
        Reporter {
            sink,
            cluster,
            state: RefCell::new(State {
                phase: first,
                started: Instant::now(),
                last_message: None,
                last_seen: None,
                described: None,
                timings: Vec::new(),
                pivot: None,
            }),
        }
    }

    pub(crate) fn phase(&self) -> Phase {
        self.state.borrow().phase
    }

    pub(crate) fn elapsed(&self) -> Duration {
        self.state.borrow().started.elapsed()
    }

    pub(crate) fn last_seen(&self) -> Option<(String, Class)> {
        self.state.borrow().last_seen.clone()
    }

    /// Remember the pivot's published state so a diagnosis can name its stage.
    pub(crate) fn set_pivot(&self, pivot: PivotState) {
        self.state.borrow_mut().pivot = Some(pivot);
    }

    pub(crate) fn start(&self, phase: Phase, timeout: Duration) {
        {
            let mut s = self.state.borrow_mut();
            s.phase = phase;
            s.started = Instant::now();
            s.last_message = None;
            s.last_seen = None;
        }
        (self.sink)(Event::PhaseStarted { phase, timeout });
    }

    fn emit_status(&self, message: String) {
        let (phase, elapsed) = {
            let mut s = self.state.borrow_mut();
            if s.last_message.as_deref() == Some(message.as_str()) {
                return;
            }
            s.last_message = Some(message.clone());
            (s.phase, s.started.elapsed())
        };
        tracing::debug!(phase = phase.title(), ?elapsed, "{message}");
        (self.sink)(Event::Status {
            phase,
            message,
            elapsed,
        });
    }

    /// What the cluster reports now; kept as "last seen" for the diagnosis.
    pub(crate) fn observe(&self, message: impl Into<String>, class: Class) {
        let message = message.into();
        self.state.borrow_mut().last_seen = Some((message.clone(), class));
        self.emit_status(message);
    }

    /// A transport event (watch resumed, re-list) worth showing, not worth diagnosing.
    pub(crate) fn note(&self, message: impl Into<String>) {
        self.emit_status(message.into());
    }

    /// Resolve the API's host name once; when it does not resolve, observe that as the
    /// probe words it.
    pub(crate) async fn check_dns(&self) {
        let ep = &self.cluster.endpoint;
        if tokio::net::lookup_host((ep.host.as_str(), ep.port))
            .await
            .is_err()
            && let found @ ProbeOutcome::Dns(_) = probe(ep).await
        {
            self.observe(found.message(), Class::Dns);
        }
    }

    /// Explain a kube error (probing TLS when it is a connection problem) and observe it.
    pub(crate) async fn error(&self, err: &kube::Error) {
        let key = err.to_string();
        let cached = self
            .state
            .borrow()
            .described
            .as_ref()
            .filter(|(k, _, _)| *k == key)
            .map(|(_, m, c)| (m.clone(), *c));
        let (message, class) = match cached {
            Some(found) => found,
            None => {
                let found = self.describe(err).await;
                self.state.borrow_mut().described = Some((key, found.0.clone(), found.1));
                found
            }
        };
        self.observe(message, class);
    }

    /// Run one API request; on an error or no answer within [`REQUEST_TIMEOUT`], report it
    /// and return `None` so the caller retries on its own schedule.
    pub(crate) async fn request<T>(
        &self,
        fut: impl Future<Output = Result<T, kube::Error>>,
    ) -> Option<T> {
        match tokio::time::timeout(REQUEST_TIMEOUT, fut).await {
            Ok(Ok(v)) => Some(v),
            Ok(Err(e)) => {
                self.error(&e).await;
                None
            }
            Err(_) => {
                self.observe(
                    format!("no answer from the API within {REQUEST_TIMEOUT:?}"),
                    Class::Unreachable,
                );
                None
            }
        }
    }

    async fn describe(&self, err: &kube::Error) -> (String, Class) {
        if let kube::Error::Api(status) = err {
            let http = format!("HTTP {} {}: {}", status.code, status.reason, status.message);
            if !matches!(status.code, 401 | 403) {
                return (http, Class::Http);
            }
            // A 401/403 on /version means the client certificate itself is refused; on
            // other paths it may only be RBAC. The probe tells the two apart.
            return match probe(&self.cluster.endpoint).await {
                found @ ProbeOutcome::ClientCertRejected { .. } => {
                    (found.message(), Class::ClientCert)
                }
                _ => (http, Class::Http),
            };
        }
        let outcome = probe(&self.cluster.endpoint).await;
        let class = match &outcome {
            ProbeOutcome::Refused => Class::Refused,
            ProbeOutcome::Dns(_) => Class::Dns,
            ProbeOutcome::Unreachable(_) => Class::Unreachable,
            ProbeOutcome::ServerCertRejected { error, .. } => validity_class(error),
            ProbeOutcome::ClientCertRejected { .. } => Class::ClientCert,
            ProbeOutcome::Http(_) => return (short_kube_error(err), Class::Other),
            ProbeOutcome::Other(_) => Class::Other,
        };
        (outcome.message(), class)
    }

    pub(crate) fn done(&self, detail: impl Into<String>) {
        let (phase, elapsed) = {
            let mut s = self.state.borrow_mut();
            let elapsed = s.started.elapsed();
            let phase = s.phase;
            s.timings.push(PhaseTiming { phase, elapsed });
            (phase, elapsed)
        };
        (self.sink)(Event::PhaseDone {
            phase,
            elapsed,
            detail: detail.into(),
        });
    }

    pub(crate) fn summary(&self) -> Summary {
        Summary {
            phases: self.state.borrow().timings.clone(),
            ..Summary::default()
        }
    }

    pub(crate) fn failed(&self, err: &WaitError) {
        if let Some(d) = err.diagnosis() {
            (self.sink)(Event::Failed {
                phase: d.phase,
                elapsed: self.elapsed(),
                error: err.to_string(),
                exit_code: err.exit_code(),
                diagnosis: Box::new(d.clone()),
            });
        }
    }

    /// Run one phase with its budget; on timeout build the diagnosis.
    pub(crate) async fn run<T>(
        &self,
        phase: Phase,
        timeout: Duration,
        hint: &GatherHint,
        fut: impl Future<Output = Result<(T, String), String>>,
    ) -> Result<T, WaitError> {
        self.start(phase, timeout);
        match tokio::time::timeout(timeout, fut).await {
            Ok(Ok((value, detail))) => {
                self.done(detail);
                Ok(value)
            }
            Ok(Err(message)) => {
                self.observe(message.clone(), Class::Other);
                let diagnosis = Box::new(self.diagnose(hint).await);
                Err(WaitError::Failed {
                    phase,
                    message,
                    diagnosis,
                })
            }
            Err(_) => Err(WaitError::Timeout {
                phase,
                timeout,
                diagnosis: Box::new(self.diagnose(hint).await),
            }),
        }
    }

    /// Race `work` against the caller's cancellation; report a failure as an event too.
    pub(crate) async fn guard<T>(
        &self,
        hint: &GatherHint,
        work: impl Future<Output = Result<T, WaitError>>,
        cancel: impl Future<Output = ()>,
    ) -> Result<T, WaitError> {
        let result = tokio::select! {
            r = work => r,
            () = cancel => {
                let mut diagnosis = self.diagnose_quick(hint, Vec::new());
                diagnosis.likely_cause =
                    "interrupted; the cluster keeps installing on its own".into();
                diagnosis.next_command = resume_command(self.phase(), hint);
                Err(WaitError::Interrupted {
                    phase: self.phase(),
                    elapsed: self.elapsed(),
                    diagnosis: Box::new(diagnosis),
                })
            }
        };
        if let Err(e) = &result {
            self.failed(e);
        }
        result
    }

    /// Diagnosis including the cluster's unhealthy operators (fetched with a short timeout).
    pub(crate) async fn diagnose(&self, hint: &GatherHint) -> Diagnosis {
        let reachable = !self.last_seen().is_some_and(|s| s.1.is_transport());
        let (operators, event_finding) = if reachable {
            (
                fetch_unhealthy(self.cluster).await,
                crate::evidence::event_finding(self.cluster).await,
            )
        } else {
            (Vec::new(), None)
        };
        let mut diagnosis = self.diagnose_quick(hint, operators);
        if diagnosis.finding.is_none() && diagnosis.phase.exit_code() == 5 {
            diagnosis.finding = event_finding;
        }
        diagnosis
    }

    fn diagnose_quick(&self, hint: &GatherHint, operators: Vec<UnhealthyCondition>) -> Diagnosis {
        let phase = self.phase();
        let seen = self.last_seen();
        let pivot = self.state.borrow().pivot.clone();
        let likely_cause = crate::diagnose::likely_cause(
            phase,
            seen.as_ref().map(|s| s.1),
            pivot.as_ref(),
            self.cluster,
        );
        let next_command = crate::diagnose::next_command(phase, &operators, hint, self.cluster);
        let finding = seen.as_ref().and_then(|(message, class)| {
            crate::diagnose::transport_finding(*class, message, &self.cluster.endpoint.host)
        });
        Diagnosis {
            phase,
            finding,
            last_seen: seen.map(|s| s.0),
            unhealthy_operators: operators,
            likely_cause,
            next_command,
        }
    }
}

fn resume_command(phase: Phase, hint: &GatherHint) -> String {
    if phase.exit_code() == 5 {
        format!(
            "okd-install wait-for bootstrap-complete --dir {}",
            crate::error::shell_word(&hint.dir.display().to_string())
        )
    } else {
        hint.install_complete_command()
    }
}

/// A certificate rejected for its dates is a clock problem, not a wrong CA.
fn validity_class(error: &rustls::CertificateError) -> Class {
    use rustls::CertificateError as E;
    match error {
        E::Expired | E::ExpiredContext { .. } => Class::CertExpired,
        E::NotValidYet | E::NotValidYetContext { .. } => Class::CertNotYetValid,
        _ => Class::ServerCert,
    }
}

/// kube's error texts nest "ServiceError: client error (Connect)"; keep the innermost cause.
fn short_kube_error(err: &kube::Error) -> String {
    let mut text = err.to_string();
    let mut src: Option<&dyn std::error::Error> = std::error::Error::source(err);
    while let Some(s) = src {
        text = s.to_string();
        src = s.source();
    }
    text
}

pub(crate) fn cluster_operator_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("config.openshift.io", "v1", "ClusterOperator"),
        "clusteroperators",
    )
}

/// All ClusterOperators as JSON objects.
pub(crate) fn list_operators(
    cluster: &Cluster,
) -> impl Future<Output = Result<Vec<serde_json::Value>, kube::Error>> + use<> {
    let api: Api<DynamicObject> =
        Api::all_with(cluster.client.clone(), &cluster_operator_resource());
    async move {
        let list = api.list(&ListParams::default()).await?;
        Ok(list
            .items
            .iter()
            .filter_map(|o| serde_json::to_value(o).ok())
            .collect())
    }
}

async fn fetch_unhealthy(cluster: &Cluster) -> Vec<UnhealthyCondition> {
    // Best effort: the diagnosis must not hang on a cluster that stopped answering.
    match tokio::time::timeout(Duration::from_secs(5), list_operators(cluster)).await {
        Ok(Ok(ops)) => unhealthy_operators(&ops),
        _ => Vec::new(),
    }
}
