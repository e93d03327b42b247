//! The servers a test runs on the machine's loopback for its VM: static files over HTTP
//! (`busybox httpd`, the PXE boot's script and parts) and a Machine Config Server stand-in
//! (`openssl s_server -WWW` with the certificate the test gives it). The guest reaches them
//! only through [`crate::Forward`]s.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use real_host::{Error, Result};

use crate::standins::io;

/// A server process on loopback; ended when dropped.
pub struct Server {
    child: Child,
    /// Its loopback port.
    pub port: u16,
    /// Its log (standard output and error).
    pub log: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// `busybox httpd` serving `docroot`.
    pub fn http(docroot: &Path, log: &Path) -> Result<Server> {
        let port = free_port()?;
        let mut cmd = Command::new("busybox");
        cmd.args([
            "httpd",
            "-f",
            "-vv",
            "-p",
            &format!("127.0.0.1:{port}"),
            "-h",
        ])
        .arg(docroot);
        Server::spawn(cmd, port, log)
    }

    /// The Machine Config Server stand-in: `openssl s_server -WWW` serving the files under
    /// `docroot` over HTTPS with `cert` and `key`, on `port` (0: a free one).
    pub fn https(docroot: &Path, cert: &Path, key: &Path, port: u16, log: &Path) -> Result<Server> {
        let port = if port == 0 { free_port()? } else { port };
        let mut cmd = Command::new("openssl");
        cmd.args([
            "s_server",
            "-WWW",
            "-accept",
            &format!("127.0.0.1:{port}"),
            "-cert",
        ])
        .arg(cert)
        .arg("-key")
        .arg(key)
        .current_dir(docroot);
        Server::spawn(cmd, port, log)
    }

    fn spawn(mut cmd: Command, port: u16, log: &Path) -> Result<Server> {
        let out = std::fs::File::create(log).map_err(io(log))?;
        let err = out.try_clone().map_err(io(log))?;
        cmd.stdin(Stdio::null()).stdout(out).stderr(err);
        let child = cmd.spawn().map_err(|source| Error::Spawn {
            command: testkit::run::command_line(&cmd),
            source,
        })?;
        let server = Server {
            child,
            port,
            log: log.to_path_buf(),
        };
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Ok(server);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err(Error::Timeout {
            what: format!(
                "{} did not listen on 127.0.0.1:{port}",
                testkit::run::command_line(&cmd)
            ),
            seconds: 10,
            detail: std::fs::read_to_string(log).unwrap_or_default(),
        })
    }

    /// Its log so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// A loopback port nobody listens on now.
fn free_port() -> Result<u16> {
    let listener =
        std::net::TcpListener::bind("127.0.0.1:0").map_err(io(Path::new("127.0.0.1:0")))?;
    let port = listener
        .local_addr()
        .map_err(io(Path::new("127.0.0.1:0")))?
        .port();
    Ok(port)
}
