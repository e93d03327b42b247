//! Which component failed: the service records say where bootkube stopped, the containers,
//! the etcd member list and the cluster dumps say why.
//!
//! A stopped bootkube looks the same for many causes (it waits in `cb-bootstrap` whether etcd
//! never formed, the API never answered or the masters never showed up), so the components
//! are judged in the order they depend on each other: the node image under everything, then
//! the render step bootkube stopped in, etcd, the API server (which needs etcd), and the
//! masters fetching their config from the machine-config server (which needs the API to
//! matter). A crash-looping static pod that none of these explains comes last.

use serde::Serialize;
use serde_json::Value;

use super::bundle::{BundleFile, Wanted};
use super::containers::{Container, CrashLoop, Runtime, State, latest};
use super::evidence::{FailedUnit, items};
use super::problem::Problem;
use super::{JOURNAL_TAIL_LINES, Verdict, journal, last_lines};

/// The failing part of the bootstrap, as far as the bundle tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Component {
    /// node-image-pull / node-image-overlay: the host never got the release's OS content.
    NodeImage,
    /// An operator render step of bootkube.
    RenderStage,
    /// The bootstrap etcd.
    Etcd,
    /// The bootstrap kube-apiserver.
    ApiServer,
    /// The masters fetching their Ignition config from the machine-config server (:22623).
    MasterIgnition,
    /// A static pod kubelet kept restarting.
    StaticPod,
}

impl Component {
    /// A short name for reports.
    pub fn label(self) -> &'static str {
        match self {
            Component::NodeImage => "node image",
            Component::RenderStage => "render step",
            Component::Etcd => "etcd",
            Component::ApiServer => "kube-apiserver",
            Component::MasterIgnition => "master Ignition",
            Component::StaticPod => "static pod",
        }
    }
}

/// What the evidence says failed, and the output that shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cause {
    /// The failing component.
    pub component: Component,
    /// One sentence naming it.
    pub summary: String,
    /// The bootkube (or node image) stage it showed in, when known.
    pub stage: Option<String>,
    /// The facts the judgement rests on, each naming where in the bundle it comes from.
    pub evidence: Vec<String>,
    /// The output shown below, as a path inside the bundle.
    pub log_file: Option<String>,
    /// The end of that output.
    pub log_tail: Vec<String>,
    /// What to check next.
    pub hint: String,
}

/// The bootkube stages that wait on the running control plane rather than render.
const CONTROL_PLANE_STAGES: &[&str] = &["cb-bootstrap", "wait-for-ceo"];

/// Everything the diagnosis reads.
pub(crate) struct Evidence<'a> {
    pub files: &'a [BundleFile],
    pub containers: &'a [Container],
    pub crash_loops: &'a [CrashLoop],
    pub failed_units: &'a [FailedUnit],
}

/// Where bootkube stopped, when it did not finish.
struct Position {
    stage: Option<String>,
    /// How bootkube stood, in words: "failed at stage X", "was still in stage X".
    said: String,
}

/// The cause, when the evidence names one.
pub(crate) fn diagnose(ev: &Evidence, verdict: &Verdict) -> Option<Cause> {
    if let Some(cause) = node_image(ev, verdict) {
        return Some(cause);
    }
    let by_stage = position(verdict).and_then(|pos| {
        render_stage(ev, &pos)
            .or_else(|| etcd(ev, &pos))
            .or_else(|| api_server(ev, &pos))
            .or_else(|| master_ignition(ev, &pos))
    });
    by_stage.or_else(|| static_pod(ev))
}

fn position(verdict: &Verdict) -> Option<Position> {
    match verdict {
        Verdict::Problem(p) if p.service == "bootkube" => Some(Position {
            stage: p.stage.clone(),
            said: bootkube_said(p),
        }),
        // Every record reads success, yet the bootstrap did not complete.
        Verdict::Incomplete { .. } => Some(Position {
            stage: None,
            said: "recorded success, but the bootstrap is not complete".into(),
        }),
        // The records could not be read, but the containers may still tell.
        Verdict::UnreadableRecords { .. } => Some(Position {
            stage: None,
            said: "left service records that could not be read".into(),
        }),
        // Old scripts: no records, but the containers may still tell.
        Verdict::NoServiceRecords => Some(Position {
            stage: None,
            said: "left no service record".into(),
        }),
        _ => None,
    }
}

