//! The bootstrap config booted on a real host: a Debian root made of Debian packages, the
//! config written into it by the real Ignition as on a first boot, real systemd as PID 1
//! under systemd-nspawn on a private network of the test's own (`testing/real-host`).
//!
//! For each example CI covers: every unit the config ships loads (`systemd-analyze verify`
//! inside the host), the presets Ignition wrote are applied by systemd itself, the core user
//! has its keys, and the boot goes where a CoreOS bootstrap host without the release's node
//! image goes: `node-image-overlay.target`, with sshd, NetworkManager and the journal gateway
//! up, the node image pull running (and asking the release image again and again, since no
//! registry answers on the lab network), nothing of multi-user.target started and no unit
//! failed.
//!
//! Needs root, systemd-nspawn, mmdebstrap, ignition, setfiles and a system D-Bus
//! (`real_host::missing`); skips without them, fails without them under CI=true.

use std::path::Path;

use contract::Cause;
use contract::registry_error::RegistryFault;
use ignition::Variant;
use real_host::front::{Action, Front, Rule, Serving};
use real_host::pointer::MergeSource;
use real_host::registry::{Certificate, Registry};
use real_host::release::Component;
use real_host::{Machine, RootImage, UnitStatus};

use crate::support::okd;

/// The examples booted here.
const EXAMPLES: &[&str] = &[
    "compact-3-node",
    "disconnected-mirror",
    "single-node",
    "bootstrap-pivot",
];

/// Where the boot goes on a host whose `/usr` lacks the release's client tools.
const OVERLAY_TARGET: &str = "node-image-overlay.target";
/// The units that target starts before anything else, waiting on the node image pull.
const WAITING: &[&str] = &[
    OVERLAY_TARGET,
    "node-image-overlay.service",
    "node-image-finish.service",
];
/// The pull itself: running, retrying.
const PULL: &str = "node-image-pull.service";
/// What the host itself runs while the node image is fetched, as CoreOS does.
const HOST_SERVICES: &[(&str, &str, &str)] = &[
    ("sshd.service", "active", "running"),
    ("NetworkManager.service", "active", "running"),
    ("systemd-journal-gatewayd.socket", "active", "listening"),
];
/// Units the config has a drop-in for that a Debian host does not have: Fedora CoreOS's
/// update agent, which the drop-in keeps from updating the bootstrap host; nothing else on
/// the host refers to it.
const ABSENT_ON_DEBIAN: &[&str] = &["zincati.service"];
/// The one warning `systemd-analyze verify` may print about a unit we ship (when verifying it
/// or a unit that pulls it in): systemd's deprecation notice for `KillMode=none`, which
/// node-image-finish.service keeps for the releases whose upstream unit has it (its template
/// says why).
const ALLOWED_WARNING: (&str, &str) = ("node-image-finish.service", "KillMode=none");
/// How long the first pull retry may take to show.
const SETTLE_SECONDS: u64 = 120;

