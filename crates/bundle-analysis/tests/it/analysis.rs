//! Analysis of bundles built by the tests.

use bundle_analysis::{ServiceStatus, Verdict, analyze_bundle};

use crate::bundle::{Bundle, failed_in, record, succeeded};

fn failing_bootkube(stage: &str, message: &str) -> Vec<serde_json::Value> {
    vec![
        record("service start", "", "", ""),
        record("stage start", "openshift-manifests", "", ""),
        record("stage end", "openshift-manifests", "success", ""),
        record("stage start", stage, "", ""),
        record("stage end", stage, "failure", message),
        record("service end", "", "failure", ""),
    ]
}

fn problem(verdict: &Verdict) -> &bundle_analysis::Problem {
    match verdict {
        Verdict::Problem(p) => p,
        other => panic!("expected a problem, got {other:?}"),
    }
}

#[test]
fn release_image_failure_is_the_first_problem() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("1")
        .service(
            "release-image",
            vec![
                record("service start", "", "", ""),
                record(
                    "service end",
                    "",
                    "failure",
                    "Error: initializing source quay.io/okd/release: unauthorized\nPull failed, retrying",
                ),
            ],
        )
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    let p = problem(&analysis.verdict);
    assert_eq!(p.service, "release-image");
    assert_eq!(p.status, ServiceStatus::Failed);
    assert_eq!(p.error_lines.len(), 2);
    assert!(p.error_lines[0].contains("unauthorized"));
    let text = analysis.render();
    assert!(text.contains("release-image.service failed and could not pull the release image"));
    assert!(text.contains("| Error: initializing source"), "{text}");
    assert!(text.contains("pull secret"), "{text}");
}

#[test]
fn bootkube_that_never_started_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("2")
        .service("release-image", succeeded())
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    let p = problem(&analysis.verdict);
    assert_eq!(p.service, "bootkube");
    assert_eq!(p.status, ServiceStatus::NotStarted);
    assert!(analysis.render().contains("bootkube.service never ran"));
}

#[test]
fn bootkube_failure_names_stage_message_and_journal_tail() {
    let dir = tempfile::tempdir().unwrap();
    let journal: String = (1..=30).map(|i| format!("journal line {i}\n")).collect();
    let path = Bundle::new("3")
        .service("release-image", succeeded())
        .service(
            "bootkube",
            failing_bootkube("cb-bootstrap", "error: timed out waiting for pods"),
        )
        .file("bootstrap/journals/bootkube.log", journal)
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    let p = problem(&analysis.verdict);
    assert_eq!(p.service, "bootkube");
    assert_eq!(p.stage.as_deref(), Some("cb-bootstrap"));
    assert_eq!(p.error_lines, vec!["error: timed out waiting for pods"]);
    assert_eq!(analysis.bootkube_journal_tail.len(), 20);
    assert_eq!(analysis.bootkube_journal_tail[0], "journal line 11");
    assert_eq!(analysis.bootkube_journal_tail[19], "journal line 30");
    let text = analysis.render();
    assert!(
        text.contains("bootkube.service failed at stage cb-bootstrap"),
        "{text}"
    );
    assert!(text.contains("| journal line 30"), "{text}");
    assert!(text.contains("cluster-bootstrap could not start"), "{text}");
}

#[test]
fn a_healthy_bundle_has_no_problem_and_no_journal_tail() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("4")
        .service("node-image-pull", succeeded())
        .service("release-image", succeeded())
        .service("bootkube", succeeded())
        .file("bootstrap/journals/bootkube.log", "all good\n")
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    assert_eq!(analysis.verdict, Verdict::Healthy);
    assert!(analysis.bootkube_journal_tail.is_empty());
    assert!(analysis.other_failures.is_empty());
    assert_eq!(analysis.services.len(), 3);
    assert!(analysis.render().starts_with("No problem found"));
}

#[test]
fn a_bundle_without_records_says_so_without_a_diagnosis() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("5")
        .file("gather.log", "gathering\n")
        .file("bootstrap/journals/bootkube.log", "something\n")
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    assert_eq!(analysis.verdict, Verdict::NoServiceRecords);
    assert!(analysis.bootkube_journal_tail.is_empty());
    let text = analysis.render();
    assert!(text.starts_with("No service records in"), "{text}");
    assert!(!text.contains("Problem"), "{text}");
}

