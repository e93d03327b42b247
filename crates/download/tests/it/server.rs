//! A small HTTP file server on 127.0.0.1 for the tests: it honours `Range`, can cut a
//! response after some bytes, records every request, and speaks HTTPS with a certificate the
//! test gives it.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use futures::{StreamExt, stream};
use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::header::{CONTENT_LENGTH, CONTENT_RANGE, LOCATION, RANGE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seen {
    pub path: String,
    pub range: Option<String>,
}

#[derive(Default)]
struct State {
    body: Bytes,
    /// For each request in turn: cut the body after this many bytes (None: send it all).
    cuts: Mutex<VecDeque<Option<usize>>>,
    seen: Mutex<Vec<Seen>>,
}

/// The running server; stops when dropped.
pub(crate) struct Server {
    pub addr: SocketAddr,
    state: Arc<State>,
    https: bool,
    _runtime: tokio::runtime::Runtime,
}

type Body = BoxBody<Bytes, std::io::Error>;

impl Server {
    /// Serves `body` at every `/files/NAME`, `/redirect/NAME` redirects there, anything else
    /// is 404. `cuts` are taken one per request.
    pub(crate) fn start(body: Vec<u8>, cuts: &[Option<usize>]) -> Server {
        Self::start_with(body, cuts, None)
    }

    /// Like [`Server::start`], over TLS with `cert` (its chain, leaf first) and `key`; its
    /// URLs are https.
    pub(crate) fn start_tls(
        body: Vec<u8>,
        cert: Vec<rustls::pki_types::CertificateDer<'static>>,
        key: rustls::pki_types::PrivateKeyDer<'static>,
    ) -> Server {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(cert, key)
            .unwrap();
        Self::start_with(
            body,
            &[],
            Some(tokio_rustls::TlsAcceptor::from(Arc::new(config))),
        )
    }

    fn start_with(
        body: Vec<u8>,
        cuts: &[Option<usize>],
        tls: Option<tokio_rustls::TlsAcceptor>,
    ) -> Server {
        let state = Arc::new(State {
            body: Bytes::from(body),
            cuts: Mutex::new(cuts.iter().copied().collect()),
            seen: Mutex::default(),
        });
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let https = tls.is_some();
        runtime.spawn(accept(listener, state.clone(), tls));
        Server {
            addr,
            state,
            https,
            _runtime: runtime,
        }
    }

    /// The URL of `path`.
    pub(crate) fn url(&self, path: &str) -> String {
        let scheme = if self.https { "https" } else { "http" };
        format!("{scheme}://{}{path}", self.addr)
    }

    /// Every request so far.
    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }
}

async fn accept(
    listener: tokio::net::TcpListener,
    state: Arc<State>,
    tls: Option<tokio_rustls::TlsAcceptor>,
) {
    while let Ok((stream, _)) = listener.accept().await {
        let state = state.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(answer(&state, req)) }
            });
            let http = http1::Builder::new();
            let _ = match tls {
                // A handshake the client refuses ends here, before any request.
                Some(tls) => match tls.accept(stream).await {
                    Ok(stream) => http.serve_connection(TokioIo::new(stream), service).await,
                    Err(_) => return,
                },
                None => http.serve_connection(TokioIo::new(stream), service).await,
            };
        });
    }
}

fn answer(state: &State, req: Request<Incoming>) -> Response<Body> {
    let path = req.uri().path().to_string();
    let range = req
        .headers()
        .get(RANGE)
        .map(|r| r.to_str().unwrap().to_string());
    state.seen.lock().unwrap().push(Seen {
        path: path.clone(),
        range: range.clone(),
    });
    if let Some(name) = path.strip_prefix("/redirect/") {
        return Response::builder()
            .status(StatusCode::FOUND)
            .header(LOCATION, format!("/files/{name}"))
            .body(full(Bytes::new()))
            .unwrap();
    }
    if !path.starts_with("/files/") {
        return Response::builder()
            .status(StatusCode::NOT_FOUND)
            .body(full(Bytes::new()))
            .unwrap();
    }
    let cut = state.cuts.lock().unwrap().pop_front().flatten();
    serve(&state.body, range.as_deref(), cut)
}

/// The whole body, or from `bytes=N-`, cut after `cut` bytes if asked.
fn serve(body: &Bytes, range: Option<&str>, cut: Option<usize>) -> Response<Body> {
    let len = body.len();
    let start = range
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.strip_suffix('-'))
        .map(|s| s.parse::<usize>().unwrap());
    let mut response = Response::builder();
    let slice = match start {
        Some(start) if start >= len => {
            return Response::builder()
                .status(StatusCode::RANGE_NOT_SATISFIABLE)
                .header(CONTENT_RANGE, format!("bytes */{len}"))
                .body(full(Bytes::new()))
                .unwrap();
        }
        Some(start) => {
            response = response
                .status(StatusCode::PARTIAL_CONTENT)
                .header(CONTENT_RANGE, format!("bytes {start}-{}/{len}", len - 1));
            body.slice(start..)
        }
        None => body.clone(),
    };
    let response = response.header(CONTENT_LENGTH, slice.len());
    let body = match cut {
        Some(n) => cut_body(slice.slice(..n.min(slice.len()))),
        None => full(slice),
    };
    response.body(body).unwrap()
}

fn full(bytes: Bytes) -> Body {
    Full::new(bytes).map_err(|never| match never {}).boxed()
}

/// Sends `head`, then fails: hyper drops the connection in the middle of the body. The pause
/// lets `head` reach the client first (hyper would otherwise drop it with the connection).
fn cut_body(head: Bytes) -> Body {
    let head = stream::iter([Ok(Frame::data(head))]);
    let cut = stream::once(async {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        Err(std::io::Error::other("cut by the test"))
    });
    BodyExt::boxed(StreamBody::new(head.chain(cut)))
}