fn bootkube_said(p: &Problem) -> String {
    match (p.status, p.stage.as_deref()) {
        (super::ServiceStatus::Failed, Some(stage)) => format!("failed at stage {stage}"),
        (super::ServiceStatus::Failed, None) => "failed outside its stages".into(),
        (_, Some(stage)) => format!("was still in stage {stage} when the logs were gathered"),
        (_, None) => "was running, in no stage yet, when the logs were gathered".into(),
    }
}

/// Whether bootkube got past the renders (or nothing says where it was).
fn past_renders(pos: &Position) -> bool {
    pos.stage
        .as_deref()
        .is_none_or(|s| CONTROL_PLANE_STAGES.contains(&s))
}

fn node_image(ev: &Evidence, verdict: &Verdict) -> Option<Cause> {
    const UNITS: [&str; 2] = ["node-image-pull", "node-image-overlay"];
    let (unit, stage, mut evidence) = match verdict {
        Verdict::Problem(p) if UNITS.contains(&p.service.as_str()) => {
            (p.service.clone(), p.stage.clone(), vec![p.summary.clone()])
        }
        _ => {
            let failed = ev.failed_units.iter().find(|u| {
                u.host == "bootstrap" && UNITS.contains(&u.unit.trim_end_matches(".service"))
            })?;
            let unit = failed.unit.trim_end_matches(".service").to_string();
            let said = format!("{} is in the failed state (failed-units.txt)", failed.unit);
            (unit, None, vec![said])
        }
    };
    let journal = journal(ev.files, &unit, None);
    if journal.is_none() {
        evidence.push(format!("the bundle has no bootstrap/journals/{unit}.log"));
    }
    let looking_up = stage.as_deref() == Some(contract::NODE_IMAGE_LOOKUP_STAGE);
    let (summary, hint) = if unit == "node-image-pull" && looking_up {
        (
            "node-image-pull.service could not look the release's node image up (stage \
             resolve-node-image): it pulls the release image, and may run a component image \
             of it, to learn which node image to pull, so the host never got the OS content \
             the bootstrap control plane needs",
            "check that the bootstrap host reaches the registries of the release image and of \
             its component images (through their mirrors in a disconnected install) and that \
             the pull secret covers them",
        )
    } else if unit == "node-image-pull" {
        (
            "the release's node image could not be pulled onto the bootstrap host \
             (node-image-pull.service), so the host never got the OS content the bootstrap \
             control plane needs",
            "check that the bootstrap host reaches the registry of the release's component \
             images (the node image lives there, not next to the release image), that the \
             pull secret covers it, and in a disconnected install that the mirrors include it",
        )
    } else {
        (
            "the node image could not be laid over the bootstrap host's OS \
             (node-image-overlay.service), so CRI-O, kubelet and bootkube do not run the \
             release's node software",
            "the end of the journal below names the failing mount, /etc sync or SELinux \
             policy reload; check the free space in /var and that node-image-pull.service \
             checked the image out completely",
        )
    };
    Some(Cause {
        component: Component::NodeImage,
        summary: summary.to_string(),
        stage,
        evidence,
        log_file: journal.map(|j| j.path.clone()),
        log_tail: journal
            .map(|j| last_lines(&j.text, JOURNAL_TAIL_LINES))
            .unwrap_or_default(),
        hint: hint.to_string(),
    })
}