#[test]
fn the_nested_single_node_layout_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("6")
        .file("gather.log", "x\n")
        .service("kubelet", succeeded())
        .file(
            "log-bundle-bootstrap/bootstrap/services/release-image.json",
            serde_json::to_string(&succeeded()).unwrap(),
        )
        .file(
            "log-bundle-bootstrap/bootstrap/services/bootkube.json",
            serde_json::to_string(&failing_bootkube("wait-for-etcd", "etcd unhealthy")).unwrap(),
        )
        .file(
            "log-bundle-bootstrap/bootstrap/journals/bootkube.log",
            "pre-reboot bootkube\n",
        )
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    let p = problem(&analysis.verdict);
    assert_eq!(p.stage.as_deref(), Some("wait-for-etcd"));
    assert_eq!(analysis.services.len(), 3);
    assert_eq!(analysis.bootkube_journal_tail, vec!["pre-reboot bootkube"]);
}

#[test]
fn a_corrupt_record_is_named_and_the_others_still_analysed() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("7")
        .service("release-image", succeeded())
        .file("bootstrap/services/approve-csr.json", "[{\"phase\": ")
        .service(
            "bootkube",
            failing_bootkube("mco-bootstrap", "render failed"),
        )
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    assert_eq!(analysis.unreadable_records.len(), 1);
    assert!(
        analysis.unreadable_records[0]
            .file
            .ends_with("approve-csr.json")
    );
    assert_eq!(
        problem(&analysis.verdict).stage.as_deref(),
        Some("mco-bootstrap")
    );
    let text = analysis.render();
    assert!(
        text.contains(
            "Could not read service record log-bundle-7/bootstrap/services/approve-csr.json"
        ),
        "{text}"
    );
}

#[test]
fn failed_units_and_other_failed_services_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let failed = "  UNIT LOAD ACTIVE SUB DESCRIPTION\n\
● bootkube.service loaded failed failed Bootstrap a Kubernetes cluster\n\
● bootstrap-pivot.service loaded failed failed Pivot the bootstrap host\n\n2 loaded units listed.\n";
    let path = Bundle::new("8")
        .service("release-image", succeeded())
        .service("bootkube", failing_bootkube("cb-bootstrap", "boom"))
        .service(
            "bootstrap-pivot",
            failed_in("bootstrap-pivot", "rpm-ostree rebase failed"),
        )
        .file("failed-units.txt", failed)
        .file(
            "control-plane/10.0.0.5/failed-units.txt",
            "● kubelet.service loaded failed failed Kubernetes Kubelet\n",
        )
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    assert_eq!(analysis.other_failures, vec!["bootstrap-pivot"]);
    let units: Vec<(&str, &str)> = analysis
        .failed_units
        .iter()
        .map(|u| (u.host.as_str(), u.unit.as_str()))
        .collect();
    assert_eq!(
        units,
        vec![
            ("bootstrap", "bootkube.service"),
            ("bootstrap", "bootstrap-pivot.service"),
            ("10.0.0.5", "kubelet.service")
        ]
    );
    let text = analysis.render();
    assert!(text.contains("bootstrap-pivot: failed, started 1 time(s); last failure at bootstrap-pivot: rpm-ostree rebase failed"), "{text}");
    assert!(
        text.contains("- 10.0.0.5: kubelet.service (Kubernetes Kubelet)"),
        "{text}"
    );
}

#[test]
fn machine_os_configs_and_unfinished_builds_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let configs = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        {"metadata": {"name": "master", "annotations": {
            "machineconfiguration.openshift.io/pre-built-image": "quay.io/me/os:latest"}},
         "spec": {"machineConfigPool": {"name": "master"}}},
        {"metadata": {"name": "worker"}, "spec": {"machineConfigPool": {"name": "worker"}},
         "status": {"currentImagePullSpec": "quay.io/me/os@sha256:abc"}}
    ]});
    let builds = serde_json::json!({"items": [
        {"metadata": {"name": "worker-build-1"}, "spec": {"machineOSConfig": {"name": "worker"}},
         "status": {"conditions": [
            {"type": "Building", "status": "False"},
            {"type": "Failed", "status": "True", "reason": "BuildFailed", "message": "push denied"}]}},
        {"metadata": {"name": "worker-build-0"}, "status": {"conditions": [
            {"type": "Succeeded", "status": "True", "reason": "PreBuiltImageSeeded"}]}}
    ]});
    let path = Bundle::new("9")
        .service("release-image", succeeded())
        .service("bootkube", succeeded())
        .file("resources/machineosconfigs.json", configs.to_string())
        .file("resources/machineosbuilds.json", builds.to_string())
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    let mos = analysis.machine_os.as_ref().unwrap();
    assert_eq!(mos.configs.len(), 2);
    assert!(
        mos.configs[0]
            .warning
            .as_ref()
            .unwrap()
            .contains("not pinned by digest")
    );
    assert_eq!(mos.builds[0].state, "Failed");
    assert!(mos.builds[1].succeeded());
    let text = analysis.render();
    assert!(
        text.contains("MachineOSBuild worker-build-1 is Failed (BuildFailed): push denied"),
        "{text}"
    );
    assert!(!text.contains("worker-build-0"), "{text}");
    assert!(
        text.contains("MachineOSConfig worker (pool worker): quay.io/me/os@sha256:abc"),
        "{text}"
    );
}

