//! A fault-injecting HTTPS front for the lab's registry: it listens on a port of the lab
//! address in the lab's network namespace, serves TLS with a certificate of the test's
//! choosing, and forwards every request to Debian's docker-registry
//! ([`crate::registry`]) unless a [`Rule`] for its path says otherwise: any status with any
//! headers and body, a dropped connection, a body cut short, an answer later than any
//! client waits, the registry's answer with its bytes damaged. Or it speaks no TLS at all.
//!
//! No registry or proxy does these on purpose; pullers meet them from broken storage,
//! overloaded registries, middleboxes and half-configured mirrors. The registry behind the
//! front is real, so every answer no rule touches is the registry's own.
//!
//! One thread per front, entered into the lab's namespace (a network namespace is a
//! thread's), runs the listener and the connections to the registry; it ends when dropped.

use std::net::SocketAddr;
use std::os::fd::AsRawFd as _;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::error::{Error, Result};
use crate::machine::LAB_ADDRESS;
use crate::registry::{PORT, Registry};
use crate::server::{ServerThread, accept_until};

/// What the front does with a request its rule matches.
#[derive(Debug, Clone)]
pub enum Action {
    /// Answers this itself: any status, headers and body.
    Answer {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// Closes the connection without answering.
    Drop,
    /// Forwards, then sends the head and only this many bytes of the body (the length the
    /// registry gave kept), and closes.
    Truncate(usize),
    /// Waits this long, then forwards.
    Delay(Duration),
    /// Forwards, with the body's bytes inverted from the middle on (same length).
    Corrupt,
    /// Forwards, with this header (name, value) in place of the registry's.
    Header(String, String),
}

/// Which requests an action takes: its method (any when `None`) and a piece of its path.
#[derive(Debug, Clone)]
pub struct Rule {
    /// `GET`, `HEAD`, ... or any.
    pub method: Option<String>,
    /// A substring of the request's path (`/blobs/sha256:...`, `/manifests/`, `/v2/`).
    pub path: String,
    /// What is done.
    pub action: Action,
}

impl Rule {
    /// `action` for every request whose path holds `path`.
    pub fn on(path: impl Into<String>, action: Action) -> Rule {
        Rule {
            method: None,
            path: path.into(),
            action,
        }
    }

    /// A registry's error answer: `status` with `{"errors":[{"code":CODE,...}]}`.
    pub fn registry_error(path: impl Into<String>, status: u16, code: &str) -> Rule {
        let body = serde_json::json!({"errors": [{
            "code": code,
            "message": format!("injected by the test's front: {code}"),
            "detail": null,
        }]});
        Rule::on(
            path,
            Action::Answer {
                status,
                headers: vec![("content-type".into(), "application/json".into())],
                body: body.to_string().into_bytes(),
            },
        )
    }

    fn matches<B>(&self, request: &Request<B>) -> bool {
        self.method
            .as_deref()
            .is_none_or(|m| m.eq_ignore_ascii_case(request.method().as_str()))
            && request
                .uri()
                .path_and_query()
                .is_some_and(|p| p.as_str().contains(&self.path))
    }
}

/// What the front serves on its port.
#[derive(Debug, Clone)]
pub enum Serving {
    /// TLS with this certificate and key (PEM files), then HTTP.
    Tls { cert: PathBuf, key: PathBuf },
    /// No TLS: an HTTP error answer to whatever the client sends first.
    PlainHttp,
    /// Accepts connections and never says a word.
    Silent,
}

/// A running front; stopped when dropped.
pub struct Front {
    /// Its port on the lab address.
    pub port: u16,
    rules: Arc<Mutex<Vec<Rule>>>,
    log: Arc<Mutex<Vec<String>>>,
    _server: ServerThread,
}

/// Where the front forwards to: the registry's address and the CA its certificate is from.
struct Upstream {
    address: SocketAddr,
    name: ServerName<'static>,
    tls: tokio_rustls::TlsConnector,
}

impl Front {
    /// Starts a front of `registry` on `port` of the lab address in the lab namespace
    /// `netns`, serving as `serving` says, with `rules` (the first that matches applies).
    pub fn start(
        netns: &str,
        registry: &Registry,
        port: u16,
        serving: Serving,
        rules: Vec<Rule>,
    ) -> Result<Front> {
        let acceptor = match &serving {
            Serving::Tls { cert, key } => Some(crate::token::tls_acceptor(cert, key)?),
            Serving::PlainHttp | Serving::Silent => None,
        };
        let silent = matches!(serving, Serving::Silent);
        let upstream = upstream(registry)?;
        let address: SocketAddr = format!("{LAB_ADDRESS}:{port}")
            .parse()
            .map_err(|e| answer("the lab address", e))?;
        let namespace = PathBuf::from("/run/netns").join(netns);
        let rules = Arc::new(Mutex::new(rules));
        let log = Arc::new(Mutex::new(Vec::new()));
        let (bound, is_bound) = std::sync::mpsc::channel();
        let shared = Shared {
            rules: rules.clone(),
            log: log.clone(),
            upstream: Arc::new(upstream),
        };
        let server = ServerThread::spawn(move |stopped| {
            let listener = enter(&namespace).and_then(|()| {
                let l = std::net::TcpListener::bind(address)?;
                l.set_nonblocking(true)?;
                Ok(l)
            });
            let listener = match listener {
                Ok(l) => {
                    let _ = bound.send(Ok(()));
                    l
                }
                Err(e) => {
                    let _ = bound.send(Err(e));
                    return;
                }
            };
            serve(listener, acceptor, silent, shared, stopped);
        });
        let ready = is_bound
            .recv()
            .unwrap_or_else(|_| Err(std::io::Error::other("the front's thread ended")));
        // On an error the thread has ended: dropping `server` only joins it.
        ready.map_err(Error::io(namespace_path(netns)))?;
        Ok(Front {
            port,
            rules,
            log,
            _server: server,
        })
    }

