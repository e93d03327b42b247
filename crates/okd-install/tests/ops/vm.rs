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

use crate::common::compact_configs;
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

/// A live ISO in CoreOS's layout made of the Debian parts (bootable by SeaBIOS through
/// isolinux), under `work`; its spec and the ISO.
fn base_iso(
    kernel: &vm::parts::Kernel,
    initramfs: PathBuf,
    work: &std::path::Path,
) -> (testkit::liveiso::LiveIsoSpec, testkit::liveiso::LiveIso) {
    let spec = testkit::liveiso::LiveIsoSpec {
        boot: Some(testkit::liveiso::BootParts {
            kernel: kernel.vmlinuz.clone(),
            initramfs,
            extra_kargs: ISO_EXTRA_KARGS.into(),
        }),
        ..Default::default()
    };
    let base = spec.build(work, "debian-live.iso");
    (spec, base)
}

/// The Machine Config Server stand-in's files under `work`: its document root serving
/// [`SERVED_CONFIG`] as the worker pool's config, and a directory with okd-install's Machine
/// Config Server certificate and key (from `install`'s bootstrap.ign).
fn mcs_files(install: &std::path::Path, work: &std::path::Path) -> (PathBuf, PathBuf) {
    let bootstrap = testkit::cli::read(&install.join("bootstrap.ign"));
    let tls = work.join("tls");
    std::fs::create_dir_all(&tls).unwrap();
    for name in ["machine-config-server.crt", "machine-config-server.key"] {
        let data = testkit::cli::ign_file(&bootstrap, &format!("/opt/openshift/tls/{name}"))
            .unwrap_or_else(|| panic!("bootstrap.ign carries {name}"));
        std::fs::write(tls.join(name), data).unwrap();
    }
    let mcs_root = work.join("mcs");
    std::fs::create_dir_all(mcs_root.join("config")).unwrap();
    std::fs::write(mcs_root.join("config/worker"), SERVED_CONFIG).unwrap();
    (mcs_root, tls)
}