#[test]
fn analysis_serializes_to_json_with_a_tagged_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("10")
        .service("release-image", succeeded())
        .service(
            "bootkube",
            failing_bootkube("cvo-bootstrap", "bad manifest"),
        )
        .write(dir.path(), "b.tar.gz");
    let value = serde_json::to_value(analyze_bundle(&path).unwrap()).unwrap();
    assert_eq!(value["verdict"]["kind"], "problem");
    assert_eq!(value["verdict"]["stage"], "cvo-bootstrap");
    assert_eq!(value["services"][0]["status"], "failed");
}

#[test]
fn a_file_that_is_not_a_bundle_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log-bundle-x.tar.gz");
    std::fs::write(&path, "not gzip").unwrap();
    let err = analyze_bundle(&path).unwrap_err().to_string();
    assert!(err.contains("log-bundle-x.tar.gz"), "{err}");
    assert!(err.contains("tar.gz"), "{err}");
}

#[test]
fn a_bootkube_gathered_mid_retry_reports_the_earlier_failure() {
    let dir = tempfile::tempdir().unwrap();
    let mut entries = failing_bootkube("wait-for-etcd", "etcdserver: request timed out");
    entries.push(record("service start", "", "", ""));
    entries.push(record("stage start", "wait-for-etcd", "", ""));
    let path = Bundle::new("11")
        .service("release-image", succeeded())
        .service("bootkube", entries)
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    let p = problem(&analysis.verdict);
    assert_eq!(p.status, ServiceStatus::Running);
    assert_eq!(p.starts, 2);
    assert_eq!(p.stage.as_deref(), Some("wait-for-etcd"));
    assert_eq!(p.error_lines, vec!["etcdserver: request timed out"]);
    let text = analysis.render();
    assert!(
        text.contains("bootkube.service had not finished (in stage wait-for-etcd) when the logs were gathered; it did not yet bring up the bootstrap control plane; 1 earlier run(s) failed, last at stage wait-for-etcd"),
        "{text}"
    );
    assert!(
        text.contains("bootstrap etcd did not become healthy"),
        "{text}"
    );
}

#[test]
fn a_release_image_still_pulling_is_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("12")
        .service("release-image", vec![record("service start", "", "", "")])
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    let p = problem(&analysis.verdict);
    assert_eq!(p.service, "release-image");
    assert_eq!(p.status, ServiceStatus::Running);
    assert!(p.error_lines.is_empty());
    assert!(
        analysis
            .render()
            .contains("it did not yet pull the release image")
    );
}

/// Record entries as bootstrap-pivot.sh writes them for a run that fails at `failed`.
fn pivot_run_failing_at(failed: &str, message: &str) -> Vec<serde_json::Value> {
    let mut entries = vec![record("service start", "", "", "")];
    for step in ["pivot-allow-reduced-etcd", "pivot-wait-for-masters"] {
        if step == failed {
            break;
        }
        entries.push(record("stage start", step, "", ""));
        entries.push(record("stage end", step, "success", ""));
    }
    entries.push(record("stage start", failed, "", ""));
    entries.push(record("stage end", failed, "failure", message));
    entries.push(record("service end", "", "failure", message));
    entries
}

const INSTALLER_ERROR: &str = "step pivot-coreos-installer failed with exit status 1\n\
Error: install failed: couldn't open /dev/vdz: No such file or directory\n\
Resetting partition table";