#[test]
fn the_bootstrap_configs_boot_a_real_host_to_the_node_image_overlay() {
    let missing = real_host::missing();
    if !testkit::require(missing.is_empty(), &missing.join("; ")) {
        return;
    }
    let image = RootImage::ensure().unwrap_or_else(|e| panic!("making the host root: {e}"));
    let failures: Vec<String> = EXAMPLES
        .iter()
        .filter_map(|example| boot_example(&image, example))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A unit the config ships: its name, whether it has a unit file (or drop-ins only) and
/// whether the config enables it.
#[derive(Debug)]
pub(crate) struct Shipped {
    pub(crate) name: String,
    pub(crate) has_file: bool,
    pub(crate) enabled: bool,
    wanted_by_multi_user: bool,
}

pub(crate) fn shipped_units(config: &Path) -> Vec<Shipped> {
    let text = std::fs::read_to_string(config).expect("read the config");
    let value: serde_json::Value = serde_json::from_str(&text).expect("config JSON");
    value["systemd"]["units"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|unit| {
            let contents = unit["contents"].as_str().unwrap_or_default();
            Shipped {
                name: unit["name"].as_str().expect("unit name").to_string(),
                has_file: !contents.is_empty(),
                enabled: unit["enabled"] == true,
                wanted_by_multi_user: contents.contains("WantedBy=multi-user.target"),
            }
        })
        .collect()
}

/// Creates `example`'s bootstrap config, boots it and checks the host: `None` when all is
/// well, else every problem, with where the host's files were kept.
fn boot_example(image: &RootImage, example: &str) -> Option<String> {
    let work = tempfile::tempdir().expect("temp dir");
    let install = work.path().join("install");
    let (target, variant) = match example {
        "single-node" => ("single-node-ignition-config", Variant::SingleNode),
        "bootstrap-pivot" => ("ignition-configs", Variant::Pivot),
        _ => ("ignition-configs", Variant::Bootstrap),
    };
    okd(&install)
        .args(["create", target, "--from-example", example])
        .assert()
        .success();
    let config = install.join(variant.file_name());
    let shipped = shipped_units(&config);
    let started = std::time::Instant::now();
    let machine = match real_host::boot(image, example, &config, &work.path().join("host")) {
        Ok(machine) => machine,
        Err(e) => {
            let kept = work.keep();
            return Some(format!(
                "{example}: the host did not boot (files in {}): {e}",
                kept.display()
            ));
        }
    };
    let mut problems = verify_units(&machine, &shipped);
    problems.extend(first_boot(&machine, &shipped));
    problems.extend(boot_state(&machine, &shipped));
    eprintln!(
        "{example}: real host booted and checked in {:.0?}",
        started.elapsed()
    );
    if problems.is_empty() {
        return None;
    }
    let journal = machine.said(&["journalctl", "--boot", "--no-pager", "--lines=60"]);
    drop(machine);
    let kept = work.keep();
    Some(format!(
        "{example} (Ignition's log and the console in {}):\n  {}\n--- the host's journal, last lines ---\n{journal}",
        kept.display(),
        problems.join("\n  ")
    ))
}

/// `systemd-analyze verify` inside the host on every unit file the config ships: each must
/// load without a word. Units with drop-ins only must exist on the host.
fn verify_units(machine: &Machine, shipped: &[Shipped]) -> Vec<String> {
    let mut problems = Vec::new();
    for unit in shipped {
        if unit.has_file {
            let path = format!("/etc/systemd/system/{}", unit.name);
            let said = machine.said(&["systemd-analyze", "verify", "--man=no", &path]);
            let said: Vec<&str> = said
                .lines()
                .filter(|l| !l.trim().is_empty())
                .filter(|l| !(l.contains(ALLOWED_WARNING.0) && l.contains(ALLOWED_WARNING.1)))
                .collect();
            if !said.is_empty() {
                problems.push(format!(
                    "systemd-analyze verify {path}:\n    {}",
                    said.join("\n    ")
                ));
            }
        } else {
            match machine.unit(&unit.name) {
                Ok(status) if status.load == "loaded" => {}
                Ok(status) if ABSENT_ON_DEBIAN.contains(&unit.name.as_str()) => {
                    assert_eq!(status.load, "not-found", "{}: {status}", unit.name);
                }
                Ok(status) => problems.push(format!(
                    "{}: the config has drop-ins for it, but the host has no such unit ({status})",
                    unit.name
                )),
                Err(e) => problems.push(format!("{}: {e}", unit.name)),
            }
        }
    }
    problems
}

/// What Ignition and the first boot left: the core user with the config's keys, and every
/// unit the config enables enabled by systemd's own preset run.
fn first_boot(machine: &Machine, shipped: &[Shipped]) -> Vec<String> {
    let mut problems = Vec::new();
    let groups = machine.said(&["id", "--name", "--groups", "core"]);
    if !groups.split_whitespace().any(|g| g == "sudo") {
        problems.push(format!("core is not an administrator: id says {groups:?}"));
    }
    let keys = machine.said(&["cat", "/home/core/.ssh/authorized_keys.d/ignition"]);
    if keys.lines().filter(|l| l.starts_with("ssh-")).count() < 2 {
        problems.push(format!(
            "core lacks the install-config's key and the bootstrap key:\n{keys}"
        ));
    }
    let sudo = machine.said(&["runuser", "-u", "core", "--", "sudo", "-n", "true"]);
    if !sudo.trim().is_empty() {
        problems.push(format!("core cannot use sudo without a password: {sudo}"));
    }
    for unit in shipped.iter().filter(|u| u.enabled) {
        match machine.unit(&unit.name) {
            Ok(status) if status.file_state == "enabled" => {}
            Ok(status) => problems.push(format!(
                "{}: the config enables it, but after the first boot it is {status}",
                unit.name
            )),
            Err(e) => problems.push(format!("{}: {e}", unit.name)),
        }
    }
    problems
}

/// Where the boot went: the overlay target, its units waiting on the pull, the pull
/// retrying, the host's own services up, nothing of multi-user.target started, no failure.
fn boot_state(machine: &Machine, shipped: &[Shipped]) -> Vec<String> {
    let mut problems = Vec::new();
    let default = machine.said(&["systemctl", "get-default"]);
    if default.trim() != OVERLAY_TARGET {
        problems.push(format!(
            "the default target is {default:?}, not {OVERLAY_TARGET}"
        ));
    }
    // The pull asks the release image for the node image, fails (no registry on the lab
    // network) and says it will ask again: the host has settled where it should wait.
    let settled = machine.wait_for("the node image pull to retry", SETTLE_SECONDS, |m| {
        Ok(m.journal(PULL).contains("asking again in"))
    });
    if let Err(e) = settled {
        problems.push(format!("{e}\n{PULL}'s journal:\n{}", machine.journal(PULL)));
    }
    let jobs = machine.said(&["systemctl", "list-jobs", "--no-legend", "--plain"]);
    let queued = |unit: &str| {
        jobs.lines()
            .any(|l| l.split_whitespace().nth(1) == Some(unit))
    };
    let mut expect =
        |unit: &str, want: &dyn Fn(&UnitStatus) -> bool, what: &str| match machine.unit(unit) {
            Ok(status) if want(&status) => {}
            Ok(status) => problems.push(format!("{unit}: {status}, expected {what}")),
            Err(e) => problems.push(format!("{unit}: {e}")),
        };
    for (unit, active, sub) in HOST_SERVICES {
        expect(
            unit,
            &|s| s.active == *active && s.sub == *sub,
            &format!("{active}/{sub}"),
        );
    }
    expect(PULL, &|s| s.active == "activating", "activating (retrying)");
    for unit in WAITING {
        let waiting = queued(unit);
        expect(
            unit,
            &|s| s.active == "inactive" && waiting,
            "inactive with a start job waiting for the pull",
        );
    }
    for unit in shipped.iter().filter(|u| u.name.ends_with(".mount")) {
        expect(
            &unit.name,
            &|s| s.active == "inactive" && s.condition == "no",
            "inactive, its condition unmet (not a live system)",
        );
    }
    for unit in shipped.iter().filter(|u| u.wanted_by_multi_user) {
        let none_queued = !queued(&unit.name);
        expect(
            &unit.name,
            &|s| s.active == "inactive" && none_queued,
            "not started: multi-user.target comes after the node image",
        );
    }
    let failed = machine.said(&[
        "systemctl",
        "list-units",
        "--failed",
        "--no-legend",
        "--plain",
    ]);
    if !failed.trim().is_empty() {
        problems.push(format!("failed units:\n{failed}"));
    }
    problems
}

/// The disconnected-mirror example's mirror, as the example names it, and the login its pull
/// secret carries (`user:pass`).
const MIRROR_NAME: &str = "registry.example.com";
const MIRROR_USER: &str = "user";
const MIRROR_PASSWORD: &str = "pass";
/// The release the test's release image claims to be (okd-install's default), and where it
/// lives: the source the example mirrors and the mirror's path.
const RELEASE_VERSION: &str = "5.0.0-okd-scos.0";
const RELEASE_SOURCE: &str = "quay.io/okd/scos-release";
const RELEASE_PATH: &str = "okd/scos-release";
/// Where the release's component images would be: mirrored by the example, held nowhere.
const CONTENT_SOURCE: &str = "quay.io/okd/scos-content";
/// The first component the boot needs that is OKD's own code: the machine-config operator's
/// image, whose helper names the node image of the release's OS image stream.
const FIRST_OKD_CODE: &str = "machine-config-operator";

/// The disconnected-mirror example on a real host with its mirror registry on the lab
/// network: TLS from a CA the test made (given to okd-install as the additionalTrustBundle),
/// htpasswd logins (the example's pull secret), and a release image built from data. The
/// host pulls the release image by digest through the mirror rules okd-install wrote,
/// trusting the registry only through the bundle; then it fails for real at the first image
/// that is OKD's code, which the registry does not hold.
#[test]
fn the_disconnected_host_pulls_the_release_from_its_mirror_and_stops_at_okd_code() {
    let missing = real_host::missing();
    if !testkit::require(missing.is_empty(), &missing.join("; ")) {
        return;
    }
    let image = RootImage::ensure().unwrap_or_else(|e| panic!("making the host root: {e}"));
    let work = tempfile::tempdir().expect("temp dir");
    let lab = real_host::Lab::create("mirror").expect("the lab network");
    let MirrorSite {
        registry,
        components,
        digest,
        release_image,
        config,
    } = mirror_site(&lab, work.path());
    let machine = real_host::boot_on(&image, lab, &config, &work.path().join("host"))
        .unwrap_or_else(|e| panic!("booting the host: {e}"));

    // The node image pull asks the release image (pulled through the mirror) for the
    // machine-config operator's image, and the mirror does not have it.
    let mco = &components[0].pull_spec;
    let mco_digest = mco.rsplit_once('@').expect("a digest").1;
    let stopped = machine.wait_for(
        "the pull of the operator image to fail",
        SETTLE_SECONDS,
        |m| {
            let journal = m.journal(PULL);
            Ok(journal.contains(mco_digest) && journal.contains("manifest unknown"))
        },
    );
    let journal = machine.journal(PULL);
    let registry_log = std::fs::read_to_string(&registry.log).unwrap_or_default();
    assert!(
        stopped.is_ok(),
        "{stopped:?}\n{PULL}'s journal:\n{journal}\nthe registry's log:\n{registry_log}"
    );
    // The release image came from the mirror, by digest, to the host's address.
    let manifest = format!("/v2/{RELEASE_PATH}/manifests/{digest}");
    assert!(
        registry_log
            .lines()
            .any(|l| l.contains(&manifest) && l.contains(real_host::HOST_ADDRESS)),
        "the mirror never served {manifest} to the host:\n{registry_log}"
    );
    let stored = machine.said(&["podman", "image", "exists", &release_image]);
    assert!(
        stored.trim().is_empty(),
        "the host does not hold the release image: {stored}"
    );
    // And the operator's image was asked of the mirror, which does not hold it.
    let asked = format!("{MIRROR_NAME}:5000/okd/scos-content@{mco_digest}");
    assert!(
        journal
            .lines()
            .any(|l| l.contains(&asked) && l.contains("manifest unknown")),
        "{PULL} did not fail on {asked}:\n{journal}"
    );
    let status = machine.unit(PULL).expect("the pull's state");
    assert_eq!(
        status.active, "activating",
        "{PULL} keeps retrying: {status}"
    );

    // release-image.service, started as an administrator would, pulls the same image the
    // same way and succeeds.
    let started = machine.said(&["systemctl", "start", "release-image.service"]);
    let release = machine.unit("release-image.service").expect("its state");
    let release_journal = machine.journal("release-image.service");
    assert!(
        release.active == "active" && release_journal.contains("Fetching the release image"),
        "release-image.service: {release} {started}\n{release_journal}"
    );
}

/// The disconnected-mirror example's configs for `release_image`, with `ca_pem` as its
/// additional trust bundle; returns the bootstrap config.
/// The site of the disconnected-mirror example on `lab`: its mirror registry holding the
/// release image built from data (its components held nowhere), and okd-install's bootstrap
/// config for it under `work`.
fn mirror_site(lab: &real_host::Lab, work: &Path) -> MirrorSite {
    let spec = real_host::registry::RegistrySpec {
        name: MIRROR_NAME.into(),
        user: MIRROR_USER.into(),
        password: MIRROR_PASSWORD.into(),
    };
    let registry = Registry::start(lab, spec, &work.join("registry"))
        .unwrap_or_else(|e| panic!("starting the mirror registry: {e}"));
    let components: Vec<Component> = [FIRST_OKD_CODE, "stream-coreos", "rhel-coreos"]
        .iter()
        .map(|name| Component::absent(name, CONTENT_SOURCE))
        .collect();
    let digest = real_host::release::push(
        &registry,
        lab,
        RELEASE_PATH,
        RELEASE_VERSION,
        &components,
        &work.join("release"),
    )
    .unwrap_or_else(|e| panic!("pushing the release image: {e}"));
    let release_image = format!("{RELEASE_SOURCE}@{digest}");
    let config = mirror_config(work, &registry.ca_pem, &release_image);
    MirrorSite {
        registry,
        components,
        digest,
        release_image,
        config,
    }
}

/// What [`mirror_site`] set up.
struct MirrorSite {
    registry: Registry,
    /// The release's components, the first one [`FIRST_OKD_CODE`].
    components: Vec<Component>,
    /// The release image's manifest digest in the mirror.
    digest: String,
    /// The release image's pull spec by digest, at its source.
    release_image: String,
    /// okd-install's bootstrap config for the site.
    config: std::path::PathBuf,
}

fn mirror_config(work: &Path, ca_pem: &str, release_image: &str) -> std::path::PathBuf {
    let install = work.join("install");
    okd(&install)
        .args([
            "create",
            "install-config",
            "--from-example",
            "disconnected-mirror",
        ])
        .assert()
        .success();
    let path = install.join("install-config.yaml");
    let mut text = std::fs::read_to_string(&path).expect("install-config");
    text.push_str("additionalTrustBundle: |\n");
    for line in ca_pem.lines() {
        text.push_str(&format!("  {line}\n"));
    }
    std::fs::write(&path, text).expect("write install-config");
    okd(&install)
        .args([
            "create",
            "ignition-configs",
            "--release-image",
            release_image,
        ])
        .args(["--release-version", RELEASE_VERSION])
        .assert()
        .success();
    install.join(Variant::Bootstrap.file_name())
}

/// What the lab's server hands out as a pool's config: a file the test looks for.
const SERVED_PATH: &str = "/etc/okd-real-host/served";
const SERVED_CONFIG: &str = r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/okd-real-host/served","contents":{"source":"data:,served%20by%20the%20lab%20server%0A"},"mode":420}]}}"#;

/// compact-3-node's master.ign and worker.ign fetched by the real Ignition over HTTPS, as a
/// node's initramfs fetches them: from a server whose certificate is the one okd-install's
/// PKI made for the Machine Config Server (signed by the root CA the pointer configs carry),
/// accepted; from the same server with a certificate of another CA (same names), refused
/// with Ignition's own TLS error.
#[test]
fn pointer_configs_trust_only_the_machine_config_server_chain() {
    let missing = real_host::missing();
    if !testkit::require(missing.is_empty(), &missing.join("; ")) {
        return;
    }
    let (work, install) = crate::common::compact_configs();
    let bootstrap = testkit::cli::read(&install.join("bootstrap.ign"));
    let tls = work.path().join("tls");
    std::fs::create_dir_all(&tls).unwrap();
    for name in ["machine-config-server.crt", "machine-config-server.key"] {
        let data = testkit::cli::ign_file(&bootstrap, &format!("/opt/openshift/tls/{name}"))
            .unwrap_or_else(|| panic!("bootstrap.ign carries {name}"));
        std::fs::write(tls.join(name), data).unwrap();
    }
    let lab = real_host::Lab::create("pointer").expect("the lab network");
    for pool in ["master", "worker"] {
        let pointer = install.join(format!("{pool}.ign"));
        let source = MergeSource::of(&testkit::cli::read(&pointer)).expect("a merge source");
        let dir = work.path().join(pool);
        let (cert, key) = other_ca_certificate(&dir, &source.host);
        let ours = real_host::pointer::fetch(
            &lab,
            &pointer,
            &source,
            &tls.join("machine-config-server.crt"),
            &tls.join("machine-config-server.key"),
            SERVED_CONFIG,
            &dir.join("ours"),
        )
        .expect("the fetch ran");
        let served = ours.root.join(SERVED_PATH.trim_start_matches('/'));
        assert!(
            ours.accepted && served.is_file(),
            "{pool}.ign did not take the config from {} with our certificate:\n{}",
            source.url,
            ours.log
        );
        assert!(ours.log.contains(&source.url), "{}", ours.log);
        let other = real_host::pointer::fetch(
            &lab,
            &pointer,
            &source,
            &cert,
            &key,
            SERVED_CONFIG,
            &dir.join("other"),
        )
        .expect("the fetch ran");
        assert!(
            !other.accepted
                && other
                    .log
                    .contains("x509: certificate signed by unknown authority"),
            "{pool}.ign against a server of another CA was not refused by Ignition:\n{}",
            other.log
        );
        assert!(
            !other
                .root
                .join(SERVED_PATH.trim_start_matches('/'))
                .exists()
        );
    }
}

/// A CA of its own and a server certificate for `host` signed by it (the names the real
/// server's certificate has), with openssl; the certificate and key paths.
pub(crate) fn other_ca_certificate(
    dir: &Path,
    host: &str,
) -> (std::path::PathBuf, std::path::PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .current_dir(dir)
            .args(args)
            .output()
            .expect("run openssl");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            crate::support::both(&out)
        );
    };
    run(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=another CA",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
    ]);
    run(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        &format!("/CN={host}"),
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
    ]);
    let san = match host.parse::<std::net::IpAddr>() {
        Ok(_) => format!("subjectAltName=IP:{host}\n"),
        Err(_) => format!("subjectAltName=DNS:{host}\n"),
    };
    std::fs::write(dir.join("server.ext"), san).unwrap();
    run(&[
        "x509",
        "-req",
        "-days",
        "2",
        "-CAcreateserial",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-extfile",
        "server.ext",
        "-out",
        "server.crt",
    ]);
    (dir.join("server.crt"), dir.join("server.key"))
}

