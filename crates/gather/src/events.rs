//! Progress events, so the binary decides what to print and at which log level.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

/// Which remote output stream a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RemoteStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Something that happened during [`gather_bootstrap`](crate::gather_bootstrap).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum GatherEvent {
    /// Opening the TCP connection.
    Connecting {
        /// `host:port`.
        address: String,
    },
    /// The host key, accepted without verification (a fresh bootstrap host is unknown).
    HostKey {
        /// Key algorithm, e.g. `ssh-ed25519`.
        algorithm: String,
        /// OpenSSH-style `SHA256:...` fingerprint.
        fingerprint: String,
    },
    /// A key that cannot be used, with the reason; one event per key.
    KeySkipped {
        /// File path or label.
        key: String,
        /// Why, and what to do.
        reason: String,
    },
    /// One authentication attempt and whether the server accepted it.
    AuthAttempt {
        /// What was offered, e.g. `key file ~/.ssh/id_ed25519 (ED25519 SHA256:...)`.
        method: String,
        /// Whether it logged us in.
        accepted: bool,
    },
    /// Agent forwarding state for the session.
    AgentForwarding {
        /// What the forwarded agent offers, or why forwarding is not available.
        detail: String,
    },
    /// The remote command is starting.
    Running {
        /// The command line as sent.
        command: String,
    },
    /// One line of remote output (the binary logs these at debug level).
    RemoteLine {
        /// stdout or stderr.
        stream: RemoteStream,
        /// The line without its newline.
        line: String,
    },
    /// The host could not write its bundle where it first tried (its login directory, on the
    /// disk) and wrote it elsewhere, a memory file system: a full disk, in the host's words.
    BundleElsewhere {
        /// Where the bundle is.
        remote: String,
        /// The gather script's line for each place it could not write to, the words of tar
        /// or gzip in it.
        unwritable: Vec<String>,
    },
    /// The bundle download is starting.
    Downloading {
        /// Remote path: where the gather script said it wrote the bundle, or the bundle's
        /// name in the login directory.
        remote: String,
        /// Size reported by the server.
        size: Option<u64>,
    },
    /// The half download a killed gather left in the bundle's directory was removed.
    RemovedLeftover {
        /// Local path of the removed file.
        path: PathBuf,
    },
    /// The bundle is in place.
    Downloaded {
        /// Local path.
        path: PathBuf,
        /// Bytes written.
        bytes: u64,
    },
}

impl fmt::Display for GatherEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GatherEvent::Connecting { address } => write!(f, "connecting to {address}"),
            GatherEvent::HostKey {
                algorithm,
                fingerprint,
            } => write!(
                f,
                "accepted host key {algorithm} {fingerprint} without verification (a new bootstrap host cannot be known in advance)"
            ),
            GatherEvent::KeySkipped { key, reason } => write!(f, "skipping {key}: {reason}"),
            GatherEvent::AuthAttempt { method, accepted } => {
                let verdict = if *accepted { "accepted" } else { "rejected" };
                write!(f, "{method}: {verdict}")
            }
            GatherEvent::AgentForwarding { detail } => write!(f, "agent forwarding: {detail}"),
            GatherEvent::Running { command } => write!(f, "running {command}"),
            GatherEvent::RemoteLine { stream, line } => {
                let tag = match stream {
                    RemoteStream::Stdout => "remote",
                    RemoteStream::Stderr => "remote stderr",
                };
                write!(f, "{tag}: {line}")
            }
            GatherEvent::BundleElsewhere { remote, unwritable } => write!(
                f,
                "the bootstrap host could not write its bundle to {}; it wrote it to {remote}",
                places(unwritable)
            ),
            GatherEvent::Downloading { remote, size } => match size {
                Some(size) => write!(f, "downloading {remote} ({size} bytes)"),
                None => write!(f, "downloading {remote}"),
            },
            GatherEvent::RemovedLeftover { path } => write!(
                f,
                "removed {}, the half download of an interrupted gather",
                path.display()
            ),
            GatherEvent::Downloaded { path, bytes } => {
                write!(f, "saved {} ({bytes} bytes)", path.display())
            }
        }
    }
}

/// The gather script's lines for the places it could not write the bundle to, one clause per
/// place with what tar and gzip said there: `P1 (w1; w2) nor to P2 (w3)`.
fn places(unwritable: &[String]) -> String {
    let mut grouped: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in unwritable {
        let rest = line
            .strip_prefix(contract::GATHER_BUNDLE_UNWRITABLE)
            .unwrap_or(line);
        let (place, words) = rest.split_once(": ").unwrap_or((rest, ""));
        match grouped.last_mut() {
            Some((last, said)) if *last == place => said.push(words),
            _ => grouped.push((place, vec![words])),
        }
    }
    grouped
        .iter()
        .map(|(place, said)| format!("{place} ({})", said.join("; ")))
        .collect::<Vec<_>>()
        .join(" nor to ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_written_elsewhere_says_where_and_why_once_per_place() {
        let line =
            |place: &str, words: &str| format!("Cannot write the bundle to {place}: {words}");
        let event = GatherEvent::BundleElsewhere {
            remote: "/dev/shm/log-bundle-1.tar.gz".into(),
            unwritable: vec![
                line(
                    "/home/core/log-bundle-1.tar.gz",
                    "gzip: stdout: No space left on device",
                ),
                line(
                    "/home/core/log-bundle-1.tar.gz",
                    "tar: Child returned status 1",
                ),
                line(
                    "/tmp/log-bundle-1.tar.gz",
                    "gzip: stdout: No space left on device",
                ),
            ],
        };
        assert_eq!(
            event.to_string(),
            "the bootstrap host could not write its bundle to /home/core/log-bundle-1.tar.gz \
             (gzip: stdout: No space left on device; tar: Child returned status 1) nor to \
             /tmp/log-bundle-1.tar.gz (gzip: stdout: No space left on device); it wrote it to \
             /dev/shm/log-bundle-1.tar.gz"
        );
    }
}