#[test]
fn a_failed_pivot_names_its_stage_and_error_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("pivot1")
        .service("release-image", succeeded())
        .service("bootkube", succeeded())
        .service("approve-csr", succeeded())
        .service(
            "bootstrap-pivot",
            pivot_run_failing_at("pivot-coreos-installer", INSTALLER_ERROR),
        )
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    let p = problem(&analysis.verdict);
    assert_eq!(p.service, "bootstrap-pivot");
    assert_eq!(p.status, ServiceStatus::Failed);
    assert_eq!(p.stage.as_deref(), Some("pivot-coreos-installer"));
    assert_eq!(
        p.error_lines,
        INSTALLER_ERROR
            .lines()
            .map(str::to_string)
            .collect::<Vec<_>>()
    );
    assert!(analysis.other_failures.is_empty());
    // bootkube succeeded: its journal is not the story here.
    assert!(analysis.bootkube_journal_tail.is_empty());
    let text = analysis.render();
    assert!(
        text.starts_with(
            "Problem: bootstrap-pivot.service failed at pivot stage pivot-coreos-installer, so \
             the bootstrap host did not install itself as the last control-plane node"
        ),
        "{text}"
    );
    assert!(
        text.contains("| Error: install failed: couldn't open /dev/vdz"),
        "{text}"
    );
    assert!(text.contains("bootstrapPivot.installationDisk"), "{text}");
}

#[test]
fn a_pivot_restarted_after_a_failure_still_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut entries = pivot_run_failing_at(
        "pivot-wait-for-masters",
        "step pivot-wait-for-masters failed with exit status 1\nOnly 1 of 2 other control-plane nodes became Ready",
    );
    // systemd restarted the unit; it resumes at the failed step and was waiting again.
    entries.push(record("service start", "", "", ""));
    entries.push(record("stage start", "pivot-wait-for-masters", "", ""));
    let path = Bundle::new("pivot2")
        .service("release-image", succeeded())
        .service("bootkube", succeeded())
        .service("bootstrap-pivot", entries)
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    let p = problem(&analysis.verdict);
    assert_eq!(p.service, "bootstrap-pivot");
    assert_eq!(p.status, ServiceStatus::Running);
    assert_eq!(p.stage.as_deref(), Some("pivot-wait-for-masters"));
    assert_eq!(
        p.error_lines.last().map(String::as_str),
        Some("Only 1 of 2 other control-plane nodes became Ready")
    );
    let text = analysis.render();
    assert!(
        text.contains("started 2 time(s), 1 failed run(s)); it was running again, in stage pivot-wait-for-masters"),
        "{text}"
    );
    assert!(text.contains("did not become Ready"), "{text}");
}

#[test]
fn a_pivot_still_waiting_without_failures_is_not_a_problem() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("pivot3")
        .service("release-image", succeeded())
        .service("bootkube", succeeded())
        .service(
            "bootstrap-pivot",
            vec![
                record("service start", "", "", ""),
                record("stage start", "pivot-allow-reduced-etcd", "", ""),
                record("stage end", "pivot-allow-reduced-etcd", "success", ""),
                record("stage start", "pivot-wait-for-masters", "", ""),
            ],
        )
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    assert_eq!(analysis.verdict, Verdict::Healthy);
    assert!(
        analysis
            .render()
            .contains("bootstrap-pivot: still running (stage pivot-wait-for-masters)")
    );
}

#[test]
fn a_bootkube_failure_comes_before_a_pivot_failure() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("pivot4")
        .service("release-image", succeeded())
        .service(
            "bootkube",
            failing_bootkube("wait-for-ceo", "etcd did not move"),
        )
        .service(
            "bootstrap-pivot",
            pivot_run_failing_at(
                "pivot-allow-reduced-etcd",
                "step pivot-allow-reduced-etcd failed with exit status 1",
            ),
        )
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    assert_eq!(problem(&analysis.verdict).service, "bootkube");
    assert_eq!(analysis.other_failures, vec!["bootstrap-pivot"]);
}

/// The stages of release-image-pivot.sh, in the order a run that rebases passes them.
const OS_PIVOT_STAGES: [&str; 4] = [
    "resolve-machine-os-image",
    "inspect-deployments",
    "rebase-host-os",
    "reboot",
];

/// One run of release-image-pivot.sh that passes the stages before `last`, then starts
/// `last` and, unless `result` is empty, ends it with `result` and `message`.
fn os_pivot_run(last: &str, result: &str, message: &str) -> Vec<serde_json::Value> {
    let mut entries = vec![record("service start", "", "", "")];
    for stage in OS_PIVOT_STAGES {
        entries.push(record("stage start", stage, "", ""));
        if stage == last {
            if !result.is_empty() {
                entries.push(record("stage end", stage, result, message));
            }
            return entries;
        }
        entries.push(record("stage end", stage, "success", ""));
    }
    panic!("{last} is not a stage of release-image-pivot.sh");
}

