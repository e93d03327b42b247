//! `verify --online=pulls` against a real mirror registry: Debian's docker-registry with TLS
//! from a CA the test made and htpasswd logins, and dnsmasq answering its name, all in a
//! network namespace of the test's own (`real_host::registry`). It holds a release image the
//! test builds (`real_host::release`) and the release's component images
//! (`real_host::images`); okd-install's configs are the disconnected-mirror example's with
//! that CA as the trust bundle. `verify` runs in the same namespace with the lab's name
//! server as its resolver, as the bootstrap host would resolve.
//!
//! Each fault is injected at its real cause (the install-config, the pull secret, the
//! release's content, the registry or the name server), and the preflight must name
//! exactly that fault and nothing else.
//!
//! Needs root and the registry's programs (`real_host::registry::missing`); skips without
//! them, fails without them under CI=true.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use base64::Engine as _;
use real_host::registry::{Registry, RegistrySpec};
use real_host::release::Component;
use real_host::{LAB_ADDRESS, Lab};

use crate::support::{bin_path, both, okd};

const MIRROR: &str = "registry.example.com";
const USER: &str = "preflight";
const PASSWORD: &str = "mirror-password";
const RELEASE_VERSION: &str = "5.0.0-okd-scos.0";
const RELEASE_SOURCE: &str = "quay.io/okd/scos-release";
const CONTENT_SOURCE: &str = "quay.io/okd/scos-content";
/// The release's components the registry holds.
const COMPONENTS: &[&str] = &[
    "machine-config-operator",
    "cluster-version-operator",
    "etcd",
];
/// A component a second release names and nobody mirrored.
const NOT_MIRRORED: &str = "cluster-network-operator";
/// Another name of the registry's address, which its certificate does not have.
const ALIAS: &str = "mirror.example.com";

/// The lab: the registry with both releases, and where verify runs.
struct Site {
    lab: Lab,
    registry: Registry,
    /// The release whose components are all mirrored, by digest.
    release: String,
    /// The release that also names [`NOT_MIRRORED`].
    gap_release: String,
    /// The lab's resolver for processes run with `ip netns exec`.
    _resolv: NetnsResolv,
}

/// `/etc/netns/NAME/resolv.conf`, which `ip netns exec` puts in place of the machine's;
/// removed when dropped.
struct NetnsResolv(PathBuf);

impl NetnsResolv {
    fn new(netns: &str) -> NetnsResolv {
        let dir = Path::new("/etc/netns").join(netns);
        std::fs::create_dir_all(&dir).expect("/etc/netns");
        std::fs::write(
            dir.join("resolv.conf"),
            format!("nameserver {LAB_ADDRESS}\n"),
        )
        .expect("resolv.conf");
        NetnsResolv(dir)
    }
}

impl Drop for NetnsResolv {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Site {
    fn start(work: &Path) -> Site {
        let lab = Lab::create("preflight").expect("the lab network");
        let spec = RegistrySpec {
            name: MIRROR.into(),
            user: USER.into(),
            password: PASSWORD.into(),
        };
        let registry = Registry::start(&lab, spec, &work.join("registry"))
            .unwrap_or_else(|e| panic!("starting the registry: {e}"));
        let names: Vec<String> = COMPONENTS.iter().map(|s| s.to_string()).collect();
        let digests = real_host::images::push(
            &registry,
            &lab,
            "okd/scos-content",
            &names,
            &work.join("components"),
        )
        .unwrap_or_else(|e| panic!("pushing the components: {e}"));
        let mut components: Vec<Component> = names
            .iter()
            .zip(&digests)
            .map(|(name, digest)| Component {
                name: name.clone(),
                pull_spec: format!("{CONTENT_SOURCE}@{digest}"),
            })
            .collect();
        let push = |components: &[Component], dir: &str| {
            let digest = real_host::release::push(
                &registry,
                &lab,
                "okd/scos-release",
                RELEASE_VERSION,
                components,
                &work.join(dir),
            )
            .unwrap_or_else(|e| panic!("pushing the release: {e}"));
            format!("{RELEASE_SOURCE}@{digest}")
        };
        let release = push(&components, "release");
        components.push(Component::absent(NOT_MIRRORED, CONTENT_SOURCE));
        let gap_release = push(&components, "gap-release");
        let resolv = NetnsResolv::new(&lab.lab_netns);
        Site {
            lab,
            registry,
            release,
            gap_release,
            _resolv: resolv,
        }
    }