/// A fault of the site, injected at its real cause on the running host's network or files,
/// and removed again.
struct Fault {
    name: &'static str,
    /// What the lab or the host is made to do.
    inject: fn(&mut Site),
    /// The fix.
    remove: fn(&mut Site),
    /// Words of the line the node image pull writes to the host's journal under the fault;
    /// `wait-for`, `gather` and `analyze` each quote that line as their evidence.
    journal: &'static [&'static str],
    /// The cause they name it as.
    cause: Cause,
    /// How their cause line begins: the image whose pull failed ([`RELEASE_PULL`] or
    /// [`COMPONENT_PULL`]), or the cause's summary.
    image: &'static str,
    /// Why, in their words: the registry and its answer. No other fault's diagnosis says it.
    /// Empty for a fault that is no pull's (the full /var): the cause's own words are all.
    why: &'static str,
    /// The class the registry-error reader gives the quoted line, for the classes the
    /// analysis did not know before #50: with it, the repository on the registry
    /// (`` `REGISTRY/REPOSITORY` ``) the cause or its fix must name; no advice the class
    /// does not support may be given.
    class: Option<(RegistryFault, &'static str)>,
}

/// The pull that failed, as the diagnosis words it: the release image, in which the node
/// image is looked up, or the component image the lookup runs (the machine-config
/// operator's).
const RELEASE_PULL: &str = "the bootstrap host could not pull the release image \
     `quay.io/okd/scos-release@sha256:";
