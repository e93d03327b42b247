//! One shipped example from install-config to checked render outputs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ignition::Variant;

use crate::check::read_objects;
use crate::cluster_mcs::ClusterMcs;
use crate::host::output_of;
use crate::mcs::BootstrapPod;
use crate::nodes::{Asked, check_served};
use crate::{
    AppliedPointer, Finding, Host, Mcs, NodeConfig, Payload, RenderRun, Result, apply_pointer,
    check_outputs, fetch_local_master, materialize, run_renders,
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
/// (`ClusterMcs`), checking what each pool gets. The
/// single-node example goes through its bootstrap-in-place config and checks the master
/// config that flow fetches for itself from port 22624.
pub fn render_example(
    okd_install: &Path,
    example: &str,
    payload: &Payload,
    work: &Path,
) -> Result<ExampleReport> {
    let dir = work.join("install");
    let (ignition, _) = create_configs(okd_install, example, payload, &dir)?;
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

/// Creates the configs of `example` in `dir` with `okd_install` and the payload's release
/// image: the bootstrap-in-place config for the single-node example, the ordinary ones
/// otherwise. Returns the bootstrap config and whether it is the single-node one.
pub(crate) fn create_configs(
    okd_install: &Path,
    example: &str,
    payload: &Payload,
    dir: &Path,
) -> Result<(PathBuf, bool)> {
    let (target, variant) = match example {
        "single-node" => ("single-node-ignition-config", Variant::SingleNode),
        "bootstrap-pivot" => ("ignition-configs", Variant::Pivot),
        _ => ("ignition-configs", Variant::Bootstrap),
    };
    let mut create = Command::new(okd_install);
    create
        .args(["create", target, "--from-example", example, "--dir"])
        .arg(dir)
        .args(["--release-image", &payload.release_image]);
    output_of(&mut create)?;
    Ok((
        dir.join(variant.file_name()),
        variant == Variant::SingleNode,
    ))
}

/// The install directory and scratch host one example's node checks work on.
struct Nodes<'a> {
    dir: &'a Path,
    payload: &'a Payload,
    work: &'a Path,
    api_int: String,
    /// The install-config's SSH keys and the host's MachineConfigs, read once for every pool.
    asked: Asked,
}

/// Runs the bootstrap MCS and checks master.ign (and the single-node flow's own fetch)
/// against it, then worker.ign against the in-cluster server.
fn check_nodes(dir: &Path, host: &Host, payload: &Payload, work: &Path) -> Vec<Finding> {
    let install_config = read_objects(&dir.join("install-config.yaml"))
        .into_iter()
        .next()
        .unwrap_or_default();
    let nodes = Nodes {
        dir,
        payload,
        work,
        api_int: cluster_names(&install_config).api_int,
        asked: Asked::read(&install_config, host),
    };
    // One read of the bootstrap pod serves both servers.
    let started = BootstrapPod::read(host).and_then(|pod| Ok((Mcs::run(&pod, payload)?, pod)));
    let (mcs, pod) = match started {
        Ok(started) => started,
        Err(e) => {
            return vec![Finding {
                stage: "mco-bootstrap",
                problem: format!("the bootstrap machine-config server did not start: {e}"),
            }];
        }
    };
    let mut findings = nodes.pointer("master.ign", "master");
    if dir.join(Variant::SingleNode.file_name()).exists() {
        let stage = "bootstrap-in-place";
        findings.extend(match fetch_local_master() {
            Ok(served) => nodes.served(stage, "master", served),
            Err(e) => vec![Finding {
                stage,
                problem: e.to_string(),
            }],
        });
    }
    drop(mcs);
    // The bootstrap server refuses every pool but master, by design: workers boot from the
    // in-cluster server, so that is where worker.ign is applied.
    if dir.join("worker.ign").exists() {
        match ClusterMcs::start(host, &pod, payload, &nodes.api_int) {
            Ok(_server) => findings.extend(nodes.pointer("worker.ign", "worker")),
            Err(e) => findings.push(Finding {
                stage: "worker.ign",
                problem: format!("the in-cluster machine-config server did not start: {e}"),
            }),
        }
    }
    findings
}

impl Nodes<'_> {
    /// Applies the pointer config `file` (when the example has it) with the real Ignition
    /// against the server on :22623 and checks what `pool` gets.
    fn pointer(&self, file: &'static str, pool: &str) -> Vec<Finding> {
        let pointer = self.dir.join(file);
        if !pointer.exists() {
            return Vec::new();
        }
        let work = self.work.join(format!("node-{pool}"));
        match apply_pointer(&pointer, &self.api_int, &work) {
            Ok(applied) => {
                let mut findings = applied_problems(file, &applied, pool);
                findings.extend(self.served(file, pool, applied.served));
                findings
            }
            Err(e) => vec![Finding {
                stage: file,
                problem: e.to_string(),
            }],
        }
    }

    /// Checks the config the server gave `pool`.
    fn served(&self, stage: &'static str, pool: &str, served: serde_json::Value) -> Vec<Finding> {
        match NodeConfig::served(served) {
            Some(node) => {
                check_served(stage, pool, &node, &self.asked.for_pool(pool, self.payload))
            }
            None => vec![Finding {
                stage,
                problem: "the served config embeds no MachineConfig".into(),
            }],
        }
    }
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

/// The cluster's DNS names from the install-config `config` (`metadata.name` and
/// `baseDomain`): made once per run, by both flows, and passed on.
pub(crate) fn cluster_names(config: &serde_json::Value) -> contract::ClusterNames {
    contract::ClusterNames::new(
        config["metadata"]["name"].as_str().unwrap_or_default(),
        config["baseDomain"].as_str().unwrap_or_default(),
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
