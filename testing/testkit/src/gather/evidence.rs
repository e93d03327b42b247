//! What the container runtimes print about a container, in the shapes the real tools use:
//! `crictl inspect` (one object, CRI status with pod labels), `podman inspect` (an array of
//! Docker-style objects) and the rows of `crictl ps` / `podman ps`.
//!
//! The same [`Container`] fills the stand-in crictl and podman of a fake host (see `host`)
//! and writes the files of a bundle built directly (see `bundle`), so analysis fixtures have
//! exactly the shape the gather script produces from the real tools.

use serde_json::{Value, json};

/// Which runtime runs the container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    /// CRI-O, for kubelet's (static) pods.
    Crio,
    /// podman, for the bootstrap scripts' one-shot containers.
    Podman,
}

/// One container run.
#[derive(Debug, Clone)]
pub struct Container {
    /// The runtime.
    pub runtime: Runtime,
    /// Container name (`kube-apiserver`, `etcd-render`).
    pub name: String,
    /// Pod name (CRI-O only).
    pub pod: String,
    /// Pod namespace (CRI-O only).
    pub namespace: String,
    /// Restart attempt (CRI-O only).
    pub attempt: u32,
    /// Still running, or exited with `exit_code`.
    pub running: bool,
    /// Exit code once exited.
    pub exit_code: i32,
    /// Its output.
    pub log: String,
    /// The image it runs.
    pub image: String,
}

/// A 64-hex-digit id that depends only on `seed` (FNV-1a, repeated), so files are named the
/// same in every run.
fn hex_id(seed: &str) -> String {
    let mut out = String::new();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for round in 0u8..4 {
        for byte in seed.bytes().chain([round]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        out.push_str(&format!("{hash:016x}"));
    }
    out
}

impl Container {
    /// A running static-pod container of CRI-O, first attempt.
    pub fn crio(namespace: &str, pod: &str, name: &str) -> Container {
        Container {
            runtime: Runtime::Crio,
            name: name.to_string(),
            pod: pod.to_string(),
            namespace: namespace.to_string(),
            attempt: 0,
            running: true,
            exit_code: 0,
            log: String::new(),
            image: "quay.io/okd/scos-content@sha256:4f8a0c1d2e3b".to_string(),
        }
    }

    /// A running podman container named `name`.
    pub fn podman(name: &str) -> Container {
        Container {
            runtime: Runtime::Podman,
            image: format!("localhost/okd-payload/{name}:4.19"),
            ..Container::crio("", "", name)
        }
    }

    /// The same container at restart `attempt`.
    pub fn attempt(mut self, attempt: u32) -> Container {
        self.attempt = attempt;
        self
    }

    /// The container after it exited with `code`.
    pub fn exited(mut self, code: i32) -> Container {
        self.running = false;
        self.exit_code = code;
        self
    }

    /// The container with this output.
    pub fn log(mut self, text: &str) -> Container {
        self.log = text.to_string();
        self
    }

    /// The id `crictl ps --quiet` (64 hex digits) or `podman ps --format {{.ID}}` (12)
    /// prints.
    pub fn id(&self) -> String {
        let full = hex_id(&format!(
            "{}/{}/{}/{}",
            self.namespace, self.pod, self.name, self.attempt
        ));
        match self.runtime {
            Runtime::Crio => full,
            Runtime::Podman => full[..12].to_string(),
        }
    }

    /// `<name>-<id>`, the stem of its `.log` and `.inspect` in a bundle.
    pub fn file_stem(&self) -> String {
        format!("{}-{}", self.name, self.id())
    }

    fn timestamps(&self) -> (String, String) {
        let started = format!("2026-11-20T08:{:02}:00.000000000Z", 10 + self.attempt % 40);
        let finished = if self.running {
            "0001-01-01T00:00:00Z".to_string()
        } else {
            format!("2026-11-20T08:{:02}:30.000000000Z", 10 + self.attempt % 40)
        };
        (started, finished)
    }

    /// What `crictl inspect` or `podman inspect` prints.
    pub fn inspect(&self) -> String {
        let value = match self.runtime {
            Runtime::Crio => self.crio_inspect(),
            Runtime::Podman => self.podman_inspect(),
        };
        serde_json::to_string_pretty(&value).expect("inspect JSON")
    }

    fn crio_inspect(&self) -> Value {
        let (started, finished) = self.timestamps();
        let uid = &hex_id(&format!("{}/{}", self.namespace, self.pod))[..32];
        json!({
            "status": {
                "id": self.id(),
                "metadata": {"attempt": self.attempt, "name": self.name},
                "state": if self.running { "CONTAINER_RUNNING" } else { "CONTAINER_EXITED" },
                "createdAt": started,
                "startedAt": started,
                "finishedAt": finished,
                "exitCode": self.exit_code,
                "image": {"annotations": {}, "image": self.image},
                "imageRef": self.image,
                "reason": if self.running { "" } else if self.exit_code == 0 { "Completed" } else { "Error" },
                "message": "",
                "labels": {
                    "io.kubernetes.container.name": self.name,
                    "io.kubernetes.pod.name": self.pod,
                    "io.kubernetes.pod.namespace": self.namespace,
                    "io.kubernetes.pod.uid": uid,
                },
                "annotations": {
                    "io.kubernetes.container.restartCount": self.attempt.to_string(),
                    "io.kubernetes.container.terminationMessagePolicy": "FallbackToLogsOnError",
                },
                "mounts": [],
                "logPath": format!(
                    "/var/log/pods/{}_{}_{uid}/{}/{}.log",
                    self.namespace, self.pod, self.name, self.attempt
                ),
            },
            "info": {"sandboxID": hex_id(&self.pod), "pid": if self.running { 4242 } else { 0 }},
        })
    }

    fn podman_inspect(&self) -> Value {
        let (started, finished) = self.timestamps();
        json!([{
            "Id": hex_id(&self.name),
            "Created": started,
            "Path": "/usr/bin/render",
            "State": {
                "OciVersion": "1.2.0",
                "Status": if self.running { "running" } else { "exited" },
                "Running": self.running,
                "Paused": false,
                "OOMKilled": false,
                "Dead": false,
                "Pid": if self.running { 4343 } else { 0 },
                "ExitCode": self.exit_code,
                "Error": "",
                "StartedAt": started,
                "FinishedAt": finished,
            },
            "Image": hex_id(&self.image),
            "ImageName": self.image,
            "Name": self.name,
            "HostConfig": {"LogConfig": {"Type": "k8s-file"}, "NetworkMode": "host"},
        }])
    }

    /// Its row in `crictl ps --all` or `podman ps --all`.
    pub fn ps_line(&self) -> String {
        let id = &self.id()[..12];
        match self.runtime {
            Runtime::Crio => format!(
                "{id:<15} {:<50} {:<15} {:<10} {:<30} {:<8} {:<15} {}",
                self.image,
                "20 minutes ago",
                if self.running { "Running" } else { "Exited" },
                self.name,
                self.attempt,
                &hex_id(&self.pod)[..13],
                self.pod
            ),
            Runtime::Podman => format!(
                "{id:<13} {:<45} {:<30} {:<16} {:<28} {:<10} {}",
                self.image,
                "render --asset-output-...",
                "20 minutes ago",
                if self.running {
                    "Up 20 minutes".to_string()
                } else {
                    format!("Exited ({}) 19 minutes ago", self.exit_code)
                },
                "",
                self.name
            ),
        }
    }
}
