//! One example's bootstrap run to its end on the payload's real control plane.
//!
//! The render harness stops after the renders; this goes on as the bootstrap machine does.
//! In a [`Sandbox`] (the scratch root bound over the node paths, the bootstrap address on a
//! private loopback, the cluster's API names in `/etc/hosts`), the [`Kubelet`] stand-in runs
//! the static pods the scripts leave, the bootstrap units run as systemd would run them, and
//! [`ApiStandIns`] answers for the control-plane hosts. Real: etcd, kube-apiserver,
//! kube-controller-manager, kube-scheduler, `cluster-bootstrap start` and
//! `bootstrap-in-place`, the CVO in bootstrap mode, the machine-config controller and server,
//! `wait-for-ceo`, and every script of bootstrap.ign.

use std::collections::BTreeSet;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ipnet::IpNet;
use serde_json::Value;

use crate::check::read_objects;
use crate::error::Error;
use crate::host::output_of;

use crate::kubelet::{BOOTSTRAP_NODE, Kubelet};
use crate::standins::{Access, ApiStandIns, MASTER_MANIFESTS, MASTERS};
use crate::tools::Tools;
use crate::units::{Unit, UnitSpec, UnitState};
use crate::{Finding, Host, Payload, Result, Sandbox, materialize};

/// Where bootkube.sh leaves the master config on a single node.
pub(crate) const SINGLE_NODE_MASTER_IGN: &str = "/opt/openshift/master.ign";
/// How long the checks wait for the API server to be ready.
const API_READY_LIMIT: Duration = Duration::from_secs(180);
/// The marker bootkube.sh leaves when it is done.
const BOOTKUBE_DONE: &str = "/opt/openshift/.bootkube.done";

/// How a bootstrap run ended, and what is wrong with it.
#[derive(Debug)]
pub struct BootstrapReport {
    /// The example.
    pub example: String,
    /// The install directory okd-install wrote.
    pub dir: PathBuf,
    /// The scratch host.
    pub host: Host,
    /// The sandbox (removed unless the run was kept).
    pub sandbox: Sandbox,
    /// bootkube.sh stages with a `.done` marker, in the order they finished.
    pub stages_done: Vec<String>,
    /// Everything wrong, each with the step it belongs to (empty when all is well).
    pub findings: Vec<Finding>,
    /// What the kubelet stand-in did.
    pub kubelet: Vec<String>,
    /// What the API stand-ins wrote.
    pub stand_ins: Vec<String>,
    /// The admin kubeconfig that reaches the API server from inside the sandbox.
    pub kubeconfig: PathBuf,
    /// Single node: the master config `cluster-bootstrap bootstrap-in-place` wrote.
    pub master_ign: Option<PathBuf>,
    /// Where the unit logs are.
    pub logs: PathBuf,
    /// kubectl for the sandbox (`tools/kubectl` of the work directory).
    pub kubectl: PathBuf,
}

impl BootstrapReport {
    /// The objects of `/opt/openshift/manifests` the API server of a kept run does not have,
    /// each with the API server's reason: run after adding a manifest by hand to see whether
    /// the API server would take it.
    pub fn unaccepted_manifests(&self, payload: &Payload) -> Vec<Finding> {
        crate::api_objects::missing_manifests(&self.access(payload), &self.host)
    }

    /// Runs the step of `bootstrap-in-place.sh` that packs `master.ign` again in a kept
    /// single-node run (after editing `master-update.fcc`, say): cluster-bootstrap's output.
    pub fn repack_master_config(&self, payload: &Payload) -> Result<String> {
        let image = payload.image_for("cluster-bootstrap")?.unwrap_or_default();
        let mut cmd = self.sandbox.command("bash");
        cmd.args([
            "-c",
            "set -euo pipefail; run_stage() { :; }; . /usr/local/bin/bootstrap-in-place.sh; pack_master_config",
        ])
        .env("OPENSHIFT_ROOT", "/opt/openshift")
        .env("ETC_KUBERNETES", "/etc/kubernetes")
        .env("BIN_DIR", "/usr/local/bin")
        .env("CLUSTER_BOOTSTRAP_IMAGE", image)
        .env("CONTAINERS_CONF", &payload.containers_conf);
        output_of(&mut cmd)
    }

