//! The real-render harness on every shipped example: the generated bootkube.sh runs with real
//! podman against the OKD 4.19 payload stand-in (`$OKD_PAYLOAD_DIR`) up to
//! cluster-bootstrap, and every render stage must succeed and leave its outputs. Also checks
//! that the harness has teeth: a bootkube.sh with a render flag dropped fails it.
//!
//! Needs root and a payload named by `$OKD_PAYLOAD_DIR` (its load.sh installs podman); without
//! the variable the tests print a skip line, in CI too: no payload ships with the project.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use render_harness::{
    Host, Payload, RenderedPool, check_outputs, materialize, render_example, render_pool_configs,
    run_renders,
};

use crate::support::bin_path;

/// Render containers have fixed names on a host (`--name api-render`, ...), so the tests of
/// this file run their renders one at a time.
static ONE_HOST_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The render lock and the payload `$OKD_PAYLOAD_DIR` names, or `None` (skip). No payload
/// ships with the project, so these tests are a developer's tool: without the variable they
/// print one skip line and pass, in CI too (CI proves the bootstrap host on Debian's real
/// programs instead, in `real_host`). With the variable set, they need root.
fn payload() -> Option<(Payload, MutexGuard<'static, ()>)> {
    let Ok(dir) = render_harness::payload_dir() else {
        eprintln!(
            "skipping: the payload harness runs only when {} names a payload directory",
            render_harness::PAYLOAD_DIR_VAR
        );
        return None;
    };
    let guard = ONE_HOST_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let uid = std::process::Command::new("id").arg("-u").output();
    let is_root = uid.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    assert!(is_root, "the payload harness runs under root podman");
    let payload = Payload::load(&dir)
        .unwrap_or_else(|e| panic!("loading the payload {}: {e}", dir.display()));
    Some((payload, guard))
}

/// Findings one per line, indented under their example.
fn listed(findings: &[render_harness::Finding]) -> String {
    findings
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n  ")
}

#[test]
fn every_example_renders_with_the_real_4_19_operators() {
    let Some((payload, _one_at_a_time)) = payload() else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let examples = render_harness::shipped_examples(&root);
    assert!(examples.len() >= 8, "examples/ lists {examples:?}");
    let mut failures = Vec::new();
    let release = payload.release.version;
    // One after another: render containers have fixed names on a host, as upstream's do.
    for example in &examples {
        let work = tempfile::tempdir().unwrap();
        match render_example(&bin_path(), example, &payload, work.path()) {
            Ok(report) if report.findings.is_empty() => {
                assert_eq!(report.run.stages_done, render_harness::render_stages());
                eprintln!("{release} {example}: every render stage ran and left its outputs");
            }
            Ok(report) => failures.push(format!(
                "{release} {example}:\n  {}",
                listed(&report.findings)
            )),
            Err(e) => failures.push(format!("{release} {example}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A scratch host from a fresh compact-3-node bootstrap.ign, with `edit` applied to its
/// bootkube.sh.
fn edited_host(payload: &Payload, work: &Path, edit: impl Fn(&str) -> String) -> Host {
    let dir = work.join("install");
    let status = std::process::Command::new(bin_path())
        .args([
            "create",
            "ignition-configs",
            "--from-example",
            "compact-3-node",
        ])
        .arg("--dir")
        .arg(&dir)
        .args(["--release-image", &payload.release_image])
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let host = Host::new(&work.join("host"));
    materialize(&dir.join("bootstrap.ign"), &host).unwrap();
    let script = host.path("/usr/local/bin/bootkube.sh");
    let text = std::fs::read_to_string(&script).unwrap();
    let edited = edit(&text);
    assert_ne!(edited, text, "the edit changed nothing");
    std::fs::write(&script, edited).unwrap();
    host
}

/// Removes the line that passes `flag` in bootkube.sh.
fn drop_flag(text: &str, flag: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with(flag))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn a_dropped_required_flag_stops_bootkube_at_its_stage() {
    let Some((payload, _one_at_a_time)) = payload() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let host = edited_host(&payload, work.path(), |t| {
        drop_flag(t, "--config-output-file=/assets/config-bootstrap")
    });
    let err = run_renders(&host, &payload, Duration::from_secs(600)).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("last stage finished: auth-api-bootstrap"),
        "{text}"
    );
    assert!(
        text.contains("--config-output-file"),
        "the binary's complaint is shown: {text}"
    );
}

#[test]
fn a_dropped_flag_without_visible_effect_is_still_caught() {
    let Some((payload, _one_at_a_time)) = payload() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    // With the default feature set the CVO render writes the same files without the
    // feature-gate path, and with no authentication config among the manifests the API
    // server's render ignores --cluster-auth-file: only the recorded calls show the loss.
    let host = edited_host(&payload, work.path(), |t| {
        drop_flag(
            &drop_flag(t, "--feature-gate-manifest-path="),
            "--cluster-auth-file=",
        )
    });
    let run = run_renders(&host, &payload, Duration::from_secs(600)).unwrap();
    let findings: Vec<String> = check_outputs(&host, &payload, &run)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        findings
            .iter()
            .any(|f| f.starts_with("cvo-bootstrap:") && f.contains("--feature-gate-manifest-path")),
        "{findings:#?}"
    );
    assert!(
        findings.iter().any(
            |f| f.starts_with("kube-apiserver-bootstrap:") && f.contains("--cluster-auth-file")
        ),
        "{findings:#?}"
    );
}

/// Runs openssl with `args` in `dir`, panicking with its output when it fails.
fn openssl(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "openssl {args:?}: {out:?}");
}

/// Signs `keys/server.csr` with the CA `ca` (`ca.crt` + `ca.key`) for one day with the SANs
/// of `keys/san.ext`, into `keys/out`.
fn sign_server_csr(keys: &Path, ca: &Path, out: &str) {
    let (crt, key) = (ca.with_extension("crt"), ca.with_extension("key"));
    openssl(
        keys,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            crt.to_str().unwrap(),
            "-CAkey",
            key.to_str().unwrap(),
            "-CAcreateserial",
            "-days",
            "1",
            "-extfile",
            "san.ext",
            "-out",
            out,
        ],
    );
}

/// A copy of the pointer config `from` that trusts the PEM file `ca` instead.
fn pointer_trusting(from: &Path, ca: &Path, to: &Path) {
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(from).unwrap()).unwrap();
    let pem = std::fs::read(ca).unwrap();
    config["ignition"]["security"]["tls"]["certificateAuthorities"][0]["source"] =
        serde_json::Value::String(ignition::encode_data_url(&pem));
    std::fs::write(to, config.to_string()).unwrap();
}

