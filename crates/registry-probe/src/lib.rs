//! The steps of one pull as a container host makes them, each failure named by its kind.
//!
//! `verify --online` asks, before anything boots, whether the bootstrap host will be able to
//! pull the release image and every image it names. A pull is a chain of steps, and each
//! fails its own way: the registry's name (DNS, or a `--resolve` override), TCP, the
//! proxy's tunnel, TLS against the host's trust, the registry's challenge (none, basic, or a
//! bearer token from its token service) with the pull secret's credentials, and the manifest
//! by digest, then what the pull fetches next ([`contents`]): the platform's manifest of a
//! list, the config and every layer. [`Prober`] runs them with a bounded wait each and names
//! a failure with [`contract::registry_error::RegistryFault`], the kinds the analysis of a
//! booted host uses, so a fault reads the same before and after boot.
//!
//! Connections are kept per registry and reused; at most [`Settings::max_connections`]
//! requests are in flight at once. No credential or token is ever part of a message.

mod connect;
pub mod contents;
mod image;
mod proxy;
mod reference;
mod secret;

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use contract::registry_error::{Operation, PullError, RegistryFault};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::{Method, Request, StatusCode};
use rustls_pki_types::CertificateDer;
use tokio::sync::{OnceCell, Semaphore};
use tokio::time::timeout;

use connect::Conn;
pub use contents::{Blob, Contents};
pub use image::ReadError;
pub use proxy::{Proxy, ProxyError};
pub use reference::{BadReference, ImageRef, Pin};
pub use secret::{Credentials, PullSecret};

/// The manifest types a container host accepts, as it sends them.
const MANIFEST_TYPES: &str = "application/vnd.oci.image.manifest.v1+json, \
    application/vnd.oci.image.index.v1+json, \
    application/vnd.docker.distribution.manifest.v2+json, \
    application/vnd.docker.distribution.manifest.list.v2+json";
/// Larger than any manifest, token or error answer.
const MAX_SMALL_BODY: usize = 4 << 20;

/// How the host connects and what it trusts.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The CAs the host trusts (its system store plus the install-config's bundle).
    pub anchors: Vec<CertificateDer<'static>>,
    /// `--resolve` overrides: a key `host` (port 0 keeps the registry's port) or `host:port`.
    pub overrides: BTreeMap<String, SocketAddr>,
    /// The host's HTTPS proxy, when it has one.
    pub proxy: Option<Proxy>,
    /// Bound of a name lookup and of a TCP connect.
    pub connect_timeout: Duration,
    /// Bound of a TLS handshake, a proxy's answer and each request with its answer.
    pub request_timeout: Duration,
    /// Requests in flight at once, over all registries.
    pub max_connections: usize,
}

/// The system's trust store (what the host trusts without the install-config's bundle),
/// read from the usual places; unreadable certificates are left out.
pub fn system_anchors() -> Vec<CertificateDer<'static>> {
    rustls_native_certs::load_native_certs().certs
}

/// Why a pull from one registry fails: a fault the reader of registry errors knows, or
/// (`fault: None`) what the registry answered that is none of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The registry (`host[:port]`, as the pull names it).
    pub registry: String,
    /// The kind, when it is one the reader knows.
    pub fault: Option<RegistryFault>,
    /// What was seen: the address dialled, the certificate's names, the credentials' state.
    pub detail: Option<String>,
    /// The HTTPS proxy (`host:port`) when the failure is the proxy's: it cannot be reached,
    /// or it would not open the tunnel to the registry.
    pub proxy: Option<String>,
    /// The token service's URL (the realm of the registry's bearer challenge) when the
    /// failure is on the way to it: the registry answered, its token service did not.
    pub token_service: Option<String>,
    /// The HTTP status the registry answered, when the failure is an answer.
    pub status: Option<u16>,
    /// The registry's error code (`BLOB_UNKNOWN`, `TOOMANYREQUESTS`, ...) when it sent one
    /// (boxed: a failure is an `Err` everywhere, kept small).
    pub code: Option<Box<str>>,
    /// The step of the pull that failed, when it is known.
    pub operation: Operation,
}

