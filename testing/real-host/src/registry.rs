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

/// What this machine lacks to run the lab's registry (and push images to it), each with
/// how to get it; empty when it has everything. Less than a booted host needs
/// ([`crate::missing`]).
pub fn missing() -> Vec<String> {
    let mut missing = Vec::new();
    if !crate::is_root() {
        missing.push("root (network namespaces need it)".to_string());
    }
    missing.extend(crate::missing_programs(PROGRAMS));
    missing
}

/// The programs the registry, its name server and the image pushes run, with their Debian
/// packages.
pub(crate) const PROGRAMS: &[(&str, &str)] = &[
    ("nsenter", "util-linux"),
    ("ip", "iproute2"),
    ("openssl", "openssl"),
    ("podman", "podman"),
    ("docker-registry", "docker-registry"),
    ("htpasswd", "apache2-utils"),
    ("dnsmasq", "dnsmasq-base"),
    ("busybox", "busybox-static"),
    ("curl", "curl"),
    ("gzip", "gzip"),
];

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
    auth: Auth,
    server: Option<Child>,
    dns: Option<Child>,
}

/// Which certificate the registry serves: the one its CA signed for now, or one a fault
/// puts in its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Certificate {
    /// Signed by the registry's CA (the install-config's trust bundle), valid now.
    Trusted,
    /// Same names, signed by a CA the host was never given.
    OtherCa,
    /// Signed by the registry's CA, valid only from tomorrow on (the host shares the
    /// machine's clock, so the certificate moves, not the clock).
    NotYetValid,
    /// Signed by the registry's CA, valid now, for another name only ([`OTHER_NAME`]).
    OtherName,
    /// Signed by the registry's CA, valid until yesterday.
    Expired,
}

/// How the registry checks who pulls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    /// A basic login with every request, checked against its htpasswd file.
    Htpasswd,
    /// A bearer token from a site's token service, as quay.io, Quay and Harbor ask for.
    Token {
        /// Where clients ask for a token (`https://...`), named in the registry's challenge.
        realm: String,
        /// The service a token must be for (its `aud`).
        service: String,
        /// Who must have issued a token (its `iss`).
        issuer: String,
        /// The certificate (PEM) whose key signs the tokens.
        signer: PathBuf,
    },
}

impl Auth {
    /// The `auth:` section of the registry's config.
    fn config(&self, dir: &Path) -> String {
        match self {
            Auth::Htpasswd => format!(
                "auth:\n  htpasswd:\n    realm: okd-real-host\n    path: {}\n",
                dir.join("htpasswd").display()
            ),
            Auth::Token {
                realm,
                service,
                issuer,
                signer,
            } => format!(
                "auth:\n  token:\n    realm: {realm}\n    service: {service}\n    issuer: {issuer}\n    \
                 rootcertbundle: {}\n",
                signer.display()
            ),
        }
    }
}

/// The one name [`Certificate::OtherName`] is for.
pub const OTHER_NAME: &str = "other.example.com";

impl Certificate {
    /// The certificate's and key's file names in the registry's directory.
    fn files(self) -> (&'static str, &'static str) {
        match self {
            Certificate::Trusted => ("registry.crt", "registry.key"),
            Certificate::OtherCa => ("other-ca-registry.crt", "other-ca-registry.key"),
            Certificate::NotYetValid => ("future-registry.crt", "registry.key"),
            Certificate::OtherName => ("other-name-registry.crt", "registry.key"),
            Certificate::Expired => ("expired-registry.crt", "registry.key"),
        }
    }
}