fn render_stage(ev: &Evidence, pos: &Position) -> Option<Cause> {
    let stage = pos.stage.as_deref()?;
    let (_, name) = contract::BOOTKUBE_RENDER_STAGES
        .iter()
        .find(|(s, _)| *s == stage)?;
    let mut evidence = vec![format!("bootkube.service {}", pos.said)];
    let container = latest(ev.containers, "bootstrap", name);
    let summary = match container {
        Some(c) if c.failed() => format!(
            "the render step {stage} failed: its container {name} exited with code {}",
            c.exit_code.unwrap_or_default()
        ),
        Some(c) if c.state == State::Running => {
            format!(
                "the render step {stage} did not finish: its container {name} was still running"
            )
        }
        Some(_) => format!("the render step {stage} failed after its container {name} exited"),
        None => {
            evidence.push(format!(
                "no podman container {name} in bootstrap/pods/: it never started (image pull?) \
                 or was removed; the bootkube journal holds its output"
            ));
            format!("the render step {stage} failed before its container {name} could be inspected")
        }
    };
    Some(Cause {
        component: Component::RenderStage,
        summary,
        stage: Some(stage.to_string()),
        evidence,
        log_file: container.and_then(|c| c.log_file.clone()),
        log_tail: container
            .map(|c| c.tail(JOURNAL_TAIL_LINES))
            .unwrap_or_default(),
        hint: "the end of the render's output names what it rejected: usually an \
               install-config or manifest value the operator refuses, or an image the host \
               could not pull (see the bootkube journal)"
            .to_string(),
    })
}

/// What the etcd member list says, when it says etcd is not there.
fn etcd_member_trouble(files: &[BundleFile]) -> Option<String> {
    let file = files.iter().find(|f| f.kind == Wanted::EtcdMembers)?;
    let first = file.text.lines().find(|l| !l.trim().is_empty())?.trim();
    let lower = file.text.to_ascii_lowercase();
    let bad = [
        "no running etcdctl",
        "error",
        "deadline exceeded",
        "connection refused",
    ]
    .iter()
    .any(|m| lower.contains(m));
    bad.then(|| format!("bootstrap/etcd/member-list.txt: {first}"))
}

/// The bootstrap host's container `name` as a cause tells it.
struct BootstrapContainer {
    /// Its state in words, when it is not running.
    not_running: Option<String>,
    /// The log to show: the crash loop's, else the latest run's.
    log_file: Option<String>,
    /// The end of that log.
    log_tail: Vec<String>,
}

/// What the bundle says of the bootstrap host's container `name`; `pod_hint` names its pod for
/// when kubelet never started it.
fn bootstrap_container(ev: &Evidence, name: &str, pod_hint: &str) -> BootstrapContainer {
    if let Some(l) = ev
        .crash_loops
        .iter()
        .find(|l| l.host == "bootstrap" && l.container == name)
    {
        let said = format!(
            "container {name} (pod {}/{}) restarted {} times, last exit code {}{}",
            l.namespace,
            l.pod,
            l.restarts,
            l.exit_code,
            l.reason
                .as_deref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default()
        );
        return BootstrapContainer {
            not_running: Some(said),
            log_file: l.log_file.clone(),
            log_tail: l.log_tail.clone(),
        };
    }
    // Only CRI-O's containers show kubelet at work: podman's are the render steps'.
    let any_crio = ev
        .containers
        .iter()
        .any(|c| c.host == "bootstrap" && c.runtime == Runtime::Crio);
    let Some(c) = latest(ev.containers, "bootstrap", name) else {
        return BootstrapContainer {
            not_running: any_crio.then(|| {
                format!(
                    "no {name} container in bootstrap/containers/: kubelet never started {pod_hint}"
                )
            }),
            log_file: None,
            log_tail: Vec::new(),
        };
    };
    BootstrapContainer {
        not_running: (c.state != State::Running).then(|| {
            format!(
                "container {name} is not running (exit code {})",
                c.exit_code.unwrap_or_default()
            )
        }),
        log_file: c.log_file.clone(),
        log_tail: c.tail(JOURNAL_TAIL_LINES),
    }
}

