//! The gather itself: connect, log in, run the gather script, download the bundle.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use russh::client::{self, Handle, Msg, Session};
use russh::keys::{HashAlg, PublicKeyOrCertificate};
use russh::{Channel, ChannelMsg};
use serde::Serialize;

use crate::agent::{ForwardTarget, Keyring, serve_forwarded};
use crate::auth::{LocalAgent, authenticate};
use crate::events::RemoteStream;
use crate::{GatherError, GatherEvent, GatherOptions, download, keys};

/// How many trailing output lines a remote failure reports.
const LAST_LINES: usize = 20;

/// The result of a successful gather.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GatherOutcome {
    /// Where the bundle was saved.
    pub bundle_path: PathBuf,
    /// The bootstrap host's key, `SHA256:...`, accepted without verification.
    pub host_key_fingerprint: String,
    /// Which key or agent identity logged us in.
    pub auth_method: String,
}

/// The host key seen during the handshake.
#[derive(Debug, Clone)]
struct HostKey {
    algorithm: String,
    fingerprint: String,
}

/// russh's callbacks: accepts (and records) the host key, serves forwarded agent channels.
pub(crate) struct Client {
    host_key: Arc<Mutex<Option<HostKey>>>,
    forward: Option<ForwardTarget>,
}

impl client::Handler for Client {
    type Error = russh::Error;

    async fn check_server_key(
        &mut self,
        key: &PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        let public = key.public_key();
        let seen = HostKey {
            algorithm: public.algorithm().as_str().to_string(),
            fingerprint: public.fingerprint(HashAlg::Sha256).to_string(),
        };
        if let Ok(mut slot) = self.host_key.lock() {
            *slot = Some(seen);
        }
        // A freshly created bootstrap host cannot be in known_hosts; the fingerprint is
        // reported to the user instead.
        Ok(true)
    }

    async fn server_channel_open_agent_forward(
        &mut self,
        channel: Channel<Msg>,
        reply: client::ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        match &self.forward {
            Some(target) => {
                reply.accept().await;
                let target = target.clone();
                tokio::spawn(async move {
                    if let Err(e) = serve_forwarded(channel.into_stream(), target).await {
                        tracing::debug!("forwarded agent connection ended: {e}");
                    }
                });
            }
            None => {
                reply
                    .reject(russh::ChannelOpenFailure::AdministrativelyProhibited)
                    .await
            }
        }
        Ok(())
    }
}

/// `host:port`, with brackets around an IPv6 address.
pub(crate) fn address(opts: &GatherOptions) -> String {
    if opts.bootstrap.contains(':') && !opts.bootstrap.starts_with('[') {
        format!("[{}]:{}", opts.bootstrap, opts.port)
    } else {
        format!("{}:{}", opts.bootstrap, opts.port)
    }
}

/// Collects the bootstrap host's log bundle into `opts.out_dir`.
///
/// Progress goes to `log`: the binary prints key skips, the host key and the result, and
/// logs remote output at debug level. The bundle is written atomically; a download that
/// breaks off leaves `<bundle>.partial` behind and says so.
pub async fn gather_bootstrap(
    opts: &GatherOptions,
    log: &mut dyn FnMut(GatherEvent),
) -> Result<GatherOutcome, GatherError> {
    opts.validate()?;
    let keys = keys::load_keys(opts, log)?;
    let mut agent = open_agent(opts, log).await;
    let agent_keys = agent.as_ref().map_or(0, |a| a.identities.len());
    if keys.all().next().is_none() && agent_keys == 0 {
        return Err(GatherError::NoKeys {
            skipped: keys.skipped.clone(),
        });
    }
    let all: Vec<&keys::Candidate> = keys.all().collect();
    let keyring = match Keyring::start(&all).await {
        Ok(ring) if !all.is_empty() => Some(Arc::new(ring)),
        Ok(_) => None,
        Err(reason) => {
            log(GatherEvent::AgentForwarding { detail: reason });
            None
        }
    };
    let forward = ForwardTarget {
        keyring,
        agent_socket: agent.as_ref().and(opts.agent_socket.clone()),
    };
    let forward_detail = format!(
        "the bootstrap host may use {} key(s) loaded here and {agent_keys} key(s) from ssh-agent to reach the masters",
        all.len()
    );
    let (mut handle, host_key) = connect(opts, forward, log).await?;
    let auth_method = authenticate(&mut handle, opts, &keys, agent.as_mut(), log).await?;
    let lines = run_gather(&handle, opts, &forward_detail, log).await?;
    let bundle_path = download::fetch_bundle(&handle, opts, &lines, log).await?;
    let _ = handle
        .disconnect(russh::Disconnect::ByApplication, "gather finished", "en")
        .await;
    Ok(GatherOutcome {
        bundle_path,
        host_key_fingerprint: host_key.fingerprint,
        auth_method,
    })
}

