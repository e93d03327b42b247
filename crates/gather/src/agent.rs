//! SSH agents: the user's ssh-agent, an in-process keyring, and the forwarding proxy.
//!
//! The bootstrap host's gather script logs in to every master with the forwarded agent. The
//! masters accept the user's key (install-config `sshKey`), which may live in ssh-agent, in a
//! `--key` file or in `~/.ssh`. So forwarded requests are answered by a small proxy that merges
//! both sources: identities from the local ssh-agent and from an in-process agent holding
//! every key this run loaded; a signature request goes to whichever holds the key.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use russh::keys::PublicKey;
use russh::keys::agent::client::AgentClient;
use russh::keys::agent::server;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::net::UnixStream;
use tokio::sync::mpsc;

use crate::keys::Candidate;

/// Agent protocol message numbers (draft-miller-ssh-agent).
const FAILURE: u8 = 5;
const REQUEST_IDENTITIES: u8 = 11;
const IDENTITIES_ANSWER: u8 = 12;
const SIGN_REQUEST: u8 = 13;
/// Largest frame accepted, as OpenSSH's agent does.
const MAX_FRAME: usize = 256 * 1024;

/// Connects to the user's ssh-agent and lists its plain-key identities.
pub(crate) async fn local_identities(
    socket: &Path,
) -> Result<(AgentClient<UnixStream>, Vec<(PublicKey, String)>), String> {
    let mut client = AgentClient::connect_uds(socket)
        .await
        .map_err(|e| format!("cannot connect to ssh-agent at {}: {e}", socket.display()))?;
    let identities = client.request_identities().await.map_err(|e| {
        format!(
            "ssh-agent at {} did not list its keys: {e}",
            socket.display()
        )
    })?;
    let keys = identities
        .into_iter()
        .filter_map(|id| match id {
            russh::keys::agent::AgentIdentity::PublicKey { key, comment } => Some((key, comment)),
            russh::keys::agent::AgentIdentity::Certificate { .. } => None,
        })
        .collect();
    Ok((client, keys))
}

/// An agent running inside this process, holding the keys this run loaded.
pub(crate) struct Keyring {
    connections: mpsc::UnboundedSender<io::Result<DuplexStream>>,
}

impl Keyring {
    /// Starts the agent and adds `keys`. It stops when the keyring is dropped.
    pub(crate) async fn start(keys: &[&Candidate]) -> Result<Self, String> {
        let (connections, receiver) = mpsc::unbounded_channel();
        let listener = Box::pin(futures::stream::unfold(receiver, |mut rx| async move {
            rx.recv().await.map(|stream| (stream, rx))
        }));
        tokio::spawn(server::serve(listener, ()));
        let ring = Keyring { connections };
        let stream = ring.connect().map_err(|e| e.to_string())?;
        let mut client = AgentClient::connect(stream);
        for key in keys {
            client
                .add_identity(&key.key, &[])
                .await
                .map_err(|e| format!("cannot hold {} for forwarding: {e}", key.label))?;
        }
        Ok(ring)
    }

    fn connect(&self) -> io::Result<DuplexStream> {
        let (ours, theirs) = tokio::io::duplex(MAX_FRAME);
        self.connections
            .send(Ok(theirs))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "in-process agent stopped"))?;
        Ok(ours)
    }
}

/// Where forwarded agent requests are answered.
#[derive(Clone)]
pub(crate) struct ForwardTarget {
    /// The in-process keyring, when this run loaded keys.
    pub keyring: Option<Arc<Keyring>>,
    /// The user's ssh-agent socket, when it answered.
    pub agent_socket: Option<PathBuf>,
}

trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

/// One forwarded connection's view of the backends, connected on first use.
struct Backends {
    target: ForwardTarget,
    open: Vec<Option<Box<dyn Stream>>>,
    owner: HashMap<Vec<u8>, usize>,
}

impl Backends {
    fn new(target: ForwardTarget) -> Self {
        Backends {
            target,
            open: vec![None, None],
            owner: HashMap::new(),
        }
    }

    async fn stream(&mut self, index: usize) -> Option<&mut Box<dyn Stream>> {
        if self.open[index].is_none() {
            let stream: Option<Box<dyn Stream>> = match index {
                0 => match &self.target.keyring {
                    Some(ring) => ring.connect().ok().map(|s| Box::new(s) as Box<dyn Stream>),
                    None => None,
                },
                _ => match &self.target.agent_socket {
                    Some(path) => UnixStream::connect(path)
                        .await
                        .ok()
                        .map(|s| Box::new(s) as Box<dyn Stream>),
                    None => None,
                },
            };
            self.open[index] = stream;
        }
        self.open[index].as_mut()
    }

