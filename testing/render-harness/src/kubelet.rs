//! The kubelet stand-in: runs the static pods of a manifest directory with podman.
//!
//! The bootstrap machine's kubelet runs standalone (no API server, `--pod-manifest-path`
//! only), so all it does there is what this does: every pod manifest that appears is run
//! (init containers one after another to success, then every container), a container that
//! exits is started again with the kubelet's back-off (10 s doubling up to 5 min), and a pod
//! whose manifest is removed or changed is stopped within its grace period. The containers
//! run on the host network of the sandbox, with the command, arguments, environment, working
//! directory, user, privilege and host-path volumes the manifest gives, `$(VAR)` references
//! expanded as the kubelet does. No pod spec is changed: inside the sandbox's mount namespace
//! the host paths are the scratch root's.
//!
//! `podman kube play` was tried first: podman 4.3 refuses `status.hostIP` field references,
//! which the rendered kube-apiserver pod needs for its advertise address, and it has no notion
//! of a manifest directory to follow.
//!
//! Left out, as nothing on the bootstrap machine depends on them: probes (no restart on a
//! failed liveness probe), resource limits, and volume types other than hostPath and emptyDir.
//! Containers whose image is a placeholder of the payload stand-in are not run; they are
//! listed in [`crate::STAND_INS`].

use std::collections::{BTreeMap, HashSet};
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::background::{self, Background};
use crate::{Host, Payload, Sandbox};

/// Label every container of the sandbox carries, so they can be found and removed.
pub(crate) const SANDBOX_LABEL: &str = "okd-harness.sandbox";
/// CRI's labels, which the crictl stand-in reads.
const POD_NAME_LABEL: &str = "io.kubernetes.pod.name";
const POD_NAMESPACE_LABEL: &str = "io.kubernetes.pod.namespace";
const CONTAINER_NAME_LABEL: &str = "io.kubernetes.container.name";
/// The pod a container belongs to (name of the manifest plus a hash of its content).
const POD_KEY_LABEL: &str = "okd-harness.pod";
/// The bootstrap machine's node name (the kubelet appends it to a static pod's name).
pub(crate) const BOOTSTRAP_NODE: &str = "bootstrap";
/// How often the manifest directory and the containers are looked at.
const TICK: Duration = Duration::from_secs(1);
const BACKOFF_START: Duration = Duration::from_secs(10);
const BACKOFF_CAP: Duration = Duration::from_secs(300);

/// A running kubelet stand-in; [`Kubelet::stop`] ends it (the containers stay until the
/// sandbox is removed).
pub struct Kubelet {
    background: Background,
}

impl Kubelet {
    /// Starts following the node's `manifests` directory (a node path) of `host` inside
    /// `sandbox`, as node `node`. `node_ip` is the address pods see as `status.hostIP`;
    /// containers whose image is in `placeholders` are not run; the journal also goes to
    /// `log` when given.
    pub fn start(
        sandbox: &Sandbox,
        host: &Host,
        payload: &Payload,
        node: (&str, IpAddr),
        manifests: &str,
        placeholders: HashSet<String>,
        log: Option<PathBuf>,
    ) -> Kubelet {
        let journal = background::Journal::new(log);
        let mut state = State {
            sandbox: sandbox.clone(),
            payload: payload.clone(),
            manifests: host.path(manifests),
            pods_dir: host.path(&format!("/var/lib/kubelet/{}/pods", node.0)),
            node_name: node.0.to_string(),
            node_ip: node.1,
            placeholders,
            pods: BTreeMap::new(),
            journal: journal.clone(),
        };
        Kubelet {
            background: Background::spawn(journal, TICK, move || state.sync()),
        }
    }

    /// What it did so far, in order: one line per pod started or stopped, container
    /// restarted or not run.
    pub fn journal(&self) -> Vec<String> {
        self.background.journal()
    }

    /// Stops following the manifests and returns the journal.
    pub fn stop(self) -> Vec<String> {
        self.background.stop()
    }
}

