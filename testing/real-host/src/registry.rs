//! A site's mirror registry on the lab network: Debian's docker-registry (the Distribution
//! registry) serving TLS with a certificate from a CA the test made, logins checked against
//! an htpasswd file, and dnsmasq answering the registry's name, every other name NXDOMAIN
//! as a site's DNS does for a record nobody made. Both run in the lab's network namespace
//! and end when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::machine::{LAB_ADDRESS, Lab};
use crate::run::{command_line, output_of};

/// The registry port.
pub const PORT: u16 = 5000;

/// What the registry is called and who may log in.
#[derive(Debug, Clone)]
pub struct RegistrySpec {
    /// Its DNS name, e.g. `registry.example.com`.
    pub name: String,
    /// The user of the pull secret.
    pub user: String,
    /// Its password.
    pub password: String,
}

/// A running registry and its name server.
pub struct Registry {
    /// What it is called and who may log in.
    pub spec: RegistrySpec,
    /// Its directory: CA, certificate, htpasswd, storage, logs.
    pub dir: PathBuf,
    /// The CA that signed its certificate (PEM), for the install-config's trust bundle.
    pub ca_pem: String,
    /// The registry's log.
    pub log: PathBuf,
    children: Vec<Child>,
}

impl Drop for Registry {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Registry {
    /// `name:port`, as pull specs name it.
    pub fn host_port(&self) -> String {
        format!("{}:{PORT}", self.spec.name)
    }

    /// Starts the registry and dnsmasq in `lab`, files under `dir`; returns once the
    /// registry answers (401 on `/v2/` until logged in).
    pub fn start(lab: &Lab, spec: RegistrySpec, dir: &Path) -> Result<Registry> {
        std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
        let ca_pem = make_certificates(dir, &spec.name)?;
        let htpasswd = output_of(
            Command::new("htpasswd")
                .args(["-B", "-b", "-n"])
                .arg(&spec.user)
                .arg(&spec.password),
        )?;
        write(&dir.join("htpasswd"), htpasswd.trim_end())?;
        let config = dir.join("config.yml");
        write(
            &config,
            &format!(
                "version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: {}\n\
                 http:\n  addr: {LAB_ADDRESS}:{PORT}\n  tls:\n    certificate: {}\n    key: {}\n\
                 auth:\n  htpasswd:\n    realm: okd-real-host\n    path: {}\n",
                dir.join("data").display(),
                dir.join("registry.crt").display(),
                dir.join("registry.key").display(),
                dir.join("htpasswd").display(),
            ),
        )?;
        let log = dir.join("registry.log");
        let mut registry = Registry {
            spec,
            dir: dir.to_path_buf(),
            ca_pem,
            log: log.clone(),
            children: Vec::new(),
        };
        let mut serve = lab.command("docker-registry");
        serve.arg("serve").arg(&config);
        registry.children.push(spawn(&mut serve, &log)?);
        let mut dns = lab.command("dnsmasq");
        dns.args([
            "--keep-in-foreground",
            "--no-resolv",
            "--no-hosts",
            "--bind-interfaces",
            "--user=root",
            "--log-queries",
            "--log-facility=-",
        ])
        .arg(format!("--listen-address={LAB_ADDRESS}"))
        .arg(format!("--pid-file={}", dir.join("dnsmasq.pid").display()))
        .arg(format!("--address=/{}/{LAB_ADDRESS}", registry.spec.name))
        .arg("--address=/#/");
        registry
            .children
            .push(spawn(&mut dns, &dir.join("dnsmasq.log"))?);
        registry.wait_until_up(lab)?;
        Ok(registry)
    }

    fn wait_until_up(&self, lab: &Lab) -> Result<()> {
        let start = Instant::now();
        let mut last = String::new();
        while start.elapsed() < Duration::from_secs(20) {
            let mut curl = lab.command("curl");
            curl.args([
                "--silent",
                "--output",
                "/dev/null",
                "--write-out",
                "%{http_code}",
            ])
            .arg("--cacert")
            .arg(self.dir.join("ca.crt"))
            .arg("--resolve")
            .arg(format!("{}:{PORT}:{LAB_ADDRESS}", self.spec.name))
            .arg(format!("https://{}/v2/", self.host_port()));
            match output_of(&mut curl) {
                Ok(code) if code == "401" => return Ok(()),
                Ok(code) => last = format!("HTTP {code}"),
                Err(e) => last = e.to_string(),
            }
            std::thread::sleep(Duration::from_millis(300));
        }
        Err(Error::Timeout {
            what: "the registry did not answer".into(),
            seconds: 20,
            detail: format!(
                "{last}\n{}",
                std::fs::read_to_string(&self.log).unwrap_or_default()
            ),
        })
    }
}

/// A CA and a server certificate for `name` (and the lab address) signed by it, with
/// openssl; returns the CA's PEM.
fn make_certificates(dir: &Path, name: &str) -> Result<String> {
    let at = |f: &str| dir.join(f);
    output_of(
        Command::new("openssl")
            .args([
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            ])
            .args(["-subj", "/CN=okd-install real-host test registry CA"])
            .arg("-keyout")
            .arg(at("ca.key"))
            .arg("-out")
            .arg(at("ca.crt")),
    )?;
    output_of(
        Command::new("openssl")
            .args(["req", "-newkey", "rsa:2048", "-nodes"])
            .arg("-subj")
            .arg(format!("/CN={name}"))
            .arg("-keyout")
            .arg(at("registry.key"))
            .arg("-out")
            .arg(at("registry.csr")),
    )?;
    write(
        &at("registry.ext"),
        &format!(
            "subjectAltName=DNS:{name},IP:{LAB_ADDRESS}\nbasicConstraints=CA:FALSE\n\
             keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"
        ),
    )?;
    output_of(
        Command::new("openssl")
            .args(["x509", "-req", "-days", "2", "-CAcreateserial"])
            .arg("-in")
            .arg(at("registry.csr"))
            .arg("-CA")
            .arg(at("ca.crt"))
            .arg("-CAkey")
            .arg(at("ca.key"))
            .arg("-extfile")
            .arg(at("registry.ext"))
            .arg("-out")
            .arg(at("registry.crt")),
    )?;
    std::fs::read_to_string(at("ca.crt")).map_err(Error::io(at("ca.crt")))
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(Error::io(path))
}

/// Starts `cmd` with both streams into `log`.
pub(crate) fn spawn(cmd: &mut Command, log: &Path) -> Result<Child> {
    let out = std::fs::File::create(log).map_err(Error::io(log))?;
    let err = out.try_clone().map_err(Error::io(log))?;
    cmd.stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|source| Error::Spawn {
            command: command_line(cmd),
            source,
        })
}