const COMPONENT_PULL: &str = "the bootstrap host could not pull the release's component \
     image `quay.io/okd/scos-content@sha256:";

/// The repository on the mirror a diagnosis names (in its cause or its fix) for a pull of
/// the release image, and of the component image.
const RELEASE_AT_MIRROR: &str = "`registry.example.com:5000/okd/scos-release`";
const CONTENT_AT_MIRROR: &str = "`registry.example.com:5000/okd/scos-content`";
/// What the front takes: the requests for the component images' manifests.
const CONTENT_MANIFESTS: &str = "/v2/okd/scos-content/manifests/";
/// The port of the lab address the fault front listens on; the host's connections to the
/// registry go there while a fault needs it.
const FRONT_PORT: u16 = 5001;

/// The pull's words for a registry it cannot reach at all.
const UNREACHABLE: &[&str] = &["registry.example.com:5000", "pinging container registry"];

/// Puts the registry back, serving its own valid certificate.
fn serve_trusted(site: &mut Site) {
    site.registry
        .serve(&site.machine.lab, Certificate::Trusted)
        .expect("start the registry");
}

/// The faults, in the order one host goes through them. The first is there from the boot
/// on: the mirror unreachable (neither the registry nor the site's name server answers);
/// every later one is injected on the host that recovered from the one before. The last is
/// the state the host recovers to after each: the component image the mirror does not hold.
const FAULTS: &[Fault] = &[
    Fault {
        name: "mirror unreachable from the boot on",
        inject: |_| {},
        remove: |site| {
            site.registry
                .answer_name(&site.machine.lab, true)
                .expect("start the name server");
            serve_trusted(site);
        },
        journal: UNREACHABLE,
        cause: Cause::ReleaseImagePull,
        image: RELEASE_PULL,
        // The resolver the line names is the host's (or, before its network is set up, Go's
        // fallback on the loopback address).
        why: "its mirror `registry.example.com:5000`'s name could not be looked up: the host's \
              resolver (",
        class: None,
    },
    Fault {
        name: "registry down",
        inject: |site| site.registry.stop_serving(),
        remove: serve_trusted,
        journal: &["registry.example.com:5000", "connect: connection refused"],
        cause: Cause::ReleaseImagePull,
        image: COMPONENT_PULL,
        why: "its mirror `registry.example.com:5000` refused the connection: nothing listens on \
              its port (dialled 198.18.0.1:5000)",
        class: None,
    },
    Fault {
        name: "registry's CA not trusted",
        inject: |site| {
            site.registry
                .serve(&site.machine.lab, Certificate::OtherCa)
                .expect("serve another CA's certificate");
        },
        remove: serve_trusted,
        journal: &["x509: certificate signed by unknown authority"],
        cause: Cause::ReleaseImagePull,
        image: COMPONENT_PULL,
        why: "its mirror `registry.example.com:5000`'s certificate is signed by a CA the host \
              does not trust",
        class: None,
    },
    Fault {
        name: "registry's name not resolvable",
        inject: |site| {
            site.registry
                .answer_name(&site.machine.lab, false)
                .expect("restart the name server");
        },
        remove: |site| {
            site.registry
                .answer_name(&site.machine.lab, true)
                .expect("restart the name server");
        },
        journal: &["registry.example.com", "no such host"],
        cause: Cause::ReleaseImagePull,
        image: COMPONENT_PULL,
        why: "its mirror `registry.example.com:5000` does not resolve on the host (asked the \
              resolver 198.18.0.1:53)",
        class: None,
    },
    Fault {
        name: "mirror rule missing",
        inject: |site| site.mirror_rule(false),
        remove: |site| site.mirror_rule(true),
        journal: &["quay.io", "no such host"],
        cause: Cause::ReleaseImagePull,
        image: COMPONENT_PULL,
        why: "because `quay.io` does not resolve on the host (asked the resolver \
              198.18.0.1:53); no mirror was tried for it",
        class: None,
    },
    Fault {
        name: "registry certificate not valid yet",
        inject: |site| {
            site.registry
                .serve(&site.machine.lab, Certificate::NotYetValid)
                .expect("serve tomorrow's certificate");
        },
        remove: serve_trusted,
        journal: &["x509: certificate has expired or is not yet valid"],
        cause: Cause::CertificatesNotYetValid,
        image: COMPONENT_PULL,
        why: "its mirror `registry.example.com:5000`'s certificate is not valid yet on the \
              host's clock",
        class: None,
    },
    Fault {
        name: "registry certificate for another name",
        inject: |site| {
            site.registry
                .serve(&site.machine.lab, Certificate::OtherName)
                .expect("serve another name's certificate");
        },
        remove: serve_trusted,
        journal: &["x509: certificate is valid for"],
        cause: Cause::ReleaseImagePull,
        image: COMPONENT_PULL,
        why: "its mirror `registry.example.com:5000`'s certificate is for other names (it is \
              valid for other.example.com, not registry.example.com)",
        class: None,
    },
    Fault {
        name: "pull secret without the mirror's credentials",
        inject: |site| site.pull_secret(PullSecret::WithoutMirror),
        remove: |site| site.pull_secret(PullSecret::AsCreated),
        journal: &["registry.example.com:5000/okd/scos-content", "unauthorized"],
        cause: Cause::ReleaseImagePull,
        image: COMPONENT_PULL,
        why: "its mirror `registry.example.com:5000` wants credentials: the pull secret has \
              none for it (401)",
        class: None,
    },
    Fault {
        name: "pull secret with wrong credentials for the mirror",
        inject: |site| site.pull_secret(PullSecret::WrongPassword),
        remove: |site| site.pull_secret(PullSecret::AsCreated),
        journal: &["registry.example.com:5000/okd/scos-content", "unauthorized"],
        cause: Cause::ReleaseImagePull,
        image: COMPONENT_PULL,
        why: "its mirror `registry.example.com:5000` refused the pull secret's credentials for \
              it (401)",
        class: None,
    },
    Fault {
        name: "release image not mirrored",
        inject: |site| site.release_mirrored(false),
        remove: |site| site.release_mirrored(true),
        journal: &["registry.example.com:5000/okd/scos-release", "unknown"],
        cause: Cause::ReleaseImagePull,
        image: RELEASE_PULL,
        why: "its mirror `registry.example.com:5000` does not hold \
              `registry.example.com:5000/okd/scos-release@sha256:",
        class: None,
    },
    Fault {
        name: "a layer of the release image missing from the mirror (a mirror left incomplete)",
        inject: |site| site.release_layer(Layer::Missing),
        remove: |site| site.release_layer(Layer::Whole),
        journal: &["reading blob sha256:", "404"],
        cause: Cause::ReleaseImagePull,
        image: RELEASE_PULL,
        why: "because `registry.example.com:5000` has the manifest but not blob `sha256:",
        class: Some((RegistryFault::BlobUnknown, RELEASE_AT_MIRROR)),
    },
    Fault {
        name: "a layer of the release image damaged in the mirror's storage",
        inject: |site| site.release_layer(Layer::Damaged),
        remove: |site| site.release_layer(Layer::Whole),
        // podman decompresses the layer as it stores it: the stream breaks before any
        // digest is checked.
        journal: &["writing blob", "flate: corrupt input"],
        cause: Cause::ReleaseImagePull,
        image: RELEASE_PULL,
        why: "because what `registry.example.com:5000` served for \
              `registry.example.com:5000/okd/scos-release` is damaged: its compressed data does \
              not decompress (flate: corrupt input before offset",
        class: Some((RegistryFault::DigestMismatch, RELEASE_AT_MIRROR)),
    },
    Fault {
        name: "the mirror answering 503 Service Unavailable (behind its load balancer)",
        inject: |site| {
            site.through_front(Rule::on(
                CONTENT_MANIFESTS,
                Action::Answer {
                    status: 503,
                    headers: vec![("content-type".into(), "text/plain".into())],
                    body: b"no server is available to handle this request\n".to_vec(),
                },
            ));
        },
        remove: Site::direct,
        journal: &["scos-content", "503"],
        cause: Cause::ReleaseImagePull,
        image: COMPONENT_PULL,
        why: "failed with a server error while",
        class: Some((RegistryFault::ServerError, CONTENT_AT_MIRROR)),
    },
    Fault {
        name: "the mirror answering 429 Too Many Requests",
        inject: |site| {
            let mut rule = Rule::registry_error(CONTENT_MANIFESTS, 429, "TOOMANYREQUESTS");
            // Without it containers/image backs off for half a minute before it says so.
            if let Action::Answer { headers, .. } = &mut rule.action {
                headers.push(("retry-after".into(), "1".into()));
            }
            site.through_front(rule);
        },
        remove: Site::direct,
        journal: &["scos-content", "toomanyrequests"],
        cause: Cause::ReleaseImagePull,
        image: COMPONENT_PULL,
        why: "too many requests",
        class: Some((RegistryFault::TooManyRequests, CONTENT_AT_MIRROR)),
    },
    Fault {
        name: "the connection to the mirror closed before its answer",
        inject: |site| site.through_front(Rule::on(CONTENT_MANIFESTS, Action::Drop)),
        remove: Site::direct,
        journal: &["scos-content/manifests", "EOF"],
        cause: Cause::ReleaseImagePull,
        image: COMPONENT_PULL,
        why: "broke in the middle of an answer",
        class: Some((RegistryFault::ConnectionReset, CONTENT_AT_MIRROR)),
    },
    Fault {
        name: "component image not mirrored (where every recovery ends)",
        inject: |_| {},
        remove: |_| {},
        journal: &[
            "registry.example.com:5000/okd/scos-content",
            "manifest unknown",
        ],
        cause: Cause::ReleaseImagePull,
        image: COMPONENT_PULL,
        why: "its mirror `registry.example.com:5000` does not hold \
              `registry.example.com:5000/okd/scos-content@sha256:",
        class: None,
    },
    Fault {
        name: "/var full",
        // The host's whole disk, as a full /var leaves it on CoreOS (/var/home included):
        // the gather script writes its bundle to a memory file system instead.
        inject: |site| site.machine.fill_disk().expect("fill the host's disk"),
        remove: |site| site.machine.free_disk().expect("free the host's disk"),
        journal: &["no space left on device"],
        cause: Cause::DiskFull,
        image: "the bootstrap host ran out of disk space",
        why: "",
        class: None,
    },
];