impl Failure {
    pub(crate) fn new(
        registry: &str,
        fault: Option<RegistryFault>,
        detail: Option<String>,
    ) -> Failure {
        Failure {
            registry: registry.to_string(),
            fault,
            detail,
            proxy: None,
            token_service: None,
            status: None,
            code: None,
            operation: Operation::Unknown,
        }
    }

    /// A failure between the host and its proxy `proxy` on the way to `registry`.
    pub(crate) fn at_proxy(
        registry: &str,
        proxy: String,
        fault: RegistryFault,
        detail: String,
    ) -> Failure {
        Failure {
            proxy: Some(proxy),
            ..Failure::new(registry, Some(fault), Some(detail))
        }
    }

    /// The failure as the reader of registry errors words it, for `image` (or images in
    /// general when `None`); an answer of no class the reader knows is said to be one,
    /// with what the registry did as its line.
    pub fn pull_error(&self, image: Option<String>) -> Option<PullError> {
        if self.proxy.is_some() {
            return None;
        }
        let fault = self.fault.unwrap_or(RegistryFault::Unrecognised);
        Some(PullError {
            repository: image
                .as_deref()
                .and_then(|i| ImageRef::parse(i).ok())
                .map(|i| i.repository),
            image,
            registry: Some(self.registry.clone()),
            detail: self.fault.and(self.detail.clone()),
            line: match self.fault {
                None => self.detail.clone(),
                Some(_) => None,
            },
            status: self.status,
            code: self.code.as_deref().map(str::to_string),
            operation: self.operation,
            ..PullError::new(fault)
        })
    }

    /// Why, in the user's words: the reader's reason, then what the preflight saw when the
    /// reason does not already say it.
    pub fn reason(&self, image: Option<String>) -> String {
        if let Some(proxy) = &self.proxy {
            let what = match self.fault {
                Some(RegistryFault::ConnectionRefused) => "refused the connection",
                Some(RegistryFault::NameNotResolved) => "does not resolve",
                Some(RegistryFault::Timeout) => "did not answer in time",
                _ => "did not open a tunnel",
            };
            return format!(
                "the HTTPS proxy `{proxy}` on the way to `{}` {what} ({})",
                self.registry,
                self.detail.as_deref().unwrap_or_default()
            );
        }
        match self.pull_error(image) {
            Some(e) => {
                let reason = e.reason();
                match &self.detail {
                    Some(d) if !reason.contains(d.as_str()) => format!("{reason} ({d})"),
                    _ => reason,
                }
            }
            None => format!(
                "`{}` {}",
                self.registry,
                self.detail.as_deref().unwrap_or("failed")
            ),
        }
    }
}

/// What the registry's `/v2/` said it wants.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Challenge {
    /// Nothing: anonymous pulls.
    None,
    /// `Basic`: the credentials with every request.
    Basic,
    /// `Bearer realm=... service=...`: a token per repository from the token service.
    Bearer { realm: String, service: String },
}

/// A repository's pull token, asked for once.
type TokenCell = OnceCell<Result<String, Failure>>;
/// Whether a blob (registry, repository, digest) is there, asked once.
type BlobCell = OnceCell<Result<(), Failure>>;

/// What a request asks for, which names a 404.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Target<'a> {
    /// A manifest: a 404 is an unknown manifest (or repository).
    Manifest,
    /// The blob with this digest: a 404 is a blob the registry lacks.
    Blob(&'a str),
}

/// One registry: its challenge (asked once), its idle connections, its tokens.
#[derive(Default)]
struct Registry {
    challenge: OnceCell<Result<Challenge, Failure>>,
    idle: Mutex<Vec<Conn>>,
    tokens: Mutex<HashMap<String, Arc<TokenCell>>>,
}

/// Runs the steps of pulls with shared connections; cheap to share behind an `Arc`.
pub struct Prober {
    settings: Settings,
    secret: PullSecret,
    registries: Mutex<HashMap<String, Arc<Registry>>>,
    blobs: Mutex<HashMap<(String, String, String), Arc<BlobCell>>>,
    in_flight: Semaphore,
}

/// A response read whole (or up to its limit).
pub(crate) struct Answer {
    status: StatusCode,
    headers: hyper::HeaderMap,
    body: Bytes,
}

