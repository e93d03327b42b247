//! `verify --online=pulls` against a real mirror registry: Debian's docker-registry with TLS
//! from a CA the test made and htpasswd logins (or bearer tokens from a token service of the
//! test's, `real_host::token`), and dnsmasq answering its name, all in a
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
use std::path::Path;
use std::process::Output;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use real_host::mirror::{
    CONTENT_PATH, CONTENT_SOURCE, Login, Mirror, RELEASE_PATH, RELEASE_VERSION, SiteConfig,
    WRONG_PASSWORD,
};
use real_host::registry::{Certificate, RegistrySpec};
use real_host::release::Component;

use crate::support::{bin_path, both, okd, repo_root};

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

/// The mirror with both releases.
struct Site {
    mirror: Mirror,
    /// The release whose components are all mirrored, by digest.
    release: String,
    /// The release that also names [`NOT_MIRRORED`].
    gap_release: String,
}

impl Site {
    /// The mirror in a lab of its own called `lab` (tests run in parallel).
    fn start(lab: &str, work: &Path) -> Site {
        let spec = RegistrySpec {
            name: "registry.example.com".into(),
            user: "preflight".into(),
            password: "mirror-password".into(),
        };
        let names: Vec<String> = COMPONENTS.iter().map(|s| s.to_string()).collect();
        let mirror = Mirror::start(lab, spec, &names, work)
            .unwrap_or_else(|e| panic!("starting the mirror: {e}"));
        let mut components = mirror.components.clone();
        let release = mirror
            .push_release(&components, &work.join("release"))
            .unwrap_or_else(|e| panic!("pushing the release: {e}"));
        components.push(Component::absent(NOT_MIRRORED, CONTENT_SOURCE));
        let gap_release = mirror
            .push_release(&components, &work.join("gap-release"))
            .unwrap_or_else(|e| panic!("pushing the release: {e}"));
        Site {
            mirror,
            release,
            gap_release,
        }
    }

    /// `okd-install verify --online=pulls --output json` in the lab's network; `extra` are
    /// more flags.
    fn verify(&self, install: &Path, extra: &[&str]) -> Output {
        self.mirror
            .command(bin_path())
            .arg("--dir")
            .arg(install)
            .args(["verify", "--online=pulls", "--output", "json"])
            .args(extra)
            .output()
            .expect("run verify")
    }

    /// Verify of `config`'s install-config, written and created first.
    fn verify_with(&self, install: &Path, config: &Config) -> Output {
        configure(self, install, config);
        self.verify(install, &[])
    }
}

/// What a fault changes in the install-config.
#[derive(Clone)]
struct Config {
    site: fn() -> SiteConfig,
    gap_release: bool,
}

const GOOD: Config = Config {
    site: SiteConfig::default,
    gap_release: false,
};

impl Config {
    /// The site config with install-config's `proxy`.
    fn with_proxy(&self, https: String, no_proxy: &str) -> SiteConfig {
        SiteConfig {
            proxy: Some((https, no_proxy.to_string())),
            ..(self.site)()
        }
    }
}

/// Writes `config`'s install-config into `install` and creates the Ignition configs.
fn configure(site: &Site, install: &Path, config: &Config) {
    let release = if config.gap_release {
        &site.gap_release
    } else {
        &site.release
    };
    write_and_create(site, install, &(config.site)(), release);
}

/// [`configure`] for a site config of its own, with the all-mirrored release.
fn configure_with(site: &Site, install: &Path, config: &SiteConfig) {
    write_and_create(site, install, config, &site.release);
}

fn write_and_create(site: &Site, install: &Path, config: &SiteConfig, release: &str) {
    let example = std::fs::read_to_string(repo_root().join("examples/disconnected-mirror.yaml"))
        .expect("the example");
    std::fs::create_dir_all(install).expect("install dir");
    let text = site.mirror.install_config(&example, config);
    std::fs::write(install.join("install-config.yaml"), text).expect("install-config");
    okd(install)
        .args(["create", "ignition-configs", "--release-image", release])
        .args(["--release-version", RELEASE_VERSION])
        .assert()
        .success();
}

/// How many requests the registry has logged (Distribution logs one line per request, with
/// its URI).
fn requests(site: &Site) -> usize {
    std::fs::read_to_string(&site.mirror.registry.log)
        .unwrap_or_default()
        .matches("http.request.uri=")
        .count()
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

/// The registry back with its trusted certificate.
fn serve_trusted(site: &mut Site) {
    let m = &mut site.mirror;
    m.registry
        .serve(&m.lab, Certificate::Trusted)
        .expect("start the registry");
}

/// A fault of the pull secret's entry for the mirror (`site` says which), named
/// `pull.unauthorized` with `words`.
const fn login_fault(
    name: &'static str,
    site: fn() -> SiteConfig,
    words: &'static [&'static str],
) -> Fault {
    Fault {
        name,
        config: Config { site, ..GOOD },
        inject: nothing,
        remove: nothing,
        flags: &[],
        id: "pull.unauthorized",
        words,
    }
}