    fn access(&self, payload: &Payload) -> Access {
        Access {
            sandbox: self.sandbox.clone(),
            payload: payload.clone(),
            kubectl: self.kubectl.clone(),
            kubeconfig: PathBuf::from("/opt/openshift/auth/kubeconfig-loopback"),
            etcd_image: String::new(),
            host: self.host.clone(),
        }
    }
}

/// Options of a run.
#[derive(Debug, Clone)]
pub struct BootstrapOptions {
    /// How long the whole bootstrap may take.
    pub limit: Duration,
    /// Leave the sandbox, its containers and the API server running.
    pub keep: bool,
}

impl Default for BootstrapOptions {
    fn default() -> Self {
        BootstrapOptions {
            limit: Duration::from_secs(25 * 60),
            keep: false,
        }
    }
}

/// The sandbox name of `example`.
pub fn sandbox_name(example: &str) -> String {
    let short: String = example
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    format!("okdh-{}", &short[..short.len().min(20)])
}

/// Creates the configs of `example` in `work/install` with the payload's release image, and
/// runs its bootstrap machine to the end in a sandbox; see the module documentation.
pub fn bootstrap_example(
    okd_install: &Path,
    example: &str,
    payload: &Payload,
    work: &Path,
    options: &BootstrapOptions,
) -> Result<BootstrapReport> {
    let dir = work.join("install");
    let (ignition, single_node) =
        crate::example::create_configs(okd_install, example, payload, &dir)?;
    let host = Host::new(&work.join("host"));
    materialize(&ignition, &host)?;
    let install_config = read_objects(&dir.join("install-config.yaml"))
        .into_iter()
        .next()
        .unwrap_or_default();
    let plan = Plan::read(&install_config)?;
    let sandbox = Sandbox::create(
        &sandbox_name(example),
        &host,
        &plan.bootstrap,
        &plan.hosts(),
    )?;
    let logs = work.join("logs");
    std::fs::create_dir_all(&logs).map_err(Error::io(&logs))?;
    let run =
        Run::start(payload, &host, &sandbox, &plan, work, &logs, single_node).map(|run| Run {
            okd_install: okd_install.to_path_buf(),
            keep: options.keep,
            ..run
        });
    let mut report = BootstrapReport {
        example: example.to_string(),
        dir: dir.clone(),
        host: host.clone(),
        sandbox: sandbox.clone(),
        stages_done: Vec::new(),
        findings: Vec::new(),
        kubelet: Vec::new(),
        stand_ins: Vec::new(),
        kubeconfig: host.path("/opt/openshift/auth/kubeconfig-loopback"),
        master_ign: None,
        logs: logs.clone(),
        kubectl: work.join("tools/kubectl"),
    };
    match run {
        Ok(mut run) => {
            report.findings = run.wait_and_check(&dir, options.limit, single_node);
            report.stages_done = stages_done(&host);
            if single_node && host.path(SINGLE_NODE_MASTER_IGN).is_file() {
                report.master_ign = Some(host.path(SINGLE_NODE_MASTER_IGN));
            }
            let (kubelet, stand_ins) = run.finish();
            report.kubelet = kubelet;
            report.stand_ins = stand_ins;
        }
        Err(e) => report.findings.push(Finding {
            stage: "harness",
            problem: e.to_string(),
        }),
    }
    if !options.keep {
        sandbox.remove_run(payload);
    }
    Ok(report)
}

/// Addresses of a run, from the install-config's machine network.
#[derive(Debug, Clone)]
struct Plan {
    /// The bootstrap machine's addresses, first family first.
    bootstrap: Vec<IpAddr>,
    /// Stand-in control-plane addresses (none for a single node).
    masters: Vec<IpAddr>,
    /// `api.<domain>` and `api-int.<domain>`.
    api_names: [String; 2],
}