impl Prober {
    /// A prober that connects as `settings` say with `secret`'s credentials.
    pub fn new(settings: Settings, secret: PullSecret) -> Prober {
        let permits = settings.max_connections.max(1);
        Prober {
            settings,
            secret,
            registries: Mutex::new(HashMap::new()),
            blobs: Mutex::new(HashMap::new()),
            in_flight: Semaphore::new(permits),
        }
    }

    fn registry(&self, name: &str) -> Arc<Registry> {
        self.registries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(name.to_string())
            .or_default()
            .clone()
    }

    /// The manifest of `image` (its body and media type).
    pub(crate) async fn manifest(&self, image: &ImageRef) -> Result<(String, Bytes), Failure> {
        let path = format!("/v2/{}/manifests/{}", image.repository, image.reference());
        let answer = self
            .authorized(image, Method::GET, &path, MAX_SMALL_BODY)
            .await?;
        self.judge(image, &answer, Target::Manifest)?;
        let media = header(&answer.headers, hyper::header::CONTENT_TYPE).unwrap_or_default();
        Ok((media, answer.body))
    }

    /// Names what the status of a request for `target` means, with the registry's error
    /// code and message when its answer has them.
    pub(crate) fn judge(
        &self,
        image: &ImageRef,
        answer: &Answer,
        target: Target<'_>,
    ) -> Result<(), Failure> {
        let status = answer.status;
        if status.is_success() {
            return Ok(());
        }
        let (code, message) = registry_error_code(&answer.body);
        let what = match target {
            Target::Manifest => format!("the manifest of {image}"),
            Target::Blob(d) => format!("blob {d} of {}", image.name()),
        };
        let said = |s: String| match &message {
            Some(m) => format!("{s}: {m}"),
            None => s,
        };
        let (fault, detail) = match (status, target) {
            (StatusCode::NOT_FOUND, Target::Manifest) => (RegistryFault::ManifestUnknown, None),
            (StatusCode::NOT_FOUND, Target::Blob(_)) => (
                RegistryFault::BlobUnknown,
                Some(format!("it serves the manifest but not {what}")),
            ),
            (StatusCode::UNAUTHORIZED, _) => (
                RegistryFault::Unauthorized,
                Some(self.credentials_state(image, "it")),
            ),
            (StatusCode::FORBIDDEN, _) => (RegistryFault::Denied, None),
            (StatusCode::TOO_MANY_REQUESTS, _) => (
                RegistryFault::TooManyRequests,
                Some(said(format!("HTTP {status} for {what}"))),
            ),
            (s, _) if s.is_server_error() => (
                RegistryFault::ServerError,
                Some(said(format!("HTTP {status} for {what}"))),
            ),
            _ => (
                RegistryFault::HttpStatus,
                Some(said(format!("answered HTTP {status} for {what}"))),
            ),
        };
        Err(Failure {
            status: Some(status.as_u16()),
            code: code.map(String::into_boxed_str),
            operation: match target {
                Target::Manifest => Operation::ReadManifest,
                Target::Blob(_) => Operation::ReadBlob,
            },
            ..Failure::new(&image.registry, Some(fault), detail)
        })
    }

    /// Whether the pull secret has credentials for `image`, in words (never the
    /// credentials); `refuser` is who refused them (the registry, "it", or its token
    /// service).
    fn credentials_state(&self, image: &ImageRef, refuser: &str) -> String {
        match self.secret.for_image(image) {
            Some(_) => format!("{refuser} refused the pull secret's credentials for it"),
            None => format!("the pull secret has no credentials for {}", image.registry),
        }
    }

    /// A request to `image`'s registry with the authorization its challenge wants.
    async fn authorized(
        &self,
        image: &ImageRef,
        method: Method,
        path: &str,
        limit: usize,
    ) -> Result<Answer, Failure> {
        let registry = self.registry(&image.registry);
        let challenge = registry
            .challenge
            .get_or_init(|| self.challenge(image, &registry))
            .await
            .clone()?;
        let authorization = match challenge {
            Challenge::None => None,
            Challenge::Basic => self.secret.for_image(image).map(Credentials::basic),
            Challenge::Bearer { realm, service } => {
                let cell = registry
                    .tokens
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .entry(image.repository.clone())
                    .or_default()
                    .clone();
                let token = cell
                    .get_or_init(|| self.token(image, &realm, &service))
                    .await
                    .clone()?;
                Some(format!("Bearer {token}"))
            }
        };
        self.send(image, &registry, method, path, authorization, limit)
            .await
    }