    /// Puts `rules` in place of the front's rules.
    pub fn set_rules(&self, rules: Vec<Rule>) {
        *lock(&self.rules) = rules;
    }

    /// One line per request: method, path, and what the front did.
    pub fn requests(&self) -> Vec<String> {
        lock(&self.log).clone()
    }
}

fn namespace_path(netns: &str) -> PathBuf {
    PathBuf::from("/run/netns").join(netns)
}

/// Enters the network namespace at `path` for the rest of this thread's life.
fn enter(path: &Path) -> std::io::Result<()> {
    let namespace = std::fs::File::open(path)?;
    // SAFETY: setns is given a descriptor this thread owns and changes only the namespace
    // of this thread, the front's own.
    if unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn answer(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Answer {
        what: what.to_string(),
        detail: e.to_string(),
    }
}

/// A TLS client of the registry trusting only its CA.
fn upstream(registry: &Registry) -> Result<Upstream> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(registry.ca_pem.as_bytes()).flatten() {
        roots
            .add(cert)
            .map_err(|e| answer("the registry's CA", e))?;
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| answer("the front's TLS client", e))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from(registry.spec.name.clone())
        .map_err(|e| answer("the registry's name", e))?;
    Ok(Upstream {
        address: format!("{LAB_ADDRESS}:{PORT}")
            .parse()
            .map_err(|e| answer("the registry's address", e))?,
        name,
        tls: tokio_rustls::TlsConnector::from(Arc::new(config)),
    })
}

#[derive(Clone)]
struct Shared {
    rules: Arc<Mutex<Vec<Rule>>>,
    log: Arc<Mutex<Vec<String>>>,
    upstream: Arc<Upstream>,
}

/// Accepts connections until told to stop; a silent front holds each open, unanswered.
fn serve(
    listener: std::net::TcpListener,
    acceptor: Option<tokio_rustls::TlsAcceptor>,
    silent: bool,
    shared: Shared,
    stopped: tokio::sync::oneshot::Receiver<()>,
) {
    let mut held = Vec::new();
    accept_until(listener, stopped, move |tcp| {
        if silent {
            held.push(tcp);
        } else {
            tokio::spawn(connection(tcp, acceptor.clone(), shared.clone()));
        }
    });
}

/// Plain HTTP's answer to a TLS client hello.
const PLAIN_ANSWER: &[u8] =
    b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n\
      Client sent an HTTP request to an HTTPS server.\n";

async fn connection(
    mut tcp: tokio::net::TcpStream,
    acceptor: Option<tokio_rustls::TlsAcceptor>,
    shared: Shared,
) {
    let Some(acceptor) = acceptor else {
        let mut first = [0u8; 512];
        let _ = tcp.read(&mut first).await;
        let _ = tcp.write_all(PLAIN_ANSWER).await;
        let _ = tcp.shutdown().await;
        return;
    };
    let Ok(stream) = acceptor.accept(tcp).await else {
        return;
    };
    let service = hyper::service::service_fn(move |request| {
        let shared = shared.clone();
        async move { handle(&shared, request).await }
    });
    let _ = hyper::server::conn::http1::Builder::new()
        .serve_connection(TokioIo::new(stream), service)
        .await;
}

/// The answer to one request, or an error that makes hyper close the connection unanswered.
async fn handle(
    shared: &Shared,
    request: Request<Incoming>,
) -> std::result::Result<Response<Chopped>, std::io::Error> {
    let action = lock(&shared.rules)
        .iter()
        .find(|r| r.matches(&request))
        .map(|r| r.action.clone());
    let said = format!(
        "{} {} {}",
        request.method(),
        request.uri().path(),
        action.as_ref().map_or_else(
            || "forwarded".to_string(),
            |a| format!("{a:?}").chars().take(60).collect()
        )
    );
    lock(&shared.log).push(said);
    match action {
        None => forward(&shared.upstream, request).await,
        Some(Action::Answer {
            status,
            headers,
            body,
        }) => {
            let mut response = Response::builder().status(status);
            for (k, v) in headers {
                response = response.header(k, v);
            }
            response
                .body(Chopped::whole(Bytes::from(body)))
                .map_err(std::io::Error::other)
        }
        Some(Action::Drop) => Err(std::io::Error::other("dropped by the front")),
        Some(Action::Delay(wait)) => {
            tokio::time::sleep(wait).await;
            forward(&shared.upstream, request).await
        }
        Some(Action::Truncate(keep)) => {
            let response = forward(&shared.upstream, request).await?;
            let (parts, body) = response.into_parts();
            let body = body.bytes;
            let kept = body.slice(..keep.min(body.len().saturating_sub(1)));
            Ok(Response::from_parts(
                parts,
                Chopped {
                    bytes: kept,
                    cut: true,
                },
            ))
        }
        Some(Action::Header(name, value)) => {
            let mut response = forward(&shared.upstream, request).await?;
            let name = hyper::header::HeaderName::try_from(name).map_err(std::io::Error::other)?;
            let value =
                hyper::header::HeaderValue::try_from(value).map_err(std::io::Error::other)?;
            response.headers_mut().insert(name, value);
            Ok(response)
        }
        Some(Action::Corrupt) => {
            let response = forward(&shared.upstream, request).await?;
            let (parts, body) = response.into_parts();
            let mut bytes = body.bytes.to_vec();
            let half = bytes.len() / 2;
            for b in &mut bytes[half..] {
                *b = !*b;
            }
            Ok(Response::from_parts(
                parts,
                Chopped::whole(Bytes::from(bytes)),
            ))
        }
    }
}

/// The request sent on to the registry over a new connection, its answer read whole.
async fn forward(
    upstream: &Upstream,
    request: Request<Incoming>,
) -> std::result::Result<Response<Chopped>, std::io::Error> {
    let (parts, body) = request.into_parts();
    let body = body
        .collect()
        .await
        .map_err(std::io::Error::other)?
        .to_bytes();
    let tcp = tokio::net::TcpStream::connect(upstream.address).await?;
    let tls = upstream.tls.connect(upstream.name.clone(), tcp).await?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .map_err(std::io::Error::other)?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let request = Request::from_parts(parts, Full::new(body));
    let response = sender
        .send_request(request)
        .await
        .map_err(std::io::Error::other)?;
    let (parts, body) = response.into_parts();
    let bytes = body
        .collect()
        .await
        .map_err(std::io::Error::other)?
        .to_bytes();
    Ok(Response::from_parts(parts, Chopped::whole(bytes)))
}

/// A body sent whole, or cut: its bytes, then an error, which makes hyper close the
/// connection with the promised length unsent.
struct Chopped {
    bytes: Bytes,
    cut: bool,
}

impl Chopped {
    fn whole(bytes: Bytes) -> Chopped {
        Chopped { bytes, cut: false }
    }
}

impl hyper::body::Body for Chopped {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<std::result::Result<Frame<Bytes>, std::io::Error>>> {
        if !self.bytes.is_empty() {
            let bytes = std::mem::take(&mut self.bytes);
            return Poll::Ready(Some(Ok(Frame::data(bytes))));
        }
        if self.cut {
            self.cut = false;
            return Poll::Ready(Some(Err(std::io::Error::other("cut short by the front"))));
        }
        Poll::Ready(None)
    }

    fn is_end_stream(&self) -> bool {
        self.bytes.is_empty() && !self.cut
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        match self.cut {
            true => hyper::body::SizeHint::default(),
            false => hyper::body::SizeHint::with_exact(self.bytes.len() as u64),
        }
    }
}