/// The pull secret without the mirror's login: named the same whether the registry asks for
/// it directly (basic) or through its token service (bearer).
const NO_CREDENTIALS: Fault = login_fault(
    "pull secret without the mirror's credentials",
    || SiteConfig::with_login(Login::Missing),
    &["the pull secret has no credentials for registry.example.com:5000"],
);

/// The pull secret with the mirror's user and another password.
const WRONG_CREDENTIALS: Fault = login_fault(
    "wrong credentials",
    || SiteConfig::with_login(Login::WrongPassword),
    &["refused the pull secret's credentials"],
);

const FAULTS: &[Fault] = &[
    Fault {
        name: "CA missing from additionalTrustBundle",
        config: Config {
            site: || SiteConfig {
                trust_ca: false,
                ..SiteConfig::default()
            },
            ..GOOD
        },
        inject: nothing,
        remove: nothing,
        flags: &[],
        id: "pull.untrusted-certificate",
        words: &["registry.example.com:5000", "additionalTrustBundle"],
    },
    NO_CREDENTIALS,
    WRONG_CREDENTIALS,
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
            site: || SiteConfig {
                content_mirror: false,
                ..SiteConfig::default()
            },
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
        inject: |site| site.mirror.registry.stop_serving(),
        remove: serve_trusted,
        flags: &[],
        id: "pull.connection-refused",
        words: &["`registry.example.com:5000` refused the connection"],
    },
    Fault {
        name: "registry's name not resolvable",
        config: GOOD,
        inject: |site| {
            let m = &mut site.mirror;
            m.registry.answer_name(&m.lab, false).expect("name server");
        },
        remove: |site| {
            let m = &mut site.mirror;
            m.registry.answer_name(&m.lab, true).expect("name server");
        },
        flags: &[],
        id: "pull.name-not-resolved",
        words: &["`registry.example.com:5000` does not resolve"],
    },
    Fault {
        name: "a certificate not valid yet",
        config: GOOD,
        inject: |site| {
            let m = &mut site.mirror;
            m.registry
                .serve(&m.lab, Certificate::NotYetValid)
                .expect("serve tomorrow's certificate");
        },
        remove: serve_trusted,
        flags: &[],
        id: "pull.certificate-not-yet-valid",
        words: &[
            "`registry.example.com:5000`'s certificate is not valid yet",
            "it is valid from",
        ],
    },
    Fault {
        name: "a certificate for another name",
        config: Config {
            site: || SiteConfig {
                mirror_name: Some(ALIAS.into()),
                ..SiteConfig::default()
            },
            ..GOOD
        },
        inject: nothing,
        remove: nothing,
        flags: &["--resolve", "mirror.example.com=198.18.0.1"],
        id: "pull.certificate-for-other-name",
        words: &["valid for registry.example.com", "not mirror.example.com"],
    },
];