    /// `GET /v2/`: reachable, trusted, and which authorization it wants.
    async fn challenge(&self, image: &ImageRef, registry: &Registry) -> Result<Challenge, Failure> {
        let answer = self
            .send(image, registry, Method::GET, "/v2/", None, MAX_SMALL_BODY)
            .await?;
        if answer.status.is_success() {
            return Ok(Challenge::None);
        }
        let asked = header(&answer.headers, hyper::header::WWW_AUTHENTICATE);
        match (answer.status, asked) {
            (StatusCode::UNAUTHORIZED, Some(h)) => parse_challenge(&h).ok_or_else(|| {
                Failure::new(
                    &image.registry,
                    None,
                    Some(format!("asked for an authorization it did not name: `{h}`")),
                )
            }),
            (s, _) => Err(Failure::new(
                &image.registry,
                None,
                Some(format!(
                    "answered HTTP {s} for /v2/, which a registry answers with 200 or 401"
                )),
            )),
        }
    }

    /// A pull token for `image`'s repository from the registry's token service, with the
    /// pull secret's credentials when it has some.
    async fn token(&self, image: &ImageRef, realm: &str, service: &str) -> Result<String, Failure> {
        let scope = format!("repository:{}:pull", image.repository);
        let sep = if realm.contains('?') { '&' } else { '?' };
        // A challenge without a service gets none back, as a container host sends it.
        let url = match service {
            "" => format!("{realm}{sep}scope={scope}"),
            _ => format!("{realm}{sep}service={service}&scope={scope}"),
        };
        let credentials = self.secret.for_image(image).map(Credentials::basic);
        // A failure on the way is the token service's (its name, port, certificate), not
        // the registry's, which answered: named so.
        let answer = self
            .fetch_url(
                &image.registry,
                Method::GET,
                &url,
                credentials,
                MAX_SMALL_BODY,
            )
            .await
            .map_err(|f| {
                let of = format!("the token service of {}, {realm}", image.registry);
                Failure {
                    registry: split_https(realm).map_or(f.registry, |(a, _)| a.to_string()),
                    token_service: Some(realm.to_string()),
                    detail: Some(match f.detail {
                        Some(d) => format!("{of}: {d}"),
                        None => of,
                    }),
                    ..f
                }
            })?;
        let fail = |fault, detail: String| Err(Failure::new(&image.registry, fault, Some(detail)));
        match answer.status {
            s if s.is_success() => {
                let json: serde_json::Value =
                    serde_json::from_slice(&answer.body).unwrap_or_default();
                match json
                    .get("token")
                    .or_else(|| json.get("access_token"))
                    .and_then(|t| t.as_str())
                {
                    Some(t) => Ok(t.to_string()),
                    None => fail(None, "its token service answered without a token".into()),
                }
            }
            StatusCode::UNAUTHORIZED => fail(
                Some(RegistryFault::Unauthorized),
                self.credentials_state(image, "its token service"),
            ),
            StatusCode::FORBIDDEN => fail(
                Some(RegistryFault::Denied),
                "its token service refused a pull token".into(),
            ),
            s => fail(None, format!("its token service answered HTTP {s}")),
        }
    }

    /// One request over a connection of `registry` (an idle one, else a new one).
    async fn send(
        &self,
        image: &ImageRef,
        registry: &Registry,
        method: Method,
        path: &str,
        authorization: Option<String>,
        limit: usize,
    ) -> Result<Answer, Failure> {
        let _permit = self.in_flight.acquire().await.map_err(|_| {
            Failure::new(
                &image.registry,
                None,
                Some("the preflight was stopped".into()),
            )
        })?;
        let (host, port) = image.endpoint();
        let idle = registry
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let reused = matches!(&idle, Some(c) if !c.is_closed());
        let mut conn = match idle {
            Some(c) if reused => c,
            _ => connect::open(&self.settings, &image.registry, &host, port).await?,
        };
        let authority = if port == 443 {
            host.clone()
        } else {
            format!("{host}:{port}")
        };
        let mut answer = self
            .exchange(
                &image.registry,
                &mut conn,
                method.clone(),
                &authority,
                path,
                authorization.clone(),
                limit,
            )
            .await;
        // A kept connection the registry closed meanwhile is no finding: once more on a
        // new one, as an HTTP client does.
        if reused && matches!(&answer, Err(f) if f.fault == Some(RegistryFault::ConnectionReset)) {
            conn = connect::open(&self.settings, &image.registry, &host, port).await?;
            answer = self
                .exchange(
                    &image.registry,
                    &mut conn,
                    method,
                    &authority,
                    path,
                    authorization,
                    limit,
                )
                .await;
        }
        let answer = answer?;
        registry
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(conn);
        Ok(answer)
    }

