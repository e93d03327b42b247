//! Tests of the bootstrap node content under `templates/bootstrap/`.
//!
//! The tree compiled into the crate is rendered by the production renderer
//! ([`TemplateTree::render_dirs`] over the directories [`Variant::template_dirs`] picks)
//! against the sample contexts in `tests/scripts/context-*.json`, read as
//! [`TemplateContext`]s, so these tests check what a bootstrap config ships: the templates
//! render, the scripts pass shellcheck, the units are well-formed, and the main scripts
//! behave as specified when driven in a scratch root with stand-in tools
//! (`tests/scripts/standins/`) first on PATH.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use ignition::{TemplateContext, TemplateTree, Variant, embedded_templates, render_template};
use serde_json::{Value, json};

/// Units the renderer enables; every other unit must come without an `[Install]` section.
use contract::ENABLED_UNITS;

/// Programs units may run that come with the OS rather than with the bootstrap config.
const OS_PROGRAMS: [&str; 8] = [
    "/usr/bin/mkdir",
    "/usr/bin/chcon",
    "/usr/bin/echo",
    "/usr/bin/systemctl",
    "/usr/bin/chown",
    "/usr/bin/systemd-sysusers",
    "/usr/lib/systemd/systemd-journal-gatewayd",
    "/usr/bin/kubelet",
];

/// Stages of bootkube.sh for a multi-node cluster, in the order they must run.
const HA_STAGES: [&str; 17] = [
    "openshift-manifests",
    "api-bootstrap",
    "auth-api-bootstrap",
    "config-bootstrap",
    "cvo-bootstrap",
    "etcd-bootstrap",
    "kube-apiserver-bootstrap",
    "kube-controller-manager-bootstrap",
    "kube-scheduler-bootstrap",
    "ingress-operator-bootstrap",
    "node-tuning-bootstrap",
    "mco-bootstrap",
    "cco-bootstrap",
    "wait-for-etcd",
    "cb-bootstrap",
    "restore-cvo-overrides",
    "wait-for-ceo",
];

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn templates_dir() -> PathBuf {
    crate_dir().join("../../templates/bootstrap")
}

fn fixtures_dir() -> PathBuf {
    crate_dir().join("tests/scripts")
}

/// One sample template context.
struct Sample {
    name: String,
    ctx: TemplateContext,
}

impl Sample {
    /// Template directories the production renderer processes for this context's variant.
    fn template_dirs(&self) -> Vec<&'static str> {
        let variant = Variant::for_context(&self.ctx)
            .unwrap_or_else(|| panic!("{}: fits no bootstrap variant", self.name));
        variant.template_dirs(&self.ctx)
    }
}