fn stop(child: &mut Option<Child>) {
    if let Some(mut child) = child.take() {
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        stop(&mut self.server);
        stop(&mut self.dns);
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
        let log = dir.join("registry.log");
        let mut registry = Registry {
            spec,
            dir: dir.to_path_buf(),
            ca_pem,
            log,
            auth: Auth::Htpasswd,
            server: None,
            dns: None,
        };
        registry.serve(lab, Certificate::Trusted)?;
        registry.answer_name(lab, true)?;
        Ok(registry)
    }

    /// (Re)starts the registry serving `certificate`; returns once it answers (401 on
    /// `/v2/` until logged in) with that certificate.
    pub fn serve(&mut self, lab: &Lab, certificate: Certificate) -> Result<()> {
        self.stop_serving();
        let dir = &self.dir;
        let (cert, key) = certificate.files();
        let config = dir.join("config.yml");
        write(
            &config,
            &format!(
                "version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: {}\n\
                 http:\n  addr: {LAB_ADDRESS}:{PORT}\n  tls:\n    certificate: {}\n    key: {}\n{}",
                dir.join("data").display(),
                dir.join(cert).display(),
                dir.join(key).display(),
                self.auth.config(dir),
            ),
        )?;
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .map_err(Error::io(&self.log))?;
        let err = log.try_clone().map_err(Error::io(&self.log))?;
        let mut serve = lab.command("docker-registry");
        serve
            .arg("serve")
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err);
        self.server = Some(serve.spawn().map_err(|source| Error::Spawn {
            command: command_line(&serve),
            source,
        })?);
        self.wait_until_up(lab, certificate)
    }

    /// Restarts the registry with its trusted certificate, checking who pulls as `auth`
    /// says (the images pushed before stay).
    pub fn check_with(&mut self, lab: &Lab, auth: Auth) -> Result<()> {
        self.auth = auth;
        self.serve(lab, Certificate::Trusted)
    }

    /// The trusted certificate's and key's files (PEM): what a server on the registry's
    /// name serves.
    pub fn trusted_files(&self) -> (PathBuf, PathBuf) {
        self.certificate_files(Certificate::Trusted)
    }

    /// The files (PEM) of `certificate` and its key.
    pub fn certificate_files(&self, certificate: Certificate) -> (PathBuf, PathBuf) {
        let (cert, key) = certificate.files();
        (self.dir.join(cert), self.dir.join(key))
    }

    /// Takes the repository `path` (e.g. `okd/scos-release`) out of the registry's storage,
    /// or puts it back: what was never mirrored, as the registry sees it. The registry keeps
    /// no cache of what it stores (none is configured), so its next answer says so.
    pub fn hold_repository(&self, path: &str, held: bool) -> Result<()> {
        let stored = self
            .dir
            .join("data/docker/registry/v2/repositories")
            .join(path);
        let aside = self.dir.join("held-aside").join(path.replace('/', "_"));
        let (from, to) = if held {
            (&aside, &stored)
        } else {
            (&stored, &aside)
        };
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(Error::io(parent))?;
        }
        std::fs::rename(from, to).map_err(Error::io(from))
    }

    /// The file holding blob `digest` (`sha256:HEX`) in the registry's storage.
    fn blob_file(&self, digest: &str) -> PathBuf {
        let hex = digest.trim_start_matches("sha256:");
        self.dir
            .join("data/docker/registry/v2/blobs/sha256")
            .join(hex.get(..2).unwrap_or(hex))
            .join(hex)
            .join("data")
    }

    /// The layers' digests of the image manifest `digest` the registry stores.
    pub fn layers_of(&self, digest: &str) -> Result<Vec<String>> {
        let file = self.blob_file(digest);
        let text = std::fs::read_to_string(&file).map_err(Error::io(&file))?;
        let manifest: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| Error::Answer {
                what: format!("the manifest {digest} in the registry's storage"),
                detail: e.to_string(),
            })?;
        Ok(manifest["layers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| l["digest"].as_str().map(str::to_string))
            .collect())
    }

    /// Takes blob `digest`'s bytes out of the registry's storage, or puts them back: a
    /// mirroring run cut short, as the registry sees it (the repository still links the
    /// blob, its manifest still names it).
    pub fn hold_blob(&self, digest: &str, held: bool) -> Result<()> {
        let stored = self.blob_file(digest);
        let aside = stored.with_extension("held-aside");
        let (from, to) = if held {
            (&aside, &stored)
        } else {
            (&stored, &aside)
        };
        std::fs::rename(from, to).map_err(Error::io(from))
    }

    /// Inverts the second half of blob `digest`'s bytes in the registry's storage (its
    /// length kept): storage that went bad under the registry, which serves what it has
    /// without checking it. Done twice, the blob is whole again.
    pub fn flip_blob(&self, digest: &str) -> Result<()> {
        let file = self.blob_file(digest);
        let mut bytes = std::fs::read(&file).map_err(Error::io(&file))?;
        let half = bytes.len() / 2;
        for b in &mut bytes[half..] {
            *b = !*b;
        }
        std::fs::write(&file, bytes).map_err(Error::io(&file))
    }

    /// Stops the registry (the site's registry down); its storage stays.
    pub fn stop_serving(&mut self) {
        stop(&mut self.server);
    }

    /// Stops the lab's name server (the site's DNS down).
    pub fn stop_name_server(&mut self) {
        stop(&mut self.dns);
    }

    /// (Re)starts the lab's name server: answering the registry's name when `known`, else
    /// NXDOMAIN for it too, as for every other name (a record nobody made).
    pub fn answer_name(&mut self, lab: &Lab, known: bool) -> Result<()> {
        stop(&mut self.dns);
        let dir = &self.dir;
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
        .arg(format!("--pid-file={}", dir.join("dnsmasq.pid").display()));
        if known {
            dns.arg(format!("--address=/{}/{LAB_ADDRESS}", self.spec.name));
        }
        dns.arg("--address=/#/");
        self.dns = Some(spawn(&mut dns, &dir.join("dnsmasq.log"))?);
        Ok(())
    }

    /// Waits until the registry answers; with the trusted certificate, checked against its
    /// CA, with another, only that it answers.
    fn wait_until_up(&self, lab: &Lab, certificate: Certificate) -> Result<()> {
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
            ]);
            if certificate == Certificate::Trusted {
                curl.arg("--cacert").arg(self.dir.join("ca.crt"));
            } else {
                curl.arg("--insecure");
            }
            curl.arg("--resolve")
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
/// openssl; and the certificates a fault puts in its place: the same names signed by another
/// CA, one of the registry's CA valid only from tomorrow, and one of the registry's CA for
/// [`OTHER_NAME`] only. Returns the CA's PEM.
fn make_certificates(dir: &Path, name: &str) -> Result<String> {
    let at = |f: &str| dir.join(f);
    write(
        &at("registry.ext"),
        &server_extensions(&format!("DNS:{name},IP:{LAB_ADDRESS}")),
    )?;
    for (ca, prefix) in [("ca", ""), ("other-ca", "other-ca-")] {
        output_of(
            Command::new("openssl")
                .args([
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                ])
                .arg("-subj")
                .arg(format!("/CN=okd-install real-host test registry {ca}"))
                .arg("-keyout")
                .arg(at(&format!("{ca}.key")))
                .arg("-out")
                .arg(at(&format!("{ca}.crt"))),
        )?;
        let key = at(&format!("{prefix}registry.key"));
        let csr = at(&format!("{prefix}registry.csr"));
        output_of(
            Command::new("openssl")
                .args(["req", "-newkey", "rsa:2048", "-nodes"])
                .arg("-subj")
                .arg(format!("/CN={name}"))
                .arg("-keyout")
                .arg(&key)
                .arg("-out")
                .arg(&csr),
        )?;
        sign(
            dir,
            &csr,
            ca,
            "registry.ext",
            &format!("{prefix}registry.crt"),
        )?;
    }
    dated_certificate(dir, ("+1 day", "+2 days"), "future-registry.crt")?;
    dated_certificate(dir, ("-2 days", "-1 day"), "expired-registry.crt")?;
    write(
        &at("other-name.ext"),
        &server_extensions(&format!("DNS:{OTHER_NAME}")),
    )?;
    sign(
        dir,
        &at("registry.csr"),
        "ca",
        "other-name.ext",
        "other-name-registry.crt",
    )?;
    std::fs::read_to_string(at("ca.crt")).map_err(Error::io(at("ca.crt")))
}