/// Verify passed, naming every image served by the mirror: the release image first, then
/// the components as one group.
fn assert_all_served(out: &Output) {
    let checks = pull_checks(out);
    assert!(out.status.success(), "{}", both(out));
    let served: Vec<&(String, String, String, String)> =
        checks.iter().filter(|c| c.0 == "pull.served").collect();
    // The blobs of every served image were asked for and found: one finding counts them.
    let blobs: Vec<&(String, String, String, String)> =
        checks.iter().filter(|c| c.0 == "pull.blobs").collect();
    assert!(
        blobs.len() == 1 && blobs[0].1 == "ok" && blobs[0].3.contains(" blobs "),
        "{checks:#?}"
    );
    // Each sentence is written for a reader: no run of spaces from a broken line join.
    assert!(checks.iter().all(|c| !c.3.contains("  ")), "{checks:#?}");
    assert_eq!(
        served.len() + 1,
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
}

/// The ids of the findings that are not ok.
fn named_ids(checks: &[(String, String, String, String)]) -> BTreeSet<&str> {
    checks
        .iter()
        .filter(|c| c.1 != "ok")
        .map(|c| c.0.as_str())
        .collect()
}

/// Injects `fault`, runs verify, removes it; asserts verify named exactly the fault's id
/// with its words and exited 9. Returns the findings in words, and verify's output.
fn assert_named(site: &mut Site, install: &Path, fault: &Fault) -> (String, Output) {
    configure(site, install, &fault.config);
    (fault.inject)(site);
    let out = site.verify(install, fault.flags);
    (fault.remove)(site);
    let checks = pull_checks(&out);
    let named = named_ids(&checks);
    let text: String = checks
        .iter()
        .map(|c| format!("{}: {}\n", c.2, c.3))
        .collect();
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
    (format!("{}:\n{text}", fault.name), out)
}

/// The mirror in the lab `lab` with its files in a new temporary directory; `None` (after
/// the skip line, or a failure under CI=true) when this machine lacks what the registry or
/// `also` names.
fn start_site(lab: &str, also: Vec<String>) -> Option<(tempfile::TempDir, Site)> {
    let mut missing = real_host::registry::missing();
    missing.extend(also);
    if !testkit::require(missing.is_empty(), &missing.join("; ")) {
        return None;
    }
    let work = tempfile::tempdir().expect("temp dir");
    let site = Site::start(lab, work.path());
    Some((work, site))
}

/// The all-good case passes with every image served by the mirror; then each fault, on the
/// same registry and release, is named by its own id and words, and nothing else is named;
/// verify exits 9 on each.
#[test]
fn the_preflight_names_each_registry_fault_at_its_cause() {
    let Some((work, mut site)) = start_site("preflight", Vec::new()) else {
        return;
    };
    let install = work.path().join("install");

    // `create` and `verify` without --online, run where the registry resolves, ask it
    // nothing: its log gains no request. The preflight then does ask it.
    let before = requests(&site);
    configure(&site, &install, &GOOD);
    let create = site
        .mirror
        .command(bin_path())
        .arg("--dir")
        .arg(&install)
        .args([
            "create",
            "ignition-configs",
            "--release-image",
            &site.release,
        ])
        .args(["--release-version", RELEASE_VERSION])
        .output()
        .expect("run create");
    assert!(create.status.success(), "{create:?}");
    let offline = site
        .mirror
        .command(bin_path())
        .arg("--dir")
        .arg(&install)
        .arg("verify")
        .output()
        .expect("run verify");
    assert!(offline.status.success(), "{offline:?}");
    assert_eq!(
        requests(&site),
        before,
        "create or verify without --online asked the registry"
    );
    assert_all_served(&site.verify(&install, &[]));
    assert!(
        requests(&site) > before,
        "the registry's log shows no request of the preflight"
    );

    let report: Vec<String> = FAULTS
        .iter()
        .map(|fault| assert_named(&mut site, &install, fault).0)
        .collect();
    eprintln!("{}", report.join("\n"));
}

/// The registry asking for bearer tokens from its site's token service
/// (`real_host::token`, the registry's `auth: token:`), as quay.io, Quay and Harbor do: with
/// the right login the pulls get a token per repository and every image is served; without
/// the mirror's login, and with a wrong one, the preflight names the same faults in the same
/// words as with a basic login; with the token service down, the token service is named, not
/// the registry. No password, login or token is in verify's output or log.
#[test]
fn the_preflight_pulls_with_a_token_from_the_registrys_token_service() {
    let Some((work, mut site)) = start_site("preflight-token", Vec::new()) else {
        return;
    };
    let tokens = real_host::token::TokenService::start(&site.mirror.lab, &site.mirror.registry)
        .unwrap_or_else(|e| panic!("starting the token service: {e}"));
    let m = &mut site.mirror;
    m.registry
        .check_with(&m.lab, tokens.auth.clone())
        .unwrap_or_else(|e| panic!("restarting the registry with token auth: {e}"));
    let install = work.path().join("install");

    let mut outputs = vec![site.verify_with(&install, &GOOD)];
    assert_all_served(&outputs[0]);
    let asked = tokens.requests();
    for repository in [RELEASE_PATH, CONTENT_PATH] {
        let granted = format!(r#""name":"{repository}""#);
        assert!(
            asked.iter().any(|r| r.starts_with("preflight repository:")
                && r.contains("granted")
                && r.contains(&granted)),
            "no pull token for {repository}: {asked:#?}"
        );
    }

    let mut report = Vec::new();
    for fault in [&NO_CREDENTIALS, &WRONG_CREDENTIALS] {
        let (words, out) = assert_named(&mut site, &install, fault);
        report.push(words);
        outputs.push(out);
    }
    assert!(
        report[1].contains("its token service refused the pull secret's credentials"),
        "{}",
        report[1]
    );
    let asked = tokens.requests();
    assert!(
        asked.iter().any(|r| r.starts_with("anonymous ")),
        "{asked:#?}"
    );
    assert!(
        asked
            .iter()
            .any(|r| r.contains("(wrong password)") && r.ends_with("refused")),
        "{asked:#?}"
    );

    // The token service down: the registry still answers its challenge, the token is
    // what cannot be had, and the preflight says so.
    let issued = tokens.issued();
    drop(tokens);
    let down = Fault {
        name: "the token service down",
        config: GOOD,
        inject: nothing,
        remove: nothing,
        flags: &[],
        id: "pull.connection-refused",
        words: &[
            "`registry.example.com:5001` refused the connection",
            "the token service of registry.example.com:5000, \
             https://registry.example.com:5001/token: dialled 198.18.0.1:5001",
            "Fix: make the token service `https://registry.example.com:5001/token` that \
             `registry.example.com:5000` sends clients to reachable from the bootstrap host",
        ],
    };
    let (words, out) = assert_named(&mut site, &install, &down);
    report.push(words);
    outputs.push(out);

    eprintln!(
        "{}\ntoken requests:\n{}",
        report.join("\n"),
        asked.join("\n")
    );
    let spec = &site.mirror.registry.spec;
    let mut secrets = vec![spec.password.clone(), WRONG_PASSWORD.to_string()];
    secrets.extend(
        [spec.password.as_str(), WRONG_PASSWORD]
            .map(|p| STANDARD.encode(format!("{}:{p}", spec.user))),
    );
    secrets.extend(issued);
    let log = std::fs::read_to_string(install.join(".okd-install.log")).expect("verify's log");
    let said: Vec<String> = outputs.iter().map(both).chain([log]).collect();
    for secret in &secrets {
        assert!(
            said.iter().all(|text| !text.contains(secret.as_str())),
            "a password, login or token was printed or logged"
        );
    }
}

/// The proxy's port on the lab address, and one where nothing listens.
const PROXY_PORT: u16 = 3128;
const NO_PROXY_PORT: u16 = 3129;

/// With `proxy` in install-config the pulls go through it as the host's would (tinyproxy,
/// whose log shows each CONNECT), `noProxy` naming the registry sends them past it, and a
/// proxy that does not answer is named as the proxy, not as the registry.
#[test]
fn the_preflight_goes_through_the_hosts_proxy_honouring_no_proxy() {
    let mut also = Vec::new();
    if testkit::require::find_program("tinyproxy").is_none() {
        also.push("tinyproxy (apt-get install tinyproxy-bin)".into());
    }
    let Some((work, site)) = start_site("preflight-proxy", also) else {
        return;
    };
    let proxy = site
        .mirror
        .start_proxy(PROXY_PORT, &work.path().join("proxy"))
        .unwrap_or_else(|e| panic!("starting tinyproxy: {e}"));
    let install = work.path().join("install");
    let through = |port: u16, no_proxy: &str| {
        GOOD.with_proxy(
            format!("http://{}:{port}", real_host::LAB_ADDRESS),
            no_proxy,
        )
    };
    let connects = || {
        std::fs::read_to_string(&proxy.log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("CONNECT") && l.contains("registry.example.com:5000"))
            .count()
    };

    configure_with(&site, &install, &through(PROXY_PORT, "example.net"));
    let out = site.verify(&install, &[]);
    let checks = pull_checks(&out);
    assert!(out.status.success(), "{checks:#?}\n{}", both(&out));
    assert!(
        connects() > 0,
        "no CONNECT in the proxy's log:\n{}",
        std::fs::read_to_string(&proxy.log).unwrap_or_default()
    );

    let before = connects();
    configure_with(&site, &install, &through(PROXY_PORT, ".example.com"));
    let out = site.verify(&install, &[]);
    assert!(out.status.success(), "{}", both(&out));
    assert_eq!(
        connects(),
        before,
        "noProxy .example.com still went through the proxy"
    );

    configure_with(&site, &install, &through(NO_PROXY_PORT, "example.net"));
    let out = site.verify(&install, &[]);
    let checks = pull_checks(&out);
    let named = named_ids(&checks);
    assert_eq!(named, BTreeSet::from(["pull.proxy"]), "{checks:#?}");
    let text: String = checks.iter().map(|c| c.3.clone()).collect();
    assert!(
        text.contains(&format!(
            "the HTTPS proxy `{}:{NO_PROXY_PORT}`",
            real_host::LAB_ADDRESS
        )) && text.contains("refused the connection"),
        "{text}"
    );
    assert_eq!(out.status.code(), Some(9), "{}", both(&out));
}
