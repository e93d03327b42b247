//! What to gather from where, and the gather id that names the bundle.

use std::path::PathBuf;
use std::time::Duration;

use time::OffsetDateTime;
use time::macros::format_description;

use crate::GatherError;

/// The gather script upstream bootstrap images install; ours installs it at the same path.
pub const DEFAULT_REMOTE_COMMAND: &str = contract::GATHER_SCRIPT;

/// Everything [`gather_bootstrap`](crate::gather_bootstrap) needs. Plain data: the binary
/// fills it from flags, the state file and the environment.
#[derive(Debug, Clone)]
pub struct GatherOptions {
    /// Host name or address of the bootstrap host.
    pub bootstrap: String,
    /// Control-plane hosts; the gather script on the bootstrap host collects from each.
    pub masters: Vec<String>,
    /// SSH port (22).
    pub port: u16,
    /// Remote user (`core` on CoreOS hosts).
    pub user: String,
    /// Private key files given with `--key`, tried first.
    pub keys: Vec<PathBuf>,
    /// Keys held in memory, as (label, private key PEM): the generated bootstrap key read
    /// from the state file. Tried after `keys`; never written to disk.
    pub extra_keys: Vec<(String, String)>,
    /// The local ssh-agent socket (`SSH_AUTH_SOCK`), when set: its identities are tried after
    /// the keys above, and forwarded agent requests reach it.
    pub agent_socket: Option<PathBuf>,
    /// Forward an agent to the session so the bootstrap host's gather script can log in to
    /// the masters (default true, as upstream). The forwarded agent answers with the keys
    /// loaded here and the local ssh-agent's keys, and only while the gather runs; the host
    /// key is not verified, so turn this off when the network path is not trusted.
    pub forward_agent: bool,
    /// Directory scanned for more private keys, usually `~/.ssh`; tried last.
    pub home_ssh_dir: Option<PathBuf>,
    /// Command run on the bootstrap host; `--id <ID>` and the masters are appended.
    pub remote_command: String,
    /// Where the bundle is written.
    pub out_dir: PathBuf,
    /// Names the bundle (`log-bundle-<ID>.tar.gz`); see [`gather_id_now`].
    pub gather_id: String,
    /// Limit for the TCP connection plus the SSH handshake.
    pub connect_timeout: Duration,
}

impl GatherOptions {
    /// Options with the upstream defaults (port 22, user `core`, the installed gather script,
    /// 30 s connect timeout) and no keys.
    pub fn new(
        bootstrap: impl Into<String>,
        out_dir: impl Into<PathBuf>,
        gather_id: impl Into<String>,
    ) -> Self {
        GatherOptions {
            bootstrap: bootstrap.into(),
            masters: Vec::new(),
            port: 22,
            user: "core".to_string(),
            keys: Vec::new(),
            extra_keys: Vec::new(),
            agent_socket: None,
            forward_agent: true,
            home_ssh_dir: None,
            remote_command: DEFAULT_REMOTE_COMMAND.to_string(),
            out_dir: out_dir.into(),
            gather_id: gather_id.into(),
            connect_timeout: Duration::from_secs(30),
        }
    }

    /// The bundle's file name, the same on the remote host and locally.
    pub fn bundle_name(&self) -> String {
        format!("log-bundle-{}.tar.gz", self.gather_id)
    }

    /// Rejects options that would fail later in a confusing way (an empty id makes the
    /// download look for `log-bundle-.tar.gz`).
    pub(crate) fn validate(&self) -> Result<(), GatherError> {
        let invalid = |field: &str, reason: String| {
            Err(GatherError::InvalidOptions {
                field: field.to_string(),
                reason,
            })
        };
        if self.bootstrap.trim().is_empty() {
            return invalid(
                "bootstrap",
                "the bootstrap host address is empty; pass --bootstrap <host>".into(),
            );
        }
        if self.gather_id.is_empty()
            || !self
                .gather_id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
        {
            return invalid(
                "gather_id",
                format!(
                    "{:?} cannot name a bundle: use letters, digits, '-', '_' or '.' (the default is the local time, YYYYMMDDhhmmss)",
                    self.gather_id
                ),
            );
        }
        if self.user.is_empty() {
            return invalid(
                "user",
                "the SSH user is empty (CoreOS hosts use \"core\")".into(),
            );
        }
        if self.remote_command.trim().is_empty() {
            return invalid(
                "remote_command",
                "the remote gather command is empty".into(),
            );
        }
        Ok(())
    }
}

/// The gather id for `local_time`: `YYYYMMDDhhmmss`, never empty.
///
/// The clock is a parameter so that callers in deterministic mode can pass a fixed time.
pub fn gather_id_now(local_time: OffsetDateTime) -> String {
    let format = format_description!("[year][month][day][hour][minute][second]");
    local_time.format(&format).unwrap_or_else(|_| {
        // Only years outside 0..=9999 fail to format; fall back to the Unix time.
        local_time.unix_timestamp().to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn gather_id_is_the_local_time_in_fourteen_digits() {
        assert_eq!(
            gather_id_now(datetime!(2026-11-21 09:05:07 +01:00)),
            "20261121090507"
        );
    }

    #[test]
    fn empty_or_unsafe_ids_are_rejected() {
        let mut o = GatherOptions::new("h", "/tmp", "");
        assert!(o.validate().unwrap_err().to_string().contains("gather_id"));
        o.gather_id = "a/b".into();
        assert!(o.validate().is_err());
        o.gather_id = "20261121090507".into();
        assert!(o.validate().is_ok());
        o.bootstrap = " ".into();
        assert!(
            o.validate()
                .unwrap_err()
                .to_string()
                .contains("--bootstrap")
        );
    }
}