/// The host's pull secret: as okd-install wrote it, without the mirror's entry, or with the
/// mirror's user and a wrong password.
#[derive(Debug, Clone, Copy)]
enum PullSecret {
    AsCreated,
    WithoutMirror,
    WrongPassword,
}

/// The troubleshooting table says which causes are proven on the real host
/// ([`contract::cause::PROVEN_ON_REAL_HOST`]): exactly those the faults here are named as, so
/// that the table claims no fault this test does not inject (and the faults test fails when
/// one is not named).
#[test]
fn the_troubleshooting_tables_real_host_causes_are_the_faults_named_here() {
    let named: std::collections::BTreeSet<Cause> = FAULTS.iter().map(|fault| fault.cause).collect();
    let table: std::collections::BTreeSet<Cause> =
        contract::cause::PROVEN_ON_REAL_HOST.into_iter().collect();
    assert_eq!(named, table);
}

/// The host's registries.conf, where okd-install's mirror rules are.
const REGISTRIES_CONF: &str = "etc/containers/registries.conf";
/// The host's pull secret, as node-image-pull and podman read it.
const PULL_SECRET: &str = "root/.docker/config.json";
/// The mirror rule of the release's component images, as okd-install writes it.
const CONTENT_MIRROR: &str =
    "[[registry.mirror]]\nlocation = \"registry.example.com:5000/okd/scos-content\"\n";

/// A release image layer in the mirror's storage: whole, missing or damaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layer {
    Whole,
    Missing,
    Damaged,
}

/// A booted disconnected host, its mirror and the installer's side.
struct Site {
    /// The fault front on [`FRONT_PORT`], in the registry's place while a fault needs it
    /// (dropped before the lab it serves in).
    front: Front,
    registry: Registry,
    machine: Machine,
    install: std::path::PathBuf,
    /// The lab's hosts file, where the API name resolves to the bootstrap host.
    hosts: std::path::PathBuf,
    /// What the host's registries.conf said as okd-install wrote it.
    registries_conf: String,
    /// What the host's pull secret said as okd-install wrote it.
    pull_secret: String,
    /// The release image's pull spec.
    release_image: String,
    /// The release image's layer in the mirror, and its state.
    release_layer: (String, Layer),
}

impl Site {
    /// Takes the component images' mirror rule out of the host's registries.conf, or puts
    /// the file back as okd-install wrote it.
    fn mirror_rule(&mut self, present: bool) {
        let path = self.machine.root.join(REGISTRIES_CONF);
        let text = if present {
            self.registries_conf.clone()
        } else {
            assert!(self.registries_conf.contains(CONTENT_MIRROR));
            self.registries_conf.replace(CONTENT_MIRROR, "")
        };
        std::fs::write(&path, text).expect("write the host's registries.conf");
    }

    /// Writes the host's pull secret (the file its pulls read) as `secret` says.
    fn pull_secret(&mut self, secret: PullSecret) {
        let path = self.machine.root.join(PULL_SECRET);
        let mut value: serde_json::Value =
            serde_json::from_str(&self.pull_secret).expect("the pull secret is JSON");
        let mirror = format!("{MIRROR_NAME}:{}", real_host::registry::PORT);
        let auths = value["auths"].as_object_mut().expect("auths");
        assert!(auths.contains_key(&mirror), "{mirror} in {auths:?}");
        match secret {
            PullSecret::AsCreated => {}
            PullSecret::WithoutMirror => {
                auths.remove(&mirror);
            }
            PullSecret::WrongPassword => {
                let login = format!("{MIRROR_USER}:not-{MIRROR_PASSWORD}");
                auths[&mirror] = serde_json::json!({
                    "auth": base64::Engine::encode(
                        &base64::engine::general_purpose::STANDARD,
                        login
                    )
                });
            }
        }
        std::fs::write(&path, value.to_string()).expect("write the host's pull secret");
    }

    /// Takes the release image out of the mirror and off the host (so the host pulls it
    /// again), or puts it back in the mirror.
    fn release_mirrored(&mut self, mirrored: bool) {
        if !mirrored {
            self.forget_release();
        }
        self.registry
            .hold_repository(RELEASE_PATH, mirrored)
            .expect("move the release's repository");
    }