fn samples() -> Vec<Sample> {
    let mut out = Vec::new();
    for entry in fs::read_dir(fixtures_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("context-") && name.ends_with(".json") {
            let ctx = serde_json::from_str(&fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            out.push(Sample { name, ctx });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(out.len(), 4, "expected four sample contexts");
    out
}

fn sample(name: &str) -> Sample {
    samples()
        .into_iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no sample {name}"))
}

/// Every regular file below `dir`, sorted.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// A rendered tree: node files below `root`, units (and `<unit>.d/` drop-ins) below `units`.
struct Rendered {
    root: PathBuf,
    units: PathBuf,
    /// Node paths (absolute, e.g. `/usr/local/bin/bootkube.sh`) of all rendered files.
    files: BTreeSet<String>,
}

impl Rendered {
    fn path(&self, node_path: &str) -> PathBuf {
        self.root.join(node_path.trim_start_matches('/'))
    }

    fn text(&self, node_path: &str) -> String {
        fs::read_to_string(self.path(node_path))
            .unwrap_or_else(|e| panic!("{node_path} was not rendered: {e}"))
    }
}

/// Every template directory some variant processes, in processing order (`on-prem` is
/// forced on so that its directory is included).
fn all_template_dirs(ctx: &TemplateContext) -> Vec<&'static str> {
    let ctx = TemplateContext {
        on_prem: true,
        ..ctx.clone()
    };
    let mut dirs: Vec<&'static str> = Vec::new();
    for variant in Variant::ALL {
        for dir in variant.template_dirs(&ctx) {
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    dirs
}

/// The tree this build embeds, i.e. what `okd-install` ships.
fn tree() -> TemplateTree {
    embedded_templates().expect("templates/bootstrap is embedded in this build")
}

/// An error with its causes, one per line (minijinja's carries the template line).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!("\n  caused by: {cause:#}"));
        source = cause.source();
    }
    text
}

/// Render `dirs` with the production renderer and write the result below `out`: node
/// files with their production modes below `node/`, units and drop-ins below `units/`.
fn render_tree(ctx: &TemplateContext, dirs: &[&str], out: &Path) -> Rendered {
    let merged = tree()
        .render_dirs(dirs, ctx)
        .unwrap_or_else(|e| panic!("templates failed to render:\n{}", error_chain(&e)));
    let mut rendered = Rendered {
        root: out.join("node"),
        units: out.join("units"),
        files: BTreeSet::new(),
    };
    for file in merged.files {
        let dest = rendered.path(&file.path);
        write_file(&dest, &file.contents);
        fs::set_permissions(&dest, fs::Permissions::from_mode(file.mode)).unwrap();
        rendered.files.insert(file.path);
    }
    for unit in merged.units {
        if let Some(text) = &unit.contents {
            write_file(&rendered.units.join(&unit.name), text.as_bytes());
        }
        let dropin_dir = rendered.units.join(format!("{}.d", unit.name));
        for (name, text) in &unit.dropins {
            write_file(&dropin_dir.join(name), text.as_bytes());
        }
    }
    rendered
}

fn write_file(dest: &Path, contents: &[u8]) {
    fs::create_dir_all(dest.parent().unwrap()).unwrap();
    fs::write(dest, contents).unwrap();
}

#[test]
fn every_template_directory_is_processed_by_some_variant() {
    let on_disk: BTreeSet<String> = fs::read_dir(templates_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let processed: BTreeSet<String> = all_template_dirs(&samples()[0].ctx)
        .into_iter()
        .map(str::to_string)
        .collect();
    assert_eq!(processed, on_disk);
}

#[test]
fn every_template_renders_strictly_for_every_sample() {
    for sample in samples() {
        let tmp = tempfile::tempdir().unwrap();
        // Even the variant templates must render for contexts of other variants.
        let rendered = render_tree(&sample.ctx, &all_template_dirs(&sample.ctx), tmp.path());
        let ctx = &sample.ctx;

        let pull_secret = rendered.text("/root/.docker/config.json");
        assert_eq!(pull_secret, ctx.pull_secret);
        serde_json::from_str::<Value>(&pull_secret).expect("pull secret is JSON");
        serde_json::from_str::<Value>(
            &rendered.text("/etc/ignition-machine-config-encapsulated.json"),
        )
        .expect("encapsulated MachineConfig is JSON");
        assert_eq!(
            rendered.text("/etc/pki/ca-trust/source/anchors/ca.crt"),
            ctx.additional_trust_bundle
        );

        let registries = rendered.text("/etc/containers/registries.conf");
        let sources = &ctx.registries;
        assert_eq!(
            registries.matches("[[registry]]").count(),
            sources.len(),
            "{}",
            sample.name
        );
        assert_eq!(
            registries.matches("mirror-by-digest-only = true").count(),
            sources.len()
        );
        for source in sources {
            assert!(registries.contains(&format!("location = \"{}\"", source.source)));
            for mirror in &source.mirrors {
                assert!(registries.contains(&format!("location = \"{mirror}\"")));
            }
        }

        let default_env = rendered.text("/etc/systemd/system.conf.d/10-default-env.conf");
        let proxy = rendered.text("/etc/profile.d/proxy.sh");
        let http_proxy = &ctx.proxy.http_proxy;
        assert_eq!(default_env.contains("HTTP_PROXY="), !http_proxy.is_empty());
        assert_eq!(
            proxy.contains(&format!("export HTTP_PROXY='{http_proxy}'")),
            !http_proxy.is_empty()
        );

        let bootkube = rendered.text("/usr/local/bin/bootkube.sh");
        let in_place = ctx.bootstrap_in_place.is_some();
        assert!(bootkube.contains(&format!("BOOTSTRAP_INPLACE={in_place}")));
        let install = rendered.text("/usr/local/bin/install-to-disk.sh");
        if let Some(disk) = &ctx.bootstrap_in_place {
            let disk = &disk.installation_disk;
            assert!(install.contains(&format!("INSTALLATION_DISK='{disk}'")));
        }

        let kubelet = rendered.text("/usr/local/bin/kubelet.sh");
        let node_ip = &ctx.bootstrap_node_ip;
        if !node_ip.is_empty() {
            assert!(kubelet.contains(&format!("--node-ip='{node_ip}'")));
        } else if ctx.use_ipv6_for_node_ip {
            assert!(kubelet.contains("--node-ip=::"));
        } else {
            assert!(!kubelet.contains("--node-ip"));
        }
        let pivot = rendered.text("/usr/local/bin/bootstrap-pivot.sh");
        let replicas = ctx.control_plane_replicas;
        assert!(pivot.contains(&format!("OTHER_MASTERS={}\n", replicas - 1)));
        let mcs_host = &ctx.machine_config_host;
        assert!(
            pivot.contains(&format!("MACHINE_CONFIG_HOST='{mcs_host}'")),
            "{}",
            sample.name
        );
        let godebug = rendered.text("/etc/systemd/system.conf.d/10-default-env-godebug.conf");
        assert!(godebug.contains("[Manager]\nDefaultEnvironment=GODEBUG=madvdontneed=1\n"));
        assert!(
            rendered
                .text("/usr/local/bin/node-image-pull.sh")
                .contains("NODE_IMAGE_COMPONENTS=(stream-coreos rhel-coreos)")
        );
        assert!(
            rendered
                .text("/usr/local/bin/bootkube.sh")
                .contains(&format!("TARGET_MINOR='{}'", ctx.target_minor))
        );
        check_overlay_ordering(&rendered);
        let gather = rendered.text("/usr/local/bin/installer-gather.sh");
        let image_mode = ctx.image_mode;
        assert!(gather.contains(&format!("IMAGE_MODE={image_mode}")));
    }
}

/// Values of `key` in the `[Unit]` section of a rendered unit, split at whitespace.
fn unit_list(rendered: &Rendered, unit: &str, key: &str) -> Vec<String> {
    let text = fs::read_to_string(rendered.units.join(unit)).unwrap();
    parse_unit(&text)
        .unwrap()
        .into_iter()
        .filter(|(section, k, _)| section == "Unit" && k == key)
        .flat_map(|(_, _, v)| v.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

/// The node image is laid over /usr before anything of the bootstrap control plane runs:
/// kubelet, CRI-O's configuration and bootkube order themselves after the overlay; the
/// overlay target pulls in the overlay and the switch back to the normal target; nobody
/// enables these units (the generator picks the target).
fn check_overlay_ordering(rendered: &Rendered) {
    let overlay = "node-image-overlay.service".to_string();
    for unit in [
        "kubelet.service",
        "bootkube.service",
        "crio-configure.service",
    ] {
        assert!(
            unit_list(rendered, unit, "After").contains(&overlay),
            "{unit}"
        );
    }
    let target = unit_list(rendered, "node-image-overlay.target", "Requires");
    for unit in ["node-image-overlay.service", "node-image-finish.service"] {
        assert!(target.contains(&unit.to_string()), "{unit}");
    }
    assert!(unit_list(rendered, &overlay, "Requires").contains(&"node-image-pull.service".into()));
    for unit in [
        "node-image-pull.service",
        "node-image-overlay.service",
        "node-image-finish.service",
    ] {
        assert!(!ENABLED_UNITS.contains(&unit), "{unit}");
    }
}

#[test]
fn strict_mode_rejects_unknown_keys() {
    let ctx = &samples()[0].ctx;
    let err = render_template("typo.j2", "{{ release_imag }}", ctx).unwrap_err();
    match err {
        ignition::Error::Template { template, source } => {
            assert_eq!(template, "typo.j2");
            assert_eq!(source.kind(), minijinja::ErrorKind::UndefinedError);
        }
        other => panic!("not a template error: {other}"),
    }
}

/// Paths of rendered files that are shell scripts (by shebang).
fn shell_scripts(rendered: &Rendered) -> Vec<PathBuf> {
    rendered
        .files
        .iter()
        .map(|f| rendered.path(f))
        .filter(|p| {
            fs::read(p)
                .map(|b| b.starts_with(b"#!/usr/bin/env bash"))
                .unwrap_or(false)
        })
        .collect()
}

#[test]
fn rendered_scripts_pass_shellcheck() {
    if !testkit::require_tool("shellcheck", "shellcheck") {
        return;
    }
    for sample in samples() {
        let tmp = tempfile::tempdir().unwrap();
        let rendered = render_tree(&sample.ctx, &sample.template_dirs(), tmp.path());
        let scripts = shell_scripts(&rendered);
        for script in [
            "usr/local/bin/node-image-pull.sh",
            "usr/local/bin/node-image-overlay.sh",
            "etc/systemd/system-generators/node-image-overlay-generator",
        ] {
            assert!(
                scripts.iter().any(|p| p.ends_with(script)),
                "{}: {script} is not checked",
                sample.name
            );
        }
        if sample.template_dirs().contains(&"on-prem") {
            assert!(
                scripts
                    .iter()
                    .any(|p| p.ends_with("etc/NetworkManager/dispatcher.d/30-local-dns-prepender")),
                "{}: the DNS prepender is not checked",
                sample.name
            );
        }
        assert!(
            scripts.len() >= 14,
            "{}: only {} scripts",
            sample.name,
            scripts.len()
        );
        assert_shellcheck_clean(&sample.name, &scripts);
    }
}

/// Keys this test accepts per unit section (the ones the tree uses, plus close relatives).
fn known_key(section: &str, key: &str) -> bool {
    let keys: &[&str] = match section {
        "Unit" => &[
            "Description",
            "Documentation",
            "Wants",
            "Requires",
            "After",
            "Before",
            "BindsTo",
            "PartOf",
            "Conflicts",
            "ConditionPathExists",
            "ConditionKernelCommandLine",
            "DefaultDependencies",
        ],
        "Service" => &[
            "Type",
            "NotifyAccess",
            "ExecStartPre",
            "ExecStart",
            "ExecStartPost",
            "ExecStop",
            "Environment",
            "EnvironmentFile",
            "WorkingDirectory",
            "Restart",
            "RestartSec",
            "RemainAfterExit",
            "TimeoutStartSec",
            "MountFlags",
            "User",
            "Group",
        ],
        "Socket" => &["ListenStream", "Service", "Accept"],
        "Mount" => &["What", "Where", "Type", "Options"],
        "Install" => &["WantedBy", "RequiredBy", "Also"],
        _ => &[],
    };
    keys.contains(&key)
}

/// Parse a unit file strictly; returns (section, key, value) triples or the first problem.
fn parse_unit(text: &str) -> Result<Vec<(String, String, String)>, String> {
    let mut section = String::new();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end();
        let at = |msg: &str| format!("line {}: {msg}: {line:?}", n + 1);
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if line.ends_with('\\') {
            return Err(at("continuation lines are not used in this tree"));
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if !["Unit", "Service", "Socket", "Mount", "Install"].contains(&name) {
                return Err(at("unknown section"));
            }
            section = name.to_string();
            continue;
        }
        let (key, value) = line.split_once('=').ok_or_else(|| at("not key=value"))?;
        if section.is_empty() {
            return Err(at("key outside a section"));
        }
        if !known_key(&section, key) {
            return Err(at(&format!("key unknown in [{section}]")));
        }
        out.push((section.clone(), key.to_string(), value.to_string()));
    }
    Ok(out)
}

/// The program an Exec line runs, after systemd's prefix characters.
fn exec_program(value: &str) -> &str {
    value
        .trim_start_matches(['-', '@', ':', '+', '!'])
        .split_whitespace()
        .next()
        .unwrap_or("")
}

fn check_unit(
    name: &str,
    text: &str,
    dropin: bool,
    files: &BTreeSet<String>,
) -> Result<(), String> {
    let entries = parse_unit(text)?;
    let has = |section: &str, key: &str| entries.iter().any(|(s, k, _)| s == section && k == key);
    for (section, key, value) in &entries {
        if key.starts_with("Exec") && !(dropin && value.is_empty()) {
            let program = exec_program(value);
            if !program.starts_with('/') {
                return Err(format!("[{section}] {key}: {program:?} is not absolute"));
            }
            if !files.contains(program) && !OS_PROGRAMS.contains(&program) {
                return Err(format!(
                    "[{section}] {key}: {program} is neither shipped nor an OS program"
                ));
            }
        }
    }
    if dropin {
        return Ok(());
    }
    if !has("Unit", "Description") {
        return Err("no Description".into());
    }
    if name.ends_with(".service") && !has("Service", "ExecStart") {
        return Err("a service without ExecStart".into());
    }
    let installable = entries.iter().any(|(s, _, _)| s == "Install");
    let enabled = ENABLED_UNITS.contains(&name);
    if installable != enabled && !name.starts_with("bootstrap-in-place-post-reboot") {
        return Err(format!(
            "[Install] present: {installable}, but enabled by the renderer: {enabled}"
        ));
    }
    Ok(())
}

#[test]
fn units_parse_and_run_shipped_programs() {
    for sample in samples() {
        let tmp = tempfile::tempdir().unwrap();
        let rendered = render_tree(&sample.ctx, &sample.template_dirs(), tmp.path());
        let mut checked = Vec::new();
        let mut errors = Vec::new();
        for path in walk(&rendered.units) {
            let dropin = path.parent().unwrap().extension().is_some_and(|e| e == "d");
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if let Err(e) = check_unit(
                &name,
                &fs::read_to_string(&path).unwrap(),
                dropin,
                &rendered.files,
            ) {
                errors.push(format!("{}: {e}", path.display()));
            }
            checked.push(name);
        }
        // The unit master-update.fcc installs after the single-node reboot.
        for file in rendered.files.iter().filter(|f| f.ends_with(".service")) {
            let name = file.rsplit('/').next().unwrap();
            let mut files = rendered.files.clone();
            files.insert(format!(
                "/usr/local/bin/{}",
                name.replace(".service", ".sh")
            ));
            if let Err(e) = check_unit(name, &rendered.text(file), false, &files) {
                errors.push(format!("{file}: {e}"));
            }
        }
        assert!(errors.is_empty(), "{}:\n{}", sample.name, errors.join("\n"));
        for unit in [
            "kubelet.service",
            "bootkube.service",
            "node-image-pull.service",
            "node-image-overlay.target",
            sample.ctx.release.node_image_live_unit.as_str(),
            "certs.conf",
            "systemd-journal-gatewayd.socket",
        ] {
            assert!(checked.iter().any(|c| c == unit), "{unit} missing");
        }
        systemd_analyze_verify(&rendered);
    }
}

/// Cross-check with systemd's own parser where it is installed (optional: fresh Debian
/// containers have no systemd). Shipped programs are pointed at the rendered copies and
/// OS programs missing here at /bin/true, so only the unit syntax and semantics count.
fn systemd_analyze_verify(rendered: &Rendered) {
    if !Path::new("/usr/bin/systemd-analyze").exists() {
        eprintln!("systemd-analyze not installed; relying on the unit parser test alone");
        return;
    }
    let dir = rendered.units.parent().unwrap().join("verify");
    let mut names = Vec::new();
    for path in walk(&rendered.units) {
        let rel = path.strip_prefix(&rendered.units).unwrap();
        let mut text = fs::read_to_string(&path).unwrap();
        for file in &rendered.files {
            text = text.replace(
                &format!("={file}"),
                &format!("={}", rendered.path(file).display()),
            );
        }
        for program in OS_PROGRAMS {
            if !Path::new(program).exists() {
                text = text.replace(program, "/bin/true");
            }
        }
        let dest = dir.join(rel);
        fs::create_dir_all(dest.parent().unwrap()).unwrap();
        fs::write(&dest, text).unwrap();
        if rel.components().count() == 1 {
            names.push(format!("./{}", rel.display()));
        }
    }
    // Units that only get drop-ins exist on the OS; stand in for them here.
    for base in ["systemd-journal-gatewayd.service", "zincati.service"] {
        fs::write(
            dir.join(base),
            "[Unit]\nDescription=stand-in\n[Service]\nExecStart=/bin/true\n",
        )
        .unwrap();
        names.push(format!("./{base}"));
    }
    let output = Command::new("systemd-analyze")
        .args(["verify", "--man=no", "--recursive-errors=no"])
        .args(&names)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "systemd-analyze verify failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A scratch bootstrap host: rendered scripts, an asset tree, stand-in tools on PATH.
struct Host {
    tmp: tempfile::TempDir,
    rendered: Rendered,
}

impl Host {
    fn new(sample: &Sample) -> Host {
        let tmp = tempfile::tempdir().unwrap();
        let rendered = render_tree(&sample.ctx, &sample.template_dirs(), tmp.path());
        let host = Host { tmp, rendered };
        let assets = host.openshift();
        for dir in [
            "auth",
            "tls",
            "openshift",
            "manifests",
            "bootstrap-in-place",
        ] {
            fs::create_dir_all(assets.join(dir)).unwrap();
        }
        for (file, text) in [
            ("auth/kubeconfig", "kubeconfig admin"),
            ("auth/kubeconfig-loopback", "kubeconfig loopback"),
            ("auth/kubeconfig-kubelet", "kubeconfig kubelet"),
            ("tls/root-ca.crt", "root ca"),
            ("tls/machine-config-server.crt", "mcs crt"),
            ("tls/machine-config-server.key", "mcs key"),
            (
                "openshift/99_openshift-machineconfig_99-master-ssh.yaml",
                "kind: MachineConfig",
            ),
            ("manifests/cluster-config.yaml", "kind: ConfigMap"),
            (
                "original_cvo_overrides.patch",
                "{\"spec\":{\"overrides\":null}}",
            ),
        ] {
            fs::write(assets.join(file), text).unwrap();
        }
        for dir in [
            "etc/kubernetes",
            "state",
            "records",
            "standins",
            "artifacts",
        ] {
            fs::create_dir_all(host.dir(dir)).unwrap();
        }
        for standin in walk(&fixtures_dir().join("standins")) {
            let dest = host.dir("standins").join(standin.file_name().unwrap());
            fs::copy(&standin, &dest).unwrap();
            fs::set_permissions(&dest, fs::Permissions::from_mode(0o755)).unwrap();
        }
        let fifo = host.dir("state/fifo");
        assert!(
            Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        host
    }

    fn dir(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    fn openshift(&self) -> PathBuf {
        self.rendered.path("/opt/openshift")
    }

    fn log(&self) -> String {
        fs::read_to_string(self.dir("state/log")).unwrap_or_default()
    }

    fn mark_log(&self, text: &str) {
        let mut log = self.log();
        log.push_str(&format!("=== {text}\n"));
        fs::write(self.dir("state/log"), log).unwrap();
    }

    /// `bash /usr/local/bin/<script> args...` on the scratch host, as unit `service`.
    fn command(&self, script: &str, args: &[&str], service: &str) -> Command {
        self.command_for(
            &self.rendered.path(&format!("/usr/local/bin/{script}")),
            args,
            service,
        )
    }

    /// `bash <program> args...` with the scratch paths and stand-ins, as unit `service`.
    fn command_for(&self, program: &Path, args: &[&str], service: &str) -> Command {
        let path = format!(
            "{}:{}",
            self.dir("standins").display(),
            std::env::var("PATH").unwrap()
        );
        let mut cmd = Command::new("bash");
        cmd.arg(program)
            .args(args)
            .current_dir(self.openshift())
            .env("PATH", path)
            .env("HOME", self.tmp.path())
            .env("OPENSHIFT_ROOT", self.openshift())
            .env("ETC_KUBERNETES", self.dir("etc/kubernetes"))
            .env("HOST_ETC", self.dir("etc"))
            .env("BOOTSTRAP_BIN_DIR", self.rendered.path("/usr/local/bin"))
            .env("SERVICE_RECORDS_DIR", self.dir("records"))
            .env("SERVICE_NAME", service)
            .env("ARTIFACTS_BASE", self.dir("artifacts"))
            .env("PRE_REBOOT_BUNDLE", self.dir("state/no-pre-reboot-bundle"))
            .env("STANDIN_LOG", self.dir("state/log"))
            .env("STANDIN_STATE", self.dir("state"))
            .env("STANDIN_FIFO", self.dir("state/fifo"))
            .stdin(Stdio::null())
            .stdout(fs::File::create(self.dir(&format!("state/{service}.out"))).unwrap())
            .stderr(fs::File::create(self.dir(&format!("state/{service}.err"))).unwrap())
            .process_group(0);
        cmd
    }

    fn output(&self, service: &str) -> String {
        let read = |ext: &str| {
            fs::read_to_string(self.dir(&format!("state/{service}.{ext}"))).unwrap_or_default()
        };
        format!("stdout:\n{}\nstderr:\n{}", read("out"), read("err"))
    }

    fn records(&self, service: &str) -> Vec<Value> {
        let path = self.dir(&format!("records/{service}.json"));
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let value: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{service}.json: {e}\n{text}"));
        value.as_array().expect("records are an array").clone()
    }

    fn done(&self, marker: &str) -> bool {
        self.openshift().join(marker).exists()
    }
}

fn wait_for(child: &mut Child, limit: Duration, what: &str) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            kill_group(child);
            panic!("{what} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn kill_group(child: &mut Child) {
    // bash's builtin kill: a procps kill binary is not in every minimal image.
    let status = Command::new("bash")
        .args(["-c", &format!("kill -KILL -- -{}", child.id())])
        .status()
        .unwrap();
    assert!(
        status.success(),
        "could not kill process group {}",
        child.id()
    );
    child.wait().unwrap();
}

fn wait_until(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Positions of `needles` in `haystack`, asserting they occur in this order.
fn assert_in_order(haystack: &str, needles: &[&str]) {
    let mut from = 0;
    for needle in needles {
        let at = haystack[from..]
            .find(needle)
            .unwrap_or_else(|| panic!("{needle:?} missing (or out of order) in:\n{haystack}"));
        from += at + needle.len();
    }
}

/// The podman/oc call that identifies each stage in the stand-in log.
fn stage_call(stage: &str) -> String {
    match stage {
        "openshift-manifests" => "=== unused".into(),
        "cvo-bootstrap" => "--output-dir=/assets/cvo-bootstrap".into(),
        "ingress-operator-bootstrap" => "--output-dir=/assets/ingress-operator-manifests".into(),
        "mco-bootstrap" | "cco-bootstrap" => format!("--dest-dir=/assets/{stage}"),
        "wait-for-etcd" => "etcdctl --dial-timeout=10m".into(),
        "cb-bootstrap" => "start --tear-down-early=false".into(),
        "restore-cvo-overrides" => "patch clusterversion.config.openshift.io version".into(),
        "wait-for-ceo" => "wait-for-ceo --kubeconfig=/assets/auth/kubeconfig".into(),
        other => format!("--asset-output-dir=/assets/{other}"),
    }
}

/// Stage names of "stage end" records with result success, in order.
fn succeeded_stages(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .filter(|r| r["phase"] == "stage end" && r["result"] == "success")
        .map(|r| r["stage"].as_str().unwrap().to_string())
        .collect()
}

fn check_record_shape(records: &[Value]) {
    let keys = [
        "timestamp",
        "preCommand",
        "postCommand",
        "stage",
        "phase",
        "result",
        "errorLine",
        "errorMessage",
    ];
    for record in records {
        let object = record.as_object().expect("record is an object");
        for (key, value) in object {
            assert!(keys.contains(&key.as_str()), "unexpected key {key}");
            assert!(!value.as_str().unwrap().is_empty(), "empty {key} kept");
        }
        let stamp = record["timestamp"].as_str().unwrap();
        assert!(
            stamp.len() == 20 && stamp.ends_with('Z') && stamp.as_bytes()[10] == b'T',
            "{stamp}"
        );
    }
}

#[test]
fn bootkube_resumes_after_a_kill_and_progress_reports_once() {
    let host = Host::new(&sample("context-ha-none.json"));

    // Run 1: the stand-in podman blocks in the kube-apiserver render (stage 7); kill it there.
    let mut first = host.command("bootkube.sh", &[], "bootkube");
    first.env(
        "STANDIN_BLOCK_MATCH",
        "--asset-output-dir=/assets/kube-apiserver-bootstrap",
    );
    let mut child = first.spawn().unwrap();
    wait_until(Duration::from_secs(30), "podman to block", || {
        host.log().contains("podman blocking")
    });
    kill_group(&mut child);
    for stage in &HA_STAGES[..6] {
        assert!(
            host.done(&format!("{stage}.done")),
            "{stage}.done missing\n{}",
            host.output("bootkube")
        );
    }
    for stage in &HA_STAGES[6..] {
        assert!(
            !host.done(&format!("{stage}.done")),
            "{stage}.done too early"
        );
    }
    assert!(!host.done(".bootkube.done"));

    // progress.service starts meanwhile; the first create attempt fails like an API not up yet.
    fs::write(host.dir("state/oc-create-failures"), "1").unwrap();
    let mut progress = host
        .command(
            "report-progress.sh",
            &["/opt/openshift/auth/kubeconfig"],
            "progress",
        )
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        progress.try_wait().unwrap().is_none(),
        "report-progress must wait for bootkube"
    );
    assert!(
        !host.log().contains("create configmap"),
        "configmap created before .bootkube.done"
    );

    // Run 2: finished stages are skipped, the rest runs to the end.
    host.mark_log("run 2");
    let mut child = host
        .command("bootkube.sh", &[], "bootkube")
        .spawn()
        .unwrap();
    let status = wait_for(&mut child, Duration::from_secs(30), "bootkube.sh");
    assert!(
        status.success(),
        "bootkube.sh failed:\n{}",
        host.output("bootkube")
    );
    assert!(host.done(".bootkube.done"));
    for stage in HA_STAGES {
        assert!(host.done(&format!("{stage}.done")), "{stage}.done missing");
    }

    let log = host.log();
    let (run1, run2) = log.split_once("=== run 2").unwrap();
    let run1_calls: Vec<String> = HA_STAGES[1..6].iter().map(|s| stage_call(s)).collect();
    assert_in_order(
        run1,
        &run1_calls.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    for stage in &HA_STAGES[1..6] {
        assert!(
            !run2.contains(&stage_call(stage)),
            "{stage} ran again after the restart"
        );
    }
    let run2_calls: Vec<String> = HA_STAGES[6..].iter().map(|s| stage_call(s)).collect();
    assert_in_order(
        run2,
        &run2_calls.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert!(run2.contains(
        "--required-pods=openshift-kube-apiserver/kube-apiserver,openshift-kube-scheduler/openshift-kube-scheduler,\
         openshift-kube-controller-manager/kube-controller-manager,openshift-cluster-version/cluster-version-operator"
    ));
    assert!(run2.contains("curl --silent --insecure --max-time 10 --output /dev/null --write-out %{http_code} https://api-int.demo.example.com:6443/readyz"));
    assert_in_order(
        run2,
        &[
            "getent ahosts api-int.demo.example.com",
            &stage_call("cb-bootstrap"),
        ],
    );

    // Files the stages place on the host.
    let etc = host.dir("etc");
    for file in [
        "kubernetes/kubeconfig",
        "kubernetes/bootstrap-configs/kube-apiserver-config.yaml",
        "kubernetes/bootstrap-configs/cluster-policy-controller-config.yaml",
        "kubernetes/manifests/etcd-member-pod.yaml",
        "mcc/bootstrap/99_openshift-machineconfig_99-master-ssh.yaml",
        "mcs/kubeconfig",
        "ssl/mcs/tls.key",
    ] {
        assert!(etc.join(file).exists(), "{file} missing");
    }
    assert!(
        !etc.join("kubernetes/manifests/machineconfigoperator-bootstrap-pod.yaml")
            .exists()
    );
    assert!(
        host.openshift()
            .join("bootstrap-manifests/bootstrap-pod.yaml")
            .exists()
    );

    // Service records: run 1 ends with an open stage (killed), run 2 covers the rest.
    let records = host.records("bootkube");
    check_record_shape(&records);
    let starts: Vec<usize> = (0..records.len())
        .filter(|&i| records[i]["phase"] == "service start")
        .collect();
    assert_eq!(starts.len(), 2, "two runs, two service starts");
    let (run1, run2) = records.split_at(starts[1]);
    assert_eq!(succeeded_stages(run1), HA_STAGES[..6]);
    assert_eq!(run1.last().unwrap()["stage"], "kube-apiserver-bootstrap");
    assert_eq!(run1.last().unwrap()["phase"], "stage start");
    // api-int is resolved before cb-bootstrap waits for the masters, which need it, and
    // both names with their API server behind them at the end.
    let mut expected: Vec<&str> = HA_STAGES[6..].to_vec();
    let waiting = expected.iter().position(|s| *s == "cb-bootstrap").unwrap();
    expected.insert(waiting, "check-api-int-url");
    expected.extend(["check-api-url", "check-api-int-url"]);
    assert_eq!(succeeded_stages(run2), expected);
    let last = run2.last().unwrap();
    assert_eq!(
        (last["phase"].as_str(), last["result"].as_str()),
        (Some("service end"), Some("success"))
    );

    // report-progress: one failed attempt, one successful create, then it stops.
    let status = wait_for(&mut progress, Duration::from_secs(30), "report-progress.sh");
    assert!(
        status.success(),
        "report-progress failed:\n{}",
        host.output("progress")
    );
    assert_eq!(
        host.log()
            .matches(
                "create configmap bootstrap --namespace kube-system --from-literal status=complete"
            )
            .count(),
        2
    );
    let creations = fs::read_to_string(host.dir("state/configmap-creations")).unwrap();
    assert_eq!(creations.lines().count(), 1);
    let progress_records = host.records("progress");
    check_record_shape(&progress_records);
    assert_eq!(
        succeeded_stages(&progress_records),
        [
            "wait-for-bootstrap-complete",
            "wait-for-ha-api",
            "report-bootstrap-complete"
        ]
    );

    // A restarted progress.service finds the ConfigMap and is done without creating another.
    let mut again = host
        .command(
            "report-progress.sh",
            &["/opt/openshift/auth/kubeconfig"],
            "progress",
        )
        .spawn()
        .unwrap();
    assert!(wait_for(&mut again, Duration::from_secs(30), "report-progress.sh").success());
    assert_eq!(
        fs::read_to_string(host.dir("state/configmap-creations"))
            .unwrap()
            .lines()
            .count(),
        1
    );
}

#[test]
fn single_node_bootkube_packs_master_config_then_installs_to_disk() {
    let sample = sample("context-single-node.json");
    let disk = sample
        .ctx
        .bootstrap_in_place
        .as_ref()
        .expect("the single-node sample has an installation disk")
        .installation_disk
        .clone();
    let host = Host::new(&sample);
    fs::copy(
        host.rendered
            .path("/opt/openshift/bootstrap-in-place/master-update.fcc"),
        host.openshift()
            .join("bootstrap-in-place/master-update.fcc"),
    )
    .unwrap();

    // install-to-disk.service starts with bootkube and must wait for it.
    let mut install = host
        .command("install-to-disk.sh", &[], "install-to-disk")
        .spawn()
        .unwrap();
    let mut bootkube = host
        .command("bootkube.sh", &[], "bootkube")
        .spawn()
        .unwrap();
    let status = wait_for(&mut bootkube, Duration::from_secs(60), "bootkube.sh");
    assert!(
        status.success(),
        "bootkube.sh failed:\n{}",
        host.output("bootkube")
    );
    let status = wait_for(&mut install, Duration::from_secs(30), "install-to-disk.sh");
    assert!(
        status.success(),
        "install-to-disk.sh failed:\n{}",
        host.output("install-to-disk")
    );

    let log = host.log();
    assert!(
        log.contains("--required-pods=\n"),
        "single node requires no pods:\n{log}"
    );
    assert!(
        !log.contains("wait-for-ceo"),
        "HA post steps ran on a single node"
    );
    assert_in_order(
        &log,
        &[
            "start --tear-down-early=false",
            "crictl ps --quiet --name ^etcd$",
            "curl --fail --silent --show-error --header Accept: application/vnd.coreos.ignition+json;version=3.2.0",
            "bootstrap-in-place --asset-dir=/assets --input=/assets/bootstrap-in-place/master-update.fcc --output=/assets/master.ign",
            &format!(
                "coreos-installer install --copy-network --ignition-file {}/master.ign {disk}",
                host.openshift().display()
            ),
            "shutdown --reboot +1",
        ],
    );
    for marker in [
        "stop-etcd.done",
        "master-ignition.done",
        ".bootkube.done",
        "coreos-installer.done",
        ".install-to-disk.done",
    ] {
        assert!(host.done(marker), "{marker} missing");
    }
    assert!(
        host.dir("etc/kubernetes/bootstrap-etcd/etcd-member-pod.yaml")
            .exists()
    );
    assert!(
        host.openshift()
            .join("log-bundle-bootstrap.tar.gz")
            .exists()
    );
    assert_eq!(
        succeeded_stages(&host.records("install-to-disk")),
        ["wait-for-bootkube", "coreos-installer", "reboot"]
    );

    // A restart after the disk was written does not run coreos-installer again.
    host.mark_log("restart");
    let mut again = host
        .command("install-to-disk.sh", &[], "install-to-disk")
        .spawn()
        .unwrap();
    assert!(wait_for(&mut again, Duration::from_secs(30), "install-to-disk.sh").success());
    let log = host.log();
    let (_, after) = log.split_once("=== restart").unwrap();
    assert!(
        !after.contains("coreos-installer"),
        "coreos-installer ran twice"
    );
}

/// Run a script that sources the service-record library and then runs `body`.
fn record_script(host: &Host, body: &str, env: &[(&str, &str)]) -> std::process::Output {
    let script = host.dir("state/script.sh");
    let text = format!(
        "set -euo pipefail\n. \"${{BOOTSTRAP_BIN_DIR}}/bootstrap-service-record.sh\"\n{body}\n"
    );
    fs::write(&script, text).unwrap();
    let mut cmd = host.command_for(&script, &[], "demo");
    cmd.envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.output().unwrap()
}

#[test]
fn service_records_escape_text_and_reject_misuse() {
    let host = Host::new(&sample("context-ha-none.json"));
    let out = record_script(
        &host,
        "record_service_stage_start 'quote \" and \\ backslash'\nrecord_service_stage_failure \"$(printf 'two\\nlines\\ttab')\"\nrecord_service_stage_start next\nfalse",
        &[],
    );
    assert!(!out.status.success());
    let records = host.records("demo");
    check_record_shape(&records);
    let phases: Vec<&str> = records
        .iter()
        .map(|r| r["phase"].as_str().unwrap())
        .collect();
    assert_eq!(
        phases,
        [
            "service start",
            "stage start",
            "stage end",
            "stage start",
            "stage end",
            "service end"
        ]
    );
    assert_eq!(records[1]["stage"], "quote \" and \\ backslash");
    assert_eq!(records[2]["errorMessage"], "two\nlines\ttab");
    assert!(
        records[2]["errorLine"]
            .as_str()
            .unwrap()
            .contains("script.sh")
    );
    assert_eq!(records[4]["result"], "failure");
    assert_eq!(records[5]["result"], "failure");
    assert!(
        records[5]["errorMessage"]
            .as_str()
            .unwrap()
            .contains("journal line three")
    );

    // Ending a stage that was never started aborts the script.
    fs::remove_file(host.dir("records/demo.json")).unwrap();
    let out = record_script(&host, "record_service_stage_success\necho unreachable", &[]);
    assert!(!out.status.success());
    assert!(!String::from_utf8_lossy(&out.stdout).contains("unreachable"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no open stage"));

    // PRE_COMMAND turns the service phases into pre-command phases.
    fs::remove_file(host.dir("records/demo.json")).unwrap();
    let out = record_script(&host, "true", &[("PRE_COMMAND", "kubelet-pause-image")]);
    assert!(out.status.success());
    let records = host.records("demo");
    let phases: Vec<&str> = records
        .iter()
        .map(|r| r["phase"].as_str().unwrap())
        .collect();
    assert_eq!(phases, ["pre-command start", "pre-command end"]);
    assert!(
        records
            .iter()
            .all(|r| r["preCommand"] == "kubelet-pause-image")
    );
}

#[test]
fn bootkube_records_a_failed_stage_and_gathers() {
    let host = Host::new(&sample("context-ha-none.json"));
    let mut cmd = host.command("bootkube.sh", &[], "bootkube");
    cmd.env("STANDIN_FAIL_MATCH", "start --tear-down-early=false");
    let mut child = cmd.spawn().unwrap();
    let status = wait_for(&mut child, Duration::from_secs(30), "bootkube.sh");
    assert!(
        !status.success(),
        "bootkube.sh must fail when cluster-bootstrap fails"
    );
    assert!(host.done("wait-for-etcd.done"));
    assert!(!host.done("cb-bootstrap.done"));
    assert!(!host.done(".bootkube.done"));

    // Component images come from the release image's matching repository digest.
    assert!(
        host.log()
            .contains("quay.io/okd/scos-release@sha256:2222 image cluster-bootstrap")
    );

    let records = host.records("bootkube");
    check_record_shape(&records);
    let (stage_end, service_end) = (&records[records.len() - 2], &records[records.len() - 1]);
    assert_eq!(stage_end["stage"], "cb-bootstrap");
    assert_eq!(stage_end["result"], "failure");
    assert!(
        stage_end["errorLine"]
            .as_str()
            .unwrap()
            .contains("bootkube.sh")
    );
    assert!(
        stage_end["errorMessage"]
            .as_str()
            .unwrap()
            .contains("journal line")
    );
    assert_eq!(service_end["phase"], "service end");
    assert_eq!(service_end["result"], "failure");

    // The gather hook left a bundle next to the service records.
    let bundles: Vec<_> = walk(&host.dir("records"))
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("cluster-bootstrap-failure-") && name.ends_with(".tar.gz")
        })
        .collect();
    assert_eq!(bundles.len(), 1, "{}", host.output("bootkube"));
}

/// api-int does not resolve on the host: bootkube.sh records that before cb-bootstrap waits
/// for the masters (who need the name to fetch their config), goes on, and checks again at
/// the end.
#[test]
fn bootkube_records_an_unresolved_api_int_before_waiting_for_the_masters() {
    let host = Host::new(&sample("context-ha-none.json"));
    let mut cmd = host.command("bootkube.sh", &[], "bootkube");
    cmd.env("STANDIN_UNRESOLVED", "api-int.demo.example.com");
    let mut child = cmd.spawn().unwrap();
    let status = wait_for(&mut child, Duration::from_secs(30), "bootkube.sh");
    assert!(status.success(), "{}", host.output("bootkube"));
    assert!(
        host.output("bootkube")
            .contains("api-int.demo.example.com does not resolve")
    );

    let records = host.records("bootkube");
    check_record_shape(&records);
    let failed: Vec<usize> = (0..records.len())
        .filter(|&i| records[i]["result"] == "failure")
        .collect();
    assert_eq!(
        failed.len(),
        2,
        "before cb-bootstrap and at the end: {records:?}"
    );
    for &i in &failed {
        assert_eq!(records[i]["stage"], "check-api-int-url");
        assert_eq!(
            records[i]["errorMessage"],
            "api-int.demo.example.com does not resolve to any address"
        );
    }
    let waiting = records
        .iter()
        .position(|r| r["phase"] == "stage start" && r["stage"] == "cb-bootstrap")
        .unwrap();
    assert!(failed[0] < waiting, "the first check comes before the wait");
    let last = records.last().unwrap();
    assert_eq!(last["phase"], "service end");
    assert_eq!(last["result"], "success");
}

/// The end checks of an HA bootkube.sh whose first `not_ready` /readyz probes answer
/// `not_ready_status` (000: no answer), with `API_READY_WAIT` set to `wait`: the
/// check-api-url and check-api-int-url records, and the service's output.
fn end_checks(not_ready: u32, not_ready_status: &str, wait: u32) -> (Vec<Value>, String) {
    let host = Host::new(&sample("context-ha-none.json"));
    let mut cmd = host.command("bootkube.sh", &[], "bootkube");
    cmd.env("STANDIN_NOT_READY", not_ready.to_string())
        .env("STANDIN_NOT_READY_STATUS", not_ready_status)
        .env("API_READY_WAIT", wait.to_string());
    let mut child = cmd.spawn().unwrap();
    let status = wait_for(&mut child, Duration::from_secs(60), "bootkube.sh");
    assert!(status.success(), "{}", host.output("bootkube"));
    let records = host.records("bootkube");
    check_record_shape(&records);
    let last = records.last().unwrap();
    assert_eq!(
        (&last["phase"], &last["result"]),
        (&json!("service end"), &json!("success"))
    );
    let ends = records
        .into_iter()
        .filter(|r| r["phase"] == "stage end")
        .filter(|r| r["stage"] == "check-api-url" || r["stage"] == "check-api-int-url")
        .collect();
    (ends, host.output("bootkube"))
}

/// Behind a load balancer the masters' API servers take over from the bootstrap one some
/// seconds after the teardown: answers of 500 before a 200 are a wait, not a failure.
#[test]
fn the_end_checks_wait_for_an_api_server_that_becomes_ready() {
    let (ends, output) = end_checks(3, "500", 120);
    let results: Vec<_> = ends.iter().map(|r| (&r["stage"], &r["result"])).collect();
    assert_eq!(
        results,
        [
            (&json!("check-api-int-url"), &json!("success")),
            (&json!("check-api-url"), &json!("success")),
            (&json!("check-api-int-url"), &json!("success")),
        ],
        "{output}"
    );
    assert!(
        output.contains(
            "The API server behind api.demo.example.com is not ready yet (HTTP 500); asking again in 5s"
        ),
        "{output}"
    );
    assert!(output.contains("The API server behind api-int.demo.example.com is ready"));
}

/// An API server that never says ready within the wait is recorded once per name, with the
/// last answer and the addresses the name led to; bootkube still ends well.
#[test]
fn the_end_checks_record_an_api_server_that_never_becomes_ready() {
    for (status, answer) in [("500", "HTTP 500"), ("000", "no answer")] {
        let (ends, output) = end_checks(u32::MAX, status, 1);
        let failures: Vec<_> = ends
            .iter()
            .filter(|r| r["result"] == "failure")
            .map(|r| {
                (
                    r["stage"].as_str().unwrap(),
                    r["errorMessage"].as_str().unwrap(),
                )
            })
            .collect();
        let message = |host: &str| {
            format!(
                "https://{host}:6443/readyz did not answer ready within 1s \
                 (last answer: {answer}; addresses: 192.0.2.10)"
            )
        };
        let (api, api_int) = (
            message("api.demo.example.com"),
            message("api-int.demo.example.com"),
        );
        assert_eq!(
            failures,
            [
                ("check-api-url", api.as_str()),
                ("check-api-int-url", api_int.as_str())
            ],
            "{output}"
        );
    }
}

/// A bootkube.service restarted after cluster-bootstrap failed: the real cluster-bootstrap
/// refuses to copy a static pod over a file its first run left, so the stage must take out
/// those pods (and only those: etcd keeps running) before it starts again.
#[test]
fn a_restarted_cb_bootstrap_takes_out_only_the_pods_of_its_earlier_run() {
    let host = Host::new(&sample("context-ha-none.json"));
    let mut cmd = host.command("bootkube.sh", &[], "bootkube");
    cmd.env("STANDIN_FAIL_MATCH", "start --tear-down-early=false");
    let mut child = cmd.spawn().unwrap();
    let status = wait_for(&mut child, Duration::from_secs(30), "bootkube.sh");
    assert!(!status.success(), "{}", host.output("bootkube"));
    // What cluster-bootstrap's first run placed, beside the etcd pod of an earlier stage.
    let static_pods = host.dir("etc/kubernetes/manifests");
    fs::create_dir_all(&static_pods).unwrap();
    let ours = host.openshift().join("bootstrap-manifests");
    fs::create_dir_all(&ours).unwrap();
    fs::write(ours.join("kube-apiserver-pod.yaml"), "kind: Pod").unwrap();
    for pod in ["kube-apiserver-pod.yaml", "etcd-member-pod.yaml"] {
        fs::write(static_pods.join(pod), "kind: Pod").unwrap();
    }

    let mut child = host
        .command("bootkube.sh", &[], "bootkube")
        .spawn()
        .unwrap();
    let status = wait_for(&mut child, Duration::from_secs(30), "bootkube.sh");
    assert!(status.success(), "{}", host.output("bootkube"));
    assert!(host.done("cb-bootstrap.done"));
    assert!(!static_pods.join("kube-apiserver-pod.yaml").exists());
    assert!(static_pods.join("etcd-member-pod.yaml").exists());
}

#[test]
fn release_image_download_backs_off_up_to_a_minute() {
    let host = Host::new(&sample("context-ha-none.json"));
    fs::write(host.dir("state/pull-failures"), "8").unwrap();
    let mut child = host
        .command("release-image-download.sh", &[], "release-image")
        .spawn()
        .unwrap();
    let status = wait_for(
        &mut child,
        Duration::from_secs(30),
        "release-image-download.sh",
    );
    assert!(status.success(), "{}", host.output("release-image"));
    let log = host.log();
    let pulls = log
        .matches("podman pull --quiet quay.io/okd/scos-release:4.19.0-okd-scos.1")
        .count();
    assert_eq!(pulls, 9);
    let sleeps: Vec<&str> = log
        .lines()
        .filter_map(|l| l.strip_prefix("sleep "))
        .collect();
    assert_eq!(sleeps, ["2", "4", "8", "16", "32", "60", "60", "60"]);
    assert_eq!(
        succeeded_stages(&host.records("release-image")),
        ["pull-release-image"]
    );
}

#[test]
fn approve_csr_approves_pending_requests_until_bootkube_is_done() {
    let host = Host::new(&sample("context-ha-none.json"));
    fs::write(
        host.dir("state/pending-csrs"),
        "csr-master-0\ncsr-master-1\n",
    )
    .unwrap();
    let mut child = host
        .command(
            "approve-csr.sh",
            &["/opt/openshift/auth/kubeconfig-loopback"],
            "approve-csr",
        )
        .spawn()
        .unwrap();
    wait_until(Duration::from_secs(20), "both approvals", || {
        host.log().contains("approve csr-master-1")
    });
    wait_until(
        Duration::from_secs(20),
        "the stand-in to drop approved requests",
        || {
            fs::read_to_string(host.dir("state/pending-csrs"))
                .unwrap()
                .is_empty()
        },
    );
    // A request that shows up later is approved too.
    fs::write(host.dir("state/pending-csrs"), "csr-late\n").unwrap();
    wait_until(Duration::from_secs(20), "the late approval", || {
        host.log().contains("approve csr-late")
    });
    assert!(
        child.try_wait().unwrap().is_none(),
        "approve-csr stopped early"
    );
    fs::write(host.openshift().join(".bootkube.done"), "").unwrap();
    let status = wait_for(&mut child, Duration::from_secs(20), "approve-csr.sh");
    assert!(status.success(), "{}", host.output("approve-csr"));
    let log = host.log();
    for csr in ["csr-master-0", "csr-master-1", "csr-late"] {
        assert_eq!(
            log.matches(&format!("adm certificate approve {csr}\n"))
                .count(),
            1,
            "{csr}"
        );
    }
    assert!(log.contains("--kubeconfig=/opt/openshift/auth/kubeconfig-loopback"));
}

/// Entry names of a gzip tarball.
fn tar_entries(path: &Path) -> Vec<String> {
    let output = Command::new("tar").arg("-tzf").arg(path).output().unwrap();
    assert!(output.status.success(), "{} is no tarball", path.display());
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// A stand-in sudo for runs as an unprivileged user: drops its options and runs the command
/// (as root the gather scripts do not call sudo at all).
fn sudo_standin(host: &Host) {
    let path = host.dir("standins/sudo");
    fs::write(
        &path,
        "#!/bin/sh\nwhile [ \"${1#-}\" != \"$1\" ]; do shift; done\nexec \"$@\"\n",
    )
    .unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn installer_gather_writes_the_bundle_layout_without_secrets() {
    let host = Host::new(&sample("context-baremetal-dual-proxy.json"));
    sudo_standin(&host);
    fs::write(host.dir("records/bootkube.json"), "[\n]\n").unwrap();
    fs::write(
        host.openshift()
            .join("manifests/openshift-config-secret-pull-secret.yaml"),
        "x",
    )
    .unwrap();
    fs::create_dir_all(host.openshift().join(".kube")).unwrap();
    fs::write(host.openshift().join(".kube/config"), "x").unwrap();
    for (rel, text) in [
        (
            "etc/kubernetes/manifests/kube-apiserver-pod.yaml",
            "kind: Pod",
        ),
        (
            "etc/kubernetes/bootstrap-secrets/kubeconfig",
            "kind: Config",
        ),
        (
            "etc/kubernetes/bootstrap-configs/kube-apiserver-config.yaml",
            "kind: KubeAPIServerConfig",
        ),
    ] {
        fs::create_dir_all(host.dir(rel).parent().unwrap()).unwrap();
        fs::write(host.dir(rel), text).unwrap();
    }

    let mut child = host
        .command(
            "installer-gather.sh",
            &["--id", "test123", "192.0.2.20", "fd00::20"],
            "gather",
        )
        .spawn()
        .unwrap();
    let status = wait_for(&mut child, Duration::from_secs(60), "installer-gather.sh");
    assert!(status.success(), "{}", host.output("gather"));

    // TAR_FILE defaults to $HOME/log-bundle-<ID>.tar.gz; the top directory is renamed.
    let entries = tar_entries(&host.tmp.path().join("log-bundle-test123.tar.gz"));
    assert!(entries.iter().all(|e| e.starts_with("log-bundle-test123/")));
    for expected in [
        "gather.log",
        "failed-units.txt",
        "bootstrap/journals/bootkube.log",
        "bootstrap/journals/release-image.log",
        "bootstrap/journals/release-image-pivot.log",
        "bootstrap/journals/node-image-overlay.log",
        "bootstrap/services/bootkube.json",
        "bootstrap/network/ip-addr.txt",
        "bootstrap/network/hostname.txt",
        "bootstrap/containers/crictl-ps.txt",
        "bootstrap/pods/podman-ps.txt",
        "bootstrap/etcd/member-list.txt",
        "bootstrap/rpm-ostree/status",
        "bootstrap/etc-kubernetes/manifests/kube-apiserver-pod.yaml",
        "bootstrap/etc-kubernetes/bootstrap-configs/kube-apiserver-config.yaml",
        "rendered-assets/openshift/manifests/cluster-config.yaml",
        "rendered-assets/openshift/tls/root-ca.crt",
        "resources/clusteroperators.json",
        "resources/machineosconfigs.json",
        "resources/machineosbuilds.json",
        "resources/openapi.json.gz",
        "control-plane/192.0.2.20/",
        "control-plane/fd00::20/",
    ] {
        let name = format!("log-bundle-test123/{expected}");
        assert!(entries.contains(&name), "{name} missing from {entries:#?}");
    }
    for entry in entries
        .iter()
        .filter(|e| e.contains("/rendered-assets/") || e.contains("/etc-kubernetes/"))
    {
        let leaf = entry.trim_end_matches('/').rsplit('/').next().unwrap();
        assert!(
            !(leaf.contains("secret")
                || leaf.contains("kubeconfig")
                || leaf.ends_with(".key")
                || leaf == ".kube"),
            "{entry} must not be in the bundle"
        );
    }
    let log = host.log();
    assert!(log.contains("ssh -o PreferredAuthentications=publickey"));
    // The masters write into their own artifacts directory, as upstream's 4.19 script does.
    assert!(log.contains(
        "-p 22 core@192.0.2.20 -- sudo --non-interactive bash ./installer-masters-gather.sh --id master-test123"
    ));
    assert!(log.contains("core@[fd00::20]:/tmp/artifacts-master-test123/*"));
    // The API is asked through /etc/kubernetes/bootstrap-secrets/kubeconfig when it exists (as
    // upstream; after a single-node reboot it is the only one left).
    assert!(log.contains("bootstrap-secrets/kubeconfig --request-timeout=10s get --raw /version"));
    // Journals of every boot: the node image and the OS pivot may have worked in an earlier one.
    assert!(log.contains("journalctl --no-pager --output=short --unit release-image-pivot\n"));
    assert!(log.contains("journalctl --no-pager --output=short --unit node-image-overlay\n"));
}

#[test]
fn installer_masters_gather_fills_its_artifacts_dir() {
    let host = Host::new(&sample("context-ha-none.json"));
    sudo_standin(&host);
    let out = host.dir("artifacts/master");
    let mut cmd = host.command(
        "installer-masters-gather.sh",
        &["--id", "m1"],
        "masters-gather",
    );
    cmd.env("ARTIFACTS_DIR", &out);
    let status = wait_for(
        &mut cmd.spawn().unwrap(),
        Duration::from_secs(30),
        "installer-masters-gather.sh",
    );
    assert!(status.success(), "{}", host.output("masters-gather"));
    for file in [
        "failed-units.txt",
        "journals/kubelet.log",
        "journals/machine-config-daemon-host.log",
        "journals/ignition.log",
        "journals/journal.log.gz",
        "network/ip-addr.txt",
        "network/hostname.txt",
        "containers/crictl-ps.txt",
        "rpm-ostree/status",
    ] {
        assert!(out.join(file).exists(), "{file} missing");
    }
    assert!(host.log().contains("crictl ps --all --quiet"));
}

#[test]
fn pause_image_and_crio_configuration_come_from_the_release() {
    let host = Host::new(&sample("context-ha-none.json"));
    let crio_dir = host.dir("etc/crio/crio.conf.d");
    let mut cmd = host.command("crio-configure.sh", &[], "crio-configure");
    cmd.env("CRIO_DROPIN_DIR", &crio_dir);
    assert!(
        wait_for(
            &mut cmd.spawn().unwrap(),
            Duration::from_secs(30),
            "crio-configure.sh"
        )
        .success()
    );
    let conf = fs::read_to_string(crio_dir.join("50-okd-bootstrap.conf")).unwrap();
    assert!(conf.contains("pause_image = \"registry.test/okd/pod@sha256:0000\""));
    assert!(conf.contains("global_auth_file = \"/root/.docker/config.json\""));

    let run = |host: &Host| {
        let mut child = host
            .command("kubelet-pause-image.sh", &[], "kubelet")
            .spawn()
            .unwrap();
        assert!(
            wait_for(
                &mut child,
                Duration::from_secs(30),
                "kubelet-pause-image.sh"
            )
            .success()
        );
    };
    run(&host);
    let override_file = host.dir("etc/kubernetes/kubelet-pause-image-override");
    assert_eq!(
        fs::read_to_string(&override_file).unwrap(),
        "KUBELET_PAUSE_IMAGE=registry.test/okd/pod@sha256:0000\n"
    );
    // An existing choice is kept.
    fs::write(&override_file, "KUBELET_PAUSE_IMAGE=example.com/pause:1\n").unwrap();
    run(&host);
    assert!(
        fs::read_to_string(&override_file)
            .unwrap()
            .contains("example.com/pause:1")
    );
    let records = host.records("kubelet");
    assert!(
        records
            .iter()
            .all(|r| r["preCommand"] == "kubelet-pause-image")
    );
    assert_eq!(records[0]["phase"], "pre-command start");
}

#[test]
fn single_node_post_reboot_finishes_the_install_and_cleans_up() {
    let host = Host::new(&sample("context-single-node.json"));
    let script = host
        .rendered
        .path("/opt/openshift/bootstrap-in-place/bootstrap-in-place-post-reboot.sh");
    // The installed system: no asset tree yet except what master-update.fcc carried.
    let state = host.dir("installed/opt/openshift");
    fs::create_dir_all(&state).unwrap();
    fs::write(state.join("original_cvo_overrides.patch"), "{}").unwrap();
    // A marker from an earlier, interrupted run: that step is not repeated.
    fs::write(state.join("release_cvo_lease.done"), "").unwrap();
    for dir in ["bootstrap-secrets", "bootstrap-configs", "manifests"] {
        fs::create_dir_all(host.dir("etc/kubernetes").join(dir)).unwrap();
    }

    let mut cmd = host.command_for(&script, &[], "bootstrap-in-place-post-reboot");
    cmd.env("OPENSHIFT_ROOT", &state);
    let status = wait_for(
        &mut cmd.spawn().unwrap(),
        Duration::from_secs(30),
        "post-reboot",
    );
    assert!(
        status.success(),
        "{}",
        host.output("bootstrap-in-place-post-reboot")
    );

    let log = host.log();
    assert_in_order(
        &log,
        &[
            "oc get --raw=/readyz",
            "oc create configmap bootstrap --namespace kube-system --from-literal status=complete",
            "oc delete leases.coordination.k8s.io cluster-policy-controller-lock --namespace kube-system",
            "oc patch clusterversion.config.openshift.io version --type=merge",
            "oc get nodes --output jsonpath",
            "oc wait --namespace openshift-kube-apiserver-operator --for=condition=Ready pod",
            "systemctl daemon-reload",
            "systemctl restart kubelet.service",
            "systemctl daemon-reload",
            "systemctl restart kubelet.service",
            "oc wait clusterversion/version --for=condition=Available=True",
            "systemctl disable bootstrap-in-place-post-reboot.service",
        ],
    );
    assert!(
        !log.contains("delete leases.coordination.k8s.io version"),
        "marker ignored"
    );
    assert_eq!(
        fs::read_to_string(host.dir("state/configmap-creations"))
            .unwrap()
            .lines()
            .count(),
        1
    );
    // Bootstrap leftovers are gone.
    assert!(!state.exists());
    assert!(!host.dir("etc/kubernetes/bootstrap-secrets").exists());
    assert!(!host.dir("etc/kubernetes/bootstrap-configs").exists());
    assert!(host.dir("etc/kubernetes/manifests").exists());
    assert!(
        !host
            .rendered
            .path("/usr/local/bin/installer-gather.sh")
            .exists()
    );
    let records = host.records("bootstrap-in-place-post-reboot");
    check_record_shape(&records);
    assert_eq!(
        succeeded_stages(&records).last().map(String::as_str),
        Some("cleanup")
    );
}

/// Write a stand-in state file atomically (stand-ins may read it at any moment).
fn write_state(host: &Host, name: &str, text: &str) {
    let tmp = host.dir(&format!("state/{name}.tmp"));
    fs::write(&tmp, text).unwrap();
    fs::rename(&tmp, host.dir(&format!("state/{name}"))).unwrap();
}

/// ConfigMap kube-system/bootstrap-pivot as the stand-in oc keeps it (`None`: not created).
fn pivot_configmap(host: &Host) -> Option<BTreeMap<String, String>> {
    let text = fs::read_to_string(host.dir("state/configmap-bootstrap-pivot")).ok()?;
    Some(
        text.lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

/// Every stage value the pivot script published, in order.
fn published_stages(host: &Host) -> Vec<String> {
    fs::read_to_string(host.dir("state/pivot-stages"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

const PIVOT_STEPS: [&str; 6] = [
    "pivot-allow-reduced-etcd",
    "pivot-wait-for-masters",
    "pivot-wait-for-bootkube",
    "pivot-pointer-config",
    "pivot-coreos-installer",
    "reboot",
];

const ETCD_PATCH: &str = "patch etcd.operator.openshift.io cluster --type=merge --patch {\"spec\":{\"unsupportedConfigOverrides\":{\"useUnsupportedUnsafeNonHANonProductionUnstableEtcd\":true}}}";

#[test]
fn bootstrap_pivot_installs_a_master_pointer_config_after_bootkube() {
    let sample = sample("context-pivot.json");
    let host = Host::new(&sample);
    // The API is not there yet: neither the etcd patch nor the ConfigMap can be written.
    write_state(&host, "oc-fail", "patch etcd.operator\nbootstrap-pivot\n");
    let mut pivot = host
        .command("bootstrap-pivot.sh", &[], "bootstrap-pivot")
        .spawn()
        .unwrap();
    wait_until(Duration::from_secs(20), "two etcd patch attempts", || {
        host.log().matches("patch etcd.operator").count() >= 2
    });
    assert!(
        !host.log().contains("get nodes"),
        "waited for masters before the etcd override was set:\n{}",
        host.log()
    );
    // The override goes in; publishing still fails, which must not stop the pivot.
    write_state(&host, "oc-fail", "bootstrap-pivot\n");
    wait_until(Duration::from_secs(20), "the master check", || {
        host.log()
            .contains("get nodes --selector node-role.kubernetes.io/master")
    });
    assert!(pivot_configmap(&host).is_none());
    // The API answers: the pending stage and the override are published by the wait.
    fs::remove_file(host.dir("state/oc-fail")).unwrap();
    wait_until(Duration::from_secs(20), "the published stage", || {
        pivot_configmap(&host).is_some_and(|cm| {
            cm.get("stage").map(String::as_str) == Some("pivot-wait-for-masters")
                && cm.get("etcdOverride").map(String::as_str) == Some("set")
        })
    });
    // One of two other masters Ready: the pivot waits.
    std::thread::sleep(Duration::from_millis(200));
    assert!(!host.done("pivot-wait-for-masters.done"));
    fs::write(host.dir("state/ready-nodes"), "2").unwrap();
    wait_until(Duration::from_secs(20), "the masters", || {
        host.done("pivot-wait-for-masters.done")
    });
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        !host.log().contains("coreos-installer install"),
        "installed before bootkube finished"
    );
    assert!(!host.openshift().join("pivot-master.ign").exists());
    fs::write(host.openshift().join(".bootkube.done"), "").unwrap();
    let status = wait_for(&mut pivot, Duration::from_secs(20), "bootstrap-pivot.sh");
    assert!(status.success(), "{}", host.output("bootstrap-pivot"));

    let pointer_path = host.openshift().join("pivot-master.ign");
    let log = host.log();
    assert_in_order(
        &log,
        &[
            ETCD_PATCH,
            "get nodes --selector node-role.kubernetes.io/master",
            &format!(
                "coreos-installer install --ignition-file {} /dev/vda",
                pointer_path.display()
            ),
            "set data configmap/bootstrap-pivot --namespace kube-system stage=reboot",
            "shutdown --reboot +1",
        ],
    );
    assert_eq!(log.matches("coreos-installer install").count(), 1);
    assert!(
        log.trim_end()
            .ends_with("okd-install: the bootstrap host restarts as a control-plane node"),
        "the reboot is not the last call:\n{log}"
    );
    for call in log.lines().filter(|l| l.contains("bootstrap-pivot")) {
        assert!(
            call.contains("--request-timeout=10s"),
            "publish without a short timeout: {call}"
        );
    }
    let pointer: Value = serde_json::from_str(&fs::read_to_string(&pointer_path).unwrap()).unwrap();
    assert_eq!(pointer["ignition"]["version"], "3.2.0");
    assert_eq!(
        pointer["ignition"]["config"]["merge"][0]["source"],
        "https://api-int.pivot.example.com:22623/config/master"
    );
    let ca = pointer["ignition"]["security"]["tls"]["certificateAuthorities"][0]["source"]
        .as_str()
        .unwrap();
    // base64 of "root ca", the stand-in root CA file.
    assert_eq!(ca, "data:text/plain;charset=utf-8;base64,cm9vdCBjYQ==");
    assert!(host.done(".bootstrap-pivot.done"));
    let records = host.records("bootstrap-pivot");
    check_record_shape(&records);
    assert_eq!(succeeded_stages(&records), PIVOT_STEPS);
    assert_eq!(published_stages(&host), PIVOT_STEPS[1..]);
    let cm = pivot_configmap(&host).unwrap();
    assert_eq!(cm.get("stage").map(String::as_str), Some("reboot"));
    assert_eq!(cm.get("etcdOverride").map(String::as_str), Some("set"));
    assert_eq!(cm.get("failure").map(String::as_str), Some(""), "{cm:?}");
}

/// Prepare a pivot host where every step would succeed except `step`, which fails.
fn inject_pivot_failure(host: &Host, step: &str) {
    if step != "pivot-wait-for-masters" {
        fs::write(host.dir("state/ready-nodes"), "2").unwrap();
    }
    if step != "pivot-wait-for-bootkube" {
        fs::write(host.openshift().join(".bootkube.done"), "").unwrap();
    }
    match step {
        "pivot-allow-reduced-etcd" => write_state(host, "oc-fail", "patch etcd.operator\n"),
        "pivot-pointer-config" => {
            fs::remove_file(host.openshift().join("tls/root-ca.crt")).unwrap()
        }
        "pivot-coreos-installer" => fs::write(host.dir("state/coreos-installer-fail"), "").unwrap(),
        "reboot" => fs::write(host.dir("state/shutdown-fail"), "").unwrap(),
        // Masters that never become Ready, a bootkube that never finishes: the waits give up.
        _ => {}
    }
}

/// Undo [`inject_pivot_failure`].
fn clear_pivot_failure(host: &Host, step: &str) {
    fs::write(host.dir("state/ready-nodes"), "2").unwrap();
    fs::write(host.openshift().join(".bootkube.done"), "").unwrap();
    fs::write(host.openshift().join("tls/root-ca.crt"), "root ca").unwrap();
    for file in ["oc-fail", "coreos-installer-fail", "shutdown-fail"] {
        let _ = fs::remove_file(host.dir(&format!("state/{file}")));
    }
    host.mark_log(&format!("failure at {step} cleared"));
}

fn run_pivot(host: &Host) -> ExitStatus {
    let mut child = host
        .command("bootstrap-pivot.sh", &[], "bootstrap-pivot")
        .env("PIVOT_MAX_ATTEMPTS", "3")
        .spawn()
        .unwrap();
    wait_for(&mut child, Duration::from_secs(30), "bootstrap-pivot.sh")
}

#[test]
fn bootstrap_pivot_stops_at_a_failed_step_and_resumes_there() {
    let sample = sample("context-pivot.json");
    for (index, step) in PIVOT_STEPS.iter().enumerate() {
        let host = Host::new(&sample);
        inject_pivot_failure(&host, step);
        let status = run_pivot(&host);
        assert!(!status.success(), "{step}: the pivot did not fail");

        // The service record names the failed step; nothing after it ran.
        let records = host.records("bootstrap-pivot");
        check_record_shape(&records);
        assert_eq!(succeeded_stages(&records), PIVOT_STEPS[..index], "{step}");
        let failed = records
            .iter()
            .find(|r| r["phase"] == "stage end" && r["result"] == "failure")
            .unwrap_or_else(|| panic!("{step}: no failed stage in {records:?}"));
        assert_eq!(failed["stage"], *step);
        let message = failed["errorMessage"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("step {step} failed with exit status 1")),
            "{step}: {message}"
        );
        assert_eq!(records.last().unwrap()["result"], "failure", "{step}");
        let log = host.log();
        let installs = usize::from(index >= 4);
        assert_eq!(
            log.matches("coreos-installer install").count(),
            installs,
            "{step}: disk written:\n{log}"
        );
        if *step != "reboot" {
            assert!(!log.contains("shutdown"), "{step}: rebooted:\n{log}");
        }
        assert!(!host.done(".bootstrap-pivot.done") && !host.done("reboot.done"));
        assert!(!host.done(&format!("{step}.done")));
        // The failure reached the cluster too (the etcd step fails before the API answers
        // only in real life: here the ConfigMap calls work).
        let cm = pivot_configmap(&host).unwrap_or_default();
        assert_eq!(cm.get("stage").map(String::as_str), Some(*step), "{cm:?}");
        assert_eq!(
            cm.get("failure").map(String::as_str),
            Some(format!("{step}: exit status 1").as_str()),
            "{cm:?}"
        );

        // A restart resumes at the failed step, not earlier, and finishes.
        clear_pivot_failure(&host, step);
        let status = run_pivot(&host);
        assert!(
            status.success(),
            "{step}: {}",
            host.output("bootstrap-pivot")
        );
        let log = host.log();
        let rerun = &log[log.find("=== failure at").unwrap()..];
        assert_eq!(
            rerun.contains(ETCD_PATCH),
            index == 0,
            "{step}: etcd patched again:\n{rerun}"
        );
        assert_eq!(
            rerun.matches("coreos-installer install").count(),
            usize::from(index <= 4)
        );
        assert!(
            rerun
                .trim_end()
                .ends_with("restarts as a control-plane node"),
            "{rerun}"
        );
        let records = host.records("bootstrap-pivot");
        let second_run = &records[records
            .iter()
            .rposition(|r| r["phase"] == "service start")
            .unwrap()..];
        assert_eq!(succeeded_stages(second_run), PIVOT_STEPS[index..], "{step}");
        let cm = pivot_configmap(&host).unwrap();
        assert!(
            cm.get("failure").is_some_and(String::is_empty),
            "{step}: failure not cleared: {cm:?}"
        );
        assert!(host.done(".bootstrap-pivot.done"));
    }
}

/// What the stand-in podman answers for `image_for <component>`.
fn release_component(component: &str) -> String {
    format!("registry.test/okd/{component}@sha256:0000")
}

/// A host for the node-image scripts: a system repository, a deployment's /etc, a host /usr
/// and /etc, and a kernel command line, all under the scratch directory.
fn node_image_host(missing: &[&str]) -> Host {
    node_image_host_for(&sample("context-ha-none.json"), missing)
}

/// [`node_image_host`] for the bootstrap of `sample`.
fn node_image_host_for(sample: &Sample, missing: &[&str]) -> Host {
    let host = Host::new(sample);
    let list: String = missing.iter().map(|c| format!("{c}\n")).collect();
    write_state(&host, "release-missing-components", &list);
    for dir in [
        "sysroot/ostree/repo",
        "sysroot/ostree/deploy/scos/deploy/abc.0/etc",
        "live",
        "host-usr/lib/modules",
        "host-etc",
    ] {
        fs::create_dir_all(host.dir(dir)).unwrap();
    }
    fs::write(host.dir("state/cmdline"), "root=UUID=1234 rw\n").unwrap();
    host
}

/// Runs `script` of the node-image flow on `host`; `live` puts the live-system marker down.
fn run_node_image(host: &Host, script: &str, live: bool) -> ExitStatus {
    let marker = host.dir("state/ostree-live");
    if live {
        fs::write(&marker, "").unwrap();
    }
    let service = script.trim_end_matches(".sh");
    let mut child = host
        .command(script, &[], service)
        .env(
            "PULL_SECRET_FILE",
            host.rendered.path("/root/.docker/config.json"),
        )
        .env("OSTREE_LIVE_MARKER", &marker)
        .env("KERNEL_CMDLINE", host.dir("state/cmdline"))
        .env("SYSTEM_REPO", host.dir("sysroot/ostree/repo"))
        .env("NODE_IMAGE_LIVE_DIR", host.dir("live"))
        .env("OSTREE_DEPLOY_ROOT", host.dir("sysroot/ostree/deploy"))
        .env("HOST_USR", host.dir("host-usr"))
        .env("HOST_ETC", host.dir("host-etc"))
        .env("NODE_IMAGE_RETRY_DELAY", "0")
        .spawn()
        .unwrap();
    wait_for(&mut child, Duration::from_secs(30), script)
}

#[test]
fn node_image_pull_on_disk_checks_out_into_the_system_repo() {
    if !testkit::require_tool("jq", "jq") {
        return;
    }
    // No stream-coreos in this release: the next candidate is used.
    let host = node_image_host(&["stream-coreos"]);
    fs::write(host.dir("state/ostree-pull-failures"), "2").unwrap();
    let status = run_node_image(&host, "node-image-pull.sh", false);
    assert!(status.success(), "{}", host.output("node-image-pull"));

    let image = release_component("rhel-coreos");
    let repo = host.dir("sysroot/ostree/repo");
    let log = host.log();
    assert_in_order(
        &log,
        &[
            "image stream-coreos",
            "image rhel-coreos",
            "rpm-ostree status --json",
            "mount -o remount,rw /sysroot",
            &format!(
                "ostree container image pull --authfile {}",
                host.rendered.path("/root/.docker/config.json").display()
            ),
            &format!(
                "{} ostree-unverified-image:docker://{image}",
                repo.display()
            ),
            &format!(
                "ostree refs --repo={} --create=coreos/node-image ostree/container/image/docker/",
                repo.display()
            ),
            "ostree admin config-diff",
            &format!("ostree checkout --repo={} -H --skip-list=", repo.display()),
            &format!("coreos/node-image {}/tmp/node-image", repo.display()),
        ],
    );
    // Two failed pulls were retried; the live-only steps never ran.
    assert_eq!(
        log.matches("ostree container image pull").count(),
        3,
        "{log}"
    );
    assert!(
        !log.contains("ostree init") && !log.contains("mount -o bind,ro"),
        "{log}"
    );
    // Changed files in /etc are skipped by the checkout.
    let skip = fs::read_to_string(host.dir("state/ostree-skip-list")).unwrap();
    assert_eq!(
        skip,
        "/usr/etc/hostname\n/usr/etc/containers/registries.conf\n"
    );
    let records = host.records("node-image-pull");
    check_record_shape(&records);
    assert_eq!(
        succeeded_stages(&records),
        [
            "resolve-node-image",
            "pull-node-image",
            "checkout-node-image"
        ]
    );
}

/// node-image-pull runs before release-image.service pulls the release image: the lookup of
/// its repository digest finds no local image, which is expected, so nothing is inspected
/// and no error or warning is printed (#44: every start used to log `Error: inspecting
/// object ...: image not known` next to the real errors); the release image is run by the
/// pull spec as given.
#[test]
fn node_image_pull_before_the_release_image_is_local_prints_no_error() {
    if !testkit::require_tool("jq", "jq") {
        return;
    }
    let host = node_image_host(&[]);
    write_state(&host, "no-local-images", "");
    let status = run_node_image(&host, "node-image-pull.sh", false);
    let output = host.output("node-image-pull");
    assert!(status.success(), "{output}");
    let log = host.log();
    assert!(log.contains("podman image exists "), "{log}");
    assert!(!log.contains("podman image inspect"), "{log}");
    assert!(
        !output.contains("Error") && !output.contains("Warning"),
        "{output}"
    );
}

/// A release image that cannot be pulled yet, in a release whose node image is a listed
/// component: the pull's own error is in the service's output, after the line naming the
/// image and before our retry line (the lookups' expected errors stay out), and the lookup
/// goes on once the pull works. Before, every error of the lookup went to /dev/null, and the
/// analysis had only the retry line to quote.
#[test]
fn node_image_pull_says_the_release_image_pulls_own_error() {
    if !testkit::require_tool("jq", "jq") {
        return;
    }
    let host = node_image_host(&["stream-coreos"]);
    write_state(&host, "no-local-images", "");
    write_state(&host, "pull-failures", "1");
    let status = run_node_image(&host, "node-image-pull.sh", false);
    let output = host.output("node-image-pull");
    assert!(status.success(), "{output}");
    assert_in_order(
        &output,
        &["Pulling ", "Error: initializing source: connection refused"],
    );
    assert_in_order(
        &output,
        &["is not known yet", "the release's node image is"],
    );
    assert!(!output.contains("stand-in podman: no release"), "{output}");
}

#[test]
fn node_image_pull_on_a_live_system_uses_the_tmpfs_and_frees_it_for_the_assisted_installer() {
    if !testkit::require_tool("jq", "jq") {
        return;
    }
    let host = node_image_host(&[]);
    fs::create_dir_all(host.dir("sysroot/ostree/repo/refs/heads/ostree/container")).unwrap();
    fs::write(host.dir("state/cmdline"), "coreos.liveiso=scos-4.19 rw\n").unwrap();
    let status = run_node_image(&host, "node-image-pull.sh", true);
    assert!(status.success(), "{}", host.output("node-image-pull"));

    let live = host.dir("live");
    let log = host.log();
    assert_in_order(
        &log,
        &[
            &format!("ostree init --mode=bare --repo={}/repo", live.display()),
            &format!(
                "ostree pull-local --repo={}/repo {}",
                live.display(),
                host.dir("sysroot/ostree/repo").display()
            ),
            &format!(
                "{}/repo ostree-unverified-image:docker://{}",
                live.display(),
                release_component("stream-coreos")
            ),
            &format!(
                "mount -o bind,ro {} {}",
                host.dir("host-etc").display(),
                host.dir("sysroot/ostree/deploy/scos/deploy/abc.0/etc")
                    .display()
            ),
            &format!(
                "ostree checkout --repo={}/repo --skip-list=",
                live.display()
            ),
            &format!("coreos/node-image {}/checkout", live.display()),
        ],
    );
    assert!(
        !log.contains("remount,rw /sysroot") && !log.contains(" -H "),
        "{log}"
    );
    // Booted from RAM by the Assisted Installer: the repository is gone, the checkout stays.
    assert!(!live.join("repo").exists());
}

/// The overlay of 4.19 and of 4.22, the one release that also restarts sshd.
#[test]
fn node_image_overlay_mounts_the_checkout_over_usr() {
    for minor in ["4.19", "4.22"] {
        let sample = release_sample(minor);
        let restarts_sshd = sample.ctx.release.overlay_restarts_sshd;
        let log = overlay_log(&node_image_host_for(&sample, &[]));
        assert_eq!(
            log.contains("systemctl --no-block try-restart sshd.service\n"),
            restarts_sshd,
            "{minor}: {log}"
        );
        if restarts_sshd {
            assert_in_order(
                &log,
                &["semodule -R", "systemctl --no-block try-restart sshd"],
            );
        }
    }
}

/// Runs the overlay without a checkout (it fails, recording the stage), then with one, and
/// checks the mounts and the /etc copy; the log of the second run is returned.
fn overlay_log(host: &Host) -> String {
    let missing = run_node_image(host, "node-image-overlay.sh", false);
    assert!(!missing.success());
    let records = host.records("node-image-overlay");
    let failed: Vec<&Value> = records
        .iter()
        .filter(|r| r["result"] == "failure")
        .collect();
    assert!(
        failed.iter().any(|r| r["stage"] == "overlay-node-image"),
        "{records:#?}"
    );

    let checkout = host.dir("sysroot/ostree/repo/tmp/node-image");
    fs::create_dir_all(checkout.join("usr/lib/modules")).unwrap();
    fs::create_dir_all(checkout.join("usr/etc")).unwrap();
    host.mark_log("checked out");
    let status = run_node_image(host, "node-image-overlay.sh", false);
    assert!(status.success(), "{}", host.output("node-image-overlay"));
    let log = host.log();
    let (_, second) = log.split_once("=== checked out").unwrap();
    assert_in_order(
        second,
        &[
            &format!(
                "mount -o bind,ro {}/lib/modules {}/usr/lib/modules",
                host.dir("host-usr").display(),
                checkout.display()
            ),
            &format!(
                "mount -o rbind,ro {}/usr {}",
                checkout.display(),
                host.dir("host-usr").display()
            ),
            &format!(
                "rsync --archive {}/usr/etc/ {}/",
                checkout.display(),
                host.dir("host-etc").display()
            ),
            "semodule -R",
        ],
    );
    second.to_string()
}

#[test]
fn the_generator_boots_the_overlay_target_only_without_the_node_software() {
    let host = node_image_host(&[]);
    let generator = host
        .rendered
        .path("/etc/systemd/system-generators/node-image-overlay-generator");
    for installed in [false, true] {
        let unit_dir = host.dir(&format!("generated-{installed}"));
        fs::create_dir_all(&unit_dir).unwrap();
        if installed {
            fs::write(host.dir("state/rpm-installed"), "openshift-clients\n").unwrap();
        }
        let mut child = host
            .command_for(&generator, &[unit_dir.to_str().unwrap()], "generator")
            .spawn()
            .unwrap();
        assert!(wait_for(&mut child, Duration::from_secs(10), "generator").success());
        let link = fs::read_link(unit_dir.join("default.target")).ok();
        if installed {
            assert_eq!(link, None);
        } else {
            assert_eq!(
                link.as_deref(),
                Some(Path::new("/etc/systemd/system/node-image-overlay.target"))
            );
        }
    }
}

#[test]
fn report_progress_waits_for_three_api_endpoints_on_an_ha_control_plane() {
    for (topology, endpoints_asked) in [("HighlyAvailable", true), ("SingleReplica", false)] {
        let host = Host::new(&sample("context-ha-none.json"));
        write_state(&host, "topology", topology);
        fs::write(host.openshift().join(".bootkube.done"), "").unwrap();
        let mut child = host
            .command(
                "report-progress.sh",
                &["/opt/openshift/auth/kubeconfig"],
                "progress",
            )
            .env("REPORT_POLL_DELAY", "0")
            .spawn()
            .unwrap();
        // Two endpoints first: the report waits; a third arrives and it goes on.
        if endpoints_asked {
            write_state(&host, "api-endpoints", "2");
            wait_until(Duration::from_secs(10), "the endpoint query", || {
                host.log().contains("get endpoints kubernetes")
            });
            assert!(!host.dir("state/configmap-bootstrap").exists());
            write_state(&host, "api-endpoints", "3");
        }
        assert!(wait_for(&mut child, Duration::from_secs(20), "report-progress").success());
        assert!(host.dir("state/configmap-bootstrap").exists());
        assert_eq!(
            host.log().contains("get endpoints"),
            endpoints_asked,
            "{topology}"
        );
        assert_eq!(
            succeeded_stages(&host.records("progress")),
            [
                "wait-for-bootstrap-complete",
                "wait-for-ha-api",
                "report-bootstrap-complete"
            ]
        );
    }
}

#[test]
fn shell_templates_avoid_jinja_comment_openers() {
    // In a .j2 file, bash's `${#array[@]}` opens a minijinja comment and silently eats the
    // script up to the next `#}`; templates must count some other way.
    let mut offenders = Vec::new();
    for path in walk(&templates_dir()) {
        if path.extension().is_some_and(|e| e == "j2") {
            let text = fs::read_to_string(&path).unwrap();
            if text.contains("${#") {
                offenders.push(path.display().to_string());
            }
        }
    }
    assert!(offenders.is_empty(), "`${{#` in templates: {offenders:?}");
}

/// The HA sample context generated for OKD `minor` (with the release's default OS image
/// stream), as the asset graph builds it.
fn release_sample(minor: &str) -> Sample {
    let base = sample("context-ha-none.json");
    let release = releases::table()
        .get(minor.parse().unwrap())
        .unwrap_or_else(|| panic!("{minor} is not in the release table"));
    let stream = release
        .os_image_stream
        .as_ref()
        .map(|s| s.default.clone())
        .unwrap_or_default();
    Sample {
        name: format!("release {minor}"),
        ctx: TemplateContext {
            target_minor: minor.to_string(),
            release: ignition::ReleaseContext::of(release, &stream),
            ..base.ctx
        },
    }
}

/// Every supported release renders strictly, its scripts pass shellcheck and its units parse.
#[test]
fn every_release_renders_and_its_scripts_pass_shellcheck() {
    for release in &releases::table().releases {
        let sample = release_sample(&release.version.to_string());
        let tmp = tempfile::tempdir().unwrap();
        let rendered = render_tree(&sample.ctx, &sample.template_dirs(), tmp.path());
        assert!(
            rendered
                .text("/usr/local/bin/bootkube.sh")
                .contains(&format!("TARGET_MINOR='{}'", release.version)),
            "{}",
            sample.name
        );
        if !testkit::require_tool("shellcheck", "shellcheck") {
            continue;
        }
        assert_shellcheck_clean(&sample.name, &shell_scripts(&rendered));
    }
}

/// One gated difference: the file it changes, and the text that is there from `first` on
/// and not in the release just before it (or the other way round when `removed`).
struct Gate {
    first: &'static str,
    before: &'static str,
    file: &'static str,
    text: &'static str,
    removed: bool,
}

/// Each release difference of the bootstrap starts exactly at the release upstream starts
/// it (reference/releases.md §2, §3, §9): the expected release is written here, not read from
/// the table, so a table entry off by one release fails this test.
#[test]
fn each_release_difference_starts_at_its_release_and_not_one_earlier() {
    const UNIT: &str = "units/node-image-finish.service";
    const PULL_UNIT: &str = "units/node-image-pull.service";
    const NEW_TMPFS: &str = "units/var-ostreecontainer.mount";
    const OLD_TMPFS: &str = r"units/var-ostree\x2dcontainer.mount";
    const OVERLAY: &str = "/usr/local/bin/node-image-overlay.sh";
    const SSHD: &str = "\nsystemctl --no-block try-restart sshd.service\n";
    let gates = [
        Gate {
            first: "4.21",
            before: "4.20",
            file: "/usr/local/bin/bootkube.sh",
            text: "cp image-references \"${HOST_ETC}/mcc/bootstrap/image-references\"",
            removed: false,
        },
        // The live-system tmpfs: its unit (absent means not shipped), who wants it, and the
        // paths of both scripts.
        Gate {
            first: "4.21",
            before: "4.20",
            file: NEW_TMPFS,
            text: "\nWhere=/var/ostreecontainer\nType=tmpfs\nOptions=size=5G\n",
            removed: false,
        },
        Gate {
            first: "4.21",
            before: "4.20",
            file: OLD_TMPFS,
            text: "\nWhere=/var/ostree-container\nType=tmpfs\nOptions=size=5G\n",
            removed: true,
        },
        Gate {
            first: "4.21",
            before: "4.20",
            file: PULL_UNIT,
            text: "\nWants=var-ostreecontainer.mount\n",
            removed: false,
        },
        Gate {
            first: "4.21",
            before: "4.20",
            file: PULL_UNIT,
            text: "After=network.target var-ostree\\x2dcontainer.mount\n",
            removed: true,
        },
        Gate {
            first: "4.21",
            before: "4.20",
            file: "/usr/local/bin/node-image-pull.sh",
            text: "LIVE_DIR=\"${NODE_IMAGE_LIVE_DIR:-/var/ostreecontainer}\"",
            removed: false,
        },
        Gate {
            first: "4.21",
            before: "4.20",
            file: OVERLAY,
            text: "LIVE_DIR=\"${NODE_IMAGE_LIVE_DIR:-/var/ostree-container}\"",
            removed: true,
        },
        Gate {
            first: "4.22",
            before: "4.21",
            file: NEW_TMPFS,
            text: "\nConditionPathExists=!/etc/no-var-tmpfs\n",
            removed: false,
        },
        Gate {
            first: "4.22",
            before: "4.21",
            file: OVERLAY,
            text: SSHD,
            removed: false,
        },
        Gate {
            first: "5.0",
            before: "4.22",
            file: OVERLAY,
            text: SSHD,
            removed: true,
        },
        Gate {
            first: "4.22",
            before: "4.21",
            file: "/usr/local/bin/bootkube.sh",
            text: "--cluster-version-manifest-path=/assets/manifests/cvo-overrides.yaml \\\n        --feature-gate-manifest-path=",
            removed: false,
        },
        Gate {
            first: "4.22",
            before: "4.21",
            file: "/usr/local/bin/kubelet.sh",
            text: "--pod-infra-container-image",
            removed: true,
        },
        Gate {
            first: "4.22",
            before: "4.21",
            file: UNIT,
            text: "\nKillMode=none\n",
            removed: false,
        },
        Gate {
            first: "4.22",
            before: "4.21",
            file: "/usr/local/bin/node-image-pull.sh",
            text: "NODE_IMAGE_COMPONENTS=(stream-coreos)\n",
            removed: false,
        },
        Gate {
            first: "4.22",
            before: "4.21",
            file: "/usr/local/bin/node-image-pull.sh",
            text: "NODE_IMAGE_COMPONENTS=(stream-coreos rhel-coreos)\n",
            removed: true,
        },
        Gate {
            first: "5.0",
            before: "4.22",
            file: "/usr/local/bin/node-image-pull.sh",
            text: "machine-config-osimagestream\" get os-image-pullspec",
            removed: false,
        },
        Gate {
            first: "5.0",
            before: "4.22",
            file: "/usr/local/bin/node-image-pull.sh",
            text: "OS_IMAGE_STREAM='centos-10'",
            removed: false,
        },
        Gate {
            first: "5.0",
            before: "4.22",
            file: "/usr/local/bin/node-image-overlay.sh",
            text: "rsync --archive --exclude crypto-policies ",
            removed: false,
        },
    ];
    let read = |minor: &str, file: &str| {
        let sample = release_sample(minor);
        let tmp = tempfile::tempdir().unwrap();
        let rendered = render_tree(&sample.ctx, &sample.template_dirs(), tmp.path());
        // A unit the release does not ship reads as empty: its text is absent.
        match file.strip_prefix("units/") {
            Some(unit) => fs::read_to_string(rendered.units.join(unit)).unwrap_or_default(),
            None => rendered.text(file),
        }
    };
    for g in gates {
        let (at, before) = (read(g.first, g.file), read(g.before, g.file));
        let (want_at, want_before) = (!g.removed, g.removed);
        assert_eq!(
            at.contains(g.text),
            want_at,
            "{} of OKD {}: {:?} expected {}",
            g.file,
            g.first,
            g.text,
            if want_at { "present" } else { "absent" }
        );
        assert_eq!(
            before.contains(g.text),
            want_before,
            "{} of OKD {}: {:?} expected {}",
            g.file,
            g.before,
            g.text,
            if want_before { "present" } else { "absent" }
        );
    }
    // The etcd operator of no supported release takes the manifest flags (releases.md §3).
    for release in &releases::table().releases {
        let script = read(&release.version.to_string(), "/usr/local/bin/bootkube.sh");
        let etcd = &script[script.find("stage_etcd_bootstrap() {").unwrap()..];
        let etcd = &etcd[..etcd.find("\n}\n").unwrap()];
        assert!(!etcd.contains("--payload-version"), "{}", release.version);
        // Every release keeps our own podman choices.
        assert!(
            script.contains("podman run --quiet --net=host --rm --replace --log-driver=k8s-file")
        );
    }
}

/// A payload of another minor than the script was generated for stops bootkube.sh before the
/// first render, naming both versions.
#[test]
fn bootkube_stops_on_a_payload_of_another_release() {
    if !testkit::require_tool("jq", "jq") {
        return;
    }
    // The stand-in payload says it is 4.19.0-okd-scos.7.
    let host = Host::new(&release_sample("4.22"));
    let mut child = host
        .command("bootkube.sh", &[], "bootkube")
        .spawn()
        .unwrap();
    let status = wait_for(&mut child, Duration::from_secs(30), "bootkube.sh");
    assert!(!status.success(), "{}", host.output("bootkube"));
    let output = host.output("bootkube");
    assert!(
        output.contains("generated for OKD 4.22, but the release image is 4.19.0-okd-scos.7"),
        "{output}"
    );
    assert!(!host.done("openshift-manifests.done"), "{output}");
    assert!(!host.log().contains("render"), "{}", host.log());

    // The same payload passes the check for a 4.19 script and the renders start.
    let host = Host::new(&release_sample("4.19"));
    let mut cmd = host.command("bootkube.sh", &[], "bootkube");
    cmd.env("STANDIN_FAIL_MATCH", "start --tear-down-early=false");
    let mut child = cmd.spawn().unwrap();
    wait_for(&mut child, Duration::from_secs(30), "bootkube.sh");
    assert!(
        host.done("api-bootstrap.done"),
        "{}",
        host.output("bootkube")
    );
}

/// The etcd render flags no supported release's etcd operator accepts yet are one table entry
/// away: with the feature on, the etcd stage passes them after its 4.19 flags.
#[test]
fn etcd_manifest_flags_follow_the_feature() {
    let mut sample = release_sample("5.0");
    sample.ctx.release.etcd_render_manifest_flags = true;
    let tmp = tempfile::tempdir().unwrap();
    let rendered = render_tree(&sample.ctx, &sample.template_dirs(), tmp.path());
    let script = rendered.text("/usr/local/bin/bootkube.sh");
    let etcd = &script[script.find("stage_etcd_bootstrap() {").unwrap()..];
    let etcd = &etcd[..etcd.find("\n}\n").unwrap()];
    assert!(
        etcd.contains(
            "--network-config-file=/assets/manifests/cluster-network-02-config.yml \\\n        \
             --rendered-manifest-files=/assets/manifests \\\n        \
             --payload-version=\"${VERSION}\"\n"
        ),
        "{etcd}"
    );
    if testkit::require_tool("shellcheck", "shellcheck") {
        let output = Command::new("shellcheck")
            .args(["-S", "warning", "-s", "bash"])
            .arg(rendered.path("/usr/local/bin/bootkube.sh"))
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stdout)
        );
    }
}

/// OKD 5.0 names no node image tag: node-image-pull.sh copies the machine-config-osimagestream
/// helper out of the release's MCO image, asks it for the image of the OS image stream, pulls
/// that, and removes the helper's container but keeps the image bootkube.sh runs later.
#[test]
fn node_image_pull_of_5_0_asks_the_osimagestream_helper() {
    if !testkit::require_tool("jq", "jq") {
        return;
    }
    let host = node_image_host_for(&release_sample("5.0"), &[]);
    let status = run_node_image(&host, "node-image-pull.sh", false);
    assert!(status.success(), "{}", host.output("node-image-pull"));
    let log = host.log();
    let mco = release_component("machine-config-operator");
    assert_in_order(
        &log,
        &[
            "image machine-config-operator",
            &format!(
                "podman create --quiet --authfile {}",
                host.rendered.path("/root/.docker/config.json").display()
            ),
            &mco,
            "podman cp standin-container-0001:/usr/bin/machine-config-osimagestream ",
            "podman rm --force standin-container-0001",
            "machine-config-osimagestream get os-image-pullspec --release-image quay.io/okd/scos-release@sha256:2222 --authfile ",
            "--per-host-certs /etc/containers/certs.d --osimagestream-name centos-10 --trust-bundle /etc/pki/ca-trust/source/anchors --registry-config /etc/containers/registries.conf",
            "ostree-unverified-image:docker://registry.test/okd/node-image-centos-10@sha256:0000",
        ],
    );
    // No tag is guessed.
    assert!(
        !log.contains("image stream-coreos") && !log.contains("image rhel-coreos"),
        "{log}"
    );
    // The operator image stays for bootkube.sh's machine-config render (upstream removes it).
    let removals = ["podman rmi", "podman image rm", "podman image prune"];
    assert!(!removals.iter().any(|r| log.contains(r)), "{log}");
}

/// shellcheck (warnings and worse, as bash) passes on `scripts` of the sample `name`.
fn assert_shellcheck_clean(name: &str, scripts: &[std::path::PathBuf]) {
    let output = Command::new("shellcheck")
        .args(["-S", "warning", "-s", "bash"])
        .args(scripts)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{name}: shellcheck found problems:\n{}",
        String::from_utf8_lossy(&output.stdout)
    );
}