    /// Sends one request on `conn` and reads the answer, within the request timeout.
    #[allow(clippy::too_many_arguments)]
    async fn exchange(
        &self,
        registry: &str,
        conn: &mut Conn,
        method: Method,
        authority: &str,
        path: &str,
        authorization: Option<String>,
        limit: usize,
    ) -> Result<Answer, Failure> {
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header(hyper::header::HOST, authority)
            .header(hyper::header::ACCEPT, MANIFEST_TYPES)
            .header(hyper::header::USER_AGENT, "okd-install-preflight");
        if let Some(a) = authorization {
            request = request.header(hyper::header::AUTHORIZATION, a);
        }
        let request = request
            .body(Full::new(Bytes::new()))
            .map_err(|e| Failure::new(registry, None, Some(format!("bad request: {e}"))))?;
        let exchange = async {
            conn.ready().await?;
            let response = conn.send_request(request).await?;
            let (parts, body) = response.into_parts();
            let body = Limited::new(body, limit)
                .collect()
                .await
                .map(|c| c.to_bytes())
                .map_err(|e| {
                    // An answer larger than any registry sends is odd, not cut short.
                    let fault = (!e.is::<http_body_util::LengthLimitError>())
                        .then_some(RegistryFault::ConnectionReset);
                    (fault, format!("reading the answer to {path}: {e}"))
                });
            Ok::<_, hyper::Error>((parts, body))
        };
        match timeout(self.settings.request_timeout, exchange).await {
            Err(_) => Err(Failure::new(
                registry,
                Some(RegistryFault::Timeout),
                Some(format!(
                    "no answer to {path} in {}s",
                    self.settings.request_timeout.as_secs()
                )),
            )),
            Ok(Err(e)) => Err(Failure::new(
                registry,
                Some(RegistryFault::ConnectionReset),
                Some(format!("closed the connection on {path}: {e}")),
            )),
            Ok(Ok((_, Err((fault, e))))) => Err(Failure::new(registry, fault, Some(e))),
            Ok(Ok((parts, Ok(body)))) => Ok(Answer {
                status: parts.status,
                headers: parts.headers,
                body,
            }),
        }
    }

    /// `GET` of an absolute `https://` URL (a token service, a blob's redirect) over a new
    /// connection; failures are named for `registry`, whose pull needs it.
    async fn fetch_url(
        &self,
        registry: &str,
        method: Method,
        url: &str,
        authorization: Option<String>,
        limit: usize,
    ) -> Result<Answer, Failure> {
        let (authority, path) = split_https(url).ok_or_else(|| {
            Failure::new(
                registry,
                None,
                Some(format!("sent the pull to a URL that is not https: {url}")),
            )
        })?;
        let (host, port) = reference::endpoint(authority);
        let _permit =
            self.in_flight.acquire().await.map_err(|_| {
                Failure::new(registry, None, Some("the preflight was stopped".into()))
            })?;
        let mut conn = connect::open(&self.settings, registry, &host, port).await?;
        self.exchange(
            registry,
            &mut conn,
            method,
            authority,
            path,
            authorization,
            limit,
        )
        .await
    }
}

/// An `https://` URL's authority and path (`/` when it has none).
fn split_https(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("https://")?;
    Some(match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    })
}

/// The first error code and message of a registry's error answer
/// (`{"errors":[{"code":"BLOB_UNKNOWN","message":"..."}]}`), when it is one.
fn registry_error_code(body: &[u8]) -> (Option<String>, Option<String>) {
    let json: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let first = &json["errors"][0];
    let text = |v: &serde_json::Value| {
        v.as_str()
            .filter(|s| !s.is_empty())
            .map(|s| s.chars().take(200).collect())
    };
    (text(&first["code"]), text(&first["message"]))
}

