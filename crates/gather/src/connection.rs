//! The SSH connection to the bootstrap host: its address, the handshake, and russh's
//! callbacks (host key, forwarded agent channels). Logging in and what runs over the
//! connection live in the modules that use it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use russh::Channel;
use russh::client::{self, Handle, Msg, Session};
use russh::keys::{HashAlg, PublicKeyOrCertificate};

use crate::agent::{ForwardTarget, serve_forwarded};
use crate::{GatherError, GatherEvent, GatherOptions};

/// The host key seen during the handshake.
#[derive(Debug, Clone)]
pub(crate) struct HostKey {
    algorithm: String,
    pub(crate) fingerprint: String,
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

/// Opens the SSH connection (TCP, then the handshake) and reports the host key.
pub(crate) async fn connect(
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
