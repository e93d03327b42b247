//! Boot media booted the way machines boot them (`testing/vm`): a QEMU machine under TCG with
//! SeaBIOS, the real iPXE ROM or the CD-ROM's isolinux, the Debian kernel, a dracut initramfs
//! in which the real Ignition runs its stages, and the real host's Debian root as the live
//! root. The guest's only network is QEMU's restricted user network with what the test serves
//! on loopback. Each machine boots once and is checked for several things through a shell on
//! its second serial port.
//!
//! Needs root, QEMU, ipxe-qemu, the Debian kernel, dracut (with dracut-network and ignition),
//! isolinux, xorriso and mmdebstrap (`vm::missing`); skips without them, fails without them
//! under CI=true.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use vm::serve::Server;
use vm::{Boot, Forward, Machine, Network, Spec};

use crate::real_host::{other_ca_certificate, shipped_units};
use crate::support::okd;

/// The site's machine network (compact-3-node's), as QEMU's user network.
const MACHINE_NETWORK: &str = "192.168.111.0/24";
/// Where the test's HTTP server answers in that network.
const HTTP_ADDRESS: &str = "192.168.111.100";
/// compact-3-node's API VIP, where the pointer configs fetch their pool's config.
const API_VIP: &str = "192.168.111.5";
/// What the Machine Config Server stand-in serves as the worker pool's config: a file the
/// test looks for in the booted system.
const SERVED_PATH: &str = "/etc/okd-vm/served";
const SERVED_CONFIG: &str = r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/okd-vm/served","contents":{"source":"data:,served%20by%20the%20machine%20config%20server%0A"},"mode":420}]}}"#;
/// The longest any machine lives.
const LIFE: Duration = Duration::from_secs(900);
/// How long a boot may take to the booted system's shell (TCG on two shared cores).
const BOOT_SECONDS: u64 = 600;
/// How long one command in the booted system may take (a starved TCG guest is slow).
const COMMAND_SECONDS: u64 = 180;

/// The boot parts, or a skip.
fn parts() -> Option<(vm::parts::Kernel, PathBuf, PathBuf)> {
    let missing = vm::missing();
    if !testkit::require(missing.is_empty(), &missing.join("; ")) {
        return None;
    }
    let started = Instant::now();
    let kernel = vm::parts::Kernel::find().expect("the Debian kernel");
    let initramfs = vm::parts::initramfs(&kernel).unwrap_or_else(|e| panic!("the initramfs: {e}"));
    let root = vm::disk::live_root().unwrap_or_else(|e| panic!("the live root: {e}"));
    eprintln!("vm parts ready in {:.0?}", started.elapsed());
    Some((kernel, initramfs, root))
}

