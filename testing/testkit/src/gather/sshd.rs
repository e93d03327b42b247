//! A throwaway OpenSSH server and agent, and helpers around `ssh-keygen`.
//!
//! [`Sshd::start`] runs the system's `/usr/sbin/sshd` on 127.0.0.1 with its own host key,
//! `authorized_keys` file, configuration and log in a temporary directory, on a free port,
//! logging in the user that runs the tests. Testing against the real server is the point:
//! host-key checks, key types, agent forwarding and SFTP behave as they do on a bootstrap
//! host. The server is killed when the [`Sshd`] value is dropped.
//!
//! Missing OpenSSH tools make the tests print a skip line locally, and fail them when the
//! environment says `CI=true`, so CI never passes by skipping.

use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const SSHD: &str = "/usr/sbin/sshd";

/// How often [`Sshd::start`] tries a new port before giving up: another process may take
/// the port between our probe and sshd's bind.
const START_ATTEMPTS: usize = 5;

/// Runs a command, panicking with its output when it fails; returns its stdout.
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

/// Generates a key pair at `path` and `path.pub` with `ssh-keygen -t kind`; `extra` adds
/// flags such as `-m PEM` or `-b 2048`. Returns `path`.
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

/// The `SHA256:...` fingerprint of a key file, as `ssh-keygen -l` prints it.
pub fn fingerprint(path: &Path) -> String {
    let out = run(Command::new("ssh-keygen").arg("-lf").arg(path));
    out.split_whitespace()
        .nth(1)
        .unwrap_or_else(|| panic!("no fingerprint in {out:?}"))
        .to_string()
}

/// A port on 127.0.0.1 that nothing listens on (bound, then released at once): for a server
/// to listen on, or for a test that needs a closed port.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("bind an ephemeral port")
        .port()
}

/// Whether sshd and ssh-keygen are installed ([`crate::require_tool`]: a skip line locally, a
/// failed test under `CI=true`).
pub fn available() -> bool {
    crate::require_tool(SSHD, "openssh-server")
        && crate::require_tool("ssh-keygen", "openssh-client")
}

/// A running sshd on 127.0.0.1; killed when dropped.
pub struct Sshd {
    child: Child,
    /// The port it listens on.
    pub port: u16,
    /// Its configuration, host key, `authorized_keys` and log; free for the test's own files.
    pub dir: tempfile::TempDir,
    /// The login user (the one running the tests).
    pub user: String,
    /// That user's home directory, where remote commands start.
    pub home: PathBuf,
}

impl Sshd {
    /// Starts a server, or returns None when OpenSSH is not installed (outside CI).
    pub fn start() -> Option<Sshd> {
        Self::start_with("")
    }

    /// Like [`Sshd::start`], with extra configuration lines that win over the defaults
    /// (sshd keeps the first value it reads for a keyword).
    pub fn start_with(extra: &str) -> Option<Sshd> {
        let user = run(Command::new("id").arg("-un")).trim().to_string();
        Self::start_as(&user, extra)
    }

    /// A server that logs in `user` (which must exist; another user than the one running the
    /// tests needs sshd to run as root), with extra configuration lines such as `SetEnv`.
    pub fn start_as(user: &str, extra: &str) -> Option<Sshd> {
        if !available() {
            return None;
        }
        let passwd = run(Command::new("getent").args(["passwd", user]));
        let home = PathBuf::from(passwd.trim().split(':').nth(5).expect("home in passwd"));
        // sshd refuses to start without its privilege separation directory.
        let _ = std::fs::create_dir_all("/run/sshd");
        for _ in 0..START_ATTEMPTS {
            let mut server = Self::spawn(extra, user, &home);
            if server.ready() {
                return Some(server);
            }
            eprintln!("sshd did not come up, retrying:\n{}", server.log());
        }
        panic!("sshd did not start after {START_ATTEMPTS} attempts");
    }

    /// Writes a fresh directory (host key, empty authorized_keys, config) and starts sshd.
    fn spawn(extra: &str, user: &str, home: &Path) -> Sshd {
        let dir = tempfile::tempdir().expect("sshd temp dir");
        keygen(&dir.path().join("host_key"), "ed25519", "", &[]);
        std::fs::write(dir.path().join("authorized_keys"), "").expect("write authorized_keys");
        // sshd reads authorized_keys as the login user, who may not be the one running us.
        for (path, mode) in [
            (dir.path().to_path_buf(), 0o711),
            (dir.path().join("authorized_keys"), 0o644),
        ] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
                .expect("open the sshd dir to the login user");
        }
        let port = free_port();
        let config = dir.path().join("sshd_config");
        let text = format!("{extra}{}", config_text(dir.path(), port));
        std::fs::write(&config, text).expect("write sshd_config");
        let log = std::fs::File::create(dir.path().join("sshd.log")).expect("create sshd.log");
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start sshd");
        Sshd {
            child,
            port,
            dir,
            user: user.to_string(),
            home: home.to_path_buf(),
        }
    }

    /// Waits until the port accepts connections; false when sshd exits or takes too long.
    fn ready(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return false;
            }
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// The server's log so far (LogLevel VERBOSE: it names the keys offered and accepted).
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

    /// Accepts logins with the key pair whose private half is `private` (its public half is
    /// `private.pub`, as ssh-keygen writes it).
    pub fn authorize(&self, private: &Path) {
        let public = std::fs::read_to_string(format!("{}.pub", private.display()))
            .expect("read the public key");
        self.authorize_line(&public);
    }

    /// The host key's `SHA256:...` fingerprint, which a client must report as accepted.
    pub fn host_fingerprint(&self) -> String {
        fingerprint(&self.dir.path().join("host_key.pub"))
    }

    /// A directory `name` inside the server's temp dir, created if needed.
    pub fn subdir(&self, name: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::create_dir_all(&path).expect("create a directory in the sshd dir");
        path
    }

    /// Simulates a connection lost mid-download: once a file in `dir` whose name starts with
    /// `prefix` holds data, kills the per-connection server processes (children of our
    /// sshd). The thread returns whether it cut within 20 s.
    pub fn cut_sessions_when_file_grows(&self, dir: PathBuf, prefix: &str) -> JoinHandle<bool> {
        let parent = self.child.id();
        let prefix = prefix.to_string();
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(20);
            while Instant::now() < deadline {
                if has_growing_file(&dir, &prefix) {
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

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `dir` has a non-empty file whose name starts with `prefix`.
fn has_growing_file(dir: &Path, prefix: &str) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            e.file_name().to_string_lossy().starts_with(prefix)
                && e.metadata().is_ok_and(|m| m.len() > 0)
        })
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
        // The fields after the command name (which may hold spaces) follow the last ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(parent) {
            pids.push(pid);
        }
    }
    pids
}

/// The server configuration: only our key files, public keys only, SFTP in-process, agent
/// forwarding allowed (the gather forwards the agent to reach the control-plane hosts).
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

/// An ssh-agent on a private socket, killed when dropped.
pub struct Agent {
    child: Child,
    /// The agent's socket, for `SSH_AUTH_SOCK`.
    pub socket: PathBuf,
}

impl Agent {
    /// Starts an agent listening on `dir/agent.sock` and waits for the socket.
    pub fn start(dir: &Path) -> Agent {
        let socket = dir.join("agent.sock");
        let child = Command::new("ssh-agent")
            .arg("-D")
            .arg("-a")
            .arg(&socket)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start ssh-agent");
        let deadline = Instant::now() + Duration::from_secs(5);
        while !socket.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        Agent { child, socket }
    }

    /// Loads the private key at `key` into the agent with ssh-add.
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