    /// Takes the release image off the host, so that its next lookup pulls it again.
    fn forget_release(&self) {
        let said = self
            .machine
            .said(&["podman", "rmi", "--force", &self.release_image]);
        assert!(
            !said.contains("Error"),
            "removing the release image: {said}"
        );
    }

    /// Puts the release image's layer in the mirror's storage in `state` (taking the
    /// release image off the host when it breaks the layer, so that the host fetches it).
    fn release_layer(&mut self, state: Layer) {
        let (digest, now) = self.release_layer.clone();
        if state != Layer::Whole {
            self.forget_release();
        }
        let registry = &self.registry;
        match (now, state) {
            (Layer::Whole, Layer::Missing) => registry.hold_blob(&digest, false),
            (Layer::Missing, Layer::Whole) => registry.hold_blob(&digest, true),
            (Layer::Whole, Layer::Damaged) | (Layer::Damaged, Layer::Whole) => {
                registry.flip_blob(&digest)
            }
            (from, to) => panic!("the test goes from {from:?} to {to:?}"),
        }
        .expect("change the layer in the mirror's storage");
        self.release_layer.1 = state;
    }

    /// Sends the host's pulls through the fault front, which answers the requests `rule`
    /// takes as it says (and forwards the rest).
    fn through_front(&mut self, rule: Rule) {
        self.front.set_rules(vec![rule]);
        self.machine
            .lab
            .redirect(real_host::registry::PORT, Some(FRONT_PORT))
            .expect("send the host's pulls to the front");
    }

    /// Sends the host's pulls to the registry again.
    fn direct(&mut self) {
        self.machine
            .lab
            .redirect(real_host::registry::PORT, None)
            .expect("send the host's pulls to the registry");
        self.front.set_rules(Vec::new());
    }

    /// The node image pull's journal lines after the first `skip`.
    fn pull_lines(&self, skip: usize) -> Vec<String> {
        self.machine
            .journal(PULL)
            .lines()
            .skip(skip)
            .map(str::to_string)
            .collect()
    }

    /// Waits until a line of the pull's journal after the first `skip` has every word of
    /// `words`; the line, or the journal since then.
    fn wait_for_line(&self, skip: usize, words: &[&str], what: &str) -> Result<String, String> {
        let mut found = None;
        let waited = self.machine.wait_for(what, SETTLE_SECONDS, |_| {
            found = self
                .pull_lines(skip)
                .into_iter()
                .find(|l| words.iter().all(|w| l.contains(w)));
            Ok(found.is_some())
        });
        match (waited, found) {
            (Ok(()), Some(line)) => Ok(line),
            (e, _) => Err(format!(
                "{e:?}\n{PULL}'s journal since:\n{}",
                self.pull_lines(skip).join("\n")
            )),
        }
    }

    /// `gather bootstrap --bootstrap HOST` from the lab's side.
    fn gather(&self) -> std::process::Output {
        std::process::Command::new("nsenter")
            .arg(format!("--net=/run/netns/{}", self.machine.lab.lab_netns))
            .arg(crate::support::bin_path())
            .args([
                "gather",
                "bootstrap",
                "--bootstrap",
                real_host::HOST_ADDRESS,
                "--dir",
            ])
            .arg(&self.install)
            .env_remove("SSH_AUTH_SOCK")
            .output()
            .expect("run okd-install gather")
    }

    /// `wait-for bootstrap-complete --bootstrap HOST`, `gather bootstrap` and `analyze` of
    /// the new bundle, as an administrator runs them from the lab's side; what each printed.
    fn diagnose(&self) -> [(String, std::process::Output); 3] {
        let lab = &self.machine.lab.lab_netns;
        // wait-for where the API name resolves to the bootstrap host (as a site's DNS has
        // it) and nothing answers there yet: it reads the host's records over SSH.
        let wait = std::process::Command::new("nsenter")
            .arg(format!("--net=/run/netns/{lab}"))
            .args(["unshare", "--mount", "--propagation", "private", "sh", "-c"])
            .arg(format!(
                "mount --bind '{}' /etc/hosts && exec \"$@\"",
                self.hosts.display()
            ))
            .arg("wait-for-in-lab")
            .arg(crate::support::bin_path())
            .args([
                "wait-for",
                "bootstrap-complete",
                "--timeout",
                "5s",
                "--bootstrap",
            ])
            .arg(real_host::HOST_ADDRESS)
            .arg("--dir")
            .arg(&self.install)
            .env_remove("SSH_AUTH_SOCK")
            .output()
            .expect("run okd-install wait-for");
        // wait-for may leave a bundle of its own (named by the second, like gather's): only
        // gather's is read here.
        for old in bundles(&self.install) {
            std::fs::remove_file(&old).expect("remove an earlier bundle");
        }
        let gather = self.gather();
        let bundle = bundles(&self.install)
            .into_iter()
            .next()
            .unwrap_or_else(|| {
                panic!(
                    "no new log bundle in {}:\n{}",
                    self.install.display(),
                    crate::support::both(&gather)
                )
            });
        let analyze = std::process::Command::new(crate::support::bin_path())
            .arg("analyze")
            .arg(&bundle)
            .output()
            .expect("run okd-install analyze");
        [
            ("wait-for".to_string(), wait),
            ("gather".to_string(), gather),
            ("analyze".to_string(), analyze),
        ]
    }
}

/// The log bundles in `dir`.
fn bundles(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .expect("the install directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".tar.gz"))
        .collect()
}

/// The text of the file of `bundle` (a `.tar.gz`) whose path ends with `tail`.
fn bundled_file(bundle: &Path, tail: &str) -> Option<String> {
    let file = std::fs::File::open(bundle).expect("open the bundle");
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let entries = archive.entries().expect("the bundle's entries");
    for entry in entries {
        let mut entry = entry.expect("a bundle entry");
        let path = entry
            .path()
            .expect("its path")
            .to_string_lossy()
            .to_string();
        if path.ends_with(tail) {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut entry, &mut text).expect("read it");
            return Some(text);
        }
    }
    None
}

/// What is wrong with the registries.conf of gather's bundle in `install`: it must be the
/// host's file as the host has it now (the mirror routing its pulls took, a fault's edit
/// included), where the analysis reads it.
fn registries_conf_not_gathered(install: &Path, host: &str) -> Option<String> {
    let tail = format!("{}/registries.conf", contract::REGISTRIES_CONF_DIR);
    let bundle = bundles(install).into_iter().next()?;
    match bundled_file(&bundle, &tail) {
        Some(text) if text == host => None,
        Some(text) => Some(format!(
            "gather's {tail} is not the host's registries.conf:\n{text}\n--- the host's:\n{host}"
        )),
        None => Some(format!("gather's bundle has no {tail}")),
    }
}

/// The lines of a diagnosis in okd-install's own words (not the host's quoted lines).
fn own_words(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            [
                "cause (",
                "what to do: ",
                "Problem: ",
                "Cause (",
                "  Next: ",
            ]
            .iter()
            .any(|p| l.starts_with(p))
        })
        .collect()
}