async fn open_agent(opts: &GatherOptions, log: &mut dyn FnMut(GatherEvent)) -> Option<LocalAgent> {
    let socket = opts.agent_socket.as_ref()?;
    match crate::agent::local_identities(socket).await {
        Ok((client, identities)) => Some(LocalAgent { client, identities }),
        Err(reason) => {
            log(GatherEvent::KeySkipped {
                key: format!("ssh-agent ({})", socket.display()),
                reason,
            });
            None
        }
    }
}

async fn connect(
    opts: &GatherOptions,
    forward: ForwardTarget,
    log: &mut dyn FnMut(GatherEvent),
) -> Result<(Handle<Client>, HostKey), GatherError> {
    let address = address(opts);
    log(GatherEvent::Connecting {
        address: address.clone(),
    });
    let connect_error = |reason: String| GatherError::Connect {
        address: address.clone(),
        port: opts.port,
        reason,
    };
    let limit = opts.connect_timeout;
    let socket = tokio::time::timeout(
        limit,
        tokio::net::TcpStream::connect((opts.bootstrap.as_str(), opts.port)),
    )
    .await
    .map_err(|_| connect_error(format!("no answer within {}s", limit.as_secs())))?
    .map_err(|e| connect_error(describe_connect_error(&e)))?;
    let host_key = Arc::new(Mutex::new(None));
    let client = Client {
        host_key: Arc::clone(&host_key),
        forward: Some(forward),
    };
    let config = Arc::new(client::Config {
        inactivity_timeout: None,
        keepalive_interval: Some(Duration::from_secs(30)),
        keepalive_max: 4,
        ..Default::default()
    });
    let handshake_error = |reason: String| GatherError::Handshake {
        address: address.clone(),
        reason,
    };
    let handle = tokio::time::timeout(limit, client::connect_stream(config, socket, client))
        .await
        .map_err(|_| {
            handshake_error(format!(
                "no SSH greeting within {}s (is it an SSH server?)",
                limit.as_secs()
            ))
        })?
        .map_err(|e| handshake_error(e.to_string()))?;
    let seen = host_key
        .lock()
        .ok()
        .and_then(|k| k.clone())
        .ok_or_else(|| handshake_error("the server sent no host key".into()))?;
    log(GatherEvent::HostKey {
        algorithm: seen.algorithm.clone(),
        fingerprint: seen.fingerprint.clone(),
    });
    Ok((handle, seen))
}

fn describe_connect_error(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::ConnectionRefused => {
            "connection refused (nothing listens there yet: the host may still be booting, or sshd is not running)".to_string()
        }
        std::io::ErrorKind::TimedOut => "connection timed out".to_string(),
        _ => e.to_string(),
    }
}

