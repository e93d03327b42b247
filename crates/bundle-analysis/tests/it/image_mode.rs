//! Image mode in the analysis: the OS image each pool was told to boot, compared with its
//! rendered configs and with what its gathered hosts booted.

use std::path::PathBuf;

use bundle_analysis::{ImageModeProblem, ImageModeState, OsTool, RenderedBy, analyze_bundle};
use serde_json::json;

use crate::bundle::{Bundle, succeeded};
use crate::scenario::{
    MASTER_OS_IMAGE, STOCK_OS_IMAGE, WORKER_OS_IMAGE, bootc_status_json, list, machine_config,
    machine_config_pools_json, os_image_config_path, os_image_config_yaml, rpm_ostree_status_json,
};

const MASTER: &str = "10.0.0.5";

/// A bundle of an image-mode install: bootkube succeeded, bootstrap.ign carried both pools'
/// OS-image MachineConfigs, and the bootstrap machine-config server serves configs that carry
/// `served_master` and the worker image.
fn image_mode_bundle(served_master: &str) -> Bundle {
    Bundle::new("imagemode")
        .service("bootkube", succeeded())
        .file(
            &format!("rendered-assets/openshift/{}", os_image_config_path("master")),
            os_image_config_yaml("master", MASTER_OS_IMAGE),
        )
        .file(
            &format!("rendered-assets/openshift/{}", os_image_config_path("worker")),
            os_image_config_yaml("worker", WORKER_OS_IMAGE),
        )
        // bootkube's copy in manifests/ is the same object.
        .file(
            "rendered-assets/openshift/manifests/99_openshift-machineconfig_99-master-okd-install-os-image.yaml",
            os_image_config_yaml("master", MASTER_OS_IMAGE),
        )
        .file(
            "bootstrap/os-image/served-os-images.txt",
            format!(
                "master rendered-master-2d80 {served_master}\nworker rendered-worker-ce4b {WORKER_OS_IMAGE}\n"
            ),
        )
}

/// A master's rpm-ostree status in the bundle.
fn master_rpm_ostree(bundle: Bundle, host: &str, status: String) -> Bundle {
    bundle.file(
        &format!("control-plane/{host}/os-image/rpm-ostree-status.json"),
        status,
    )
}

fn analyse(bundle: Bundle) -> (ImageModeState, String) {
    let dir = tempfile::tempdir().unwrap();
    let path: PathBuf = bundle.write(dir.path(), "log-bundle-imagemode.tar.gz");
    let analysis = analyze_bundle(&path).unwrap();
    let text = analysis.render();
    let state = analysis
        .image_mode
        .clone()
        .unwrap_or_else(|| panic!("image mode is reported:\n{text}"));
    (state, text)
}

#[test]
fn a_master_that_booted_its_pools_image_matches() {
    let booted = format!("ostree-unverified-registry:{MASTER_OS_IMAGE}");
    let bundle = master_rpm_ostree(
        image_mode_bundle(MASTER_OS_IMAGE),
        MASTER,
        rpm_ostree_status_json(Some(&booted), None),
    );
    let (state, text) = analyse(bundle);
    assert_eq!(state.problems, [], "{text}");
    let pools: Vec<&str> = state.pools.iter().map(|p| p.pool.as_str()).collect();
    assert_eq!(pools, ["master", "worker"]);
    let master = &state.pools[0];
    assert_eq!(master.told.image, MASTER_OS_IMAGE);
    assert_eq!(
        master.told.file,
        format!(
            "log-bundle-imagemode/rendered-assets/openshift/{}",
            os_image_config_path("master")
        )
    );
    assert_eq!(
        master.told.object,
        "MachineConfig 99-master-okd-install-os-image"
    );
    assert_eq!(master.rendered.len(), 1);
    assert!(master.rendered[0].matches);
    assert_eq!(master.hosts.len(), 1);
    let host = &master.hosts[0];
    assert_eq!((host.host.as_str(), host.tool), (MASTER, OsTool::RpmOstree));
    assert_eq!(host.booted, booted);
    assert!(host.matches);
    assert!(state.pools[1].hosts.is_empty(), "workers are not gathered");
    assert!(
        text.contains(&format!(
            "  - pool master: {MASTER_OS_IMAGE} (MachineConfig 99-master-okd-install-os-image in \
             log-bundle-imagemode/rendered-assets/openshift/{})",
            os_image_config_path("master")
        )),
        "{text}"
    );
    assert!(
        text.contains(
            "    rendered config rendered-master-2d80 served by the bootstrap machine-config \
             server carries it"
        ),
        "{text}"
    );
    assert!(
        text.contains(&format!("    {MASTER} booted it (rpm-ostree)\n")),
        "{text}"
    );
    assert!(
        text.contains("    no host of this pool in the bundle"),
        "{text}"
    );
    assert!(!text.contains("Image-mode problem"), "{text}");
}