/// What is wrong with a diagnosis of `fault` (`text`, from `wait-for` when `report` is false,
/// else `gather`'s or `analyze`'s report): it must name the fault's cause once, at
/// node-image-pull and its lookup stage, in the reader's words (which image, which registry,
/// why), quote one of the host's `lines` (the pull retries, each writing the fault's line
/// again) as evidence, say none of the `others`' words, and, in a report, say the same in
/// the Problem line and the cause of the component, with the same fix everywhere. The
/// summary it named, when it named one.
fn misworded(
    text: &str,
    report: bool,
    fault: &Fault,
    lines: &[String],
    others: &[&Fault],
) -> (Option<String>, Vec<String>) {
    let mut wrong = Vec::new();
    let causes: Vec<&str> = text.lines().filter(|l| l.starts_with("cause (")).collect();
    let [cause] = causes.as_slice() else {
        return (
            None,
            vec![format!("names {} causes: {causes:?}", causes.len())],
        );
    };
    let place = format!(
        " [node-image-pull.service, stage {}]",
        contract::NODE_IMAGE_LOOKUP_STAGE
    );
    let head = format!("cause ({}): ", fault.cause.id());
    // A pull's is placed at the lookup stage; another fault's wherever its line showed.
    let pull = !fault.why.is_empty();
    let summary = cause
        .strip_prefix(&head)
        .and_then(|c| match pull {
            true => c.strip_suffix(&place),
            false => Some(c.rsplit_once(" [").map_or(c, |(s, _)| s)),
        })
        .map(str::to_string);
    match &summary {
        Some(s) if s.starts_with(fault.image) && s.contains(fault.why) => {}
        _ => wrong.push(format!(
            "its cause line is not `{head}{}...{}...{place}`: {cause}",
            fault.image, fault.why
        )),
    }
    let quotes = text
        .lines()
        .any(|l| l.starts_with("evidence:") && lines.iter().any(|line| l.ends_with(line.as_str())));
    if !quotes {
        wrong.push(format!(
            "does not quote the host's line {:?}",
            fault.journal
        ));
    }
    let remedy = text
        .lines()
        .find_map(|l| l.strip_prefix("what to do: "))
        .unwrap_or_default();
    let words = own_words(text);
    if report
        && pull
        && let Some(summary) = &summary
    {
        let problem = format!(
            "Problem: node-image-pull.service had not finished (in stage {}) when the logs \
             were gathered: {summary}.",
            contract::NODE_IMAGE_LOOKUP_STAGE
        );
        let component = format!(
            "Cause (node image): {summary} (node-image-pull.service, stage {}).",
            contract::NODE_IMAGE_LOOKUP_STAGE
        );
        let next = format!("  Next: {remedy}.");
        for want in [&problem, &component] {
            if !words.contains(&want.as_str()) {
                wrong.push(format!("does not say {want:?}"));
            }
        }
        if words.iter().filter(|l| **l == next).count() != 2 {
            wrong.push(format!(
                "the Problem's and the cause's Next are not {next:?}"
            ));
        }
    }
    for other in others.iter().filter(|o| !o.why.is_empty()) {
        if words.iter().any(|l| l.contains(other.why)) {
            wrong.push(format!(
                "says {:?} of another fault ({})",
                other.why, other.name
            ));
        }
    }
    (summary, wrong)
}

/// What is wrong with a diagnosis (`text`) of a fault of a class the analysis did not know
/// before #50 (none for the others): the line it quotes as evidence must be the pull's own
/// error line, which the registry-error reader reads as the fault's class (not a retry
/// line of our scripts); its cause line must name the registry and the repository; and no
/// sentence of its own may give advice (credentials, trust, mirror rules) the class does
/// not support.
fn misread(text: &str, fault: &Fault, lines: &[String]) -> Vec<String> {
    let Some((class, repository)) = fault.class else {
        return Vec::new();
    };
    let mut wrong = Vec::new();
    let quoted: Vec<&String> = text
        .lines()
        .filter(|l| l.starts_with("evidence:"))
        .filter_map(|l| lines.iter().find(|line| l.ends_with(line.as_str())))
        .collect();
    for line in &quoted {
        let read = contract::registry_error::read_pull(line)
            .and_then(|pull| pull.first().map(|e| e.fault));
        if read != Some(class) {
            wrong.push(format!(
                "quotes a line the reader reads as {:?}, not {}: {line}",
                read.map(RegistryFault::id),
                class.id()
            ));
        }
    }
    if quoted.is_empty() {
        wrong.push("quotes none of the pull's own lines as evidence".to_string());
    }
    let said: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("cause (") || l.starts_with("what to do: "))
        .collect();
    if !said.iter().any(|l| l.contains(repository)) {
        wrong.push(format!(
            "neither its cause nor its fix names {repository}: {said:?}"
        ));
    }
    let unsupported = crate::pull_matrix::unsupported_advice(class, &own_words(text).join("\n"));
    if !unsupported.is_empty() {
        wrong.push(format!(
            "gives advice a {} fault does not support: {unsupported:?}",
            class.id()
        ));
    }
    wrong
}

/// What is wrong with gather's account of where the bundle was under `fault`: with the disk
/// full, the host cannot write the bundle into core's home directory; gather must say that it
/// wrote it to /tmp (a memory file system) instead, in the words of tar and gzip.
fn bundle_not_moved(fault: &Fault, gather: &std::process::Output) -> Option<String> {
    if fault.cause != Cause::DiskFull {
        return None;
    }
    let moved = crate::support::stderr(gather).lines().any(|l| {
        l.contains("the bootstrap host could not write its bundle to /home/core/log-bundle-")
            && l.contains("No space left on device")
            && l.contains("; it wrote it to /tmp/log-bundle-")
    });
    (!moved).then(|| "does not say the host wrote its bundle to /tmp for want of room".into())
}

