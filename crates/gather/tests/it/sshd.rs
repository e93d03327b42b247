//! A throwaway OpenSSH server for the gather tests, and helpers around ssh-keygen/ssh-agent.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SSHD: &str = "/usr/sbin/sshd";

/// Runs a command and panics with its output when it fails.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Generates a key pair with ssh-keygen; `extra` adds flags such as `-m PEM`.
pub fn keygen(path: &Path, kind: &str, passphrase: &str, extra: &[&str]) -> PathBuf {
    run(Command::new("ssh-keygen")
        .args([
            "-q",
            "-t",
            kind,
            "-N",
            passphrase,
            "-C",
            "gather-test",
            "-f",
        ])
        .arg(path)
        .args(extra));
    path.to_path_buf()
}

/// The `SHA256:...` fingerprint of a key file, as ssh-keygen prints it.
pub fn fingerprint(path: &Path) -> String {
    let out = run(Command::new("ssh-keygen").arg("-lf").arg(path));
    out.split_whitespace().nth(1).unwrap().to_string()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A port nothing listens on (bound, then released).
pub fn closed_port() -> u16 {
    free_port()
}

/// Whether the OpenSSH tools the tests use are installed; in CI a missing tool fails the test.
pub fn available() -> bool {
    let keygen = Command::new("ssh-keygen").arg("-?").output().is_ok();
    if Path::new(SSHD).exists() && keygen {
        return true;
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "{SSHD} or ssh-keygen is missing: install the Debian packages openssh-server and openssh-client"
        );
    }
    eprintln!("skipping: OpenSSH not installed (apt-get install openssh-server openssh-client)");
    false
}

/// A running sshd on 127.0.0.1 that accepts keys listed in its own authorized_keys file.
pub struct Sshd {
    child: Child,
    pub port: u16,
    pub dir: tempfile::TempDir,
    pub user: String,
    pub home: PathBuf,
}

impl Sshd {
    /// Starts a server, or returns None when sshd is not installed (outside CI).
    pub fn start() -> Option<Sshd> {
        Self::start_with("")
    }

    /// Like [`Sshd::start`], with extra configuration lines that win over the defaults
    /// (sshd keeps the first value it reads for a keyword).
    pub fn start_with(extra: &str) -> Option<Sshd> {
        if !available() {
            return None;
        }
        let mut dir = tempfile::tempdir().unwrap();
        keygen(&dir.path().join("host_key"), "ed25519", "", &[]);
        std::fs::write(dir.path().join("authorized_keys"), "").unwrap();
        // sshd refuses to start without its privilege separation directory.
        let _ = std::fs::create_dir_all("/run/sshd");
        let user = run(Command::new("id").arg("-un")).trim().to_string();
        let passwd = run(Command::new("getent").args(["passwd", &user]));
        let home = PathBuf::from(passwd.trim().split(':').nth(5).unwrap());
        for _ in 0..5 {
            let port = free_port();
            let config = dir.path().join("sshd_config");
            std::fs::write(&config, format!("{extra}{}", config_text(dir.path(), port))).unwrap();
            let log = std::fs::File::create(dir.path().join("sshd.log")).unwrap();
            let child = Command::new(SSHD)
                .args(["-D", "-e", "-f"])
                .arg(&config)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(log)
                .spawn()
                .expect("cannot start sshd");
            let mut server = Sshd {
                child,
                port,
                dir,
                user: user.clone(),
                home: home.clone(),
            };
            if server.wait_ready() {
                return Some(server);
            }
            dir = std::mem::replace(&mut server.dir, tempfile::tempdir().unwrap());
        }
        panic!("sshd did not start; see its log in the test output above");
    }

    fn wait_ready(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                eprintln!("sshd exited: {}", self.log());
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

    /// Lets the key pair at `private` (its `.pub` half) log in.
    pub fn authorize(&self, private: &Path) {
        let public = std::fs::read_to_string(private.with_extension("pub"))
            .or_else(|_| std::fs::read_to_string(format!("{}.pub", private.display())))
            .unwrap();
        let path = self.dir.path().join("authorized_keys");
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str(&public);
        std::fs::write(path, text).unwrap();
    }

    /// The host key's fingerprint.
    pub fn host_fingerprint(&self) -> String {
        fingerprint(&self.dir.path().join("host_key.pub"))
    }

    /// A directory inside the server's temp dir.
    pub fn subdir(&self, name: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::create_dir_all(&path).unwrap();
        path
    }
}

impl Sshd {
    /// Kills the per-connection server processes (children of our sshd) once a temp file in
    /// `dir` holds data, simulating a connection lost mid-download. Returns whether it cut.
    pub fn cut_sessions_when_file_grows(&self, dir: PathBuf) -> std::thread::JoinHandle<bool> {
        let parent = self.child.id();
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(20);
            while Instant::now() < deadline {
                let growing = std::fs::read_dir(&dir)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .any(|e| {
                        e.file_name().to_string_lossy().starts_with(".log-bundle-")
                            && e.metadata().is_ok_and(|m| m.len() > 0)
                    });
                if growing {
                    for pid in children_of(parent) {
                        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
                    }
                    return true;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            false
        })
    }
}

/// Process ids whose parent is `parent`, from /proc.
fn children_of(parent: u32) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // Fields after the command name (which may contain spaces) start after the last ')'.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, r)| r)
            .unwrap_or("")
            .split_whitespace()
            .collect();
        if fields.get(1).and_then(|p| p.parse::<u32>().ok()) == Some(parent) {
            pids.push(pid);
        }
    }
    pids
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

/// An ssh-agent on a private socket, killed at the end of the test.
pub struct Agent {
    child: Child,
    pub socket: PathBuf,
}

impl Agent {
    pub fn start(dir: &Path) -> Agent {
        let socket = dir.join("agent.sock");
        let child = Command::new("ssh-agent")
            .arg("-D")
            .arg("-a")
            .arg(&socket)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start ssh-agent");
        let deadline = Instant::now() + Duration::from_secs(5);
        while !socket.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        Agent { child, socket }
    }

    pub fn add(&self, key: &Path) {
        run(Command::new("ssh-add")
            .env("SSH_AUTH_SOCK", &self.socket)
            .arg("-q")
            .arg(key));
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