/// One static pod being run.
struct PodRun {
    /// Manifest file name and content hash.
    key: String,
    pod: Value,
    /// Init containers finished so far.
    init_done: usize,
    /// Per container name: when it may be started again and its restart count.
    backoff: BTreeMap<String, (Instant, Duration, u32)>,
    /// Volume name to the path it is mounted from.
    volumes: BTreeMap<String, PathBuf>,
    /// Containers not run (placeholder images).
    skipped: HashSet<String>,
}

struct State {
    sandbox: Sandbox,
    payload: Payload,
    manifests: PathBuf,
    pods_dir: PathBuf,
    node_name: String,
    node_ip: IpAddr,
    placeholders: HashSet<String>,
    /// By manifest file name.
    pods: BTreeMap<String, PodRun>,
    journal: background::Journal,
}

/// A container podman knows: its state and exit code.
#[derive(Debug, Clone)]
struct Seen {
    /// podman's state: `running`, `exited`, `stopped`, `created`, ...
    state: String,
    exit_code: i64,
}

impl Seen {
    fn running(&self) -> bool {
        !matches!(self.state.as_str(), "exited" | "stopped")
    }
}

impl State {
    fn note(&self, line: String) {
        self.journal.note(line);
    }

    /// One look at the manifests and the containers.
    fn sync(&mut self) {
        let wanted = read_manifests(&self.manifests);
        let gone: Vec<String> = self
            .pods
            .iter()
            .filter(|(file, run)| wanted.get(*file).map(|(key, _)| key) != Some(&run.key))
            .map(|(file, _)| file.clone())
            .collect();
        for file in gone {
            if let Some(run) = self.pods.remove(&file) {
                self.stop_pod(&file, &run);
            }
        }
        for (file, (key, pod)) in wanted {
            if !self.pods.contains_key(&file) {
                let volumes = self.prepare_volumes(&key, &pod);
                self.note(format!("pod {file}: started ({})", self.pod_name(&pod)));
                self.pods.insert(
                    file,
                    PodRun {
                        key,
                        pod,
                        init_done: 0,
                        backoff: BTreeMap::new(),
                        volumes,
                        skipped: HashSet::new(),
                    },
                );
            }
        }
        let seen = self.containers();
        let files: Vec<String> = self.pods.keys().cloned().collect();
        for file in files {
            if let Some(mut run) = self.pods.remove(&file) {
                self.step(&file, &mut run, &seen);
                self.pods.insert(file, run);
            }
        }
    }