/// A header's value as text.
fn header(headers: &hyper::HeaderMap, name: hyper::header::HeaderName) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

/// `Basic realm="..."` or `Bearer realm="...",service="...",scope="..."`.
fn parse_challenge(header: &str) -> Option<Challenge> {
    let (scheme, params) = header.trim().split_once(' ').unwrap_or((header.trim(), ""));
    if scheme.eq_ignore_ascii_case("basic") {
        return Some(Challenge::Basic);
    }
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let param = |key: &str| {
        params.split(',').find_map(|p| {
            let (k, v) = p.trim().split_once('=')?;
            k.trim()
                .eq_ignore_ascii_case(key)
                .then(|| v.trim().trim_matches('"').to_string())
        })
    };
    Some(Challenge::Bearer {
        realm: param("realm")?,
        service: param("service").unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(overrides: &[(&str, SocketAddr)]) -> Settings {
        Settings {
            anchors: system_anchors(),
            overrides: overrides.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            proxy: None,
            connect_timeout: Duration::from_millis(500),
            request_timeout: Duration::from_millis(500),
            max_connections: 4,
        }
    }

    /// A registry that accepts the connection and never answers ends in the bounded wait,
    /// named as a timeout; a port nobody listens on is a refused connection; a name given
    /// with `--resolve` is never looked up.
    #[tokio::test]
    async fn silence_is_a_timeout_and_a_closed_port_is_refused() {
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let silent_addr = silent.local_addr().unwrap();
        let keep = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((conn, _)) = silent.accept().await {
                held.push(conn);
            }
        });
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let closed_addr = closed.local_addr().unwrap();
        drop(closed);
        let prober = Prober::new(
            settings(&[
                ("slow.registry.invalid", silent_addr),
                ("down.registry.invalid", closed_addr),
            ]),
            PullSecret::default(),
        );
        let image = |r: &str| ImageRef::parse(&format!("{r}:5000/okd/x@sha256:ab")).unwrap();
        let slow = prober
            .contents(&image("slow.registry.invalid"))
            .await
            .unwrap_err();
        assert_eq!(slow.fault, Some(RegistryFault::Timeout), "{slow:?}");
        let down = prober
            .contents(&image("down.registry.invalid"))
            .await
            .unwrap_err();
        assert_eq!(
            down.fault,
            Some(RegistryFault::ConnectionRefused),
            "{down:?}"
        );
        assert!(
            down.reason(None).contains(&closed_addr.to_string()),
            "{}",
            down.reason(None)
        );
        keep.abort();
    }

    #[test]
    fn https_urls_split() {
        assert_eq!(
            split_https("https://auth.example.com:5001/token?x=1"),
            Some(("auth.example.com:5001", "/token?x=1"))
        );
        assert_eq!(
            split_https("https://auth.example.com"),
            Some(("auth.example.com", "/"))
        );
        assert_eq!(split_https("http://auth.example.com/token"), None);
    }

    #[test]
    fn challenges_parse() {
        assert_eq!(
            parse_challenge(r#"Basic realm="okd-real-host""#),
            Some(Challenge::Basic)
        );
        assert_eq!(
            parse_challenge(
                r#"Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="x""#
            ),
            Some(Challenge::Bearer {
                realm: "https://auth.example.com/token".into(),
                service: "registry.example.com".into()
            })
        );
        assert_eq!(parse_challenge("Negotiate"), None);
    }

    #[test]
    fn failures_read_in_the_readers_words_and_unknown_answers_as_they_came() {
        let refused = Failure::new(
            "registry.example.com:5000",
            Some(RegistryFault::Unauthorized),
            Some("the pull secret has no credentials for registry.example.com:5000".into()),
        );
        let reason = refused.reason(None);
        assert!(reason.contains("wants credentials"), "{reason}");
        assert!(reason.contains("has no credentials"), "{reason}");
        let odd = Failure::new("r:5000", None, Some("redirected it 11 times".into()));
        let said = odd.pull_error(None).expect("words for it");
        assert_eq!(said.fault, RegistryFault::Unrecognised);
        let reason = odd.reason(None);
        assert!(reason.contains("does not recognise"), "{reason}");
        assert!(reason.contains("redirected it 11 times"), "{reason}");
    }
}