#[test]
fn a_wrong_ca_or_a_server_certificate_without_api_int_is_diagnosed_not_hung() {
    let Some((payload, _one_at_a_time)) = payload() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let report = render_example(&bin_path(), "compact-3-node", &payload, work.path()).unwrap();
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    let keys = work.path().join("keys");
    std::fs::create_dir_all(&keys).unwrap();
    // A CA of its own, which did not sign the server's certificate.
    openssl(
        &keys,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=other-ca",
            "-keyout",
            "other-ca.key",
            "-out",
            "other-ca.crt",
        ],
    );
    let install = work.path().join("install");
    let master = install.join("master.ign");
    let wrong_ca = work.path().join("master-wrong-ca.ign");
    pointer_trusting(&master, &keys.join("other-ca.crt"), &wrong_ca);
    let api_int = "api-int.compact.example.com";
    {
        let _mcs = render_harness::Mcs::start(&report.host, &payload).unwrap();
        // A person's check of the same server: trusted and valid for api-int.
        let mcs = online_mcs_check(&install, api_int);
        assert_eq!(mcs["status"], "ok", "{mcs}");
        assert!(
            mcs["message"].as_str().unwrap().contains(&format!(
                "trusted by this directory and valid for {api_int}"
            )),
            "{mcs}"
        );
        let err =
            render_harness::apply_pointer(&wrong_ca, api_int, &work.path().join("a")).unwrap_err();
        assert!(
            matches!(err, render_harness::PointerError::UnknownAuthority { .. }),
            "{err}"
        );
        assert!(err.to_string().contains("did not sign"), "{err}");
    }
    // A server certificate from that CA naming another host: the chain holds, the name not.
    openssl(
        &keys,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=machine-config-server",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
        ],
    );
    std::fs::write(
        keys.join("san.ext"),
        "subjectAltName=DNS:mcs.elsewhere.example.com\n",
    )
    .unwrap();
    sign_server_csr(&keys, &keys.join("other-ca"), "server.crt");
    for (file, to) in [("server.crt", "tls.crt"), ("server.key", "tls.key")] {
        std::fs::copy(keys.join(file), report.host.path("/etc/ssl/mcs").join(to)).unwrap();
    }
    {
        let _mcs = render_harness::Mcs::start(&report.host, &payload).unwrap();
        let err =
            render_harness::apply_pointer(&wrong_ca, api_int, &work.path().join("b")).unwrap_err();
        assert!(
            matches!(err, render_harness::PointerError::NameMismatch { .. }),
            "{err}"
        );
        assert!(err.to_string().contains(api_int), "{err}");
        let mcs = online_mcs_check(&install, api_int);
        assert_eq!(mcs["status"], "error", "{mcs}");
        let message = mcs["message"].as_str().unwrap();
        assert!(message.contains("signed by unknown authority"), "{mcs}");
        assert!(
            message.contains("other-ca"),
            "names the foreign issuer: {mcs}"
        );
    }
    // The cluster's own root CA signing a certificate without api-int: master.ign as written
    // trusts the server, but not its name.
    let root = install.join("tls");
    let pki = std::process::Command::new(bin_path())
        .args(["create", "pki", "--dir"])
        .arg(&install)
        .output()
        .unwrap();
    assert!(pki.status.success(), "{pki:?}");
    sign_server_csr(&keys, &root.join("root-ca"), "server-root.crt");
    std::fs::copy(
        keys.join("server-root.crt"),
        report.host.path("/etc/ssl/mcs/tls.crt"),
    )
    .unwrap();
    let _mcs = render_harness::Mcs::start(&report.host, &payload).unwrap();
    let err = render_harness::apply_pointer(&master, api_int, &work.path().join("c")).unwrap_err();
    assert!(
        matches!(err, render_harness::PointerError::NameMismatch { .. }),
        "{err}"
    );
    let mcs = online_mcs_check(&install, api_int);
    assert_eq!(mcs["status"], "error", "{mcs}");
    assert!(
        mcs["message"]
            .as_str()
            .unwrap()
            .contains(&format!("not valid for {api_int}")),
        "{mcs}"
    );
}

