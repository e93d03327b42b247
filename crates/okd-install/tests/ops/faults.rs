//! Real failures of the real control plane, diagnosed and recovered from: two faults of
//! `render_harness::FAULTS` (`cargo xtask faults` runs every fault) are injected at their real
//! cause into a bootstrap in a sandbox. Each must show the host's own error line, be named
//! with its `contract::Cause` by `okd-install wait-for bootstrap-complete` and by `gather
//! bootstrap`'s analysis of the bundle collected over ssh from the sandbox, and, once removed,
//! the same bootstrap must run to its end, every check of `render_harness::bootstrap_example`
//! passing, with the user's install-config and manifests still in place.
//!
//! The recoveries are also CI's full bootstraps of their examples (compact-3-node and
//! dual-stack): `real_bootstrap.rs` runs the others, so that each example CI covers is
//! bootstrapped once.
//!
//! Needs root and the payload, like the render tests (same lock, same skip rule).

use render_harness::{BootstrapOptions, BootstrapReport, bootstrap_example};

use crate::real_bootstrap::a_manifest_the_api_server_rejects_is_named_with_its_reason;
use crate::real_render::{listed, payload};
use crate::support::bin_path;

#[test]
fn etcd_that_cannot_start_is_diagnosed_and_the_bootstrap_recovers() {
    fault_is_diagnosed_and_recovered(
        "etcd-start",
        "compact-3-node",
        a_manifest_the_api_server_rejects_is_named_with_its_reason,
    );
}

/// After the bad manifests are taken out, the restarted bootkube.service must get past
/// cluster-bootstrap, whose first run left its static pods behind.
#[test]
fn a_bad_user_manifest_is_diagnosed_and_the_bootstrap_recovers() {
    fault_is_diagnosed_and_recovered("bad-user-manifest", "dual-stack", |_, _| {});
}

/// Injects fault `name` into `example`'s bootstrap, checks its diagnosis and recovery, then
/// runs `after` on the recovered run while its sandbox is still up.
fn fault_is_diagnosed_and_recovered(
    name: &str,
    example: &str,
    after: impl FnOnce(&BootstrapReport, &render_harness::Payload),
) {
    let Some((payload, _one_at_a_time)) = payload() else {
        return;
    };
    let fault = render_harness::faults::fault(name).expect("a fault of the table");
    let work = tempfile::tempdir().unwrap();
    let options = BootstrapOptions {
        fault: Some(fault),
        recover: true,
        keep: true,
        evidence: Some(work.path().join("evidence")),
        ..Default::default()
    };
    let report = bootstrap_example(&bin_path(), example, &payload, work.path(), &options)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        check(fault, &report);
        after(&report, &payload);
    }));
    report.sandbox.remove_run(&payload);
    if let Err(panic) = outcome {
        eprintln!("{name}: evidence kept in {}", work.keep().display());
        std::panic::resume_unwind(panic);
    }
}

fn check(fault: &render_harness::Fault, report: &BootstrapReport) {
    let name = fault.name;
    let id = fault.expected.id();
    let shown = report.fault.clone().expect("a fault report");
    // This side: the fault shows on the host with its own error line.
    let (file, line) = shown
        .host_error_line
        .clone()
        .unwrap_or_else(|| panic!("{name}: the fault did not show on the host"));
    eprintln!("{name}: the host says ({file}): {line}");
    let symptom = fault
        .symptoms
        .iter()
        .find(|s| line.to_lowercase().contains(&s.to_lowercase()))
        .expect("the line holds a symptom")
        .to_lowercase();
    // This side: the bundle came back over ssh from the sandbox.
    let gathered = shown
        .gather
        .clone()
        .expect("gather ran (sshd in the sandbox)");
    assert!(
        shown.bundle.is_some(),
        "{name}: gather brought back no bundle:\n{}\n{}",
        gathered[0].1,
        gathered[0].2
    );
    // This side: once removed, the same bootstrap ran to its end, inputs kept.
    assert!(
        report.findings.is_empty(),
        "{name}: no recovery (logs in {}):\n  {}",
        report.logs.display(),
        listed(&report.findings)
    );
    assert!(
        report.dir.join("install-config.yaml").is_file()
            || report.dir.join(".okd-install.state.json").is_file()
    );
    for (manifest, _) in fault.user_manifests() {
        assert!(
            report.dir.join("manifests").join(manifest).is_file(),
            "{name}: the user's manifest {manifest} is gone from the install directory"
        );
    }
    // Needs the diag branch: wait-for names the cause.
    let (code, out, err) = shown.wait_for_json.clone().expect("wait-for ran");
    assert_ne!(
        code, 0,
        "{name}: wait-for succeeded with the fault in place"
    );
    assert!(
        names_cause(&out, id),
        "{name}: wait-for --output json names no cause {id}:\n{out}\n{err}"
    );
    // Needs the diag branch: gather's analysis names the cause and quotes the host's line.
    let (_, analysis, analysis_err) = shown.analyze_json.clone().expect("analyze ran");
    assert!(
        names_cause(&analysis, id),
        "{name}: analyze --output json names no cause {id}:\n{analysis}\n{analysis_err}"
    );
    assert!(
        analysis.to_lowercase().contains(&symptom),
        "{name}: the analysis does not quote the host's error line ({line}):\n{analysis}"
    );
}

/// Whether the JSON output (one document, or one event a line) carries `"cause": "<id>"`.
fn names_cause(json_lines: &str, id: &str) -> bool {
    if serde_json::from_str::<serde_json::Value>(json_lines).is_ok_and(|v| find_cause(&v, id)) {
        return true;
    }
    json_lines
        .lines()
        .any(|l| serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| find_cause(&v, id)))
}

fn find_cause(v: &serde_json::Value, id: &str) -> bool {
    match v {
        serde_json::Value::Object(map) => map
            .iter()
            .any(|(k, v)| (k == "cause" && v == id) || find_cause(v, id)),
        serde_json::Value::Array(items) => items.iter().any(|v| find_cause(v, id)),
        _ => false,
    }
}