impl Plan {
    fn read(config: &Value) -> Result<Plan> {
        let networks: Vec<IpNet> = config["networking"]["machineNetwork"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|n| n["cidr"].as_str()?.parse().ok())
            .collect();
        let taken: BTreeSet<IpAddr> = ["apiVIPs", "ingressVIPs"]
            .iter()
            .flat_map(|key| {
                ["baremetal", "vsphere"]
                    .iter()
                    .filter_map(|p| config["platform"][p][key].as_array())
                    .flatten()
                    .filter_map(|v| v.as_str()?.parse().ok())
                    .collect::<Vec<IpAddr>>()
            })
            .collect();
        let first = networks.first().ok_or_else(|| {
            Error::content(
                Path::new("install-config.yaml"),
                "no networking.machineNetwork",
            )
        })?;
        let free =
            |net: &IpNet, skip: usize| net.hosts().skip(9).filter(|a| !taken.contains(a)).nth(skip);
        let mut seen_families = BTreeSet::new();
        let bootstrap: Vec<IpAddr> = networks
            .iter()
            .filter(|n| seen_families.insert(n.addr().is_ipv4()))
            .filter_map(|n| free(n, 0))
            .collect();
        let replicas = config["controlPlane"]["replicas"].as_u64().unwrap_or(3);
        let masters = if replicas >= 3 {
            (1..=3).filter_map(|i| free(first, i)).collect()
        } else {
            Vec::new()
        };
        let names = contract::ClusterNames::new(
            config["metadata"]["name"].as_str().unwrap_or_default(),
            config["baseDomain"].as_str().unwrap_or_default(),
        );
        Ok(Plan {
            bootstrap,
            masters,
            api_names: [names.api, names.api_int],
        })
    }

    /// `/etc/hosts` of the sandbox: both API names at the bootstrap address, which is where
    /// the API answers while the masters are not up (keepalived's VIP is not run here).
    fn hosts(&self) -> Vec<(String, IpAddr)> {
        self.api_names
            .iter()
            .flat_map(|name| self.bootstrap.iter().map(move |a| (name.clone(), *a)))
            .collect()
    }
}

/// The running pieces of a bootstrap.
struct Run {
    okd_install: PathBuf,
    plan: Plan,
    keep: bool,
    host: Host,
    payload: Payload,
    access: Access,
    kubelet: Kubelet,
    master_kubelet: Option<Kubelet>,
    stand_ins: ApiStandIns,
    units: Vec<Unit>,
}

impl Run {
    fn start(
        payload: &Payload,
        host: &Host,
        sandbox: &Sandbox,
        plan: &Plan,
        work: &Path,
        logs: &Path,
        single_node: bool,
    ) -> Result<Run> {
        let tools = Tools::install(
            &work.join("tools"),
            &kubectl_cache(),
            payload,
            &sandbox.name,
            &host.calls_file(),
        )?;
        let placeholders = payload.placeholders()?;
        let kubelet = Kubelet::start(
            sandbox,
            host,
            payload,
            (BOOTSTRAP_NODE, plan.bootstrap[0]),
            "/etc/kubernetes/manifests",
            placeholders.clone(),
            Some(logs.join("kubelet.log")),
        );
        // The stand-in master's kubelet: idle until the API stand-ins give it a pod.
        let master_kubelet = plan.masters.first().map(|address| {
            Kubelet::start(
                sandbox,
                host,
                payload,
                (MASTERS[0], *address),
                MASTER_MANIFESTS,
                placeholders,
                Some(logs.join("kubelet-master-0.log")),
            )
        });
        let env = vec![
            ("PATH".to_string(), tools.path()),
            (
                "CONTAINERS_CONF".to_string(),
                payload.containers_conf.display().to_string(),
            ),
        ];
        let mut units = Vec::new();
        for spec in unit_specs(single_node) {
            let log = logs.join(format!("{}.log", spec.name));
            units.push(Unit::start(spec, sandbox, env.clone(), &log, &host.root)?);
        }
        let access = Access {
            sandbox: sandbox.clone(),
            payload: payload.clone(),
            kubectl: tools.kubectl.clone(),
            kubeconfig: PathBuf::from("/opt/openshift/auth/kubeconfig-loopback"),
            etcd_image: payload.image_for("etcd")?.unwrap_or_default(),
            host: host.clone(),
        };
        let stand_ins = ApiStandIns::start(
            access.clone(),
            plan.masters.clone(),
            Some(logs.join("stand-ins.log")),
        );
        Ok(Run {
            okd_install: PathBuf::new(),
            plan: plan.clone(),
            keep: false,
            host: host.clone(),
            payload: payload.clone(),
            access,
            kubelet,
            master_kubelet,
            stand_ins,
            units,
        })
    }

