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
use crate::faults::{Fault, FaultReport, Injected};
use crate::host::output_of;

use crate::kubelet::{BOOTSTRAP_NODE, Kubelet};
use crate::single_node::SINGLE_NODE_MASTER_IGN;
use crate::standins::{Access, ApiStandIns, MASTER_MANIFESTS, MASTERS, Masters};
use crate::tools::Tools;
use crate::units::{Unit, UnitSpec, UnitState};
use crate::{Finding, Host, Payload, Result, Sandbox, materialize};

/// How long the checks wait for the API server to be ready.
const API_READY_LIMIT: Duration = Duration::from_secs(180);
/// How long a fault run's `wait-for bootstrap-complete` waits before it diagnoses (twice a
/// fault: text and JSON). Long enough to poll the API and reach the host; every second of it
/// is CI time.
const FAULT_WAIT: &str = "45s";
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
    /// What the injected fault did, when there was one.
    pub fault: Option<FaultReport>,
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
    /// With `keep`: return when bootkube.sh ends or after this long, whichever comes first.
    pub keep_for: Option<Duration>,
    /// A fault of [`crate::faults::FAULTS`] to inject.
    pub fault: Option<&'static Fault>,
    /// How long the injected fault may take to show on the host.
    pub fault_limit: Duration,
    /// Remove the fault once it showed and let the same bootstrap run to its end.
    pub recover: bool,
    /// Where to save what the failing bootstrap produced (logs, wait-for's output).
    pub evidence: Option<PathBuf>,
    /// An asset directory the caller prepared (install-config, SSH key, manifests) to run
    /// instead of the example's: `create ignition-configs` runs in it.
    pub dir: Option<PathBuf>,
    /// The sandbox's name, instead of the example's (or the fault's).
    pub sandbox: Option<String>,
}

impl Default for BootstrapOptions {
    fn default() -> Self {
        BootstrapOptions {
            limit: Duration::from_secs(15 * 60),
            keep: false,
            keep_for: None,
            fault: None,
            fault_limit: Duration::from_secs(8 * 60),
            recover: false,
            evidence: None,
            dir: None,
            sandbox: None,
        }
    }
}

/// The sandbox name of a run with `fault`: `flt-` and the fault's name, apart from every
/// example's.
pub fn fault_sandbox_name(fault: &Fault) -> String {
    let short: String = fault.name.chars().filter(|c| *c != '-').collect();
    format!("flt-{}", &short[..short.len().min(20)])
}

/// (exit code, stdout, stderr) of `cmd`.
fn capture(cmd: &mut std::process::Command) -> (i32, String, String) {
    match cmd.stdin(std::process::Stdio::null()).output() {
        Ok(out) => (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ),
        Err(e) => (-1, String::new(), e.to_string()),
    }
}

/// Moves every `log-bundle-*.tar.gz` of `from` into `to`.
fn move_bundles(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("log-bundle-") && name.ends_with(".tar.gz") {
            let _ = std::fs::rename(entry.path(), to.join(&name))
                .or_else(|_| std::fs::copy(entry.path(), to.join(&name)).map(|_| ()));
        }
    }
}

/// The newest `log-bundle-*.tar.gz` in `dir`.
fn newest_bundle(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with("log-bundle-") && n.ends_with(".tar.gz")
        })
        .max_by_key(|e| e.metadata().and_then(|m| m.modified()).ok())
        .map(|e| e.path())
}

