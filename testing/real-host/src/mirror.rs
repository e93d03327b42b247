//! A disconnected site's mirror for the pull preflight (`verify --online=pulls`), without a
//! booted host: the lab's registry ([`crate::registry`]) holding the release's component
//! images ([`crate::images`]) and release images that name them ([`crate::release`]), the
//! install-config a site would write for it, and commands run in the lab's network with the
//! lab's name server as their resolver, as the bootstrap host would resolve.

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;

use crate::error::{Error, Result};
use crate::machine::{LAB_ADDRESS, Lab};
use crate::registry::{PORT, Registry, RegistrySpec};
use crate::release::Component;

/// Where the release image lives in the public registry, and its path in the mirror.
pub const RELEASE_SOURCE: &str = "quay.io/okd/scos-release";
/// The mirror's repository of the release image.
pub const RELEASE_PATH: &str = "okd/scos-release";
/// Where the release's component images live in the public registry.
pub const CONTENT_SOURCE: &str = "quay.io/okd/scos-content";
/// The mirror's repository of the component images.
pub const CONTENT_PATH: &str = "okd/scos-content";
/// The release version the release images claim to be.
pub const RELEASE_VERSION: &str = "5.0.0-okd-scos.0";

/// The registry with the components, and where commands resolve through the lab.
pub struct Mirror {
    /// The lab network.
    pub lab: Lab,
    /// The registry.
    pub registry: Registry,
    /// The components it holds, named by their public pull specs.
    pub components: Vec<Component>,
    resolv: PathBuf,
}

impl Drop for Mirror {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.resolv);
    }
}

/// A running tinyproxy; stopped when dropped.
pub struct Proxy {
    child: Option<std::process::Child>,
    /// Its log: one line per CONNECT.
    pub log: PathBuf,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The password of [`Login::WrongPassword`].
pub const WRONG_PASSWORD: &str = "not-the-password";

/// The pull secret's entry for the mirror.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Login {
    /// The registry's user and password.
    Right,
    /// The registry's user with another password.
    WrongPassword,
    /// No entry for the mirror.
    Missing,
}

/// What the site's install-config says; the default is a site where every pull works.
#[derive(Debug, Clone)]
pub struct SiteConfig {
    /// The registry's CA is in additionalTrustBundle.
    pub trust_ca: bool,
    /// The pull secret's entry for the mirror.
    pub login: Login,
    /// The component images' source has a mirror rule.
    pub content_mirror: bool,
    /// The name the mirror rules give the registry (its own name by default).
    pub mirror_name: Option<String>,
    /// install-config's `proxy`: `httpsProxy` and `noProxy`.
    pub proxy: Option<(String, String)>,
}

impl Default for SiteConfig {
    fn default() -> Self {
        SiteConfig {
            trust_ca: true,
            login: Login::Right,
            content_mirror: true,
            mirror_name: None,
            proxy: None,
        }
    }
}

impl SiteConfig {
    /// A site where every pull works but for the pull secret's entry for the mirror.
    pub fn with_login(login: Login) -> SiteConfig {
        SiteConfig {
            login,
            ..SiteConfig::default()
        }
    }
}

impl Mirror {
    /// Starts the lab `name` with its registry (`spec`) under `work` and pushes one
    /// component image per name of `components`.
    pub fn start(
        name: &str,
        spec: RegistrySpec,
        components: &[String],
        work: &Path,
    ) -> Result<Mirror> {
        let lab = Lab::create(name)?;
        let registry = Registry::start(&lab, spec, &work.join("registry"))?;
        let digests = crate::images::push(
            &registry,
            &lab,
            CONTENT_PATH,
            components,
            &work.join("components"),
        )?;
        let components = components
            .iter()
            .zip(digests)
            .map(|(name, digest)| Component {
                name: name.clone(),
                pull_spec: format!("{CONTENT_SOURCE}@{digest}"),
            })
            .collect();
        // `ip netns exec` puts /etc/netns/NAME/resolv.conf in place of the machine's.
        let resolv = Path::new("/etc/netns").join(&lab.lab_netns);
        std::fs::create_dir_all(&resolv).map_err(Error::io(&resolv))?;
        let file = resolv.join("resolv.conf");
        std::fs::write(&file, format!("nameserver {LAB_ADDRESS}\n")).map_err(Error::io(&file))?;
        Ok(Mirror {
            lab,
            registry,
            components,
            resolv,
        })
    }