#[test]
fn a_master_that_booted_another_image_is_a_problem_naming_host_and_images() {
    let booted = format!("ostree-unverified-registry:{STOCK_OS_IMAGE}");
    let bundle = master_rpm_ostree(
        image_mode_bundle(MASTER_OS_IMAGE),
        MASTER,
        rpm_ostree_status_json(Some(&booted), None),
    );
    let (state, text) = analyse(bundle);
    assert_eq!(
        state.problems,
        [ImageModeProblem::BootedOther {
            pool: "master".into(),
            host: MASTER.into(),
            told: MASTER_OS_IMAGE.into(),
            booted: booted.clone(),
            tool: OsTool::RpmOstree,
            staged_told: false,
        }]
    );
    let line = format!(
        "Image-mode problem: host {MASTER} of pool master booted {booted} (rpm-ostree), not the \
         OS image {MASTER_OS_IMAGE} its pool was told to boot.\n  Next: the node did not apply \
         its pool's OS image: on the host, `rpm-ostree status`"
    );
    assert!(text.contains(&line), "{text}");
    assert!(text.contains("pull secret holds credentials"), "{text}");
    assert!(
        text.contains(&format!(
            "    {MASTER} booted {booted} instead (rpm-ostree)\n"
        )),
        "{text}"
    );
}

#[test]
fn a_host_on_an_ostree_commit_with_the_image_staged_is_told_to_reboot() {
    let staged = format!("ostree-unverified-registry:{MASTER_OS_IMAGE}");
    let bundle = master_rpm_ostree(
        image_mode_bundle(MASTER_OS_IMAGE),
        MASTER,
        rpm_ostree_status_json(None, Some(&staged)),
    );
    let (state, text) = analyse(bundle);
    let [
        ImageModeProblem::BootedOther {
            booted,
            staged_told,
            ..
        },
    ] = state.problems.as_slice()
    else {
        panic!("one booted-other problem: {text}");
    };
    assert!(staged_told);
    assert_eq!(
        booted,
        "scos:scos/x86_64/coreos/stable (an OSTree commit, not a container image)"
    );
    assert!(
        text.contains("Next: the image is staged but the host has not rebooted into it yet"),
        "{text}"
    );
}

#[test]
fn a_rendered_config_without_the_pools_image_is_a_problem() {
    let (state, text) = analyse(image_mode_bundle(STOCK_OS_IMAGE));
    assert_eq!(state.problems.len(), 1, "{text}");
    let ImageModeProblem::RenderedOther {
        pool,
        config,
        rendered,
        ..
    } = &state.problems[0]
    else {
        panic!("{:?}", state.problems);
    };
    assert_eq!(
        (pool.as_str(), config.as_str()),
        ("master", "rendered-master-2d80")
    );
    assert_eq!(rendered.as_deref(), Some(STOCK_OS_IMAGE));
    assert!(
        text.contains(&format!(
            "Image-mode problem: the rendered config rendered-master-2d80 of pool master, \
             served by the bootstrap machine-config server, carries OS image {STOCK_OS_IMAGE}, \
             not the OS image {MASTER_OS_IMAGE} the pool was told to boot.\n  Next: the \
             machine-config controller did not merge okd-install's OS-image MachineConfig"
        )),
        "{text}"
    );
}