/// Faults on the real host, diagnosed the way an administrator diagnoses them, and fixed.
/// One disconnected-mirror host (as in the test above, its release image on a registry of
/// the lab) goes through [`FAULTS`] in turn, each at its real cause (the lab's registry, name
/// server or certificates, the host's registries.conf or pull secret, what the mirror
/// holds, a layer missing from or damaged in its storage, or the fault front the lab puts
/// in the registry's place answering 503, 429 or nothing): the node image pull writes the
/// fault's own line to the host's journal;
/// `okd-install wait-for bootstrap-complete --bootstrap HOST` ends with exit code 10,
/// `gather bootstrap` (over the host's real sshd, as core with the bootstrap key Ignition
/// installed, the real gather script reading the real journal) collects a bundle, and
/// `analyze` of it names the cause. Each of the three quotes the host's line and says, in
/// the registry-error reader's words, which image failed (the release image or the
/// component image the node image lookup runs), in node-image-pull's lookup stage, from
/// which registry and why, and no other fault's words; gather's and analyze's Problem line
/// and component cause say the same, with the same fix; no two faults read the same (what
/// they say of every fault is printed); for the classes the analysis did not read before
/// #50, the quoted line reads as the fault's class and the repository on the mirror is
/// named ([`misread`]); every bundle holds the host's registries.conf. Then the fault is
/// removed and the same host
/// recovers: its pull gets as far as the good run gets (the operator image the mirror does
/// not hold). A full /var is named disk-full by all three, and gather says it wrote the
/// bundle to a memory file system for want of room. Last, a gather key the host refuses
/// ([`refused_gather_key`]).
#[test]
fn real_host_faults_are_named_by_wait_for_gather_and_analyze_and_recovered_from() {
    let missing = real_host::missing();
    if !testkit::require(missing.is_empty(), &missing.join("; ")) {
        return;
    }
    let image = RootImage::ensure().unwrap_or_else(|e| panic!("making the host root: {e}"));
    let work = tempfile::tempdir().expect("temp dir");
    let lab = real_host::Lab::create("faults").expect("the lab network");
    let MirrorSite {
        mut registry,
        components,
        digest,
        release_image,
        config,
    } = mirror_site(&lab, work.path());
    let layers = registry
        .layers_of(&digest)
        .expect("the release image's layers");
    let [layer] = layers.as_slice() else {
        panic!("the release image has one layer: {layers:?}")
    };
    let release_layer = (layer.clone(), Layer::Whole);
    // The first fault: the site's mirror and name server are not up when the host boots.
    registry.stop_serving();
    registry.stop_name_server();
    let machine = real_host::boot_on(&image, lab, &config, &work.path().join("host"))
        .unwrap_or_else(|e| panic!("booting the host: {e}"));
    let hosts = work.path().join("hosts");
    std::fs::write(
        &hosts,
        format!(
            "127.0.0.1 localhost\n{} api.disconnected.example.com\n",
            real_host::HOST_ADDRESS
        ),
    )
    .expect("write the lab's hosts file");
    let registries_conf = std::fs::read_to_string(machine.root.join(REGISTRIES_CONF))
        .expect("the host's registries.conf");
    let pull_secret =
        std::fs::read_to_string(machine.root.join(PULL_SECRET)).expect("the host's pull secret");
    let (cert, key) = registry.trusted_files();
    let front = Front::start(
        &machine.lab.lab_netns,
        &registry,
        FRONT_PORT,
        Serving::Tls { cert, key },
        Vec::new(),
    )
    .expect("start the fault front");
    let mut site = Site {
        front,
        registry,
        machine,
        install: work.path().join("install"),
        hosts,
        registries_conf,
        pull_secret,
        release_image,
        release_layer,
    };
    let mco_digest = components[0]
        .pull_spec
        .rsplit_once('@')
        .expect("a digest")
        .1
        .to_string();
    let recovered: &[&str] = &[&mco_digest, "manifest unknown"];
    let mut problems = Vec::new();
    let mut report = Vec::new();
    let mut summaries: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for fault in FAULTS {
        let started = std::time::Instant::now();
        let skip = site.pull_lines(0).len();
        (fault.inject)(&mut site);
        let line = match site.wait_for_line(skip, fault.journal, fault.name) {
            Ok(line) => line,
            Err(e) => {
                problems.push(format!(
                    "{}: the host never said {:?}: {e}",
                    fault.name, fault.journal
                ));
                (fault.remove)(&mut site);
                continue;
            }
        };
        let said = site.diagnose();
        let host_lines: Vec<String> = site
            .pull_lines(skip)
            .into_iter()
            .filter(|l| fault.journal.iter().all(|w| l.contains(w)))
            .collect();
        let mut text = format!("== {}\nthe host's line: {line}\n", fault.name);
        for (command, out) in &said {
            text.push_str(&format!(
                "-- okd-install {command} (exit {:?}):\n{}\n",
                out.status.code(),
                crate::support::both(out)
            ));
        }
        let [(_, wait), (_, gather), (_, analyze)] = &said;
        if wait.status.code() != Some(10) {
            problems.push(format!("{}: wait-for did not exit 10\n{text}", fault.name));
        }
        if !gather.status.success() {
            problems.push(format!("{}: gather failed\n{text}", fault.name));
        }
        let others: Vec<&Fault> = FAULTS.iter().filter(|f| f.name != fault.name).collect();
        for (command, out, stream, report) in [
            ("wait-for", wait, crate::support::stderr(wait), false),
            ("gather", gather, crate::support::stdout(gather), true),
            ("analyze", analyze, crate::support::stdout(analyze), true),
        ] {
            let (said, mut wrong) = misworded(&stream, report, fault, &host_lines, &others);
            wrong.extend(misread(&stream, fault, &host_lines));
            for wrong in wrong {
                problems.push(format!(
                    "{}: {command} (exit {:?}) {wrong}\n{text}",
                    fault.name,
                    out.status.code()
                ));
            }
            // The three commands say the fault the same way; no two faults read the same.
            if let Some(said) = said {
                summaries.entry(said).or_default().push(fault.name);
            }
        }
        let host_conf = std::fs::read_to_string(site.machine.root.join(REGISTRIES_CONF))
            .expect("the host's registries.conf");
        if let Some(wrong) = registries_conf_not_gathered(&site.install, &host_conf) {
            problems.push(format!("{}: {wrong}", fault.name));
        }
        if let Some(wrong) = bundle_not_moved(fault, gather) {
            problems.push(format!("{}: gather {wrong}\n{text}", fault.name));
        }
        let skip = site.pull_lines(0).len();
        (fault.remove)(&mut site);
        if let Err(e) = site.wait_for_line(skip, recovered, "the host to recover") {
            problems.push(format!("{}: the host did not recover: {e}", fault.name));
        }
        text.push_str(&format!(
            "(fault, diagnosis and recovery in {:.0?})\n",
            started.elapsed()
        ));
        report.push(text);
    }
    for (summary, faults) in &summaries {
        let mut faults = faults.clone();
        faults.dedup();
        if faults.len() > 1 {
            problems.push(format!("{faults:?} all read {summary:?}"));
        }
    }
    if summaries.len() != FAULTS.len() {
        problems.push(format!(
            "{} faults read {} ways (each command must say a fault the same way): {:#?}",
            FAULTS.len(),
            summaries.len(),
            summaries
        ));
    }
    problems.extend(refused_gather_key(&site, &mut report));
    eprintln!("{}", report.join("\n"));
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// Where Ignition put core's authorized keys on the host (the install-config's key and the
/// bootstrap key).
const CORE_KEYS: &str = "home/core/.ssh/authorized_keys.d/ignition";

/// A gather key the host refuses: core's keys taken off the host, `gather bootstrap` must
/// fail saying so while the host's sshd logs the refusal; with the keys back, gather works.
fn refused_gather_key(site: &Site, report: &mut Vec<String>) -> Vec<String> {
    let mut problems = Vec::new();
    let keys = site.machine.root.join(CORE_KEYS);
    let authorized = std::fs::read_to_string(&keys).expect("core's keys");
    std::fs::write(&keys, "").expect("take core's keys off the host");
    let sshd = |m: &Machine| {
        m.said(&[
            "journalctl",
            "--boot",
            "--no-pager",
            "--output=cat",
            "--identifier=sshd",
        ])
    };
    let skip = sshd(&site.machine).lines().count();
    let refused = site.gather();
    // sshd logs the refusal once the client has gone.
    let refusal = format!(
        "Connection closed by authenticating user core {}",
        real_host::LAB_ADDRESS
    );
    let mut sshd_said = Vec::new();
    let host_refused = site
        .machine
        .wait_for("sshd to log the refusal", 30, |m| {
            sshd_said = sshd(m).lines().skip(skip).map(str::to_string).collect();
            Ok(sshd_said.iter().any(|l| l.starts_with(&refusal)))
        })
        .is_ok();
    std::fs::write(&keys, &authorized).expect("put core's keys back");
    let recovered = site.gather();
    report.push(format!(
        "== gather key refused\nthe host's sshd:\n{}\n-- okd-install gather (exit {:?}):\n{}\n-- with the keys back (exit {:?}):\n{}",
        sshd_said.join("\n"),
        refused.status.code(),
        crate::support::both(&refused),
        recovered.status.code(),
        crate::support::stderr(&recovered),
    ));
    let said = crate::support::stderr(&refused);
    if refused.status.success()
        || !said.contains(&format!(
            "cannot log in to core@{}:22: the server rejected every key offered",
            real_host::HOST_ADDRESS
        ))
        || !said
            .lines()
            .any(|l| l.contains("generated bootstrap key") && l.ends_with("rejected"))
        || !host_refused
    {
        problems.push(format!(
            "gather with a key the host refuses does not say so, or the host did not refuse it\n{}",
            report.last().map(String::as_str).unwrap_or_default()
        ));
    }
    if !recovered.status.success() {
        problems.push("gather failed with the keys back".to_string());
    }
    problems
}
