//! A pointer config (master.ign, worker.ign) fetched by the real Ignition, as a node's
//! initramfs fetches it: its merge URL over HTTPS, trusting only the CA the pointer config
//! itself carries (`ignition.security.tls.certificateAuthorities`).
//!
//! The server is `openssl s_server -WWW` in the lab's network namespace, on the address the
//! pointer names (the API VIP or `api-int`'s address), with whatever certificate the test
//! gives it; it serves a config of the test's as the pool's config. Ignition runs in the
//! host's namespace of the same lab, in a private mount namespace whose `/etc/hosts` names
//! the server, so neither the machine's resolver nor its files are touched.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::firstboot;
use crate::machine::{HOST_ADDRESS, LAB_ADDRESS, Lab};
use crate::registry::spawn;
use crate::run::output_of;

/// How long Ignition may try: it retries a failed fetch for ever, as a node does.
const FETCH_SECONDS: u64 = 10;

/// Where a pointer config fetches from.
#[derive(Debug, Clone)]
pub struct MergeSource {
    /// The URL.
    pub url: String,
    /// Its host (a name or an address).
    pub host: String,
    /// Its port.
    pub port: u16,
    /// Its path, e.g. `/config/master`.
    pub path: String,
}

impl MergeSource {
    /// The first merge source of the pointer config text `pointer`.
    pub fn of(pointer: &str) -> Option<MergeSource> {
        let value: serde_json::Value = serde_json::from_str(pointer).ok()?;
        let url = value["ignition"]["config"]["merge"][0]["source"].as_str()?;
        let rest = url.strip_prefix("https://")?;
        let (authority, path) = rest.split_at(rest.find('/')?);
        let (host, port) = authority.rsplit_once(':')?;
        Some(MergeSource {
            url: url.to_string(),
            host: host.trim_matches(['[', ']']).to_string(),
            port: port.parse().ok()?,
            path: path.to_string(),
        })
    }

    /// The address the server listens on: the pointer's own when it names one, else the
    /// lab's (its name is mapped to it).
    fn address(&self) -> String {
        match self.host.parse::<IpAddr>() {
            Ok(address) => address.to_string(),
            Err(_) => LAB_ADDRESS.to_string(),
        }
    }
}

/// What the fetch gave.
#[derive(Debug)]
pub struct Fetched {
    /// Whether every Ignition stage succeeded.
    pub accepted: bool,
    /// Ignition's log (or the end of it, with its error, when a stage failed).
    pub log: String,
    /// The root the merged config was written into.
    pub root: PathBuf,
}

/// Serves `served` (a config) at `source` over HTTPS with `cert` and `key` in `lab`, and has
/// the real Ignition apply `pointer` against a scratch root under `work`.
pub fn fetch(
    lab: &Lab,
    pointer: &Path,
    source: &MergeSource,
    cert: &Path,
    key: &Path,
    served: &str,
    work: &Path,
) -> Result<Fetched> {
    std::fs::create_dir_all(work).map_err(Error::io(work))?;
    link_lab(lab, &source.address())?;
    let docroot = work.join("www");
    let file = docroot.join(source.path.trim_start_matches('/'));
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(Error::io(dir))?;
    }
    std::fs::write(&file, served).map_err(Error::io(&file))?;
    let _server = Server::start(lab, source, cert, key, &docroot, &work.join("server.log"))?;
    let hosts = work.join("hosts");
    std::fs::write(
        &hosts,
        format!(
            "127.0.0.1 localhost\n{} {}\n",
            source.address(),
            source.host
        ),
    )
    .map_err(Error::io(&hosts))?;
    let root = work.join("root");
    crate::coreos::scratch_root(&root)?;
    // nsenter into the lab's host side, a private mount namespace with our /etc/hosts, and a
    // time limit; Ignition itself comes last.
    let wrapper: Vec<String> = [
        "nsenter",
        &format!("--net=/run/netns/{}", lab.host_netns),
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        &format!(
            "mount --bind '{}' /etc/hosts && exec timeout {FETCH_SECONDS} \"$@\"",
            hosts.display()
        ),
        "ignition-in-lab",
    ]
    .map(str::to_string)
    .to_vec();
    let ignition_work = work.join("ignition");
    std::fs::create_dir_all(&ignition_work).map_err(Error::io(&ignition_work))?;
    Ok(
        match firstboot::apply_in(&wrapper, pointer, &root, &ignition_work) {
            Ok(log) => Fetched {
                accepted: true,
                log,
                root,
            },
            Err(e) => Fetched {
                accepted: false,
                log: format!(
                    "{e}\nIgnition's errors:\n{}",
                    firstboot::errors(&ignition_work).join("\n")
                ),
                root,
            },
        },
    )
}

