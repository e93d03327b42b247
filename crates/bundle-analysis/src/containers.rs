//! Containers from the bundle: what `crictl inspect` and `podman inspect` said about each one,
//! with the end of its output, and which of them were crash-looping.
//!
//! The gather script names both files of a container `<name>-<id>` (`.inspect` and `.log`),
//! so the pair is matched by path. crictl prints one object with a `status` member (the CRI
//! container status, labels naming the pod); podman prints an array of Docker-style objects.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::bundle::{BundleFile, Wanted};
use super::evidence::host_of;
use super::last_n;

/// A container that restarted at least this often and whose last finished run failed is
/// crash-looping: kubelet's back-off starts after the first restarts, and a static pod that
/// came up after one or two tries is not the story.
pub(crate) const CRASH_LOOP_RESTARTS: u32 = 3;

/// Which runtime ran a container.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Runtime {
    /// CRI-O, for kubelet (static pods).
    Crio,
    /// podman, for the bootstrap scripts' one-shot containers (render steps).
    Podman,
}

/// Where a container stood when the logs were gathered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    Running,
    Exited,
    /// Created, paused, unknown: neither running nor finished.
    Other,
}

/// One container of one host.
#[derive(Debug, Clone)]
pub(crate) struct Container {
    pub host: String,
    pub runtime: Runtime,
    pub name: String,
    pub pod: Option<String>,
    pub namespace: Option<String>,
    /// CRI restart attempt: 0 for the first run of a container in its pod.
    pub attempt: u32,
    pub state: State,
    pub exit_code: Option<i64>,
    pub reason: Option<String>,
    pub finished_at: Option<String>,
    /// The `.log` next to the `.inspect`, when the bundle has it.
    pub log_file: Option<String>,
    /// Its last lines (see the bundle reader).
    pub log: Vec<String>,
}

impl Container {
    /// Whether its last run ended in failure.
    pub(crate) fn failed(&self) -> bool {
        self.state == State::Exited && self.exit_code.is_some_and(|c| c != 0)
    }

    /// The last `n` lines of its output.
    pub(crate) fn tail(&self, n: usize) -> Vec<String> {
        last_n(&self.log, n).to_vec()
    }
}

/// A container kubelet kept restarting, with the end of its latest failed run's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CrashLoop {
    /// `bootstrap` or the control-plane host the container ran on.
    pub host: String,
    /// The pod's namespace.
    pub namespace: String,
    /// The (static) pod.
    pub pod: String,
    /// The container in the pod.
    pub container: String,
    /// How often kubelet restarted it.
    pub restarts: u32,
    /// Exit code of the latest failed run.
    pub exit_code: i64,
    /// The runtime's reason for that exit (`Error`, `OOMKilled`, ...).
    pub reason: Option<String>,
    /// The log file of that run inside the bundle.
    pub log_file: Option<String>,
    /// Its last lines.
    pub log_tail: Vec<String>,
}

/// Every container whose inspection the bundle holds, logs attached.
pub(crate) fn containers(files: &[BundleFile]) -> Vec<Container> {
    let logs: Vec<&BundleFile> = files
        .iter()
        .filter(|f| f.kind == Wanted::ContainerLog)
        .collect();
    files
        .iter()
        .filter(|f| f.kind == Wanted::ContainerInspect)
        .filter_map(|f| {
            let mut container = parse_inspect(&host_of(&f.path), &f.text)?;
            let log_path = format!("{}.log", f.path.trim_end_matches(".inspect"));
            if let Some(log) = logs.iter().find(|l| l.path == log_path) {
                container.log = log.text.lines().map(str::to_string).collect();
                container.log_file = Some(log_path);
            }
            Some(container)
        })
        .collect()
}

/// One inspection, from either runtime; None when it is not JSON of either shape (the file
/// then holds the runtime's error message).
fn parse_inspect(host: &str, text: &str) -> Option<Container> {
    match crate::shown::json_value(text).ok()? {
        Value::Object(map) => map.get("status").map(|s| crio_container(host, s)),
        Value::Array(items) => items.first().map(|i| podman_container(host, i)),
        _ => None,
    }
}

