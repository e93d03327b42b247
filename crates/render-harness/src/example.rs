//! One shipped example from install-config to checked render outputs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::host::output_of;
use crate::{
    AppliedPointer, ClusterMcs, Finding, Host, Mcs, NodeConfig, Payload, RenderRun, Result,
    apply_pointer, check_outputs, check_served, fetch_local_master, materialize, run_renders,
};

/// How long the renders of one example may take: about a minute on a 2-core machine, so
/// this only stops a hung run.
const RENDER_LIMIT: Duration = Duration::from_secs(600);

/// What happened to one example.
#[derive(Debug)]
pub struct ExampleReport {
    /// The example's name.
    pub example: String,
    /// The bootstrap Ignition config that was materialized.
    pub ignition: PathBuf,
    /// The scratch host.
    pub host: Host,
    /// The bootkube run.
    pub run: RenderRun,
    /// Everything wrong with the outputs (empty when all is well).
    pub findings: Vec<Finding>,
}

/// Creates the bootstrap config of `example` with `okd_install` and the payload's release
/// image in `work`, writes its files into a scratch root with the real Ignition, runs its
/// bootkube.sh until the renders are done and checks their outputs. Then it runs the
/// bootstrap Machine Config Server from the MCO's bootstrap pod and applies `master.ign` with
/// the real Ignition against it, then `worker.ign` against the real in-cluster server
/// ([`ClusterMcs`]), checking what each pool gets. The
/// single-node example goes through its bootstrap-in-place config and checks the master
/// config that flow fetches for itself from port 22624.
pub fn render_example(
    okd_install: &Path,
    example: &str,
    payload: &Payload,
    work: &Path,
) -> Result<ExampleReport> {
    let dir = work.join("install");
    let (target, file) = match example {
        "single-node" => (
            "single-node-ignition-config",
            "bootstrap-in-place-for-live-iso.ign",
        ),
        "bootstrap-pivot" => ("ignition-configs", "bootstrap-pivot.ign"),
        _ => ("ignition-configs", "bootstrap.ign"),
    };
    let mut create = Command::new(okd_install);
    create
        .args(["create", target, "--from-example", example, "--dir"])
        .arg(&dir)
        .args(["--release-image", &payload.release_image]);
    output_of(&mut create)?;
    let ignition = dir.join(file);
    let host = Host::new(&work.join("host"));
    materialize(&ignition, &host)?;
    let run = run_renders(&host, payload, RENDER_LIMIT)?;
    let mut findings = check_outputs(&host, payload, &run);
    if findings.is_empty() {
        findings.extend(check_nodes(&dir, &host, payload, work));
    }
    Ok(ExampleReport {
        example: example.to_string(),
        ignition,
        host,
        run,
        findings,
    })
}

/// Runs the bootstrap MCS and checks every pointer config of `dir` against it.
fn check_nodes(dir: &Path, host: &Host, payload: &Payload, work: &Path) -> Vec<Finding> {
    let finding = |stage, problem| Finding { stage, problem };
    let mcs = match Mcs::start(host, payload) {
        Ok(mcs) => mcs,
        Err(e) => {
            return vec![finding(
                "mco-bootstrap",
                format!("the bootstrap machine-config server did not start: {e}"),
            )];
        }
    };
    let api_int = api_int_host(dir);
    let mut findings = Vec::new();
    let master = dir.join("master.ign");
    if master.exists() {
        findings.extend(check_master_pointer(
            &master, &api_int, dir, host, payload, work,
        ));
    }
    if dir.join("bootstrap-in-place-for-live-iso.ign").exists() {
        let stage = "bootstrap-in-place";
        match fetch_local_master().map(NodeConfig::served) {
            Ok(Some(node)) => {
                findings.extend(check_served(stage, "master", &node, dir, host, payload))
            }
            Ok(None) => findings.push(finding(
                stage,
                "the served config embeds no MachineConfig".into(),
            )),
            Err(e) => findings.push(finding(stage, e.to_string())),
        }
    }
    drop(mcs);
    let worker = dir.join("worker.ign");
    if worker.exists() {
        findings.extend(check_worker_pointer(
            &worker, &api_int, dir, host, payload, work,
        ));
    }
    findings
}

/// Applies worker.ign with the real Ignition against the real in-cluster server (the
/// bootstrap server refuses every pool but master, by design) and checks what the worker
/// pool gets.
fn check_worker_pointer(
    pointer: &Path,
    api_int: &str,
    dir: &Path,
    host: &Host,
    payload: &Payload,
    work: &Path,
) -> Vec<Finding> {
    let stage = "worker.ign";
    let finding = |problem| Finding { stage, problem };
    let _server = match ClusterMcs::start(host, payload, api_int) {
        Ok(server) => server,
        Err(e) => {
            return vec![finding(format!(
                "the in-cluster machine-config server did not start: {e}"
            ))];
        }
    };
    let applied = match apply_pointer(pointer, api_int, &work.join("node-worker")) {
        Ok(applied) => applied,
        Err(e) => return vec![finding(e.to_string())],
    };
    let mut findings = applied_problems(stage, &applied, "worker");
    match NodeConfig::served(applied.served) {
        Some(node) => findings.extend(check_served(stage, "worker", &node, dir, host, payload)),
        None => findings.push(finding("the served config embeds no MachineConfig".into())),
    }
    findings
}

/// What is wrong with where a pointer config for `pool` fetched from and what Ignition wrote.
fn applied_problems(stage: &'static str, applied: &AppliedPointer, pool: &str) -> Vec<Finding> {
    let finding = |problem| Finding { stage, problem };
    let mut findings = Vec::new();
    if !applied
        .pointer_url
        .ends_with(&format!(":22623/config/{pool}"))
    {
        findings.push(finding(format!("merges {}", applied.pointer_url)));
    }
    if !applied
        .root
        .join("etc/ignition-machine-config-encapsulated.json")
        .is_file()
    {
        findings.push(finding("Ignition wrote no first-boot MachineConfig".into()));
    }
    findings
}

/// Applies master.ign with the real Ignition and checks what the master pool gets.
fn check_master_pointer(
    pointer: &Path,
    api_int: &str,
    dir: &Path,
    host: &Host,
    payload: &Payload,
    work: &Path,
) -> Vec<Finding> {
    let stage = "master.ign";
    let finding = |problem| Finding { stage, problem };
    let applied = match apply_pointer(pointer, api_int, &work.join("node-master")) {
        Ok(applied) => applied,
        Err(e) => return vec![finding(e.to_string())],
    };
    let mut findings = applied_problems(stage, &applied, "master");
    match NodeConfig::served(applied.served) {
        Some(node) => findings.extend(check_served(stage, "master", &node, dir, host, payload)),
        None => findings.push(finding("the served config embeds no MachineConfig".into())),
    }
    findings
}

/// `api-int.<name>.<baseDomain>` of the install-config in `dir`.
fn api_int_host(dir: &Path) -> String {
    let config = crate::check::read_objects(&dir.join("install-config.yaml"))
        .into_iter()
        .next()
        .unwrap_or_default();
    format!(
        "api-int.{}.{}",
        config["metadata"]["name"].as_str().unwrap_or_default(),
        config["baseDomain"]
            .as_str()
            .unwrap_or_default()
            .trim_end_matches('.')
    )
}

/// The names of the examples in `examples/` of the workspace, sorted.
pub fn shipped_examples(workspace_root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(workspace_root.join("examples"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".yaml").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}