fn etcd(ev: &Evidence, pos: &Position) -> Option<Cause> {
    let waiting = pos.stage.as_deref() == Some("wait-for-etcd");
    let mut evidence = Vec::new();
    let container = bootstrap_container(ev, "etcd", "the bootstrap etcd pod");
    evidence.extend(container.not_running);
    evidence.extend(etcd_member_trouble(ev.files));
    if !(waiting || (past_renders(pos) && !evidence.is_empty())) {
        return None;
    }
    evidence.insert(0, format!("bootkube.service {}", pos.said));
    Some(Cause {
        component: Component::Etcd,
        summary: "the bootstrap etcd never formed, so nothing that needs it (the API server \
                  first) could start"
            .to_string(),
        stage: pos.stage.clone(),
        evidence,
        log_file: container.log_file,
        log_tail: container.log_tail,
        hint: "the end of etcd's log names the reason: its certificates under \
               /etc/kubernetes/static-pod-resources/etcd-member, the data directory \
               /var/lib/etcd, ports 2379/2380 taken, or a disk too slow for etcd"
            .to_string(),
    })
}

/// Whether cluster-bootstrap ever saw the API, and its last complaint if not.
fn api_seen(files: &[BundleFile]) -> (bool, Option<String>) {
    let Some(j) = journal(files, "bootkube", None) else {
        return (false, None);
    };
    let up = j.text.lines().any(|l| l.contains("API is up"));
    let waiting = j
        .text
        .lines()
        .rev()
        .find(|l| l.contains("Still waiting for the Kubernetes API"))
        .map(|l| format!("bootkube journal: {}", l.trim()));
    (up, waiting)
}

fn resource<'a>(files: &'a [BundleFile], name: &str) -> Option<&'a BundleFile> {
    files
        .iter()
        .find(|f| f.kind == Wanted::Resource(name.to_string()))
}

fn api_server(ev: &Evidence, pos: &Position) -> Option<Cause> {
    if !past_renders(pos) {
        return None;
    }
    let mut evidence = Vec::new();
    if let Some(f) = resource(ev.files, "api-unreachable.txt") {
        let first = f.text.lines().next().unwrap_or_default().trim().to_string();
        evidence.push(format!("resources/api-unreachable.txt: {first}"));
    }
    let container = bootstrap_container(ev, "kube-apiserver", "the bootstrap kube-apiserver pod");
    evidence.extend(container.not_running);
    if evidence.is_empty() {
        return None;
    }
    let (up, waiting) = api_seen(ev.files);
    evidence.insert(0, format!("bootkube.service {}", pos.said));
    evidence.extend(waiting);
    let summary = if up {
        "the bootstrap kube-apiserver answered once but stopped answering"
    } else {
        "the bootstrap kube-apiserver never answered, while etcd showed no problem"
    };
    Some(Cause {
        component: Component::ApiServer,
        summary: summary.to_string(),
        stage: pos.stage.clone(),
        evidence,
        log_file: container.log_file,
        log_tail: container.log_tail,
        hint: "the end of kube-apiserver's log names the reason: a flag or config it \
               rejects (bootstrap/etc-kubernetes/bootstrap-configs), a certificate it cannot \
               load, or etcd it cannot reach on localhost:2379"
            .to_string(),
    })
}

/// Addresses the machine-config server logged a request for the master pool from.
fn master_requests(log: &[String]) -> Vec<String> {
    log.iter()
        .filter(|l| l.contains("requested by address:"))
        .filter(|l| l.contains("Pool \"master\"") || l.contains("Pool master "))
        .filter_map(|l| {
            let rest = l.split("requested by address:").nth(1)?;
            let quoted = rest.trim_start().strip_prefix('"')?;
            let addr = quoted.split('"').next()?;
            Some(
                addr.rsplit_once(':')
                    .map_or(addr, |(host, _)| host)
                    .to_string(),
            )
        })
        .collect()
}

/// How many Node objects with a control-plane role the dump holds, if it could be read.
fn master_nodes(files: &[BundleFile]) -> Option<usize> {
    let nodes = items(&resource(files, "nodes.json")?.text).ok()?;
    let is_master = |n: &&Value| {
        n.pointer("/metadata/labels").is_some_and(|l| {
            l.get("node-role.kubernetes.io/master").is_some()
                || l.get("node-role.kubernetes.io/control-plane").is_some()
        })
    };
    Some(nodes.iter().filter(is_master).count())
}