/// The journal's last lines when rpm-ostree could not pull the OS image.
const REBASE_JOURNAL: &str = "Rebase attempt 9 of 10 failed; trying again in 60s\n\
error: Creating importer: failed to invoke method OpenImage: reading manifest sha256:5e1f in \
quay.io/okd/scos-content: unauthorized: access to the requested resource is not authorized\n\
release-image-pivot.service: Main process exited, code=exited, status=1/FAILURE";

/// The pivot's journal of every boot, longer than the shown tail.
const PIVOT_JOURNAL: &str = "-- Boot 1f2e --\n\
The release's OS image is stream-coreos: quay.io/okd/scos-content@sha256:5e1f\n\
Booted deployment 9a7c: container image -, manifest digest -\n\
Rebasing the host onto quay.io/okd/scos-content@sha256:5e1f\n\
error: Creating importer: unauthorized\n\
Rebase attempt 1 of 10 failed; trying again in 5s\n\
error: Creating importer: unauthorized\n\
Rebase attempt 2 of 10 failed; trying again in 10s\n\
error: Creating importer: unauthorized\n\
Rebase attempt 3 of 10 failed; trying again in 20s\n\
error: Creating importer: unauthorized\n\
Rebase attempt 4 of 10 failed; trying again in 40s\n\
error: Creating importer: unauthorized\n\
Rebase attempt 5 of 10 failed; trying again in 60s\n\
error: Creating importer: unauthorized\n\
Rebase attempt 6 of 10 failed; trying again in 60s\n\
error: Creating importer: unauthorized\n\
Rebase attempt 7 of 10 failed; trying again in 60s\n\
error: Creating importer: unauthorized\n\
Rebase attempt 8 of 10 failed; trying again in 60s\n\
error: Creating importer: unauthorized\n\
Rebase attempt 9 of 10 failed; trying again in 60s\n\
error: Creating importer: unauthorized\n";

#[test]
fn a_failed_os_pivot_rebase_names_stage_error_lines_and_where_to_look() {
    let dir = tempfile::tempdir().unwrap();
    let mut pivot = os_pivot_run(
        "rebase-host-os",
        "failure",
        "rpm-ostree rebase to quay.io/okd/scos-content@sha256:5e1f failed 10 times",
    );
    pivot.push(record("service end", "", "failure", REBASE_JOURNAL));
    let path = Bundle::new("ospivot1")
        .service("release-image", succeeded())
        .service("release-image-pivot", pivot)
        // kubelet and bootkube only want the pivot: they ran anyway, on the wrong OS.
        .service(
            "bootkube",
            failing_bootkube("wait-for-etcd", "etcd never became healthy"),
        )
        .file("bootstrap/journals/release-image-pivot.log", PIVOT_JOURNAL)
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    let p = problem(&analysis.verdict);
    assert_eq!(p.service, "release-image-pivot");
    assert_eq!(p.status, ServiceStatus::Failed);
    assert_eq!(p.stage.as_deref(), Some("rebase-host-os"));
    // The script's own message first, then the journal's last lines.
    assert_eq!(p.error_lines.len(), 4, "{:?}", p.error_lines);
    assert!(p.error_lines[0].contains("failed 10 times"));
    assert!(p.error_lines[2].contains("unauthorized"));
    assert_eq!(analysis.other_failures, vec!["bootkube"]);
    let text = analysis.render();
    // The cause first: the rebase could not pull the machine-OS (node) image.
    assert!(text.starts_with("cause (node-image-pull): "), "{text}");
    // The problem says the same as the cause: which pull, from which registry, why.
    assert!(
        text.contains(
            "\nProblem: release-image-pivot.service failed at stage rebase-host-os (started 1 \
             time(s)): the bootstrap host could not pull the node (OS) image \
             `quay.io/okd/scos-content@sha256:5e1f` because `quay.io` wants credentials"
        ),
        "{text}"
    );
    assert!(text.contains("\n  Last error lines:\n"), "{text}");
    assert!(text.contains("| error: Creating importer"), "{text}");
    let next = text
        .lines()
        .find(|l| l.starts_with("  Next: "))
        .unwrap_or_else(|| panic!("no hint in {text}"));
    for needle in [
        "add credentials for `quay.io`",
        "pull secret",
        "imageDigestSources",
    ] {
        assert!(next.contains(needle), "{needle} in {next}");
    }
    let journal: Vec<&str> = PIVOT_JOURNAL.lines().collect();
    assert_eq!(journal.len(), 23);
    assert_eq!(analysis.os_pivot_journal_tail, journal[3..]);
    assert!(
        text.contains(
            "End of the release-image-pivot journal (bootstrap/journals/release-image-pivot.log, \
             all boots):\n    | Rebasing the host onto"
        ),
        "{text}"
    );
}