    /// Sends one request to a backend and reads its reply; a broken backend is dropped.
    async fn ask(&mut self, index: usize, request: &[u8]) -> Option<Vec<u8>> {
        let stream = self.stream(index).await?;
        let reply = async {
            write_frame(stream, request).await?;
            read_frame(stream).await
        }
        .await;
        if reply.is_err() {
            self.open[index] = None;
        }
        reply.ok()
    }

    /// The identities of both backends, without duplicates, remembering who owns which.
    async fn identities(&mut self) -> Vec<u8> {
        let mut entries: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        self.owner.clear();
        for index in 0..self.open.len() {
            let Some(reply) = self.ask(index, &[REQUEST_IDENTITIES]).await else {
                continue;
            };
            for (blob, comment) in parse_identities(&reply).unwrap_or_default() {
                if !self.owner.contains_key(&blob) {
                    self.owner.insert(blob.clone(), index);
                    entries.push((blob, comment));
                }
            }
        }
        let mut answer = vec![IDENTITIES_ANSWER];
        answer.extend_from_slice(&(entries.len() as u32).to_be_bytes());
        for (blob, comment) in entries {
            put_string(&mut answer, &blob);
            put_string(&mut answer, &comment);
        }
        answer
    }

    /// Passes a sign request to the backend that holds the key.
    async fn sign(&mut self, request: &[u8]) -> Vec<u8> {
        let Some((blob, _)) = take_string(&request[1..]) else {
            return vec![FAILURE];
        };
        if !self.owner.contains_key(blob) {
            self.identities().await;
        }
        match self.owner.get(blob).copied() {
            Some(index) => self.ask(index, request).await.unwrap_or(vec![FAILURE]),
            None => vec![FAILURE],
        }
    }
}

/// Answers agent requests arriving on one forwarded channel until the remote side closes it.
pub(crate) async fn serve_forwarded<S>(mut channel: S, target: ForwardTarget) -> io::Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut backends = Backends::new(target);
    loop {
        let request = match read_frame(&mut channel).await {
            Ok(request) => request,
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        };
        let reply = match request.first() {
            Some(&REQUEST_IDENTITIES) => backends.identities().await,
            Some(&SIGN_REQUEST) => backends.sign(&request).await,
            // Locking, adding keys and extensions are not offered to the remote host.
            _ => vec![FAILURE],
        };
        write_frame(&mut channel, &reply).await?;
    }
}

async fn read_frame<S: AsyncRead + Unpin + ?Sized>(stream: &mut S) -> io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    stream.read_exact(&mut len).await?;
    let len = u32::from_be_bytes(len) as usize;
    if len == 0 || len > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "bad agent frame length",
        ));
    }
    let mut frame = vec![0u8; len];
    stream.read_exact(&mut frame).await?;
    Ok(frame)
}

async fn write_frame<S: AsyncWrite + Unpin + ?Sized>(
    stream: &mut S,
    frame: &[u8],
) -> io::Result<()> {
    stream
        .write_all(&(frame.len() as u32).to_be_bytes())
        .await?;
    stream.write_all(frame).await?;
    stream.flush().await
}

fn put_string(out: &mut Vec<u8>, data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(data);
}

/// Splits an SSH `string` off the front of `data`.
fn take_string(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let len = u32::from_be_bytes(data.get(..4)?.try_into().ok()?) as usize;
    let rest = &data[4..];
    (rest.len() >= len).then(|| rest.split_at(len))
}

/// Parses an identities answer into (key blob, comment) pairs.
fn parse_identities(reply: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    if reply.first() != Some(&IDENTITIES_ANSWER) {
        return None;
    }
    let count = u32::from_be_bytes(reply.get(1..5)?.try_into().ok()?) as usize;
    let mut rest = &reply[5..];
    let mut out = Vec::with_capacity(count.min(1024));
    for _ in 0..count {
        let (blob, after_blob) = take_string(rest)?;
        let (comment, after_comment) = take_string(after_blob)?;
        out.push((blob.to_vec(), comment.to_vec()));
        rest = after_comment;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_answer_round_trips() {
        let mut answer = vec![IDENTITIES_ANSWER, 0, 0, 0, 2];
        put_string(&mut answer, b"blob-a");
        put_string(&mut answer, b"first");
        put_string(&mut answer, b"blob-b");
        put_string(&mut answer, b"");
        let parsed = parse_identities(&answer).unwrap();
        assert_eq!(parsed[0], (b"blob-a".to_vec(), b"first".to_vec()));
        assert_eq!(parsed[1].0, b"blob-b".to_vec());
        assert!(parse_identities(&answer[..answer.len() - 1]).is_none());
        assert!(parse_identities(&[FAILURE]).is_none());
    }
}