fn master_ignition(ev: &Evidence, pos: &Position) -> Option<Cause> {
    if !past_renders(pos) || resource(ev.files, "api-unreachable.txt").is_some() {
        return None;
    }
    if master_nodes(ev.files)? > 0 {
        return None;
    }
    let mut evidence = vec![
        format!("bootkube.service {}", pos.said),
        "resources/nodes.json: the API answered but no node has the master role".to_string(),
    ];
    let csrs = resource(ev.files, "csr.json").and_then(|f| items(&f.text).ok());
    if csrs.is_some_and(|c| c.is_empty()) {
        evidence.push("resources/csr.json: no certificate signing request either".into());
    }
    let server = latest(ev.containers, "bootstrap", "machine-config-server");
    let summary = match server {
        Some(c) if c.state == State::Running => {
            if !master_requests(&c.log).is_empty() {
                return None;
            }
            evidence
                .push("the machine-config-server log shows no request for the master pool".into());
            "the masters never fetched their Ignition config from the machine-config server \
             on port 22623"
        }
        _ => {
            evidence
                .push("no running machine-config-server container on the bootstrap host".into());
            "the masters could not fetch their Ignition config: the bootstrap \
             machine-config-server (port 22623) is not running"
        }
    };
    Some(Cause {
        component: Component::MasterIgnition,
        summary: summary.to_string(),
        stage: pos.stage.clone(),
        evidence,
        log_file: server.and_then(|c| c.log_file.clone()),
        log_tail: server
            .map(|c| c.tail(JOURNAL_TAIL_LINES))
            .unwrap_or_default(),
        hint: "check that the masters booted with master.ign (its pointer names \
               https://api-int.<cluster domain>:22623/config/master), that api-int resolves \
               from the masters, and that the load balancer forwards port 22623 to the \
               bootstrap host; a master's console shows Ignition's GET attempts"
            .to_string(),
    })
}

fn static_pod(ev: &Evidence) -> Option<Cause> {
    let l = ev.crash_loops.first()?;
    Some(Cause {
        component: Component::StaticPod,
        summary: format!(
            "the static pod {}/{} on {} is crash-looping: container {} restarted {} times, \
             last exit code {}",
            l.namespace, l.pod, l.host, l.container, l.restarts, l.exit_code
        ),
        stage: None,
        evidence: l
            .reason
            .as_ref()
            .map(|r| vec![format!("the runtime's reason for the last exit: {r}")])
            .unwrap_or_default(),
        log_file: l.log_file.clone(),
        log_tail: l.log_tail.clone(),
        hint: "the end of its log says why it exits; its manifest is in \
               bootstrap/etc-kubernetes/manifests/ (bootstrap host) and its other runs are \
               next to the log"
            .to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn master_requests_come_from_the_server_log_line() {
        let log = vec![
            r#"I0101 10:00:00.000000       1 api.go:99] Pool "master" requested by address:"10.0.0.11:53422" User-Agent:"Ignition/2.20.0" Accept-Header: "application/vnd.coreos.ignition+json;version=3.4.0""#.to_string(),
            r#"I0101 10:00:01.000000       1 api.go:99] Pool "worker" requested by address:"10.0.0.21:40000" User-Agent:"Ignition/2.20.0" Accept-Header: "x""#.to_string(),
            r#"I0101 10:00:02.000000       1 api.go:99] Pool "master" requested by address:"[fd00::12]:41000" User-Agent:"Ignition/2.20.0" Accept-Header: "x""#.to_string(),
        ];
        assert_eq!(master_requests(&log), ["10.0.0.11", "[fd00::12]"]);
        assert!(master_requests(&log[1..2]).is_empty());
    }

    #[test]
    fn every_render_stage_has_its_own_container() {
        let mut names: Vec<&str> = contract::BOOTKUBE_RENDER_STAGES
            .iter()
            .map(|(_, c)| *c)
            .collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), contract::BOOTKUBE_RENDER_STAGES.len());
        assert!(
            contract::BOOTKUBE_RENDER_STAGES
                .iter()
                .all(|(s, c)| s.ends_with("-bootstrap") && c.ends_with("-render"))
        );
    }
}