/// The words of `/proc/cmdline` in the guest.
fn cmdline(machine: &mut Machine) -> Vec<String> {
    machine
        .output("cat /proc/cmdline", COMMAND_SECONDS)
        .expect("/proc/cmdline")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Fails with the console's last lines and where the files were kept.
fn fail(machine: &Machine, work: tempfile::TempDir, problems: &[String]) -> ! {
    let console = testkit::run::tail(&machine.console_text(), 40);
    let kept = work.keep();
    panic!(
        "{}\n(files in {})\n--- the console's last lines ---\n{console}",
        problems.join("\n"),
        kept.display()
    );
}

/// A worker booted by PXE: SeaBIOS runs QEMU's iPXE ROM, which gets our `worker.ipxe` from the
/// user network's DHCP and runs it: the Debian kernel with our arguments, the initramfs and
/// our `worker.ign.img`, all fetched over HTTP from the test. In the initramfs the stand-in
/// for CoreOS's ignition-setup-user hands the initrd's config to Ignition, whose fetch stage
/// then follows the pointer config to the Machine Config Server stand-in at the API VIP:
/// first with a certificate of another CA (refused by Ignition, whose TLS stack answers the
/// server with a `bad certificate` alert), then with okd-install's Machine Config Server certificate (accepted, its
/// config merged). The machine switches to its root and reaches multi-user.target.
#[test]
fn pxe_boots_a_worker_that_fetches_its_pool_config_from_the_machine_config_server_only() {
    let Some((kernel, initramfs, root)) = parts() else {
        return;
    };
    let work = tempfile::tempdir().expect("temp dir");
    let install = work.path().join("install");
    okd(&install)
        .args([
            "create",
            "ignition-configs",
            "--from-example",
            "compact-3-node",
        ])
        .assert()
        .success();
    let base = format!("http://{HTTP_ADDRESS}/okd");
    okd(&install)
        .args([
            "create",
            "pxe-files",
            "--role",
            "worker",
            "--base-url",
            &base,
            "--karg",
            "console=ttyS0,115200",
            "--karg",
            "ip=dhcp",
            "--karg",
            "rd.neednet=1",
        ])
        .assert()
        .success();
    let script = testkit::cli::read(&install.join("worker.ipxe"));
    let docroot = work.path().join("www");
    let served = docroot.join("okd");
    std::fs::create_dir_all(&served).unwrap();
    for (from, name) in [
        (kernel.vmlinuz.clone(), "kernel"),
        (initramfs.clone(), "initramfs.img"),
        (install.join("worker.ign.img"), "worker.ign.img"),
        (install.join("worker.ipxe"), "worker.ipxe"),
    ] {
        std::fs::copy(&from, served.join(name)).unwrap();
    }
    let http = Server::http(&docroot, &work.path().join("http.log")).expect("the HTTP server");

    // The Machine Config Server stand-in, first with a certificate of another CA.
    let bootstrap = testkit::cli::read(&install.join("bootstrap.ign"));
    let tls = work.path().join("tls");
    std::fs::create_dir_all(&tls).unwrap();
    for name in ["machine-config-server.crt", "machine-config-server.key"] {
        let data = testkit::cli::ign_file(&bootstrap, &format!("/opt/openshift/tls/{name}"))
            .unwrap_or_else(|| panic!("bootstrap.ign carries {name}"));
        std::fs::write(tls.join(name), data).unwrap();
    }
    let mcs_root = work.path().join("mcs");
    std::fs::create_dir_all(mcs_root.join("config")).unwrap();
    std::fs::write(mcs_root.join("config/worker"), SERVED_CONFIG).unwrap();
    let (other_cert, other_key) = other_ca_certificate(&work.path().join("other"), API_VIP);
    let mcs = Server::https(
        &mcs_root,
        &other_cert,
        &other_key,
        0,
        &work.path().join("mcs-other.log"),
    )
    .expect("the MCS stand-in");
    let mcs_port = mcs.port;

    let spec = Spec {
        name: "pxe-worker".into(),
        boot: Boot::Network,
        disks: vec![root],
        network: Some(Network {
            net: MACHINE_NETWORK.into(),
            bootfile: Some(format!("{base}/worker.ipxe")),
            forwards: vec![
                Forward {
                    address: HTTP_ADDRESS.into(),
                    port: 80,
                    to: http.port,
                },
                Forward {
                    address: API_VIP.into(),
                    port: 22623,
                    to: mcs_port,
                },
            ],
        }),
        memory_mib: 2048,
        life: LIFE,
    };
    let started = Instant::now();
    let mut machine = Machine::start(&spec, &work.path().join("vm")).expect("QEMU starts");
    let mut problems = Vec::new();

    // Ignition refuses the other CA: the server hears Go's TLS alert.
    let refused = "alert bad certificate";
    let until = Instant::now() + Duration::from_secs(BOOT_SECONDS);
    while !mcs.log_text().contains(refused) && Instant::now() < until {
        std::thread::sleep(Duration::from_secs(1));
    }
    if !mcs.log_text().contains(refused) {
        problems.push(format!(
            "Ignition never refused the server of another CA (its log: {})",
            mcs.log_text()
        ));
        fail(&machine, work, &problems);
    }
    let refused_at = started.elapsed();
    drop(mcs);
    let _mcs = Server::https(
        &mcs_root,
        &tls.join("machine-config-server.crt"),
        &tls.join("machine-config-server.key"),
        mcs_port,
        &work.path().join("mcs.log"),
    )
    .expect("the MCS stand-in with our certificate");

    if let Err(e) = machine.wait_shell(BOOT_SECONDS) {
        fail(&machine, work, &[format!("the worker did not boot: {e}")]);
    }
    let booted_at = started.elapsed();

    // The kernel line is our script's, every word of it.
    let words = cmdline(&mut machine);
    let ours = bootmedia::pxe::script_kargs(&script).expect("the script's kernel line");
    for arg in ours.split_whitespace() {
        if !words.iter().any(|w| w == arg) {
            problems.push(format!(
                "{arg} of worker.ipxe is not on /proc/cmdline: {words:?}"
            ));
        }
    }
    let http_log = http.log_text();
    for part in ["worker.ipxe", "kernel", "initramfs.img", "worker.ign.img"] {
        if !http_log.contains(&format!("/okd/{part}")) {
            problems.push(format!(
                "iPXE never fetched {part} (server log: {http_log})"
            ));
        }
    }
    // Ignition read our initrd's config, fetched the pool's from the server with our
    // certificate after refusing the other, and wrote what it served.
    let journal = machine
        .output(
            "journalctl -b -o cat -u coreos-ignition-setup-user.service -u ignition-fetch-offline.service -u ignition-fetch.service -u ignition-files.service",
            COMMAND_SECONDS,
        )
        .unwrap_or_else(|e| e.to_string());
    for said in [
        "/config.ign copied to /usr/lib/ignition/user.ign",
        "reading system config file \"/usr/lib/ignition/user.ign\"",
        "x509: certificate signed by unknown authority",
        &format!("https://{API_VIP}:22623/config/worker"),
    ] {
        if !journal.contains(said) {
            problems.push(format!("Ignition's journal does not say `{said}`"));
        }
    }
    match machine.output(&format!("cat {SERVED_PATH}"), COMMAND_SECONDS) {
        Ok(text) if text.contains("served by the machine config server") => {}
        other => problems.push(format!("the served config was not applied: {other:?}")),
    }
    // The booted system's own state: it reached its target.
    let state = machine
        .output(
            "systemctl is-system-running --wait >/dev/null; systemctl is-active multi-user.target",
            BOOT_SECONDS,
        )
        .unwrap_or_else(|e| e.to_string());
    if state.trim() != "active" {
        problems.push(format!("multi-user.target is not active: {state}"));
    }
    eprintln!(
        "pxe worker: refused the other CA at {refused_at:.0?}, shell at {booted_at:.0?}, checked at {:.0?}",
        started.elapsed()
    );
    if !problems.is_empty() {
        problems.push(format!("Ignition's journal:\n{journal}"));
        fail(&machine, work, &problems);
    }
}

/// The default kernel arguments the test's live ISO has besides CoreOS's three: one CoreOS
/// ships (deleted here with `--delete-karg`).
const ISO_EXTRA_KARGS: &str = "mitigations=auto,nosmt";

/// compact-3-node's bootstrap config on a live ISO in CoreOS's layout made of the Debian
/// parts, booted as a CD-ROM by SeaBIOS and isolinux: `--karg` and `--delete-karg` are on the
/// kernel's command line as asked, the stand-in for ignition-setup-user finds the config the
/// kernel unpacked from the ISO's embed area, Ignition's files stage writes bootstrap.ign's
/// units and the booted system's systemd loads each (and enables those the config enables).
#[test]
fn the_live_iso_boots_through_isolinux_and_ignition_writes_the_bootstrap_units() {
    let Some((kernel, initramfs, root)) = parts() else {
        return;
    };
    let work = tempfile::tempdir().expect("temp dir");
    let install = work.path().join("install");
    okd(&install)
        .args([
            "create",
            "ignition-configs",
            "--from-example",
            "compact-3-node",
        ])
        .assert()
        .success();
    let spec = testkit::liveiso::LiveIsoSpec {
        boot: Some(testkit::liveiso::BootParts {
            kernel: kernel.vmlinuz.clone(),
            initramfs,
            extra_kargs: ISO_EXTRA_KARGS.into(),
        }),
        ..Default::default()
    };
    let base = spec.build(work.path(), "debian-live.iso");
    okd(&install)
        .args(["create", "live-iso", "--role", "bootstrap", "--iso"])
        .arg(&base.path)
        .args([
            "--karg",
            "console=ttyS0,115200",
            "--delete-karg",
            ISO_EXTRA_KARGS,
        ])
        .assert()
        .success();
    let machine_spec = Spec {
        name: "live-iso-bootstrap".into(),
        boot: Boot::Cdrom(install.join("bootstrap.iso")),
        disks: vec![root],
        network: Some(Network {
            net: MACHINE_NETWORK.into(),
            bootfile: None,
            forwards: Vec::new(),
        }),
        memory_mib: 2048,
        life: LIFE,
    };
    let started = Instant::now();
    let mut machine = Machine::start(&machine_spec, &work.path().join("vm")).expect("QEMU starts");
    if let Err(e) = machine.wait_shell(BOOT_SECONDS) {
        fail(
            &machine,
            work,
            &[format!("the bootstrap host did not boot: {e}")],
        );
    }
    let booted_at = started.elapsed();
    let mut problems = Vec::new();
    let words = cmdline(&mut machine);
    let expected = format!(
        "{} console=ttyS0,115200",
        spec.default_kargs().replace(ISO_EXTRA_KARGS, "")
    );
    for arg in expected.split_whitespace() {
        if !words.iter().any(|w| w == arg) {
            problems.push(format!("{arg} is not on /proc/cmdline: {words:?}"));
        }
    }
    if words.iter().any(|w| w == ISO_EXTRA_KARGS) {
        problems.push(format!(
            "--delete-karg {ISO_EXTRA_KARGS} is still on /proc/cmdline"
        ));
    }
    let journal = machine
        .output(
            "journalctl -b -o cat -u coreos-ignition-setup-user.service -u ignition-fetch-offline.service -u ignition-files.service",
            COMMAND_SECONDS,
        )
        .unwrap_or_else(|e| e.to_string());
    if !journal.contains("/config.ign copied to /usr/lib/ignition/user.ign") {
        problems.push("the ISO's embedded config never reached Ignition".into());
    }
    let shipped = shipped_units(&install.join("bootstrap.ign"));
    for unit in &shipped {
        let name = &unit.name;
        let (written, load, enabled) = {
            let out = machine
                .output(
                    &format!(
                        "test -e /etc/systemd/system/{name} -o -d /etc/systemd/system/{name}.d && echo written; \
                         systemctl show -p LoadState --value {name}; systemctl is-enabled {name} || true"
                    ),
                    COMMAND_SECONDS,
                )
                .unwrap_or_else(|e| e.to_string());
            let mut lines = out.lines();
            let written = out.contains("written");
            if written {
                lines.next();
            }
            (
                written,
                lines.next().unwrap_or_default().to_string(),
                lines.next().unwrap_or_default().to_string(),
            )
        };
        if !written {
            problems.push(format!("Ignition's files stage did not write {name}"));
        }
        if unit.has_file && load != "loaded" {
            problems.push(format!("systemd did not load {name}: {load}"));
        }
        if unit.enabled && enabled != "enabled" {
            problems.push(format!("{name} is enabled by the config but `{enabled}`"));
        }
    }
    eprintln!(
        "live iso bootstrap: shell at {booted_at:.0?}, {} units checked at {:.0?}",
        shipped.len(),
        started.elapsed()
    );
    if !problems.is_empty() {
        problems.push(format!("Ignition's journal:\n{journal}"));
        fail(&machine, work, &problems);
    }
}