    /// `okd-install verify --online=pulls --output json` in the lab's network; `extra` are
    /// more flags.
    fn verify(&self, install: &Path, extra: &[&str]) -> Output {
        let out = std::process::Command::new("ip")
            .args(["netns", "exec", &self.lab.lab_netns])
            .arg(bin_path())
            .arg("--dir")
            .arg(install)
            .args(["verify", "--online=pulls", "--output", "json"])
            .args(extra)
            .output()
            .expect("run verify");
        out
    }
}

/// What the install-config says, varied by the faults.
#[derive(Clone)]
struct Config {
    trust_ca: bool,
    /// The mirror's entry in the pull secret: `None` for none.
    mirror_password: Option<&'static str>,
    content_mirror: bool,
    /// The name the mirror rules use for the registry.
    mirror_name: &'static str,
    gap_release: bool,
}

const GOOD: Config = Config {
    trust_ca: true,
    mirror_password: Some(PASSWORD),
    content_mirror: true,
    mirror_name: MIRROR,
    gap_release: false,
};

/// Writes `config`'s install-config into `install` and creates the Ignition configs.
fn configure(site: &Site, install: &Path, config: &Config) {
    let basic = |user: &str, password: &str| {
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
    };
    let mut auths = serde_json::json!({"quay.io": {"auth": basic("someone", "x")}});
    if let Some(password) = config.mirror_password {
        auths[format!("{}:5000", config.mirror_name)] =
            serde_json::json!({"auth": basic(USER, password)});
    }
    let secret = serde_json::json!({ "auths": auths }).to_string();
    let example = std::fs::read_to_string(
        crate::support::repo_root().join("examples/disconnected-mirror.yaml"),
    )
    .expect("the example");
    let mut text: String = example
        .lines()
        .take_while(|l| !l.starts_with("imageDigestSources:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let mirror = format!("{}:5000", config.mirror_name);
    text.push_str(&format!(
        "imageDigestSources:\n- source: {RELEASE_SOURCE}\n  mirrors:\n  - {mirror}/okd/scos-release\n"
    ));
    if config.content_mirror {
        text.push_str(&format!(
            "- source: {CONTENT_SOURCE}\n  mirrors:\n  - {mirror}/okd/scos-content\n"
        ));
    }
    text.push_str(&format!("pullSecret: '{secret}'\n"));
    text.push_str(
        "sshKey: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBiDNXM5oZcwzEL1nlEOYaRfGapUeRro0GQDOjOPmSKO admin@example.com\n",
    );
    if config.trust_ca {
        text.push_str("additionalTrustBundle: |\n");
        for line in site.registry.ca_pem.lines() {
            text.push_str(&format!("  {line}\n"));
        }
    }
    std::fs::create_dir_all(install).expect("install dir");
    std::fs::write(install.join("install-config.yaml"), text).expect("install-config");
    let release = if config.gap_release {
        &site.gap_release
    } else {
        &site.release
    };
    okd(install)
        .args(["create", "ignition-configs", "--release-image", release])
        .args(["--release-version", RELEASE_VERSION])
        .assert()
        .success();
}

/// The pull findings of a JSON report: (id, status, subject, message).
fn pull_checks(out: &Output) -> Vec<(String, String, String, String)> {
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("verify's JSON: {e}\n{}", both(out)));
    json["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["id"].as_str().is_some_and(|id| id.starts_with("pull.")))
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (s("id"), s("status"), s("subject"), s("message"))
        })
        .collect()
}

/// One fault: how it is injected and what the preflight must say.
struct Fault {
    name: &'static str,
    config: Config,
    /// Done to the lab before verify runs, undone after.
    inject: fn(&mut Site),
    remove: fn(&mut Site),
    /// More verify flags.
    flags: &'static [&'static str],
    /// The one error id the preflight must report.
    id: &'static str,
    /// Words its message must hold.
    words: &'static [&'static str],
}

fn nothing(_: &mut Site) {}

