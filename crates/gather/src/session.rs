//! The gather itself: connect, log in, run the gather script, download the bundle.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use russh::Channel;
use russh::client::{self, Handle, Msg, Session};
use russh::keys::{HashAlg, PublicKeyOrCertificate};
use serde::Serialize;

use crate::agent::{ForwardTarget, Keyring, serve_forwarded};
use crate::auth::{LocalAgent, authenticate};
use crate::remote::run_gather;
use crate::{GatherError, GatherEvent, GatherOptions, download, keys};

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
    let mut keys = keys::load_keys(opts, log)?;
    let mut agent = open_agent(opts, &mut keys.skipped, log).await;
    let agent_keys = agent.as_ref().map_or(0, |a| a.identities.len());
    if keys.all().next().is_none() && agent_keys == 0 {
        return Err(GatherError::NoKeys {
            skipped: keys.skipped.clone(),
        });
    }
    let forward = match opts.forward_agent {
        true => Some(forward_target(opts, &keys, agent.is_some(), log).await),
        false => None,
    };
    let forward_detail = format!(
        "the bootstrap host may use {} key(s) loaded here and {agent_keys} key(s) from ssh-agent \
         to reach the masters while the gather runs",
        keys.all().count()
    );
    let forward_detail = forward.is_some().then_some(forward_detail);
    let (mut handle, host_key) = connect(opts, forward, log).await?;
    let auth_method = authenticate(&mut handle, opts, &keys, agent.as_mut(), log).await?;
    let lines = run_gather(&handle, opts, forward_detail.as_deref(), log).await?;
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

/// Where forwarded agent requests go: an in-process agent with the loaded keys, plus the
/// user's ssh-agent when it answered.
async fn forward_target(
    opts: &GatherOptions,
    keys: &keys::KeySet,
    agent_answered: bool,
    log: &mut dyn FnMut(GatherEvent),
) -> ForwardTarget {
    let all: Vec<&keys::Candidate> = keys.all().collect();
    let keyring = match Keyring::start(&all).await {
        Ok(ring) if !all.is_empty() => Some(Arc::new(ring)),
        Ok(_) => None,
        Err(reason) => {
            log(GatherEvent::AgentForwarding { detail: reason });
            None
        }
    };
    ForwardTarget {
        keyring,
        agent_socket: opts.agent_socket.clone().filter(|_| agent_answered),
    }
}

/// Connects to the user's ssh-agent; an unreachable or empty agent is noted in `skipped`.
async fn open_agent(
    opts: &GatherOptions,
    skipped: &mut Vec<String>,
    log: &mut dyn FnMut(GatherEvent),
) -> Option<LocalAgent> {
    let socket = opts.agent_socket.as_ref()?;
    let key = format!("ssh-agent ({})", socket.display());
    let (agent, problem) = match crate::agent::local_identities(socket).await {
        Ok((_, identities)) if identities.is_empty() => (
            None,
            Some("it holds no keys (ssh-add <key> adds one)".to_string()),
        ),
        Ok((client, identities)) => (Some(LocalAgent { client, identities }), None),
        Err(reason) => (None, Some(reason)),
    };
    if let Some(reason) = problem {
        skipped.push(format!("{key}: {reason}"));
        log(GatherEvent::KeySkipped { key, reason });
    }
    agent
}

async fn connect(
    opts: &GatherOptions,
    forward: Option<ForwardTarget>,
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
    .map_err(|_| connect_error(format!("no answer within {}s", limit.as_secs_f32())))?
    .map_err(|e| connect_error(describe_connect_error(&e)))?;
    let host_key = Arc::new(Mutex::new(None));
    let client = Client {
        host_key: Arc::clone(&host_key),
        forward,
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
        .map_err(|_| handshake_error(format!("no SSH greeting within {}s", limit.as_secs_f32())))?
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_addresses_get_brackets() {
        let mut opts = GatherOptions::new("fd00::5", "/tmp", "1");
        assert_eq!(address(&opts), "[fd00::5]:22");
        opts.bootstrap = "10.0.0.5".into();
        assert_eq!(address(&opts), "10.0.0.5:22");
    }
}