#[test]
fn an_os_pivot_that_rebooted_into_the_image_is_healthy() {
    let dir = tempfile::tempdir().unwrap();
    // First boot: rebased, then the reboot ended the run before its service end entry.
    let mut pivot = os_pivot_run("reboot", "success", "");
    // Second boot: the booted deployment is the release's OS image.
    pivot.extend(os_pivot_run("inspect-deployments", "success", ""));
    pivot.push(record("service end", "", "success", ""));
    let path = Bundle::new("ospivot2")
        .service("release-image", succeeded())
        .service("release-image-pivot", pivot)
        .service("bootkube", succeeded())
        .file("bootstrap/journals/release-image-pivot.log", PIVOT_JOURNAL)
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    assert_eq!(analysis.verdict, Verdict::Healthy);
    assert!(
        analysis.os_pivot_journal_tail.is_empty(),
        "shown only for a pivot problem"
    );
    assert!(
        analysis
            .render()
            .contains("release-image-pivot: succeeded, started 2 time(s)")
    );
}

#[test]
fn an_os_pivot_that_stopped_a_reboot_loop_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let looped = "/opt/openshift/.pivot-done says the host was moved to \
                  quay.io/okd/scos-content@sha256:5e1f, but it booted another deployment and \
                  none of that image is staged; not rebooting again";
    let mut pivot = os_pivot_run("reboot", "success", "");
    pivot.extend(os_pivot_run("inspect-deployments", "failure", looped));
    pivot.push(record("service end", "", "failure", looped));
    let path = Bundle::new("ospivot3")
        .service("release-image", succeeded())
        .service("release-image-pivot", pivot)
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    let p = problem(&analysis.verdict);
    assert_eq!(p.service, "release-image-pivot");
    assert_eq!(p.stage.as_deref(), Some("inspect-deployments"));
    assert_eq!(p.starts, 2);
    assert_eq!(p.error_lines, vec![looped.to_string()], "kept once");
    assert!(p.hint.contains("rolled back"), "{}", p.hint);
}

#[test]
fn an_os_pivot_still_rebasing_is_the_problem_before_bootkube() {
    let dir = tempfile::tempdir().unwrap();
    let path = Bundle::new("ospivot4")
        .service("release-image", succeeded())
        .service(
            "release-image-pivot",
            os_pivot_run("rebase-host-os", "", ""),
        )
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    let p = problem(&analysis.verdict);
    assert_eq!(p.service, "release-image-pivot");
    assert_eq!(p.status, ServiceStatus::Running);
    assert_eq!(p.stage.as_deref(), Some("rebase-host-os"));
    assert!(p.hint.contains("pull secret"), "{}", p.hint);
    assert!(analysis.render().contains(
        "release-image-pivot.service had not finished (in stage rebase-host-os) when the \
             logs were gathered; it did not yet move the bootstrap host onto the release's \
             machine-OS image"
    ));
}

#[test]
fn a_release_image_failure_comes_before_the_os_pivot() {
    let dir = tempfile::tempdir().unwrap();
    let mut pivot = os_pivot_run(
        "resolve-machine-os-image",
        "failure",
        "Could not resolve any of stream-coreos fedora-coreos rhel-coreos",
    );
    pivot.push(record("service end", "", "failure", ""));
    let path = Bundle::new("ospivot5")
        .service(
            "release-image",
            vec![
                record("service start", "", "", ""),
                record("service end", "", "failure", "pull failed"),
            ],
        )
        .service("release-image-pivot", pivot)
        .write(dir.path(), "b.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    assert_eq!(problem(&analysis.verdict).service, "release-image");
    assert_eq!(analysis.other_failures, vec!["release-image-pivot"]);
    let text = analysis.render();
    assert!(
        text.contains("release-image-pivot: failed, started 1 time(s); last failure at resolve-machine-os-image"),
        "{text}"
    );
}