    fn unit(&self, name: &str) -> Option<&Unit> {
        self.units.iter().find(|u| u.name == name)
    }

    /// Waits until the bootstrap is done (bootkube.sh finished and, with a separate
    /// control plane, the completion reported), then checks everything.
    fn wait_and_check(&mut self, dir: &Path, limit: Duration, single_node: bool) -> Vec<Finding> {
        let started = Instant::now();
        let finished = loop {
            let bootkube = self.unit("bootkube").map(Unit::state);
            let progress = self.unit("progress").map(Unit::state);
            match bootkube {
                Some((UnitState::GaveUp, failures)) => {
                    break Err(format!("bootkube.sh failed {failures} times"));
                }
                Some((UnitState::Succeeded, _))
                    if single_node
                        || progress.as_ref().is_some_and(|p| p.0 != UnitState::Running) =>
                {
                    break Ok(());
                }
                _ => {}
            }
            if started.elapsed() > limit {
                break Err(format!(
                    "the bootstrap did not finish within {}s",
                    limit.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_secs(2));
        };
        let mut findings = Vec::new();
        if let Err(problem) = finished {
            let log = self
                .unit("bootkube")
                .and_then(|u| std::fs::read_to_string(&u.log).ok())
                .unwrap_or_default();
            let last_stage = stages_done(&self.host)
                .pop()
                .unwrap_or_else(|| "none".into());
            findings.push(Finding {
                stage: "bootkube",
                problem: format!(
                    "{problem}; last stage finished: {last_stage}; end of its log:\n{}",
                    crate::error::tail(&log, 30)
                ),
            });
            return findings;
        }
        if !self.host.path(BOOTKUBE_DONE).is_file() {
            findings.push(finding(
                "bootkube",
                "bootkube.sh exited 0 without leaving .bootkube.done",
            ));
        }
        findings.extend(crate::check::controller_manager_networks(
            &self.host,
            &dir.join("install-config.yaml"),
        ));
        if single_node {
            findings.extend(crate::single_node::check_master_ign(&self.host));
            if findings.is_empty() {
                findings.extend(crate::single_node::boot_installed(
                    &crate::single_node::installed_host(&self.host),
                    &self.payload,
                    (
                        &self.access.sandbox.installed_node().name,
                        &self.plan.bootstrap,
                        &self.plan.hosts(),
                    ),
                    &self.access.kubectl,
                    self.keep,
                ));
            }
        } else {
            findings.extend(self.check_control_plane(dir));
        }
        findings
    }

    /// The checks of a bootstrap whose control plane is still up.
    fn check_control_plane(&self, dir: &Path) -> Vec<Finding> {
        let mut findings = Vec::new();
        let mut health = self.access.etcdctl();
        health.args(["endpoint", "health"]);
        if let Err(e) = output_of(&mut health) {
            findings.push(finding(
                "etcd",
                &format!("not healthy through the generated client certificate: {e}"),
            ));
        }
        // After the teardown the API is the stand-in master's, which may still be starting.
        let mut last = String::new();
        let deadline = Instant::now() + API_READY_LIMIT;
        let ready = loop {
            let mut readyz = self.access.kubectl();
            readyz.args(["get", "--raw", "/readyz"]);
            match output_of(&mut readyz) {
                Ok(out) if out.trim() == "ok" => break true,
                Ok(out) => last = out,
                Err(e) => last = e.to_string(),
            }
            if Instant::now() > deadline {
                break false;
            }
            std::thread::sleep(Duration::from_secs(3));
        };
        if !ready {
            findings.push(finding(
                "kube-apiserver",
                &format!("/readyz through auth/kubeconfig-loopback is not ok: {last}"),
            ));
            return findings;
        }
        findings.extend(crate::api_objects::missing_manifests(
            &self.access,
            &self.host,
        ));
        findings.extend(crate::api_objects::missing_payload_objects(
            &self.access,
            &self.payload,
        ));
        match self
            .access
            .get("configmap", "bootstrap", Some("kube-system"))
        {
            Some(cm) if cm["data"]["status"] == "complete" => {}
            other => findings.push(finding(
                "progress",
                &format!(
                    "kube-system/bootstrap is not complete: {}",
                    other
                        .map(|c| c["data"].to_string())
                        .unwrap_or_else(|| "missing".into())
                ),
            )),
        }
        findings.extend(self.wait_for_bootstrap_complete(dir));
        findings
    }

    /// `okd-install wait-for bootstrap-complete` in the sandbox, against this API server.
    fn wait_for_bootstrap_complete(&self, dir: &Path) -> Vec<Finding> {
        let mut cmd = self.access.sandbox.command(&self.okd_install);
        cmd.args([
            "wait-for",
            "bootstrap-complete",
            "--api-timeout",
            "2",
            "--bootstrap-timeout",
            "3",
            "--etcd-timeout",
            "3",
            "--dir",
        ])
        .arg(dir);
        match output_of(&mut cmd) {
            Ok(_) => Vec::new(),
            Err(e) => vec![finding("wait-for", &e.to_string())],
        }
    }

    /// Stops the units, the stand-ins and the kubelets (their containers keep running until
    /// the sandbox is removed): what the kubelets and the API stand-ins did.
    fn finish(mut self) -> (Vec<String>, Vec<String>) {
        for unit in &mut self.units {
            unit.stop();
        }
        let stand_ins = self.stand_ins.stop();
        let mut kubelet = self.kubelet.stop();
        if let Some(master) = self.master_kubelet {
            kubelet.extend(
                master
                    .stop()
                    .into_iter()
                    .map(|l| format!("{}: {l}", MASTERS[0])),
            );
        }
        (kubelet, stand_ins)
    }
}

/// bootkube.service, progress.service and approve-csr.service as their units run them
/// (a single node reports progress after its reboot, not from here).
fn unit_specs(single_node: bool) -> Vec<UnitSpec> {
    let mut specs = vec![UnitSpec {
        name: "bootkube",
        exec: vec!["/usr/local/bin/bootkube.sh".into()],
        workdir: Some("/opt/openshift"),
        unless: Some(BOOTKUBE_DONE),
        max_failures: 3,
    }];
    specs.push(UnitSpec {
        name: "approve-csr",
        exec: vec![
            "/usr/local/bin/approve-csr.sh".into(),
            "/opt/openshift/auth/kubeconfig-loopback".into(),
        ],
        workdir: None,
        unless: None,
        max_failures: 100,
    });
    if !single_node {
        specs.push(UnitSpec {
            name: "progress",
            exec: vec![
                "/usr/local/bin/report-progress.sh".into(),
                "/opt/openshift/auth/kubeconfig".into(),
            ],
            workdir: None,
            unless: None,
            max_failures: 100,
        });
    }
    specs
}

/// Where kubectl, copied out of the payload once, is kept between runs.
fn kubectl_cache() -> PathBuf {
    std::env::temp_dir().join("okd-harness-kubectl")
}

/// The stages with a `.done` marker, oldest first.
fn stages_done(host: &Host) -> Vec<String> {
    let mut done: Vec<(std::time::SystemTime, String)> = std::fs::read_dir(host.assets())
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let stage = name.strip_suffix(".done")?.to_string();
            if stage.starts_with('.') {
                return None;
            }
            Some((e.metadata().ok()?.modified().ok()?, stage))
        })
        .collect();
    done.sort();
    done.into_iter().map(|(_, s)| s).collect()
}

fn finding(stage: &'static str, problem: &str) -> Finding {
    Finding {
        stage,
        problem: problem.to_string(),
    }
}