fn text(value: &Value, pointer: &str) -> Option<String> {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn crio_container(host: &str, status: &Value) -> Container {
    let state = match status.get("state").and_then(Value::as_str) {
        Some("CONTAINER_RUNNING") => State::Running,
        Some("CONTAINER_EXITED") => State::Exited,
        _ => State::Other,
    };
    Container {
        host: host.to_string(),
        runtime: Runtime::Crio,
        name: text(status, "/metadata/name").unwrap_or_default(),
        pod: text(status, "/labels/io.kubernetes.pod.name"),
        namespace: text(status, "/labels/io.kubernetes.pod.namespace"),
        attempt: status
            .pointer("/metadata/attempt")
            .and_then(Value::as_u64)
            .map_or(0, |a| u32::try_from(a).unwrap_or(u32::MAX)),
        state,
        exit_code: status.get("exitCode").and_then(Value::as_i64),
        reason: text(status, "/reason"),
        finished_at: text(status, "/finishedAt"),
        log_file: None,
        log: Vec::new(),
    }
}

fn podman_container(host: &str, item: &Value) -> Container {
    let state = match item.pointer("/State/Status").and_then(Value::as_str) {
        Some("running") => State::Running,
        Some("exited" | "stopped") => State::Exited,
        _ => State::Other,
    };
    Container {
        host: host.to_string(),
        runtime: Runtime::Podman,
        name: text(item, "/Name").unwrap_or_default(),
        pod: None,
        namespace: None,
        attempt: 0,
        state,
        exit_code: item.pointer("/State/ExitCode").and_then(Value::as_i64),
        reason: text(item, "/State/Error"),
        finished_at: text(item, "/State/FinishedAt"),
        log_file: None,
        log: Vec::new(),
    }
}

/// Containers kubelet kept restarting: per host, namespace, pod and container name, the latest
/// attempt is at least [`CRASH_LOOP_RESTARTS`] and the latest finished run failed. Bootstrap
/// host first, then by host, namespace, pod and container.
pub(crate) fn crash_loops(all: &[Container], tail: usize) -> Vec<CrashLoop> {
    // Keyed in the order they are listed: `false` (the bootstrap host) sorts first.
    let mut runs: BTreeMap<(bool, &str, &str, &str, &str), Vec<&Container>> = BTreeMap::new();
    for c in all.iter().filter(|c| c.runtime == Runtime::Crio) {
        let (Some(pod), Some(namespace)) = (&c.pod, &c.namespace) else {
            continue;
        };
        let key = (
            c.host != "bootstrap",
            &*c.host,
            &**namespace,
            &**pod,
            &*c.name,
        );
        runs.entry(key).or_default().push(c);
    }
    runs.into_iter()
        .filter_map(|((_, host, namespace, pod, container), runs)| {
            let restarts = runs.iter().map(|r| r.attempt).max().unwrap_or(0);
            let failed = runs
                .iter()
                .filter(|r| r.state == State::Exited)
                .max_by_key(|r| r.attempt)
                .filter(|r| r.failed())?;
            (restarts >= CRASH_LOOP_RESTARTS).then(|| CrashLoop {
                host: host.to_string(),
                namespace: namespace.to_string(),
                pod: pod.to_string(),
                container: container.to_string(),
                restarts,
                exit_code: failed.exit_code.unwrap_or_default(),
                reason: failed.reason.clone(),
                log_file: failed.log_file.clone(),
                log_tail: failed.tail(tail),
            })
        })
        .collect()
}

/// The latest run of the container `name` on `host` (highest attempt, then the one that
/// finished last), if any.
pub(crate) fn latest<'a>(all: &'a [Container], host: &str, name: &str) -> Option<&'a Container> {
    all.iter()
        .filter(|c| c.host == host && c.name == name)
        .max_by(|a, b| {
            (a.attempt, a.state == State::Running, &a.finished_at).cmp(&(
                b.attempt,
                b.state == State::Running,
                &b.finished_at,
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crio(attempt: u32, state: &str, exit: i64) -> Container {
        let json = serde_json::json!({"status": {
            "metadata": {"name": "kube-apiserver", "attempt": attempt},
            "state": state, "exitCode": exit, "reason": "Error",
            "labels": {"io.kubernetes.pod.name": "bootstrap-kube-apiserver-b",
                       "io.kubernetes.pod.namespace": "openshift-kube-apiserver"}
        }});
        parse_inspect("bootstrap", &json.to_string()).unwrap()
    }

    #[test]
    fn both_inspect_shapes_parse_and_errors_do_not() {
        let c = crio(4, "CONTAINER_EXITED", 1);
        assert_eq!(
            (c.name.as_str(), c.attempt, c.state),
            ("kube-apiserver", 4, State::Exited)
        );
        assert!(c.failed());
        let p = parse_inspect(
            "bootstrap",
            r#"[{"Name": "etcd-render", "State": {"Status": "exited", "ExitCode": 2}}]"#,
        )
        .unwrap();
        assert_eq!((p.runtime, p.exit_code), (Runtime::Podman, Some(2)));
        assert!(parse_inspect("b", "FATA[0000] no such container").is_none());
    }

    #[test]
    fn a_crash_loop_needs_restarts_and_a_failed_last_exit() {
        let looping = vec![
            crio(3, "CONTAINER_EXITED", 1),
            crio(4, "CONTAINER_RUNNING", 0),
        ];
        assert_eq!(crash_loops(&looping, 5)[0].restarts, 4);
        let recovered = vec![crio(3, "CONTAINER_EXITED", 0)];
        assert!(crash_loops(&recovered, 5).is_empty());
        let young = vec![crio(1, "CONTAINER_EXITED", 1)];
        assert!(crash_loops(&young, 5).is_empty());
    }

    /// One entry per container however many of its runs the bundle holds, the bootstrap host
    /// first, then by host, namespace, pod and container.
    #[test]
    fn crash_loops_are_listed_once_each_bootstrap_host_first() {
        let looping = |host: &str, namespace: &str, pod: &str, name: &str| {
            [3, 4].map(|attempt| Container {
                host: host.to_string(),
                namespace: Some(namespace.to_string()),
                pod: Some(pod.to_string()),
                name: name.to_string(),
                ..crio(attempt, "CONTAINER_EXITED", 1)
            })
        };
        let all: Vec<Container> = [
            looping("master-1", "openshift-etcd", "etcd-m1", "etcd"),
            looping(
                "master-0",
                "openshift-kube-apiserver",
                "kas-m0",
                "kube-apiserver",
            ),
            looping("bootstrap", "openshift-kube-apiserver", "kas-b", "setup"),
            looping("master-0", "openshift-etcd", "etcd-m0", "etcdctl"),
            looping(
                "bootstrap",
                "kube-system",
                "kcm-b",
                "kube-controller-manager",
            ),
            looping("master-0", "openshift-etcd", "etcd-m0", "etcd"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let shown: Vec<(String, String, String, String, u32)> = crash_loops(&all, 5)
            .into_iter()
            .map(|l| (l.host, l.namespace, l.pod, l.container, l.restarts))
            .collect();
        let expected = [
            (
                "bootstrap",
                "kube-system",
                "kcm-b",
                "kube-controller-manager",
            ),
            ("bootstrap", "openshift-kube-apiserver", "kas-b", "setup"),
            ("master-0", "openshift-etcd", "etcd-m0", "etcd"),
            ("master-0", "openshift-etcd", "etcd-m0", "etcdctl"),
            (
                "master-0",
                "openshift-kube-apiserver",
                "kas-m0",
                "kube-apiserver",
            ),
            ("master-1", "openshift-etcd", "etcd-m1", "etcd"),
        ]
        .map(|(h, n, p, c)| (h.into(), n.into(), p.into(), c.into(), 4));
        assert_eq!(shown, expected);
    }
}
