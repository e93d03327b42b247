//! The bootstrap run to its end on the payload's real control plane: for the examples CI
//! covers, the generated bootkube.sh runs in a sandbox (private mount and network
//! namespaces) with real etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
//! cluster-bootstrap, the CVO and the machine-config server, the harness's kubelet stand-in
//! running the static pods, and stand-ins for the control-plane hosts
//! (`render_harness::STAND_INS`). Then every check of `render_harness::bootstrap_example`
//! must pass: etcd healthy, `/readyz`, every manifest in the API, the payload's namespaces
//! and CRDs created by the real CVO, `.bootkube.done`, `kube-system/bootstrap` complete and
//! `okd-install wait-for bootstrap-complete` exiting 0; for single node, the master.ign
//! that `cluster-bootstrap bootstrap-in-place` packed, applied with the real Ignition.
//!
//! Needs root and a payload named by `$OKD_PAYLOAD_DIR`, like the render tests (same lock,
//! same skip rule).

use render_harness::{BootstrapOptions, BootstrapReport, bootstrap_example};

use crate::real_render::{listed, payload};
use crate::support::bin_path;

/// The examples this test bootstraps to the end; the rest run with `cargo xtask
/// real-render EXAMPLE`: ha-workers differs from
/// compact-3-node only in what the worker machines fetch, never on the bootstrap host, and
/// image-mode's pools are checked on the real machine-config server by
/// `real_render::image_mode_pools_boot_their_pre_built_images`.
const CI_EXAMPLES: &[&str] = &["single-node"];

/// Stages every bootstrap must have finished, besides the renders.
const AFTER_RENDERS: &[&str] = &["wait-for-etcd", "cb-bootstrap"];
/// Stages of a bootstrap that hands over to control-plane hosts.
const HANDOVER: &[&str] = &["restore-cvo-overrides", "wait-for-ceo"];
/// Stages of a single node packing its own master config.
const IN_PLACE: &[&str] = &["stop-etcd", "master-ignition"];

#[test]
fn the_bootstrap_runs_to_its_end_on_the_real_control_plane() {
    let Some((payload, _one_at_a_time)) = payload() else {
        return;
    };
    let failures: Vec<String> = CI_EXAMPLES
        .iter()
        .filter_map(|example| bootstrap(&payload, example))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One example's bootstrap on `payload`: `None` when every check passed, else what failed.
fn bootstrap(payload: &render_harness::Payload, example: &str) -> Option<String> {
    let release = payload.release.version;
    let work = tempfile::tempdir().unwrap();
    // Kept up for the check below, which needs its sandbox.
    let keep = example == "single-node";
    let options = BootstrapOptions {
        keep,
        ..Default::default()
    };
    let report = bootstrap_example(&bin_path(), example, payload, work.path(), &options)
        .unwrap_or_else(|e| panic!("{release} {example}: {e}"));
    let failure = if report.findings.is_empty() {
        assert_stages(&report);
        eprintln!("{release} {example}: the bootstrap ran to its end");
        if example == "single-node" {
            a_wrong_bootstrap_in_place_source_fails_the_pack(&report, payload);
        }
        None
    } else {
        let _ = work.keep();
        Some(format!(
            "{release} {example} (logs in {}):\n  {}",
            report.logs.display(),
            listed(&report.findings)
        ))
    };
    if keep {
        report.sandbox.remove_run(payload);
    }
    failure
}

fn assert_stages(report: &BootstrapReport) {
    let single_node = report.master_ign.is_some();
    let mut expected: Vec<&str> = render_harness::render_stages().to_vec();
    expected.extend(AFTER_RENDERS);
    expected.extend(if single_node { IN_PLACE } else { HANDOVER });
    for stage in expected {
        assert!(
            report.stages_done.iter().any(|s| s == stage),
            "{}: stage {stage} did not finish: {:?}",
            report.example,
            report.stages_done
        );
    }
    // bootkube.sh's order: every render before etcd is waited for, cluster-bootstrap after.
    let at = |stage: &str| report.stages_done.iter().position(|s| s == stage).unwrap();
    assert!(at("cco-bootstrap") < at("wait-for-etcd"));
    assert!(at("wait-for-etcd") < at("cb-bootstrap"));
}

/// A bootstrap-in-place source that does not exist on the bootstrap host fails
/// cluster-bootstrap's pack, naming the path.
fn a_wrong_bootstrap_in_place_source_fails_the_pack(
    report: &BootstrapReport,
    payload: &render_harness::Payload,
) {
    let fcc = report
        .host
        .path("/opt/openshift/bootstrap-in-place/master-update.fcc");
    let original = std::fs::read_to_string(&fcc).unwrap();
    report
        .repack_master_config(payload)
        .expect("the shipped master-update.fcc packs again");
    let broken = original.replace("local: tls\n", "local: etc/kubernetes/bootstrap-secrets\n");
    assert_ne!(broken, original);
    std::fs::write(&fcc, broken).unwrap();
    let err = report
        .repack_master_config(payload)
        .unwrap_err()
        .to_string();
    std::fs::write(&fcc, original).unwrap();
    assert!(
        err.contains("etc/kubernetes/bootstrap-secrets"),
        "cluster-bootstrap names the missing source: {err}"
    );
}