/// Only the cluster's objects: the API answered, the bootstrap host's asset tree is missing.
#[test]
fn the_cluster_objects_alone_name_the_told_and_rendered_images() {
    let configs = list(
        "MachineConfigList",
        vec![
            machine_config("99-master-okd-install-os-image", "master", MASTER_OS_IMAGE),
            machine_config("rendered-master-9f6a", "master", STOCK_OS_IMAGE),
            machine_config("00-master", "master", ""),
        ],
    );
    let bundle = Bundle::new("imagemode")
        .service("bootkube", succeeded())
        .file("resources/machineconfigs.json", configs)
        .file(
            "resources/machineconfigpools.json",
            machine_config_pools_json(&[("master", "rendered-master-9f6a")]),
        );
    let (state, text) = analyse(bundle);
    let master = &state.pools[0];
    assert_eq!(master.told.image, MASTER_OS_IMAGE);
    assert_eq!(
        master.told.file,
        "log-bundle-imagemode/resources/machineconfigs.json"
    );
    assert_eq!(master.rendered.len(), 1);
    assert_eq!(master.rendered[0].image.as_deref(), Some(STOCK_OS_IMAGE));
    assert_eq!(master.rendered[0].by, RenderedBy::Cluster);
    assert_eq!(
        master.rendered[0].file,
        "log-bundle-imagemode/resources/machineconfigs.json"
    );
    assert!(
        text.contains(&format!(
            "    rendered config rendered-master-9f6a of the cluster's MachineConfigPool carries \
             {STOCK_OS_IMAGE} instead\n"
        )),
        "{text}"
    );
    assert!(matches!(
        state.problems.as_slice(),
        [ImageModeProblem::RenderedOther { .. }]
    ));
}

/// A bundle of an older install with only the MachineOSConfig's annotation.
#[test]
fn a_machine_os_config_annotation_names_the_told_image_when_nothing_else_does() {
    let mosc = list(
        "MachineOSConfigList",
        vec![json!({
            "metadata": {"name": "master", "annotations": {
                "machineconfiguration.openshift.io/pre-built-image": MASTER_OS_IMAGE}},
            "spec": {"machineConfigPool": {"name": "master"}}
        })],
    );
    let bundle = master_rpm_ostree(
        Bundle::new("imagemode").file("resources/machineosconfigs.json", mosc),
        MASTER,
        rpm_ostree_status_json(
            Some(&format!("ostree-unverified-registry:{STOCK_OS_IMAGE}")),
            None,
        ),
    );
    let (state, _) = analyse(bundle);
    assert_eq!(
        state.pools[0].told.object,
        "MachineOSConfig master (pre-built-image annotation)"
    );
    assert!(matches!(
        state.problems.as_slice(),
        [ImageModeProblem::BootedOther { .. }]
    ));
}

#[test]
fn without_image_mode_nothing_is_reported() {
    let configs = list(
        "MachineConfigList",
        vec![machine_config(
            "rendered-master-9f6a",
            "master",
            STOCK_OS_IMAGE,
        )],
    );
    let bundle = master_rpm_ostree(
        Bundle::new("plain")
            .service("bootkube", succeeded())
            .file("resources/machineconfigs.json", configs)
            .file(
                "resources/machineconfigpools.json",
                machine_config_pools_json(&[("master", "rendered-master-9f6a")]),
            )
            .file(
                "bootstrap/os-image/served-os-images.txt",
                format!("master rendered-master-9f6a {STOCK_OS_IMAGE}\n"),
            )
            .file(
                "bootstrap/os-image/bootc-absent.txt",
                "bootc is not installed on this host\n",
            ),
        MASTER,
        rpm_ostree_status_json(
            Some(&format!("ostree-unverified-registry:{STOCK_OS_IMAGE}")),
            None,
        ),
    );
    let dir = tempfile::tempdir().unwrap();
    let analysis = analyze_bundle(&bundle.write(dir.path(), "b.tar.gz")).unwrap();
    assert_eq!(analysis.image_mode, None);
    let text = analysis.render();
    assert!(
        !text.contains("Image mode") && !text.contains("Image-mode"),
        "{text}"
    );
}