/// The host side of the lab gets its address and a route to the lab; `address` is put on
/// the lab side too when it is not the lab's own.
fn link_lab(lab: &Lab, address: &str) -> Result<()> {
    let ip = |args: &[&str]| output_of(Command::new("ip").args(args)).map(drop);
    let host_address = format!("{HOST_ADDRESS}/24");
    let shown =
        output_of(Command::new("ip").args(["-n", &lab.host_netns, "address", "show", "eth0"]))?;
    if !shown.contains(&host_address) {
        ip(&[
            "-n",
            &lab.host_netns,
            "address",
            "add",
            &host_address,
            "dev",
            "eth0",
        ])?;
        ip(&["-n", &lab.host_netns, "link", "set", "eth0", "up"])?;
        ip(&[
            "-n",
            &lab.host_netns,
            "route",
            "add",
            "default",
            "via",
            LAB_ADDRESS,
        ])?;
    }
    if address != LAB_ADDRESS {
        let on_lab =
            output_of(Command::new("ip").args(["-n", &lab.lab_netns, "address", "show", "lab0"]))?;
        if !on_lab.contains(&format!("{address}/")) {
            ip(&[
                "-n",
                &lab.lab_netns,
                "address",
                "add",
                &format!("{address}/32"),
                "dev",
                "lab0",
            ])?;
        }
    }
    Ok(())
}

/// `openssl s_server -WWW`, ended when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Server {
    fn start(
        lab: &Lab,
        source: &MergeSource,
        cert: &Path,
        key: &Path,
        docroot: &Path,
        log: &Path,
    ) -> Result<Server> {
        let accept = format!("{}:{}", source.address(), source.port);
        let mut cmd = lab.command("openssl");
        cmd.args(["s_server", "-quiet", "-WWW", "-accept", &accept, "-cert"])
            .arg(cert)
            .arg("-key")
            .arg(key)
            .current_dir(docroot);
        let server = Server(spawn(&mut cmd, log)?);
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            let listening = output_of(lab.command("ss").args(["-Htln"])).unwrap_or_default();
            if listening.contains(&accept) {
                return Ok(server);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Err(Error::Timeout {
            what: format!("openssl s_server did not listen on {accept}"),
            seconds: 10,
            detail: std::fs::read_to_string(log).unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_merge_source_is_read_from_the_pointer_config() {
        let pointer = r#"{"ignition":{"config":{"merge":[{"source":"https://api-int.c.example.com:22623/config/worker"}]},"version":"3.2.0"}}"#;
        let source = MergeSource::of(pointer).expect("a merge source");
        assert_eq!(source.host, "api-int.c.example.com");
        assert_eq!(source.port, 22623);
        assert_eq!(source.path, "/config/worker");
        assert_eq!(source.address(), LAB_ADDRESS);
        let vip = r#"{"ignition":{"config":{"merge":[{"source":"https://192.168.111.5:22623/config/master"}]}}}"#;
        assert_eq!(MergeSource::of(vip).unwrap().address(), "192.168.111.5");
    }
}