    /// Every container of the sandbox by name.
    fn containers(&self) -> BTreeMap<String, Seen> {
        let out = self
            .sandbox
            .podman(&self.payload)
            .args(["ps", "--all", "--format", "json", "--filter"])
            .arg(format!("label={SANDBOX_LABEL}={}", self.sandbox.name))
            .stderr(Stdio::null())
            .output();
        let list: Value = out
            .ok()
            .and_then(|o| serde_json::from_slice(&o.stdout).ok())
            .unwrap_or_default();
        list.as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| {
                let name = c["Names"][0].as_str()?.to_string();
                let seen = Seen {
                    state: c["State"].as_str().unwrap_or_default().to_string(),
                    exit_code: c["ExitCode"].as_i64().unwrap_or(0),
                };
                Some((name, seen))
            })
            .collect()
    }

    /// Advances one pod: the next init container, or every container kept running.
    fn step(&self, file: &str, run: &mut PodRun, seen: &BTreeMap<String, Seen>) {
        let inits: Vec<Value> = list(&run.pod["spec"]["initContainers"]);
        while run.init_done < inits.len() {
            let container = &inits[run.init_done];
            let name = self.container_name(run, container);
            match seen.get(&name) {
                Some(s) if !s.running() && s.exit_code == 0 => {
                    self.remove_container(&name);
                    run.init_done += 1;
                }
                Some(s) if !s.running() => {
                    self.note(format!(
                        "pod {file}: init container {} exited {}",
                        str_of(&container["name"]),
                        s.exit_code
                    ));
                    self.remove_container(&name);
                    self.start_later(run, &name);
                    return;
                }
                Some(_) => return,
                None => {
                    self.start_if_due(file, run, container, &name);
                    return;
                }
            }
        }
        for container in list(&run.pod["spec"]["containers"]) {
            let name = self.container_name(run, &container);
            match seen.get(&name) {
                Some(s) if s.running() => {}
                Some(s) => {
                    let policy = run.pod["spec"]["restartPolicy"]
                        .as_str()
                        .unwrap_or("Always");
                    let again = policy == "Always" || (policy == "OnFailure" && s.exit_code != 0);
                    if again && self.due(run, &name) {
                        let count = run.backoff.get(&name).map_or(0, |b| b.2) + 1;
                        self.note(format!(
                            "pod {file}: container {} exited {}; restart {count}",
                            str_of(&container["name"]),
                            s.exit_code
                        ));
                        let _ = self
                            .sandbox
                            .podman(&self.payload)
                            .args(["start", &name])
                            .stdout(Stdio::null())
                            .stderr(Stdio::null())
                            .status();
                        self.start_later(run, &name);
                    }
                }
                None => self.start_if_due(file, run, &container, &name),
            }
        }
    }

    /// Whether the back-off of container `name` has passed.
    fn due(&self, run: &PodRun, name: &str) -> bool {
        run.backoff
            .get(name)
            .is_none_or(|(at, _, _)| Instant::now() >= *at)
    }

    /// Doubles the back-off of `name` and counts a restart.
    fn start_later(&self, run: &mut PodRun, name: &str) {
        let entry =
            run.backoff
                .entry(name.to_string())
                .or_insert((Instant::now(), BACKOFF_START / 2, 0));
        entry.1 = (entry.1 * 2).min(BACKOFF_CAP);
        entry.0 = Instant::now() + entry.1;
        entry.2 += 1;
    }

    fn start_if_due(&self, file: &str, run: &mut PodRun, container: &Value, name: &str) {
        if !self.due(run, name) {
            return;
        }
        let image = str_of(&container["image"]);
        if self.placeholders.contains(image) {
            if run.skipped.insert(name.to_string()) {
                self.note(format!(
                    "pod {file}: container {} not run: its image {image} is a placeholder of the payload stand-in",
                    str_of(&container["name"])
                ));
            }
            return;
        }
        let mut cmd = self.run_command(run, container, name);
        match cmd.output() {
            Ok(out) if out.status.success() => {}
            Ok(out) => {
                self.note(format!(
                    "pod {file}: container {} could not be created: {}",
                    str_of(&container["name"]),
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
                self.start_later(run, name);
            }
            Err(e) => self.note(format!("pod {file}: podman did not start: {e}")),
        }
    }

    /// `podman run --detach` of one container of the pod, as the kubelet would create it.
    fn run_command(&self, run: &PodRun, container: &Value, name: &str) -> Command {
        let pod = &run.pod;
        let mut cmd = self.sandbox.podman(&self.payload);
        cmd.args(["run", "--detach", "--quiet", "--name", name])
            .args(["--log-driver", "k8s-file"])
            .arg(format!("--label={SANDBOX_LABEL}={}", self.sandbox.name))
            .arg(format!(
                "--label={POD_KEY_LABEL}={}@{}",
                run.key, self.node_name
            ))
            .arg(format!("--label={POD_NAME_LABEL}={}", self.pod_name(pod)))
            .arg(format!(
                "--label={POD_NAMESPACE_LABEL}={}",
                str_of(&pod["metadata"]["namespace"])
            ))
            .arg(format!(
                "--label={CONTAINER_NAME_LABEL}={}",
                str_of(&container["name"])
            ));
        let spec = &pod["spec"];
        cmd.arg(if spec["hostNetwork"] == true {
            "--net=host"
        } else {
            "--net=none"
        });
        if spec["hostPID"] == true {
            cmd.arg("--pid=host");
        }
        if spec["hostIPC"] == true {
            cmd.arg("--ipc=host");
        }
        let security = &container["securityContext"];
        if security["privileged"] == true {
            cmd.arg("--privileged");
        }
        let user = security["runAsUser"]
            .as_i64()
            .or_else(|| spec["securityContext"]["runAsUser"].as_i64());
        if let Some(user) = user {
            cmd.arg(format!("--user={user}"));
        }
        if let Some(dir) = container["workingDir"].as_str() {
            cmd.arg(format!("--workdir={dir}"));
        }
        let env = self.environment(pod, container);
        for (key, value) in &env {
            cmd.arg("--env").arg(format!("{key}={value}"));
        }
        for mount in list(&container["volumeMounts"]) {
            let Some(source) = run.volumes.get(str_of(&mount["name"])) else {
                continue;
            };
            let mut source = source.clone();
            if let Some(sub) = mount["subPath"].as_str() {
                source.push(sub);
            }
            let mode = if mount["readOnly"] == true { ":ro" } else { "" };
            cmd.arg("--volume").arg(format!(
                "{}:{}{mode}",
                source.display(),
                str_of(&mount["mountPath"])
            ));
        }
        let command: Vec<String> = strings(&container["command"])
            .into_iter()
            .map(|s| expand(s, &env))
            .collect();
        if !command.is_empty() {
            cmd.arg(format!(
                "--entrypoint={}",
                serde_json::to_string(&command).unwrap_or_default()
            ));
        }
        cmd.arg(str_of(&container["image"]));
        cmd.args(
            strings(&container["args"])
                .into_iter()
                .map(|s| expand(s, &env)),
        );
        cmd
    }

    /// The container's environment: plain values and the field references a static pod may
    /// use (`$(VAR)` in values refers to earlier entries, as in the kubelet).
    fn environment(&self, pod: &Value, container: &Value) -> Vec<(String, String)> {
        let mut env: Vec<(String, String)> = Vec::new();
        for entry in list(&container["env"]) {
            let key = str_of(&entry["name"]).to_string();
            let value = if let Some(v) = entry["value"].as_str() {
                expand(v, &env)
            } else {
                match str_of(&entry["valueFrom"]["fieldRef"]["fieldPath"]) {
                    "metadata.name" => self.pod_name(pod),
                    "metadata.namespace" => str_of(&pod["metadata"]["namespace"]).to_string(),
                    "spec.nodeName" => self.node_name.clone(),
                    "status.hostIP" | "status.podIP" => self.node_ip.to_string(),
                    "status.hostIPs" | "status.podIPs" => self.node_ip.to_string(),
                    _ => String::new(),
                }
            };
            env.push((key, value));
        }
        env
    }

    /// Host paths of the pod's volumes, created where the kubelet would create them.
    fn prepare_volumes(&self, key: &str, pod: &Value) -> BTreeMap<String, PathBuf> {
        let mut volumes = BTreeMap::new();
        for volume in list(&pod["spec"]["volumes"]) {
            let name = str_of(&volume["name"]).to_string();
            if let Some(path) = volume["hostPath"]["path"].as_str() {
                let kind = str_of(&volume["hostPath"]["type"]);
                // DirectoryOrCreate, and no type at all as Docker-era kubelets did: a missing
                // directory is made (podman itself would refuse the mount).
                if matches!(kind, "" | "DirectoryOrCreate") {
                    let _ = self
                        .sandbox
                        .command("sh")
                        .args(["-c", "[ -e \"$1\" ] || mkdir -p \"$1\"", "mkdir", path])
                        .status();
                }
                volumes.insert(name, PathBuf::from(path));
            } else if volume.get("emptyDir").is_some() {
                let dir = self.pods_dir.join(key).join(&name);
                let _ = std::fs::create_dir_all(&dir);
                volumes.insert(name, dir);
            }
        }
        volumes
    }

    /// Stops every container of a pod whose manifest went away, within its grace period, in
    /// the background as the kubelet does.
    fn stop_pod(&self, file: &str, run: &PodRun) {
        self.note(format!(
            "pod {file}: manifest removed or changed; stopping it"
        ));
        let grace = run.pod["spec"]["terminationGracePeriodSeconds"]
            .as_u64()
            .unwrap_or(30)
            .min(30);
        let mut list = self.sandbox.podman(&self.payload);
        list.args(["ps", "--all", "--quiet", "--filter"])
            .arg(format!(
                "label={POD_KEY_LABEL}={}@{}",
                run.key, self.node_name
            ));
        let ids = list.output().map(|o| o.stdout).unwrap_or_default();
        let ids: Vec<String> = String::from_utf8_lossy(&ids)
            .split_whitespace()
            .map(str::to_string)
            .collect();
        if !ids.is_empty() {
            let _ = self
                .sandbox
                .podman(&self.payload)
                .args(["rm", "--force", "--time", &grace.to_string()])
                .args(&ids)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn();
        }
    }

    /// The static pod's name as the kubelet gives it: the manifest's name and the node's.
    fn pod_name(&self, pod: &Value) -> String {
        format!("{}-{}", str_of(&pod["metadata"]["name"]), self.node_name)
    }

    /// The podman name of a container of `run` on this node.
    fn container_name(&self, run: &PodRun, container: &Value) -> String {
        format!(
            "k8s_{}_{}_{}_{}",
            str_of(&container["name"]),
            run.key,
            self.node_name,
            self.sandbox.name
        )
    }

    fn remove_container(&self, name: &str) {
        let _ = self
            .sandbox
            .podman(&self.payload)
            .args(["rm", "--force", "--ignore", name])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Every pod manifest of `dir` by file name, with its key (name and content hash). Hidden
/// files are skipped, as the kubelet skips them; a file that is not a Pod is ignored.
fn read_manifests(dir: &std::path::Path) -> BTreeMap<String, (String, Value)> {
    let mut pods = BTreeMap::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if file.starts_with('.') || !entry.path().is_file() {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        let pod: Option<Value> = serde_saphyr::from_str(&text).ok();
        let Some(pod) = pod.filter(|p| p["kind"] == "Pod") else {
            continue;
        };
        let hash = hex::encode(&Sha256::digest(text.as_bytes())[..6]);
        let stem = file.split('.').next().unwrap_or(&file).to_string();
        pods.insert(file, (format!("{stem}-{hash}"), pod));
    }
    pods
}

/// `$(NAME)` replaced by the value of NAME in `env`; `$$(` stays a literal `$(`; an unknown
/// name stays as written (the kubelet's rules).
fn expand(text: &str, env: &[(String, String)]) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("$(") {
            out.push_str("$(");
            rest = tail;
        } else if let Some(inner) = after.strip_prefix('(')
            && let Some(end) = inner.find(')')
        {
            let name = &inner[..end];
            match env.iter().rev().find(|(k, _)| k == name) {
                Some((_, value)) => out.push_str(value),
                None => out.push_str(&format!("$({name})")),
            }
            rest = &inner[end + 1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn list(value: &Value) -> Vec<Value> {
    value.as_array().cloned().unwrap_or_default()
}

/// The strings of a JSON array (a container's command or arguments).
pub(crate) fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn str_of(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn references_expand_as_the_kubelet_expands_them() {
        let env = env(&[("HOST_IP", "192.168.111.10"), ("A", "x")]);
        assert_eq!(
            expand("--advertise-address=$(HOST_IP)", &env),
            "--advertise-address=192.168.111.10"
        );
        assert_eq!(expand("$$(HOST_IP) $(A)$(A)", &env), "$(HOST_IP) xx");
        assert_eq!(
            expand("$(MISSING) ${SHELL} $", &env),
            "$(MISSING) ${SHELL} $"
        );
    }

    #[test]
    fn hidden_files_and_objects_that_are_not_pods_are_not_run() {
        let dir = tempfile::tempdir().unwrap();
        let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: etcd\n";
        std::fs::write(dir.path().join("etcd.yaml"), pod).unwrap();
        std::fs::write(dir.path().join(".etcd.yaml.swp"), pod).unwrap();
        std::fs::write(dir.path().join("cm.yaml"), "kind: ConfigMap\n").unwrap();
        let found = read_manifests(dir.path());
        assert_eq!(found.keys().collect::<Vec<_>>(), ["etcd.yaml"]);
        let (key, _) = &found["etcd.yaml"];
        assert!(key.starts_with("etcd-"), "{key}");
        std::fs::write(
            dir.path().join("etcd.yaml"),
            format!("{pod}  labels: {{}}\n"),
        )
        .unwrap();
        assert_ne!(
            &read_manifests(dir.path())["etcd.yaml"].0,
            key,
            "a change is a new pod"
        );
    }
}
