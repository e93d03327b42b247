//! A throwaway OpenSSH server on 127.0.0.1 for the gather tests: its own host key,
//! authorized_keys file and configuration in a temporary directory, on a free port, logging in
//! the user running the tests.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SSHD: &str = "/usr/sbin/sshd";

/// Runs a command, panicking with its output when it fails; returns stdout.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A new unencrypted ed25519 key pair at `path` and `path.pub`.
pub fn keygen(path: &Path) -> PathBuf {
    run(Command::new("ssh-keygen")
        .args([
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            "okd-install-ops-test",
            "-f",
        ])
        .arg(path));
    path.to_path_buf()
}

/// A port nothing listens on (bound, then released at once).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("bind an ephemeral port")
        .port()
}

/// Whether sshd and ssh-keygen are installed; in CI (CI=true) a missing tool fails the test.
pub fn available() -> bool {
    let keygen = Command::new("ssh-keygen")
        .arg("-?")
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if Path::new(SSHD).exists() && keygen {
        return true;
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{SSHD} or ssh-keygen is missing: install the Debian package openssh-server");
    }
    eprintln!("skipping: OpenSSH is not installed (apt-get install openssh-server)");
    false
}

/// A running sshd; killed when dropped.
pub struct Sshd {
    child: Child,
    /// The port it listens on.
    pub port: u16,
    /// Its configuration, keys and log.
    pub dir: tempfile::TempDir,
    /// The login user (the one running the tests).
    pub user: String,
    /// That user's home directory on the "remote" side.
    pub home: PathBuf,
}

impl Sshd {
    /// Starts a server, or returns None when OpenSSH is not installed (outside CI).
    pub fn start() -> Option<Sshd> {
        if !available() {
            return None;
        }
        let user = run(Command::new("id").arg("-un")).trim().to_string();
        let passwd = run(Command::new("getent").args(["passwd", &user]));
        let home = PathBuf::from(passwd.trim().split(':').nth(5).expect("home in passwd"));
        // sshd refuses to start without its privilege separation directory.
        let _ = std::fs::create_dir_all("/run/sshd");
        for _ in 0..5 {
            let dir = tempfile::tempdir().expect("sshd dir");
            run(Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(dir.path().join("host_key")));
            std::fs::write(dir.path().join("authorized_keys"), "").expect("authorized_keys");
            let port = free_port();
            let config = dir.path().join("sshd_config");
            std::fs::write(&config, config_text(dir.path(), port)).expect("sshd_config");
            let log = std::fs::File::create(dir.path().join("sshd.log")).expect("sshd.log");
            let child = Command::new(SSHD)
                .args(["-D", "-e", "-f"])
                .arg(&config)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .expect("start sshd");
            let mut server = Sshd {
                child,
                port,
                dir,
                user: user.clone(),
                home: home.clone(),
            };
            if server.ready() {
                return Some(server);
            }
            eprintln!("sshd did not come up, retrying:\n{}", server.log());
        }
        panic!("sshd did not start after 5 attempts");
    }

    fn ready(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return false;
            }
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }

    /// Accepts logins with this public key line (`ssh-ed25519 AAAA... comment`).
    pub fn authorize_line(&self, public_key: &str) {
        let path = self.dir.path().join("authorized_keys");
        let mut text = std::fs::read_to_string(&path).expect("read authorized_keys");
        text.push_str(public_key.trim_end());
        text.push('\n');
        std::fs::write(path, text).expect("write authorized_keys");
    }

    /// Accepts logins with the key pair whose private half is `private`.
    pub fn authorize(&self, private: &Path) {
        let public = std::fs::read_to_string(format!("{}.pub", private.display()))
            .expect("read the public key");
        self.authorize_line(&public);
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn config_text(dir: &Path, port: u16) -> String {
    let d = dir.display();
    format!(
        "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nPidFile {d}/sshd.pid\n\
         AuthorizedKeysFile {d}/authorized_keys\nStrictModes no\nUsePAM no\n\
         PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n\
         PermitRootLogin prohibit-password\nAllowAgentForwarding yes\nMaxAuthTries 10\n\
         Subsystem sftp internal-sftp\nLogLevel VERBOSE\n"
    )
}