/// The install directory's configs: the example's with the payload's release image, or,
/// with a fault, made the way the fault needs (another release image, user manifests, the
/// clock), or those of a directory the caller prepared. Returns the bootstrap config and
/// whether it is the single-node one.
fn make_configs(
    okd_install: &Path,
    example: &str,
    payload: &Payload,
    dir: &Path,
    options: &BootstrapOptions,
) -> Result<(PathBuf, bool)> {
    let fault = options.fault;
    let plain = fault
        .is_none_or(|f| f.user_manifests().is_empty() && f.source_date_epoch().is_none())
        && options.dir.is_none();
    let release = match fault {
        Some(f) => f.release_image(payload)?,
        None => None,
    }
    .unwrap_or_else(|| payload.release_image.clone());
    if plain && release == payload.release_image {
        return crate::example::create_configs(okd_install, example, payload, dir);
    }
    let create = |target: &str, from_example: bool| {
        let mut cmd = std::process::Command::new(okd_install);
        cmd.args(["create", target]);
        if from_example {
            cmd.args(["--from-example", example]);
        }
        cmd.arg("--dir")
            .arg(dir)
            .args(["--release-image", &release]);
        if let Some(epoch) = fault.and_then(Fault::source_date_epoch) {
            cmd.env("SOURCE_DATE_EPOCH", epoch.to_string());
        }
        output_of(&mut cmd).map(|_| ())
    };
    let from_example = options.dir.is_none();
    let manifests = fault.map(Fault::user_manifests).unwrap_or_default();
    if !manifests.is_empty() {
        create("manifests", from_example)?;
        for (name, content) in manifests {
            let path = dir.join("manifests").join(name);
            std::fs::write(&path, content).map_err(Error::io(&path))?;
        }
        create("ignition-configs", false)?;
    } else {
        create("ignition-configs", from_example)?;
    }
    let single = dir.join("bootstrap-in-place-for-live-iso.ign");
    if single.exists() {
        return Ok((single, true));
    }
    Ok((dir.join("bootstrap.ign"), false))
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
    let dir = options.dir.clone().unwrap_or_else(|| work.join("install"));
    let (ignition, single_node) = make_configs(okd_install, example, payload, &dir, options)?;
    let host = Host::new(&work.join("host"));
    materialize(&ignition, &host)?;
    let install_config = read_objects(&dir.join("install-config.yaml"))
        .into_iter()
        .next()
        .unwrap_or_default();
    let plan = Plan::read(
        &install_config,
        crate::example::cluster_names(&install_config),
    )?;
    let name = match (&options.sandbox, options.fault) {
        (Some(name), _) => name.clone(),
        (None, Some(fault)) => fault_sandbox_name(fault),
        (None, None) => sandbox_name(example),
    };
    crate::faults::release_small_disk(&name);
    if let Some(fault) = options.fault {
        fault.prepare_host(&host, &name)?;
    }
    let sandbox = Sandbox::create(&name, &host, &plan.bootstrap, &plan.hosts())?;
    let logs = work.join("logs");
    std::fs::create_dir_all(&logs).map_err(Error::io(&logs))?;
    let injected = match options.fault {
        Some(fault) => match fault.inject(&sandbox, &host) {
            Ok(injected) => Some(injected),
            Err(e) => {
                sandbox.remove_run(payload);
                return Err(e);
            }
        },
        None => None,
    };
    let bootkube_failures = if injected.is_some() { 12 } else { 3 };
    let run = Run::start(
        payload,
        &host,
        &sandbox,
        &plan,
        work,
        &logs,
        (single_node, bootkube_failures, &ignition),
    )
    .map(|run| Run {
        okd_install: okd_install.to_path_buf(),
        keep: options.keep,
        fault: injected,
        stop_at_failure: options.keep && options.keep_for.is_some(),
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
        fault: None,
    };
    match run {
        Ok(mut run) => {
            let mut limit = options.limit;
            if options.keep
                && let Some(keep_for) = options.keep_for
            {
                limit = limit.min(keep_for);
            }
            let started = Instant::now();
            let mut failed_for_good = false;
            if run.fault.is_some() {
                let (fault_report, problem) = run.show_fault(&dir, options);
                report.fault = Some(fault_report);
                if let Some(problem) = problem {
                    report.findings.push(finding("fault", &problem));
                    failed_for_good = true;
                }
            }
            let recovers = options.recover
                && run
                    .fault
                    .as_ref()
                    .is_some_and(|f| f.fault.recovers_in_place);
            if !failed_for_good && (run.fault.is_none() || recovers) {
                let left = limit.saturating_sub(started.elapsed());
                report
                    .findings
                    .extend(run.wait_and_check(&dir, left, single_node));
            }
            if let Some(injected) = &run.fault
                && !options.keep
            {
                injected.remove_images(payload);
            }
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
    /// The plan of the install-config `config`, whose cluster is named `names`.
    fn read(config: &Value, names: contract::ClusterNames) -> Result<Plan> {
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
    /// The fault in place, if any.
    fault: Option<Injected>,
    /// sshd on the bootstrap address, for `gather bootstrap` (None when it did not start).
    sshd: Option<crate::sshd::SandboxSshd>,
    /// Return at bootkube.sh's first failure (a kept run with a time limit).
    stop_at_failure: bool,
    /// The environment of the units.
    env: Vec<(String, String)>,
    logs: PathBuf,
}

impl Run {
    fn start(
        payload: &Payload,
        host: &Host,
        sandbox: &Sandbox,
        plan: &Plan,
        work: &Path,
        logs: &Path,
        (single_node, bootkube_failures, ignition): (bool, u32, &Path),
    ) -> Result<Run> {
        let tools = Tools::install(
            &work.join("tools"),
            &kubectl_cache(),
            payload,
            &sandbox.name,
            &host.calls_file(),
            logs,
            &host.path("/root/.docker/config.json"),
        )?;
        let sshd = match crate::sshd::SandboxSshd::start(
            sandbox,
            plan.bootstrap[0],
            &crate::sshd::core_keys(ignition),
            &work.join("sshd"),
            &tools.path(),
            &logs.join("sshd.log"),
        ) {
            Ok(sshd) => Some(sshd),
            Err(e) => {
                eprintln!("sshd in the sandbox did not start, gather cannot run: {e}");
                None
            }
        };
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
        for spec in unit_specs(single_node, bootkube_failures, &tools.dir, logs) {
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
        let masters = Masters {
            addresses: plan.masters.clone(),
            pointer: ignition.with_file_name("master.ign"),
            api_int: plan.api_names[1].clone(),
        };
        let stand_ins =
            ApiStandIns::start(access.clone(), masters, Some(logs.join("stand-ins.log")));
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
            fault: None,
            sshd,
            stop_at_failure: false,
            env,
            logs: logs.to_path_buf(),
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
                // A kept run returns when bootkube.sh ends, to be looked at.
                Some((UnitState::Running, failures)) if self.stop_at_failure && failures > 0 => {
                    break Err(format!("bootkube.sh failed (run {failures})"));
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
                    "{problem}; last stage finished: {last_stage}; end of its log:\n{}{}",
                    crate::error::tail(&log, 30),
                    self.keep_container_logs()
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
        if self.fault.is_none() {
            findings.extend(recorded_failures(&self.host.path("/var/log/openshift")));
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
        findings.extend(self.gather_says_healthy(dir));
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

    /// Waits until the injected fault shows on the host (its error line in a unit's or a
    /// container's log), bootkube.sh ends, or the fault's time is up; saves the evidence;
    /// with `recover`, removes the fault and restarts what a person would restart. The
    /// second value is a problem that ends the run.
    fn show_fault(
        &mut self,
        dir: &Path,
        options: &BootstrapOptions,
    ) -> (FaultReport, Option<String>) {
        let Some(fault) = self.fault.as_ref().map(|f| f.fault) else {
            return (FaultReport::default(), None);
        };
        let mut report = FaultReport {
            name: fault.name.to_string(),
            ..Default::default()
        };
        let mut limit = options.fault_limit;
        if options.keep
            && let Some(keep_for) = options.keep_for
        {
            limit = limit.min(keep_for);
        }
        let started = Instant::now();
        let mut shown_at: Option<Instant> = None;
        loop {
            let files = self.log_files();
            if shown_at.is_none() {
                report.host_error_line = crate::faults::host_error_line(fault, &files);
                if report.host_error_line.is_some() {
                    shown_at = Some(Instant::now());
                }
            }
            let bootkube = self.unit("bootkube").map(Unit::state);
            let ended = matches!(
                bootkube,
                Some((
                    UnitState::GaveUp | UnitState::Succeeded | UnitState::Skipped,
                    _
                ))
            ) || bootkube.is_some_and(|(_, failures)| failures > 0);
            // Once it showed, a little longer: what fails next is evidence too.
            if shown_at.is_some_and(|t| t.elapsed() > Duration::from_secs(30)) || ended {
                break;
            }
            if started.elapsed() > limit {
                break;
            }
            std::thread::sleep(Duration::from_secs(5));
        }
        if report.host_error_line.is_none() {
            report.host_error_line = crate::faults::host_error_line(fault, &self.log_files());
        }
        report.wait_for_text = Some(self.wait_for(dir, false));
        report.wait_for_json = Some(self.wait_for(dir, true));
        if self.sshd.is_some() {
            let gather_dir = options
                .evidence
                .clone()
                .unwrap_or_else(|| self.logs.join("gather"));
            report.gather = Some(self.gather(dir, &gather_dir));
            report.bundle = newest_bundle(&gather_dir);
            if let Some(bundle) = &report.bundle {
                report.analyze_json = Some(self.okd(&["analyze", "--output", "json"], bundle));
            }
        }
        if let Some(evidence) = &options.evidence {
            if let Err(e) = self.save_evidence(evidence, fault, &report) {
                eprintln!("saving the evidence in {}: {e}", evidence.display());
            }
            report.evidence = Some(evidence.clone());
        }
        let mut problem = None;
        if report.host_error_line.is_none() {
            problem = Some(format!(
                "fault {}: none of {:?} showed in a unit's or a container's log within {}s",
                fault.name,
                fault.symptoms,
                limit.as_secs()
            ));
        }
        if options.recover && fault.recovers_in_place {
            let removed = self
                .fault
                .as_mut()
                .map(|f| f.remove(&self.host, &self.payload));
            match removed {
                Some(Ok(restart)) => {
                    report.removed = true;
                    let gave_up = self
                        .unit("bootkube")
                        .is_some_and(|u| u.state().0 == UnitState::GaveUp);
                    if restart || gave_up {
                        self.restart_bootkube();
                    }
                }
                Some(Err(e)) => {
                    problem = Some(format!("removing fault {}: {e}", fault.name));
                }
                None => {}
            }
        }
        (report, problem)
    }

    /// `systemctl restart bootkube.service`: the running script is ended and started again.
    fn restart_bootkube(&mut self) {
        let Some(index) = self.units.iter().position(|u| u.name == "bootkube") else {
            return;
        };
        self.units[index].stop();
        let log = self.logs.join("bootkube.log");
        match Unit::start(
            bootkube_spec(12, &self.logs),
            &self.access.sandbox,
            self.env.clone(),
            &log,
            &self.host.root,
        ) {
            Ok(unit) => self.units[index] = unit,
            Err(e) => eprintln!("restarting bootkube.sh: {e}"),
        }
    }

    /// Every log of the run, (name, text): the units', the kubelet stand-ins', and each
    /// container's of the sandbox (`podman logs`).
    fn log_files(&self) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = std::fs::read_dir(&self.logs)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let text = std::fs::read_to_string(e.path()).ok()?;
                Some((name, text))
            })
            .collect();
        files.sort();
        files.extend(self.container_logs());
        files
    }

    /// Writes each container's log into the run's log directory (the sandbox's containers
    /// are removed with it) and returns the end of etcd's, which a stuck bootstrap most often
    /// needs and the bootkube.sh log does not show.
    fn keep_container_logs(&self) -> String {
        let mut etcd = String::new();
        for (name, text) in self.container_logs() {
            let path = self.logs.join(&name);
            let written = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&path, &text));
            if let Err(e) = written {
                eprintln!("keeping {}: {e}", path.display());
            }
            if name.contains("etcd") && !name.contains("etcdctl") {
                etcd.push_str(&format!(
                    "\nend of {name}:\n{}",
                    crate::error::tail(&text, 15)
                ));
            }
        }
        etcd
    }

    /// `podman logs` of each container of the sandbox: (`containers/<name>.log`, text).
    fn container_logs(&self) -> Vec<(String, String)> {
        let mut list = self.payload.podman();
        list.args(["ps", "--all", "--format", "{{.Names}}", "--filter"])
            .arg(format!(
                "label={}={}",
                crate::kubelet::SANDBOX_LABEL,
                self.access.sandbox.name
            ));
        let names = output_of(&mut list).unwrap_or_default();
        names
            .split_whitespace()
            .filter_map(|name| {
                let out = self
                    .payload
                    .podman()
                    .args(["logs", name])
                    .stdin(std::process::Stdio::null())
                    .output()
                    .ok()?;
                let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
                text.push_str(&String::from_utf8_lossy(&out.stderr));
                Some((format!("containers/{name}.log"), text))
            })
            .collect()
    }

    /// `okd-install wait-for bootstrap-complete --log-level debug --timeout 45s --bootstrap
    /// <address>` inside the sandbox, as a user whose bootstrap failed runs it: a short wait,
    /// then the host's records read over ssh with the generated key: (exit code, stdout,
    /// stderr).
    fn wait_for(&self, dir: &Path, json: bool) -> (i32, String, String) {
        let args = ["wait-for", "bootstrap-complete", "--timeout", FAULT_WAIT];
        self.okd_at_bootstrap(&args, json, dir, None)
    }

    /// `okd-install ARGS --log-level debug --bootstrap <address> [--output json] --dir DIR`
    /// inside the sandbox (in `cwd` when given), as a user with an empty home and no ssh
    /// agent: (exit code, stdout, stderr).
    fn okd_at_bootstrap(
        &self,
        args: &[&str],
        json: bool,
        dir: &Path,
        cwd: Option<&Path>,
    ) -> (i32, String, String) {
        let home = tempfile::tempdir().ok();
        let mut cmd = self.access.sandbox.command(&self.okd_install);
        cmd.args(args)
            .args(["--log-level", "debug", "--bootstrap"])
            .arg(self.plan.bootstrap[0].to_string());
        if json {
            cmd.args(["--output", "json"]);
        }
        cmd.arg("--dir").arg(dir);
        if let Some(cwd) = cwd {
            cmd.current_dir(cwd);
        }
        if let Some(home) = &home {
            cmd.env("HOME", home.path());
        }
        cmd.env_remove("SSH_AUTH_SOCK");
        capture(&mut cmd)
    }

    /// `okd-install gather bootstrap` inside the sandbox, over ssh to the bootstrap address as
    /// `core` (the generated bootstrap key from the state file), the bundle into `into`:
    /// (exit code, stdout, stderr) of the text run, then of the `--output json` run.
    fn gather(&self, dir: &Path, into: &Path) -> [(i32, String, String); 2] {
        [
            self.gather_once(dir, into, false),
            self.gather_once(dir, into, true),
        ]
    }

    /// One `okd-install gather bootstrap` run; its bundle is moved from `dir` into `into`.
    fn gather_once(&self, dir: &Path, into: &Path, json: bool) -> (i32, String, String) {
        let _ = std::fs::create_dir_all(into);
        let result = self.okd_at_bootstrap(&["gather", "bootstrap"], json, dir, Some(into));
        // The bundle is written into DIR: move it where the evidence is.
        move_bundles(dir, into);
        result
    }

    /// `gather bootstrap` of the completed bootstrap: the bundle's analysis must find it
    /// healthy and name no cause, or a good bootstrap would be blamed for something. After a
    /// fault, the one cause it may name is that fault's, from a check the successful run
    /// recorded and went past while the fault was in place (api. not resolving).
    fn gather_says_healthy(&self, dir: &Path) -> Vec<Finding> {
        if self.sshd.is_none() {
            return vec![finding("gather", "sshd did not start in the sandbox")];
        }
        let into = self.logs.join("gather-complete");
        let (code, _, err) = self.gather_once(dir, &into, false);
        let Some(bundle) = newest_bundle(&into) else {
            return vec![finding(
                "gather",
                &format!(
                    "no log bundle (exit code {code}): {}",
                    crate::error::tail(&err, 10)
                ),
            )];
        };
        let (_, out, err) = self.okd(&["analyze", "--output", "json"], &bundle);
        let analysis: Value = out
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str(l).ok())
            .unwrap_or_default();
        let verdict = &analysis["verdict"]["kind"];
        let named = analysis["finding"]["cause"].as_str();
        let allowed = self.fault.as_ref().map(|f| f.fault.expected.id());
        if verdict == "healthy" && (named.is_none() || named == allowed) {
            return Vec::new();
        }
        vec![finding(
            "gather",
            &format!(
                "the analysis of {} does not find the completed bootstrap healthy: verdict \
                 {verdict}, finding {}; {}",
                bundle.display(),
                analysis["finding"],
                crate::error::tail(&format!("{out}{err}"), 10)
            ),
        )]
    }

    /// `okd-install ARGS PATH` (outside the sandbox: it reads a file).
    fn okd(&self, args: &[&str], path: &Path) -> (i32, String, String) {
        let mut cmd = std::process::Command::new(&self.okd_install);
        cmd.args(args).arg(path);
        capture(&mut cmd)
    }

    /// Saves the evidence of the failing bootstrap in `evidence`.
    fn save_evidence(&self, evidence: &Path, fault: &Fault, report: &FaultReport) -> Result<()> {
        std::fs::create_dir_all(evidence.join("containers")).map_err(Error::io(evidence))?;
        for (name, text) in self.log_files() {
            let path = evidence.join(&name);
            std::fs::write(&path, text).map_err(Error::io(&path))?;
        }
        let write = |name: &str, text: &str| {
            let path = evidence.join(name);
            std::fs::write(&path, text).map_err(Error::io(&path))
        };
        if let Some((code, out, err)) = &report.wait_for_text {
            write(
                "wait-for.txt",
                &format!("# exit code {code}\n# stdout\n{out}\n# stderr\n{err}"),
            )?;
        }
        if let Some((code, out, err)) = &report.wait_for_json {
            write("wait-for.json", out)?;
            write(
                "wait-for.json.stderr",
                &format!("# exit code {code}\n{err}"),
            )?;
        }
        if let Some(gathered) = &report.gather {
            for (name, (code, out, err)) in ["gather.txt", "gather.json"].iter().zip(gathered) {
                write(
                    name,
                    &format!("# exit code {code}\n# stdout\n{out}\n# stderr\n{err}"),
                )?;
            }
        }
        if let Some((code, out, err)) = &report.analyze_json {
            write("analyze.json", out)?;
            write("analyze.json.stderr", &format!("# exit code {code}\n{err}"))?;
        }
        for record in std::fs::read_dir(self.host.path("/var/log/openshift"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let target = evidence.join("service-records");
            std::fs::create_dir_all(&target).map_err(Error::io(&target))?;
            let _ = std::fs::copy(record.path(), target.join(record.file_name()));
        }
        let line = report
            .host_error_line
            .as_ref()
            .map(|(file, line)| format!("{file}: {line}"))
            .unwrap_or_else(|| "(none of the symptoms showed)".into());
        write(
            "README.txt",
            &format!(
                "fault: {}\nexpected cause: {}\ninjected: {}\nremoved (recovery): {}\n\
                 symptoms looked for: {:?}\nhost error line: {line}\n\
                 sandbox: {}\nbootstrap address: {}\n\n\
                 Files: *.log are the harness's unit logs (bootkube.log = bootkube.service's \
                 journal), kubelet*.log the kubelet stand-ins' journals, stand-ins.log the API \
                 stand-ins'; containers/ the `podman logs` of every container of the sandbox; \
                 wait-for.txt and wait-for.json `okd-install wait-for bootstrap-complete \
                 --log-level debug` (0.5-minute timeouts) run inside the sandbox while the fault \
                 was in place; service-records/ the bootstrap service records.\n",
                fault.name,
                fault.expected.id(),
                fault.injected,
                fault.removed,
                fault.symptoms,
                self.access.sandbox.name,
                self.plan.bootstrap[0],
            ),
        )
    }

    /// Stops the units, the stand-ins and the kubelets (their containers keep running until
    /// the sandbox is removed): what the kubelets and the API stand-ins did.
    fn finish(mut self) -> (Vec<String>, Vec<String>) {
        // A kept run keeps its sshd and its fault (a port held) until `--stop`, which ends
        // every process of the sandbox.
        if self.keep {
            std::mem::forget(self.sshd.take());
            std::mem::forget(self.fault.take());
        }
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
fn unit_specs(
    single_node: bool,
    bootkube_failures: u32,
    tools: &Path,
    logs: &Path,
) -> Vec<UnitSpec> {
    let mut specs = vec![
        release_image_spec(tools),
        node_image_pull_spec(tools, logs),
        bootkube_spec(bootkube_failures, logs),
    ];
    specs.push(UnitSpec {
        name: "approve-csr",
        exec: vec![
            "/usr/local/bin/approve-csr.sh".into(),
            "/opt/openshift/auth/kubeconfig-loopback".into(),
        ],
        workdir: None,
        unless: None,
        max_failures: 100,
        after: None,
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
            after: None,
        });
    }
    specs
}

/// bootkube.service as its unit runs it.
fn bootkube_spec(max_failures: u32, logs: &Path) -> UnitSpec {
    UnitSpec {
        name: "bootkube",
        exec: vec!["/usr/local/bin/bootkube.sh".into()],
        workdir: Some("/opt/openshift"),
        unless: Some(BOOTKUBE_DONE),
        max_failures,
        after: Some(logs.join(crate::tools::NODE_IMAGE_DONE)),
    }
}

/// node-image-pull.service: the host's own script through its stand-in wrapper, after the
/// release image is there (it asks the release image for the node image); bootkube.service
/// comes after it, as it comes after node-image-overlay.service on a node.
fn node_image_pull_spec(tools: &Path, logs: &Path) -> UnitSpec {
    UnitSpec {
        name: "node-image-pull",
        exec: vec![tools.join("node-image-pull").display().to_string()],
        workdir: None,
        unless: None,
        max_failures: 100,
        after: Some(logs.join(crate::tools::RELEASE_IMAGE_DONE)),
    }
}

/// release-image.service's stand-in: the release image is in podman's store already (or
/// pulled, and the pull retried, as the real unit does), with the unit's service record.
fn release_image_spec(tools: &Path) -> UnitSpec {
    UnitSpec {
        name: "release-image",
        exec: vec![tools.join("release-image").display().to_string()],
        workdir: None,
        unless: None,
        max_failures: 100,
        after: None,
    }
}

/// Where kubectl, copied out of the payload once, is kept between runs.
fn kubectl_cache() -> PathBuf {
    std::env::temp_dir().join("okd-harness-kubectl")
}

/// Failed stages or services in the service records of DIR. A bootstrap without a fault
/// has none: a check that records a failure on a good run (an API server probed while it
/// still starts) puts a false lead into every log bundle.
fn recorded_failures(dir: &Path) -> Vec<Finding> {
    let mut findings = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let records: Vec<Value> = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default();
        for record in records.iter().filter(|r| r["result"] == "failure") {
            findings.push(finding(
                "service records",
                &format!(
                    "{} records a failure on a run without a fault: stage {}: {}",
                    path.display(),
                    record["stage"].as_str().unwrap_or("(service)"),
                    record["errorMessage"].as_str().unwrap_or("")
                ),
            ));
        }
    }
    findings
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What a good HA run records, and the false failure the end check recorded before it
    /// waited for the API server that takes over.
    #[test]
    fn only_failed_records_are_findings() {
        let dir = tempfile::tempdir().unwrap();
        let good = r#"[{"phase":"service start"},
            {"stage":"check-api-url","phase":"stage start"},
            {"stage":"check-api-url","phase":"stage end","result":"success"},
            {"phase":"service end","result":"success"}]"#;
        std::fs::write(dir.path().join("release-image.json"), good).unwrap();
        assert!(recorded_failures(dir.path()).is_empty());

        let bad = r#"[{"phase":"service start"},
            {"stage":"check-api-url","phase":"stage end","result":"failure",
             "errorMessage":"https://api.x:6443/readyz did not answer ready"},
            {"phase":"service end","result":"success"}]"#;
        std::fs::write(dir.path().join("bootkube.json"), bad).unwrap();
        let findings = recorded_failures(dir.path());
        assert_eq!(findings.len(), 1);
        assert!(
            findings[0]
                .problem
                .ends_with("stage check-api-url: https://api.x:6443/readyz did not answer ready"),
            "{}",
            findings[0].problem
        );
    }
}
