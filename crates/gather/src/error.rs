//! Error types. Each message names the host, file or key involved and what to do about it.

use std::path::PathBuf;

/// Why gathering the bootstrap logs failed. Each message says what to check next.
#[derive(Debug, thiserror::Error)]
pub enum GatherError {
    /// An option is empty or malformed.
    #[error("invalid gather option {field}: {reason}")]
    InvalidOptions {
        /// The option's field name.
        field: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// A public key was given where a private key is needed.
    #[error("{given} is a public key; --key needs the private key{}", private_hint(.expected, *.expected_exists))]
    PublicKeyGiven {
        /// The file given.
        given: PathBuf,
        /// The private key file that usually sits next to it.
        expected: Option<PathBuf>,
        /// Whether that file exists.
        expected_exists: bool,
    },
    /// A `--key` file could not be read or parsed.
    #[error("cannot use SSH key {path}: {reason}")]
    KeyUnusable {
        /// The key file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// There is nothing to authenticate with.
    #[error("no usable SSH key: give one with --key, load one into ssh-agent (SSH_AUTH_SOCK), or put an unencrypted key in ~/.ssh{}", skipped_list(.skipped))]
    NoKeys {
        /// Keys that were found but skipped, with the reason.
        skipped: Vec<String>,
    },
    /// The TCP connection failed.
    #[error(
        "cannot connect to the bootstrap host {address}: {reason}; check that the host is up, that --bootstrap names it, and that port {port} is reachable (firewall, security group)"
    )]
    Connect {
        /// `host:port`.
        address: String,
        /// Port, repeated for the hint.
        port: u16,
        /// `connection refused`, `timed out after 30s`, ...
        reason: String,
    },
    /// The SSH handshake failed.
    #[error(
        "SSH handshake with {address} failed: {reason}; check that this port is the host's SSH server and that the host finished booting (sshd starts late on a first boot)"
    )]
    Handshake {
        /// `host:port`.
        address: String,
        /// Why.
        reason: String,
    },
    /// No method logged us in.
    #[error("{}", auth_failed(.user, .address, .tried, .server_methods, .skipped, *.closed_early))]
    AuthFailed {
        /// Remote user.
        user: String,
        /// `host:port`.
        address: String,
        /// Every method tried, with its outcome.
        tried: Vec<String>,
        /// Methods the server said it accepts.
        server_methods: Vec<String>,
        /// Keys skipped before trying (encrypted, unreadable).
        skipped: Vec<String>,
        /// The server closed the connection before every key was tried (MaxAuthTries).
        closed_early: bool,
    },
    /// An SSH operation after login failed (channel, exec, SFTP).
    #[error("SSH session with {address} failed while {doing}: {reason}")]
    Session {
        /// `host:port`.
        address: String,
        /// What we were doing.
        doing: String,
        /// Why.
        reason: String,
    },
    /// The remote gather command failed.
    #[error("the gather command on the bootstrap host {}; last output:\n{}", .status, indent(.last_lines))]
    RemoteFailed {
        /// `exited with status 3`, `was killed by signal TERM`, ...
        status: String,
        /// The last lines of its output.
        last_lines: Vec<String>,
    },
    /// The command finished but left no bundle.
    #[error(
        "the gather command finished but {remote} does not exist on the bootstrap host{}; its output above says why, or the script on the host is not the one expected", in_home(.remote, .user)
    )]
    BundleMissing {
        /// Remote path.
        remote: String,
        /// Remote user.
        user: String,
    },
    /// The command finished but the bundle it left is empty: the host could not write it
    /// (tar leaves an empty file on a full disk), and the gather script said nothing of it
    /// (one okd-install did not write, or an older one).
    #[error(
        "{remote} on the bootstrap host{} is empty: the gather command could not write its bundle there (a full disk leaves an empty file); its last output:\n{}", in_home(.remote, .user), indent(.last_lines)
    )]
    BundleEmpty {
        /// Remote path.
        remote: String,
        /// Remote user.
        user: String,
        /// The last lines of the gather command's output.
        last_lines: Vec<String>,
    },
    /// The download broke off.
    #[error("download of {remote} failed: {reason}{}", partial_note(.partial))]
    Download {
        /// Remote path.
        remote: String,
        /// Why.
        reason: String,
        /// Where the part already received was kept.
        partial: Option<PathBuf>,
    },
    /// A local file operation failed.
    #[error("cannot write {path}: {error}")]
    Io {
        /// The local path.
        path: PathBuf,
        /// The I/O error, part of the message rather than a source.
        error: std::io::Error,
    },
}

/// Where a remote path relative to the login directory is.
fn in_home(remote: &str, user: &str) -> String {
    if remote.starts_with('/') {
        String::new()
    } else {
        format!(" (in {user}'s home directory)")
    }
}

fn private_hint(expected: &Option<PathBuf>, exists: bool) -> String {
    match expected {
        Some(p) if exists => format!(" - pass --key {} instead", p.display()),
        Some(p) => format!(
            " such as {} (which does not exist here); pass the private half of this key pair",
            p.display()
        ),
        None => " file (the one without .pub)".to_string(),
    }
}

fn skipped_list(skipped: &[String]) -> String {
    if skipped.is_empty() {
        return String::new();
    }
    format!("; skipped:\n{}", indent(skipped))
}

fn indent(lines: &[String]) -> String {
    if lines.is_empty() {
        return "  (no output)".to_string();
    }
    lines
        .iter()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn partial_note(partial: &Option<PathBuf>) -> String {
    match partial {
        Some(p) => format!("; the part received is kept as {}", p.display()),
        None => String::new(),
    }
}

fn auth_failed(
    user: &str,
    address: &str,
    tried: &[String],
    server_methods: &[String],
    skipped: &[String],
    closed_early: bool,
) -> String {
    let mut text = format!("cannot log in to {user}@{address}: ");
    if tried.is_empty() {
        text.push_str("no key could be offered");
    } else {
        text.push_str("the server rejected every key offered");
    }
    if closed_early {
        text.push_str(" (the server closed the connection before all keys were tried: too many attempts; pass the right key first with --key)");
    }
    text.push_str(&format!(
        "\ntried:\n{}\nthe server accepts: {}",
        indent(tried),
        if server_methods.is_empty() {
            "(not told)".to_string()
        } else {
            server_methods.join(", ")
        }
    ));
    if !skipped.is_empty() {
        text.push_str(&format!("\nskipped:\n{}", indent(skipped)));
    }
    text.push_str(
        "\nthe host accepts the key from install-config.yaml (sshKey) and the generated bootstrap key: pass the matching private key with --key, or add it to ssh-agent",
    );
    text
}