/// Quotes one argument for a POSIX shell, leaving plain words alone.
pub(crate) fn shell_quote(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:=@,+%".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// The remote command line: the configured command followed by quoted arguments.
pub(crate) fn command_line(opts: &GatherOptions) -> String {
    let mut line = format!(
        "{} --id {}",
        opts.remote_command.trim(),
        shell_quote(&opts.gather_id)
    );
    for master in &opts.masters {
        line.push(' ');
        line.push_str(&shell_quote(master));
    }
    line
}

/// Splits a byte stream into lines and remembers the last few.
struct Lines {
    partial: [Vec<u8>; 2],
    last: VecDeque<String>,
}

impl Lines {
    fn push(&mut self, stream: RemoteStream, data: &[u8], log: &mut dyn FnMut(GatherEvent)) {
        let index = stream as usize;
        self.partial[index].extend_from_slice(data);
        while let Some(pos) = self.partial[index].iter().position(|b| *b == b'\n') {
            let rest = self.partial[index].split_off(pos + 1);
            let line = std::mem::replace(&mut self.partial[index], rest);
            self.emit(stream, &line, log);
        }
    }

    fn flush(&mut self, log: &mut dyn FnMut(GatherEvent)) {
        for stream in [RemoteStream::Stdout, RemoteStream::Stderr] {
            let line = std::mem::take(&mut self.partial[stream as usize]);
            if !line.is_empty() {
                self.emit(stream, &line, log);
            }
        }
    }

    fn emit(&mut self, stream: RemoteStream, raw: &[u8], log: &mut dyn FnMut(GatherEvent)) {
        let line = String::from_utf8_lossy(raw)
            .trim_end_matches(['\n', '\r'])
            .to_string();
        if self.last.len() == LAST_LINES {
            self.last.pop_front();
        }
        self.last.push_back(line.clone());
        log(GatherEvent::RemoteLine { stream, line });
    }
}

/// Runs the gather script with agent forwarding and returns its last output lines.
async fn run_gather(
    handle: &Handle<Client>,
    opts: &GatherOptions,
    forward_detail: &str,
    log: &mut dyn FnMut(GatherEvent),
) -> Result<Vec<String>, GatherError> {
    let session_error = |doing: &str, reason: String| GatherError::Session {
        address: address(opts),
        doing: doing.to_string(),
        reason,
    };
    let mut channel = handle
        .channel_open_session()
        .await
        .map_err(|e| session_error("opening a session", e.to_string()))?;
    channel
        .agent_forward(true)
        .await
        .map_err(|e| session_error("requesting agent forwarding", e.to_string()))?;
    let command = command_line(opts);
    log(GatherEvent::Running {
        command: command.clone(),
    });
    channel
        .exec(true, command.as_bytes())
        .await
        .map_err(|e| session_error("starting the gather command", e.to_string()))?;
    let mut lines = Lines {
        partial: [Vec::new(), Vec::new()],
        last: VecDeque::new(),
    };
    // Replies to our two requests arrive in order: agent forwarding, then exec.
    let mut pending = VecDeque::from(["agent", "exec"]);
    let mut status: Option<String> = None;
    let mut exit_code: Option<u32> = None;
    while let Some(msg) = channel.wait().await {
        match msg {
            ChannelMsg::Success | ChannelMsg::Failure => {
                let ok = matches!(msg, ChannelMsg::Success);
                match pending.pop_front() {
                    Some("agent") => log(GatherEvent::AgentForwarding {
                        detail: if ok {
                            forward_detail.to_string()
                        } else {
                            "refused by the bootstrap host (AllowAgentForwarding no?); it cannot log in to the masters with our keys, so their logs will be missing".to_string()
                        },
                    }),
                    Some(_) if !ok => status = Some("was refused by the SSH server".to_string()),
                    _ => {}
                }
            }
            ChannelMsg::Data { data } => lines.push(RemoteStream::Stdout, &data, log),
            ChannelMsg::ExtendedData { data, ext: 1 } => {
                lines.push(RemoteStream::Stderr, &data, log)
            }
            ChannelMsg::ExitStatus { exit_status } => exit_code = Some(exit_status),
            ChannelMsg::ExitSignal {
                signal_name,
                error_message,
                ..
            } => {
                status = Some(
                    format!("was killed by signal {signal_name:?} {error_message}")
                        .trim_end()
                        .to_string(),
                );
            }
            _ => {}
        }
    }
    lines.flush(log);
    let last: Vec<String> = lines.last.into_iter().collect();
    let status = match (status, exit_code) {
        (Some(status), _) => Some(status),
        (None, Some(0)) => None,
        (None, Some(code)) => Some(format!("exited with status {code}")),
        (None, None) => {
            Some("ended without reporting an exit status (connection lost?)".to_string())
        }
    };
    match status {
        Some(status) => Err(GatherError::RemoteFailed {
            status,
            last_lines: last,
        }),
        None => Ok(last),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_quoted_only_when_needed() {
        assert_eq!(shell_quote("10.0.0.5"), "10.0.0.5");
        assert_eq!(shell_quote("master-0.example.com"), "master-0.example.com");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("x'; rm -rf /"), r"'x'\''; rm -rf /'");
        let mut opts = GatherOptions::new("h", "/tmp", "20260101000000");
        opts.masters = vec!["10.0.0.5".into(), "$(id)".into()];
        assert_eq!(
            command_line(&opts),
            "/usr/local/bin/installer-gather.sh --id 20260101000000 10.0.0.5 '$(id)'"
        );
    }

    #[test]
    fn ipv6_addresses_get_brackets() {
        let mut opts = GatherOptions::new("fd00::5", "/tmp", "1");
        assert_eq!(address(&opts), "[fd00::5]:22");
        opts.bootstrap = "10.0.0.5".into();
        assert_eq!(address(&opts), "10.0.0.5:22");
    }
}