const FAULTS: &[Fault] = &[
    Fault {
        name: "CA missing from additionalTrustBundle",
        config: Config {
            trust_ca: false,
            ..GOOD
        },
        inject: nothing,
        remove: nothing,
        flags: &[],
        id: "pull.untrusted-certificate",
        words: &["registry.example.com:5000", "additionalTrustBundle"],
    },
    Fault {
        name: "pull secret without the mirror's credentials",
        config: Config {
            mirror_password: None,
            ..GOOD
        },
        inject: nothing,
        remove: nothing,
        flags: &[],
        id: "pull.unauthorized",
        words: &["the pull secret has no credentials for registry.example.com:5000"],
    },
    Fault {
        name: "wrong credentials",
        config: Config {
            mirror_password: Some("not-the-password"),
            ..GOOD
        },
        inject: nothing,
        remove: nothing,
        flags: &[],
        id: "pull.unauthorized",
        words: &["refused the pull secret's credentials"],
    },
    Fault {
        name: "a component image not mirrored",
        config: Config {
            gap_release: true,
            ..GOOD
        },
        inject: nothing,
        remove: nothing,
        flags: &[],
        id: "pull.manifest-unknown",
        words: &[
            "`registry.example.com:5000` does not hold `registry.example.com:5000/okd/scos-content@sha256:",
            "oc adm release mirror",
        ],
    },
    Fault {
        name: "a mirror rule missing",
        config: Config {
            content_mirror: false,
            ..GOOD
        },
        inject: nothing,
        remove: nothing,
        flags: &[],
        id: "pull.no-mirror-rule",
        words: &[
            "covers quay.io/okd/scos-content",
            "`quay.io` does not resolve",
        ],
    },
    Fault {
        name: "registry down",
        config: GOOD,
        inject: |site| site.registry.stop_serving(),
        remove: |site| {
            let lab = &site.lab;
            site.registry
                .serve(lab, real_host::registry::Certificate::Trusted)
                .expect("start the registry");
        },
        flags: &[],
        id: "pull.connection-refused",
        words: &["`registry.example.com:5000` refused the connection"],
    },
    Fault {
        name: "registry's name not resolvable",
        config: GOOD,
        inject: |site| {
            let lab = &site.lab;
            site.registry.answer_name(lab, false).expect("name server");
        },
        remove: |site| {
            let lab = &site.lab;
            site.registry.answer_name(lab, true).expect("name server");
        },
        flags: &[],
        id: "pull.name-not-resolved",
        words: &["`registry.example.com:5000` does not resolve"],
    },
    Fault {
        name: "a certificate for another name",
        config: Config {
            mirror_name: ALIAS,
            ..GOOD
        },
        inject: nothing,
        remove: nothing,
        flags: &["--resolve", "mirror.example.com=198.18.0.1"],
        id: "pull.certificate-for-other-name",
        words: &["valid for registry.example.com", "not mirror.example.com"],
    },
];

/// The all-good case passes with every image served by the mirror; then each fault, on the
/// same registry and release, is named by its own id and words, and nothing else is named;
/// verify exits 9 on each.
#[test]
fn the_preflight_names_each_registry_fault_at_its_cause() {
    let missing = real_host::registry::missing();
    if !testkit::require(missing.is_empty(), &missing.join("; ")) {
        return;
    }
    let work = tempfile::tempdir().expect("temp dir");
    let mut site = Site::start(work.path());
    let install = work.path().join("install");

    configure(&site, &install, &GOOD);
    let out = site.verify(&install, &[]);
    let checks = pull_checks(&out);
    assert!(out.status.success(), "{}", both(&out));
    let served: Vec<&(String, String, String, String)> =
        checks.iter().filter(|c| c.0 == "pull.served").collect();
    assert_eq!(
        served.len(),
        checks.len(),
        "only served images: {checks:#?}"
    );
    assert!(
        served[0]
            .2
            .starts_with("release image quay.io/okd/scos-release@sha256:"),
        "{checks:#?}"
    );
    assert!(
        served[1].2 == format!("{} images", COMPONENTS.len())
            && served
                .iter()
                .all(|c| c.3.starts_with("served by `registry.example.com:5000`")),
        "{checks:#?}"
    );

    let mut report = Vec::new();
    for fault in FAULTS {
        configure(&site, &install, &fault.config);
        (fault.inject)(&mut site);
        let out = site.verify(&install, fault.flags);
        (fault.remove)(&mut site);
        let checks = pull_checks(&out);
        let named: BTreeSet<&str> = checks
            .iter()
            .filter(|c| c.1 != "ok")
            .map(|c| c.0.as_str())
            .collect();
        let text: String = checks
            .iter()
            .map(|c| format!("{}: {}\n", c.2, c.3))
            .collect();
        report.push(format!("{}:\n{text}", fault.name));
        assert_eq!(
            named,
            BTreeSet::from([fault.id]),
            "{}: {checks:#?}",
            fault.name
        );
        for words in fault.words {
            assert!(
                text.contains(words),
                "{}: no `{words}` in\n{text}",
                fault.name
            );
        }
        assert_eq!(out.status.code(), Some(9), "{}: {}", fault.name, both(&out));
    }
    eprintln!("{}", report.join("\n"));
}