/// The X.509 extensions of a TLS server certificate for `names` (`DNS:a,IP:b`).
fn server_extensions(names: &str) -> String {
    format!(
        "subjectAltName={names}\nbasicConstraints=CA:FALSE\n\
         keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"
    )
}

/// Signs the request `csr` with the CA `ca` (`<ca>.crt`, `<ca>.key` in `dir`) and the
/// extensions file `ext`, valid for two days from now, into `out` (in `dir`).
fn sign(dir: &Path, csr: &Path, ca: &str, ext: &str, out: &str) -> Result<()> {
    output_of(
        Command::new("openssl")
            .args(["x509", "-req", "-days", "2", "-CAcreateserial"])
            .arg("-in")
            .arg(csr)
            .arg("-CA")
            .arg(dir.join(format!("{ca}.crt")))
            .arg("-CAkey")
            .arg(dir.join(format!("{ca}.key")))
            .arg("-extfile")
            .arg(dir.join(ext))
            .arg("-out")
            .arg(dir.join(out)),
    )
    .map(drop)
}

/// The registry's request signed by its CA valid from `dates.0` to `dates.1` (offsets
/// from now as `date --date` reads them), into `out`: `openssl x509` cannot set a start
/// date, `openssl ca` can (with a database of its own).
fn dated_certificate(dir: &Path, dates: (&str, &str), out: &str) -> Result<()> {
    let at = |f: &str| dir.join(f);
    let ca_dir = at(&format!("{out}-ca"));
    std::fs::create_dir_all(&ca_dir).map_err(Error::io(&ca_dir))?;
    write(&ca_dir.join("index.txt"), "")?;
    write(
        &ca_dir.join("ca.cnf"),
        &format!(
            "[ca]\ndefault_ca = lab\n[lab]\ndatabase = {0}/index.txt\nnew_certs_dir = {0}\nserial = {0}/serial\n\
             default_md = sha256\npolicy = any\n[any]\ncommonName = supplied\n",
            ca_dir.display()
        ),
    )?;
    let date = |offset: &str| {
        output_of(
            Command::new("date")
                .args(["--utc", "--date", offset, "+%Y%m%d%H%M%SZ"])
                .env("LC_ALL", "C"),
        )
    };
    output_of(
        Command::new("openssl")
            .args(["ca", "-batch", "-notext", "-rand_serial"])
            .arg("-config")
            .arg(ca_dir.join("ca.cnf"))
            .arg("-cert")
            .arg(at("ca.crt"))
            .arg("-keyfile")
            .arg(at("ca.key"))
            .arg("-in")
            .arg(at("registry.csr"))
            .arg("-extfile")
            .arg(at("registry.ext"))
            .args(["-startdate", date(dates.0)?.trim()])
            .args(["-enddate", date(dates.1)?.trim()])
            .arg("-out")
            .arg(at(out)),
    )
    .map(drop)
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
