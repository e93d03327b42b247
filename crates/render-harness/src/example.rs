//! One shipped example from install-config to checked render outputs.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::host::output_of;
use crate::{Finding, Host, Payload, RenderRun, Result, check_outputs, materialize, run_renders};

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
/// bootkube.sh until the renders are done and checks their outputs. The single-node example
/// goes through its bootstrap-in-place config.
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
    let findings = check_outputs(&host, payload, &run);
    Ok(ExampleReport {
        example: example.to_string(),
        ignition,
        host,
        run,
        findings,
    })
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