    /// Pushes a release image naming `components` (files under `work`); returns its public
    /// pull spec by digest, which the mirror rules send to the registry.
    pub fn push_release(&self, components: &[Component], work: &Path) -> Result<String> {
        let digest = crate::release::push(
            &self.registry,
            &self.lab,
            RELEASE_PATH,
            RELEASE_VERSION,
            components,
            work,
        )?;
        Ok(format!("{RELEASE_SOURCE}@{digest}"))
    }

    /// Starts tinyproxy in the lab's network on `LAB_ADDRESS:port`, resolving through the
    /// lab, its log (every CONNECT) in `log`; it ends when the returned child is dropped.
    pub fn start_proxy(&self, port: u16, work: &Path) -> Result<Proxy> {
        std::fs::create_dir_all(work).map_err(Error::io(work))?;
        let config = work.join("tinyproxy.conf");
        let log = work.join("tinyproxy.log");
        std::fs::write(
            &config,
            format!(
                "User nobody\nGroup nogroup\nPort {port}\nListen {LAB_ADDRESS}\nTimeout 20\n\
                 MaxClients 64\nLogLevel Connect\nConnectPort {PORT}\nConnectPort 443\n"
            ),
        )
        .map_err(Error::io(&config))?;
        let mut cmd = self.command("tinyproxy");
        cmd.arg("-d").arg("-c").arg(&config);
        let child = crate::registry::spawn(&mut cmd, &log)?;
        let proxy = Proxy {
            child: Some(child),
            log,
        };
        // It listens within moments; the preflight's own connect bound covers a slow start.
        std::thread::sleep(std::time::Duration::from_millis(300));
        Ok(proxy)
    }

    /// `program` run in the lab's network with the lab's name server as resolver.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", &self.lab.lab_netns])
            .arg(program);
        cmd
    }

    /// The disconnected-mirror example's install-config (`example` is its text) for this
    /// registry as `site` says.
    pub fn install_config(&self, example: &str, site: &SiteConfig) -> String {
        let spec = &self.registry.spec;
        let basic = |user: &str, password: &str| {
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
        };
        let name = site.mirror_name.as_deref().unwrap_or(&spec.name);
        let mirror = format!("{name}:{PORT}");
        let mut auths = serde_json::json!({"quay.io": {"auth": basic("someone", "x")}});
        let password = match site.login {
            Login::Right => Some(spec.password.as_str()),
            Login::WrongPassword => Some(WRONG_PASSWORD),
            Login::Missing => None,
        };
        if let Some(password) = password {
            auths[&mirror] = serde_json::json!({"auth": basic(&spec.user, password)});
        }
        let mut text: String = example
            .lines()
            .filter(|l| !l.starts_with("pullSecret:"))
            .take_while(|l| !l.starts_with("imageDigestSources:"))
            .map(|l| format!("{l}\n"))
            .collect();
        text.push_str(&format!(
            "imageDigestSources:\n- source: {RELEASE_SOURCE}\n  mirrors:\n  - {mirror}/{RELEASE_PATH}\n"
        ));
        if site.content_mirror {
            text.push_str(&format!(
                "- source: {CONTENT_SOURCE}\n  mirrors:\n  - {mirror}/{CONTENT_PATH}\n"
            ));
        }
        let secret = serde_json::json!({ "auths": auths });
        text.push_str(&format!("pullSecret: '{secret}'\n"));
        if let Some(key) = example.lines().find(|l| l.starts_with("sshKey:")) {
            text.push_str(&format!("{key}\n"));
        }
        if let Some((https, no_proxy)) = &site.proxy {
            text.push_str(&format!(
                "proxy:\n  httpsProxy: {https}\n  noProxy: {no_proxy}\n"
            ));
        }
        if site.trust_ca {
            text.push_str("additionalTrustBundle: |\n");
            for line in self.registry.ca_pem.lines() {
                text.push_str(&format!("  {line}\n"));
            }
        }
        text
    }
}