/// `okd-install verify --online=endpoints` of `install` with the cluster's names sent to 127.0.0.1:
/// its finding for the Machine Config Server endpoint (api-int:22623).
fn online_mcs_check(install: &Path, api_int: &str) -> serde_json::Value {
    let api = api_int.replacen("api-int.", "api.", 1);
    let apps = api_int.replacen("api-int.", "console-openshift-console.apps.", 1);
    let mut cmd = std::process::Command::new(bin_path());
    cmd.args(["verify", "--online=endpoints", "--output", "json", "--dir"])
        .arg(install);
    for name in [api_int, &api, &apps] {
        cmd.arg("--resolve").arg(format!("{name}=127.0.0.1"));
    }
    let out = cmd.output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("verify printed no JSON ({e}): {out:?}"));
    let subject = format!("{api_int}:22623");
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "online.tls" && c["subject"] == subject.as_str())
        .unwrap_or_else(|| panic!("no online.tls check of {subject}: {report}"))
        .clone()
}

/// `(pool, preBuiltImage)` of every `imageMode.pools` entry of an install-config.
fn pre_built_images(install_config: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(install_config).unwrap();
    let ic = installconfig::parse_str(&text, "install-config.yaml")
        .unwrap()
        .config;
    let mode = ic
        .image_mode
        .expect("the image-mode example sets imageMode");
    mode.pools
        .into_iter()
        .map(|p| (p.name, p.pre_built_image))
        .collect()
}

/// The pre-built-image annotation of a MachineOSConfig file.
fn annotated_image(path: &Path) -> String {
    let data = std::fs::read(path).unwrap();
    let objects = manifests::user::parse_objects(path, &data).unwrap();
    let annotations = objects[0].value.pointer("/metadata/annotations").unwrap();
    let image = &annotations[manifests::imagemode::PRE_BUILT_IMAGE];
    image.as_str().unwrap().to_string()
}

/// Issue #15: with image mode, the real 4.19 bootstrap machine-config controller renders
/// each pool's pre-built image as its osImageURL, the image the MachineOSConfig names too;
/// without the OS-image MachineConfig it would render the release's stock OS image.
#[test]
fn image_mode_pools_boot_their_pre_built_images() {
    let Some((payload, _one_at_a_time)) = payload() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let report = render_example(&bin_path(), "image-mode", &payload, work.path())
        .unwrap_or_else(|e| panic!("image-mode: {e}"));
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    let wanted = pre_built_images(&work.path().join("install/install-config.yaml"));
    let pools: Vec<&str> = wanted.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(pools, ["master", "worker"]);
    // render_example's bootstrap server already ran the controller.
    let rendered = RenderedPool::read_all(&report.host).unwrap();
    for (pool, image) in &wanted {
        let mosc = report.host.path(&format!(
            "/opt/openshift/manifests/machineosconfig-{pool}.yaml"
        ));
        assert_eq!(&annotated_image(&mosc), image, "{}", mosc.display());
        let config = rendered.iter().find(|r| &r.pool == pool);
        let config =
            config.unwrap_or_else(|| panic!("no rendered config for {pool}: {rendered:#?}"));
        assert_eq!(&config.os_image_url, image, "{}", config.path.display());
        eprintln!("{pool}: {} boots {image}", config.config);
    }
    // The OS-image MachineConfigs are what made the difference.
    let stock = payload.image_for("stream-coreos").unwrap().unwrap();
    for (pool, _) in &wanted {
        let name = manifests::imagemode::os_image_file_name(pool);
        let copy = report.host.path(&format!("/etc/mcc/bootstrap/{name}"));
        std::fs::remove_file(&copy).unwrap_or_else(|e| panic!("{}: {e}", copy.display()));
    }
    for config in render_pool_configs(&report.host, &payload).unwrap() {
        assert_eq!(config.os_image_url, stock, "{}", config.path.display());
    }
}