/// The Machine Config Server stand-in at the API VIP, as the guest sees it.
fn mcs_forward(port: u16) -> Forward {
    Forward {
        address: API_VIP.into(),
        port: 22623,
        to: port,
    }
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
    let (work, install) = compact_configs();
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
    let (mcs_root, tls) = mcs_files(&install, work.path());
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
                mcs_forward(mcs_port),
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
    let journal = worker_followed_its_pointer(
        &mut machine,
        "-u ignition-fetch-offline.service",
        &[
            "/config.ign copied to /usr/lib/ignition/user.ign",
            "reading system config file \"/usr/lib/ignition/user.ign\"",
            "x509: certificate signed by unknown authority",
        ],
        &mut problems,
    );
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

/// What is wrong with `words`, a live boot's kernel command line, for an ISO made from
/// `spec` with `--karg console=ttyS0,115200 --delete-karg ISO_EXTRA_KARGS`.
fn live_karg_problems(spec: &testkit::liveiso::LiveIsoSpec, words: &[String]) -> Vec<String> {
    let expected = format!(
        "{} console=ttyS0,115200",
        spec.default_kargs().replace(ISO_EXTRA_KARGS, "")
    );
    let mut problems: Vec<String> = expected
        .split_whitespace()
        .filter(|arg| !words.iter().any(|w| w == arg))
        .map(|arg| format!("{arg} is not on the live kernel's command line: {words:?}"))
        .collect();
    if words.iter().any(|w| w == ISO_EXTRA_KARGS) {
        problems.push(format!(
            "--delete-karg {ISO_EXTRA_KARGS} is still on the live kernel's command line"
        ));
    }
    problems
}

/// compact-3-node's bootstrap config on a live ISO in CoreOS's layout made of the Debian
/// parts, booted as a CD-ROM through UEFI: OVMF runs the ISO's EFI boot image, GRUB reads
/// the ISO's `EFI/fedora/grub.cfg` (the BIOS path, isolinux and its `isolinux.cfg`, is booted
/// by the install test); `--karg` and `--delete-karg` are on the kernel's command line as
/// asked, the stand-in for ignition-setup-user finds the config the
/// kernel unpacked from the ISO's embed area, Ignition's files stage writes bootstrap.ign's
/// units and the booted system's systemd loads each (and enables those the config enables).
#[test]
fn the_live_iso_boots_through_uefi_and_grub_and_ignition_writes_the_bootstrap_units() {
    let Some((kernel, initramfs, root)) = parts() else {
        return;
    };
    let (work, install) = compact_configs();
    let (spec, base) = base_iso(&kernel, initramfs, work.path());
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
        boot: Boot::CdromUefi(install.join("bootstrap.iso")),
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
    let words = cmdline(&mut machine);
    let mut problems = live_karg_problems(&spec, &words);
    // The kernel was started by UEFI firmware (it has EFI runtime services).
    if machine
        .output("test -d /sys/firmware/efi", COMMAND_SECONDS)
        .is_err()
    {
        problems.push("the kernel has no /sys/firmware/efi: not booted through UEFI".into());
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

/// The longest the installing machine lives: a live boot, the install, an installed boot.
const INSTALL_LIFE: Duration = Duration::from_secs(1800);
/// Kernel arguments the installed system gets through `--dest-karg-append`: its console,
/// and the initramfs's network for Ignition's fetch stage (CoreOS's initramfs brings it up
/// on its own when a config needs it; Debian's dracut is asked).
const DEST_KARGS: &[&str] = &["console=ttyS0,115200", "ip=dhcp", "rd.neednet=1"];

/// A worker racked with an empty disk and an ISO made by `create live-iso --dest-device
/// /dev/vda`: SeaBIOS finds nothing on the disk and boots the CD through isolinux (with
/// `--karg` and `--delete-karg` on the kernel's command line as asked); the live system's
/// Ignition writes the installer config and the worker's config from the ISO's
/// embed area; the stand-in for CoreOS's installer service runs the real coreos-installer
/// with that config, which writes the metal image (the stand-in's GPT disk with Debian's
/// GRUB), the worker's config into its boot partition and our kernel arguments into its BLS
/// entry; the machine reboots, SeaBIOS now boots the disk, GRUB reads the entry (first boot:
/// `ignition.firstboot`), and the initramfs's Ignition takes the config coreos-installer
/// wrote, follows the pointer config to the Machine Config Server stand-in and writes what
/// it serves into the installed root, which reaches multi-user.target.
#[test]
fn the_live_iso_installs_a_worker_with_coreos_installer_and_it_boots_from_the_disk() {
    let Some((kernel, initramfs, root)) = parts() else {
        return;
    };
    let installer = vm::metal::coreos_installer().expect("coreos-installer (vm::missing)");
    let made = Instant::now();
    let payload = vm::metal::payload(&kernel, &initramfs, &root, &installer)
        .unwrap_or_else(|e| panic!("the metal image: {e}"));
    eprintln!("metal image ready in {:.0?}", made.elapsed());
    let (work, install) = compact_configs();
    let (iso_spec, base) = base_iso(&kernel, initramfs, work.path());
    let mut create = okd(&install);
    create
        .args(["create", "live-iso", "--role", "worker", "--iso"])
        .arg(&base.path)
        .args([
            "--karg",
            "console=ttyS0,115200",
            "--delete-karg",
            ISO_EXTRA_KARGS,
        ])
        .args(["--dest-device", "/dev/vda"]);
    for karg in DEST_KARGS {
        create.args(["--dest-karg-append", karg]);
    }
    create.assert().success();

    let (mcs_root, tls) = mcs_files(&install, work.path());
    let mcs = Server::https(
        &mcs_root,
        &tls.join("machine-config-server.crt"),
        &tls.join("machine-config-server.key"),
        0,
        &work.path().join("mcs.log"),
    )
    .expect("the MCS stand-in");
    let disk = work.path().join("disk.raw");
    std::fs::File::create(&disk)
        .and_then(|f| f.set_len(4 << 30))
        .expect("an empty disk");
    let spec = Spec {
        name: "install-worker".into(),
        boot: Boot::DiskThenCdrom(install.join("worker.iso")),
        // The empty disk first: /dev/vda, the disk SeaBIOS tries before the CD.
        disks: vec![disk, root, payload],
        network: Some(Network {
            net: MACHINE_NETWORK.into(),
            bootfile: None,
            forwards: vec![mcs_forward(mcs.port)],
        }),
        memory_mib: 2048,
        life: INSTALL_LIFE,
    };
    let started = Instant::now();
    let mut machine = Machine::start(&spec, &work.path().join("vm")).expect("QEMU starts");
    if let Err(e) = machine.wait_console(vm::standins::INSTALLED, BOOT_SECONDS * 2) {
        fail(
            &machine,
            work,
            &[format!("the live system did not install: {e}")],
        );
    }
    let installed_at = started.elapsed();
    let mark = machine.shell_mark();
    if let Err(e) = machine.wait_shell_since(mark, BOOT_SECONDS) {
        fail(
            &machine,
            work,
            &[format!("the installed system did not boot: {e}")],
        );
    }
    let booted_at = started.elapsed();
    let console = machine.console_text();
    // The live boot's kernel line, as the kernel printed it (isolinux read it from the ISO's
    // isolinux.cfg, whose kernel-argument area `create live-iso` edited).
    let live_words: Vec<String> = console
        .lines()
        .find_map(|l| l.split_once("Kernel command line: "))
        .map(|(_, line)| line.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    let mut problems = live_karg_problems(&iso_spec, &live_words);
    for said in [
        "Install complete.",
        "Modifying kernel arguments",
        "Writing Ignition config",
    ] {
        if !console.contains(said) {
            problems.push(format!("coreos-installer did not say `{said}`"));
        }
    }
    // The installed system booted from its disk through the BLS entry coreos-installer
    // edited, on its first boot.
    let words = cmdline(&mut machine);
    for arg in DEST_KARGS.iter().chain(&[
        "root=LABEL=root",
        "ignition.platform.id=metal",
        "ignition.firstboot",
    ]) {
        if !words.iter().any(|w| w == arg) {
            problems.push(format!(
                "{arg} is not on the installed system's /proc/cmdline: {words:?}"
            ));
        }
    }
    if words.iter().any(|w| w.starts_with("coreos.liveiso=")) {
        problems.push(format!(
            "the second boot is the live system again: {words:?}"
        ));
    }
    // The config coreos-installer wrote is worker.ign, byte for byte.
    let ours = testkit::cli::read(&install.join("worker.ign"));
    match machine.output(
        "mkdir -p /run/okd-check; mountpoint -q /run/okd-check || mount -o ro /dev/disk/by-label/boot /run/okd-check; \
         sha256sum /run/okd-check/ignition/config.ign; umount /run/okd-check",
        COMMAND_SECONDS,
    ) {
        Ok(out) if out.contains(&sha256_hex(ours.as_bytes())) => {}
        other => problems.push(format!(
            "the boot partition's ignition/config.ign is not worker.ign: {other:?}"
        )),
    }
    let journal = worker_followed_its_pointer(
        &mut machine,
        "",
        &["the boot partition's ignition/config.ign copied to /usr/lib/ignition/user.ign"],
        &mut problems,
    );
    eprintln!(
        "install worker: installed at {installed_at:.0?}, installed system's shell at {booted_at:.0?}, checked at {:.0?}",
        started.elapsed()
    );
    if !problems.is_empty() {
        problems.push(format!("Ignition's journal:\n{journal}"));
        fail(&machine, work, &problems);
    }
}

/// What a worker booted from our pointer config shows once up: Ignition's journal (its
/// setup, fetch and files units, and `more_units`, `-u UNIT` words) says each of `said` and
/// the URL of the pool's config, the Machine Config Server stand-in's file is written, and the
/// system reaches multi-user.target. Returns the journal, for a failure's report.
fn worker_followed_its_pointer(
    machine: &mut Machine,
    more_units: &str,
    said: &[&str],
    problems: &mut Vec<String>,
) -> String {
    let journal = machine
        .output(
            &format!(
                "journalctl -b -o cat -u coreos-ignition-setup-user.service {more_units} \
                 -u ignition-fetch.service -u ignition-files.service"
            ),
            COMMAND_SECONDS,
        )
        .unwrap_or_else(|e| e.to_string());
    let url = format!("https://{API_VIP}:22623/config/worker");
    for said in said.iter().copied().chain([url.as_str()]) {
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
    journal
}

/// The SHA-256 of `data` in hex, as sha256sum prints it.
fn sha256_hex(data: &[u8]) -> String {
    use sha2::Digest as _;
    format!("{:x}", sha2::Sha256::digest(data))
}