#[test]
fn a_missing_tool_is_a_note_and_the_other_tool_answers() {
    let signed = MASTER_OS_IMAGE.split('@').next().unwrap().to_string() + ":4.19";
    let digest = MASTER_OS_IMAGE.split('@').nth(1).unwrap();
    let bundle = image_mode_bundle(MASTER_OS_IMAGE)
        .file(
            &format!("control-plane/{MASTER}/os-image/rpm-ostree-absent.txt"),
            "rpm-ostree is not installed on this host\n",
        )
        .file(
            &format!("control-plane/{MASTER}/os-image/bootc-status.json"),
            bootc_status_json(&signed, digest),
        )
        // The bootstrap host is in no pool: its tools do not matter here.
        .file(
            "bootstrap/os-image/bootc-absent.txt",
            "bootc is not installed on this host\n",
        );
    let (state, text) = analyse(bundle);
    assert_eq!(state.problems, [], "{text}");
    let host = &state.pools[0].hosts[0];
    assert_eq!(host.tool, OsTool::Bootc);
    assert_eq!(host.booted_digest.as_deref(), Some(digest));
    assert!(host.matches, "by the digest bootc reports: {text}");
    assert_eq!(
        state.notes,
        [format!(
            "rpm-ostree is not installed on {MASTER} \
             (log-bundle-imagemode/control-plane/{MASTER}/os-image/rpm-ostree-absent.txt)"
        )]
    );
    assert!(
        text.contains(&format!(
            "Image-mode note: rpm-ostree is not installed on {MASTER}"
        )),
        "{text}"
    );
}

#[test]
fn an_unreadable_status_and_no_other_tool_leave_the_host_unknown() {
    let bundle = image_mode_bundle(MASTER_OS_IMAGE)
        .file(
            &format!("control-plane/{MASTER}/os-image/rpm-ostree-status.json"),
            "error: Failed to activate service 'org.projectatomic.rpmostree1': timed out\n",
        )
        .file(
            &format!("control-plane/{MASTER}/os-image/bootc-absent.txt"),
            "bootc is not installed on this host\n",
        );
    let (state, text) = analyse(bundle);
    assert!(state.pools[0].hosts.is_empty());
    assert_eq!(state.problems, []);
    assert_eq!(state.notes.len(), 3, "{:?}", state.notes);
    assert!(
        state.notes[0].starts_with(&format!(
            "could not read log-bundle-imagemode/control-plane/{MASTER}/os-image/rpm-ostree-status.json: \
             not rpm-ostree status JSON"
        )),
        "{:?}",
        state.notes
    );
    assert!(
        state.notes[1].starts_with("bootc is not installed"),
        "{:?}",
        state.notes
    );
    assert!(
        state.notes[2].starts_with(&format!("which OS image {MASTER} booted is unknown")),
        "{:?}",
        state.notes
    );
    assert!(
        text.contains("no host of this pool in the bundle"),
        "{text}"
    );
}

#[test]
fn image_mode_serializes_with_tagged_problems() {
    let booted = format!("ostree-image-signed:docker://{STOCK_OS_IMAGE}");
    let bundle = master_rpm_ostree(
        image_mode_bundle(MASTER_OS_IMAGE),
        MASTER,
        rpm_ostree_status_json(Some(&booted), None),
    );
    let (state, _) = analyse(bundle);
    let value = serde_json::to_value(&state).unwrap();
    assert_eq!(value["pools"][0]["hosts"][0]["tool"], "rpm-ostree");
    assert_eq!(value["pools"][0]["hosts"][0]["matches"], false);
    assert_eq!(value["problems"][0]["kind"], "booted-other");
    assert_eq!(value["problems"][0]["host"], MASTER);
}
