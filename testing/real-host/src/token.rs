//! A site's token service for the lab's registry, as quay.io, Quay and Harbor have one:
//! the registry answers `Bearer realm=... service=...`, a client asks the realm for a token
//! (`GET ?service=S&scope=repository:NAME:pull` with a basic login) and shows it to the
//! registry. Debian ships no token service, so this is the test's own, small one; the
//! registry that checks its tokens is Debian's docker-registry (`auth: token:`).
//!
//! A right login gets a token granting pull on the repositories asked for; no login gets a
//! token granting nothing (what public token services give anonymous clients), which the
//! registry then refuses; a wrong login gets 401 from the service itself. The tokens are
//! JWTs signed with ES256 by a key whose self-signed certificate is the registry's
//! `rootcertbundle`, the certificate in the header's `x5c`, claims as Distribution checks
//! them (`iss`, `aud` = the service, `exp`/`nbf` within a minute's leeway, `access`).
//!
//! It serves HTTPS with the registry's own certificate on [`PORT`] of the lab address, in
//! the lab's network namespace, and ends when dropped.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::os::fd::AsRawFd as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use crate::error::{Error, Result};
use crate::machine::{LAB_ADDRESS, Lab};
use crate::registry::{Auth, Registry};
use crate::server::{ServerThread, accept_until};

/// The token service's port on the lab address.
pub const PORT: u16 = 5001;
/// Who the tokens say issued them.
pub const ISSUER: &str = "okd-install-test-token-service";
/// How long a token is good for, in seconds.
const LIFETIME: u64 = 300;

/// What the service knows and what it did.
struct State {
    service: String,
    user: String,
    password: String,
    signer: EcdsaKeyPair,
    /// The signer's certificate (DER, base64) for the tokens' `x5c`.
    x5c: String,
    serial: AtomicU64,
    requests: Mutex<Vec<String>>,
    issued: Mutex<Vec<String>>,
}

/// The running service.
pub struct TokenService {
    /// Where clients ask for tokens.
    pub realm: String,
    /// The registry config that trusts this service's tokens.
    pub auth: Auth,
    state: Arc<State>,
    _server: ServerThread,
}

impl TokenService {
    /// Starts the service for `registry` (its name, its login, its certificate) in `lab`;
    /// the signer's certificate is written into the registry's directory. The registry
    /// trusts it once restarted with [`TokenService::auth`].
    pub fn start(lab: &Lab, registry: &Registry) -> Result<TokenService> {
        let spec = &registry.spec;
        let service = registry.host_port();
        let (state, signer_pem) = State::new(&service, &spec.user, &spec.password)?;
        let state = Arc::new(state);
        let signer_file = registry.dir.join("token-signer.crt");
        std::fs::write(&signer_file, signer_pem).map_err(Error::io(&signer_file))?;
        let realm = format!("https://{}:{PORT}/token", spec.name);
        let (cert_file, key_file) = registry.trusted_files();
        let tls = tls_acceptor(&cert_file, &key_file)?;
        let address: SocketAddr = format!("{LAB_ADDRESS}:{PORT}")
            .parse()
            .map_err(|e| answer("the lab address", e))?;
        let listener = listen_in(&lab.lab_netns, address)?;
        let serving = state.clone();
        let server = ServerThread::spawn(move |stopped| {
            accept_until(listener, stopped, move |tcp| {
                tokio::spawn(connection(tcp, tls.clone(), serving.clone()));
            })
        });
        Ok(TokenService {
            auth: Auth::Token {
                realm: realm.clone(),
                service,
                issuer: ISSUER.to_string(),
                signer: signer_file,
            },
            realm,
            state,
            _server: server,
        })
    }

    /// One line per token request: who asked (never the password), for what scopes, and
    /// what was answered.
    pub fn requests(&self) -> Vec<String> {
        lock(&self.state.requests).clone()
    }

    /// Every token handed out, for tests that check none is printed.
    pub fn issued(&self) -> Vec<String> {
        lock(&self.state.issued).clone()
    }
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

/// TLS with the registry's certificate and key.
pub(crate) fn tls_acceptor(cert: &Path, key: &Path) -> Result<tokio_rustls::TlsAcceptor> {
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<std::result::Result<Vec<_>, _>>())
        .map_err(|e| answer(&cert.display().to_string(), e))?;
    let key =
        PrivateKeyDer::from_pem_file(key).map_err(|e| answer(&key.display().to_string(), e))?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|b| b.with_no_client_auth().with_single_cert(chain, key))
        .map_err(|e| answer("the token service's TLS", e))?;
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// A listening socket in the network namespace `netns`: bound by a thread of its own that
/// enters the namespace (a namespace is a thread's), and ends; the socket stays in it.
fn listen_in(netns: &str, address: SocketAddr) -> Result<std::net::TcpListener> {
    let path = PathBuf::from("/run/netns").join(netns);
    let bind = || -> std::io::Result<std::net::TcpListener> {
        let namespace = std::fs::File::open(&path)?;
        // SAFETY: setns is given a descriptor this thread owns and changes only the
        // namespace of this thread, which ends right after binding.
        if unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let listener = std::net::TcpListener::bind(address)?;
        listener.set_nonblocking(true)?;
        Ok(listener)
    };
    std::thread::scope(|s| s.spawn(bind).join())
        .unwrap_or_else(|_| Err(std::io::Error::other("the binding thread panicked")))
        .map_err(Error::io(&path))
}

async fn connection(tcp: tokio::net::TcpStream, tls: tokio_rustls::TlsAcceptor, state: Arc<State>) {
    let Ok(stream) = tls.accept(tcp).await else {
        return;
    };
    let service = hyper::service::service_fn(move |request| {
        let state = state.clone();
        async move { Ok::<_, Infallible>(token_answer(&state, &request)) }
    });
    let _ = hyper::server::conn::http1::Builder::new()
        .serve_connection(TokioIo::new(stream), service)
        .await;
}

/// Who asked, by the request's basic login.
enum Client {
    Anonymous,
    User(String),
    Refused(String),
}

/// The answer to one token request.
fn token_answer<B>(state: &State, request: &Request<B>) -> Response<Full<Bytes>> {
    let query: Vec<(String, String)> =
        form_urlencoded::parse(request.uri().query().unwrap_or_default().as_bytes())
            .into_owned()
            .collect();
    let scopes: Vec<&str> = query
        .iter()
        .filter(|(k, _)| k == "scope")
        .map(|(_, v)| v.as_str())
        .collect();
    let service = query
        .iter()
        .find(|(k, _)| k == "service")
        .map(|(_, v)| v.as_str());
    let client = client(state, request);
    let who = match &client {
        Client::Anonymous => "anonymous".to_string(),
        Client::User(u) => u.clone(),
        Client::Refused(u) => format!("{u} (wrong password)"),
    };
    let (status, body, outcome) = if request.uri().path() != "/token" {
        (
            StatusCode::NOT_FOUND,
            "{}".to_string(),
            "not found".to_string(),
        )
    } else if service != Some(state.service.as_str()) {
        let outcome = format!("refused: service {service:?} is not {}", state.service);
        (StatusCode::BAD_REQUEST, "{}".to_string(), outcome)
    } else if let Client::Refused(_) = client {
        let body = r#"{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}"#;
        (
            StatusCode::UNAUTHORIZED,
            body.to_string(),
            "refused".to_string(),
        )
    } else {
        let granted = match &client {
            Client::User(_) => pull_grants(&scopes),
            _ => Vec::new(),
        };
        let token = state.sign(&who, granted.clone());
        lock(&state.issued).push(token.clone());
        let body =
            serde_json::json!({"token": token, "access_token": token, "expires_in": LIFETIME});
        let outcome = format!("granted {}", serde_json::Value::Array(granted));
        (StatusCode::OK, body.to_string(), outcome)
    };
    lock(&state.requests).push(format!("{who} {} {outcome}", scopes.join(" ")));
    let mut response = Response::builder()
        .status(status)
        .header(hyper::header::CONTENT_TYPE, "application/json");
    if status == StatusCode::UNAUTHORIZED {
        response = response.header(hyper::header::WWW_AUTHENTICATE, "Basic realm=\"token\"");
    }
    response
        .body(Full::new(Bytes::from(body)))
        .unwrap_or_else(|_| Response::new(Full::new(Bytes::new())))
}

/// The request's login checked against the registry's.
fn client<B>(state: &State, request: &Request<B>) -> Client {
    let Some(login) = request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|b| STANDARD.decode(b.trim()).ok())
        .and_then(|b| String::from_utf8(b).ok())
    else {
        return Client::Anonymous;
    };
    let (user, password) = login.split_once(':').unwrap_or((&login, ""));
    if user == state.user && password == state.password {
        Client::User(user.to_string())
    } else {
        Client::Refused(user.to_string())
    }
}

/// The `access` entries for the scopes asked for: pull on each repository, nothing else.
fn pull_grants(scopes: &[&str]) -> Vec<serde_json::Value> {
    scopes
        .iter()
        .filter_map(|s| {
            let mut parts = s.splitn(3, ':');
            let (kind, name, actions) = (parts.next()?, parts.next()?, parts.next()?);
            (kind == "repository" && actions.split(',').any(|a| a == "pull")).then(
                || serde_json::json!({"type": "repository", "name": name, "actions": ["pull"]}),
            )
        })
        .collect()
}

impl State {
    /// The service `service` with one login, and a new signing key; returns it with the
    /// key's self-signed certificate (PEM), which the registry is to trust.
    fn new(service: &str, user: &str, password: &str) -> Result<(State, String)> {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256)
            .map_err(|e| answer("a token signing key", e))?;
        let cert = rcgen::CertificateParams::new(vec![ISSUER.to_string()])
            .and_then(|p| p.self_signed(&key))
            .map_err(|e| answer("the token signer's certificate", e))?;
        let signer =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &key.serialize_der())
                .map_err(|e| answer("the token signing key", e))?;
        let state = State {
            service: service.to_string(),
            user: user.to_string(),
            password: password.to_string(),
            signer,
            x5c: STANDARD.encode(cert.der()),
            serial: AtomicU64::new(0),
            requests: Mutex::new(Vec::new()),
            issued: Mutex::new(Vec::new()),
        };
        Ok((state, cert.pem()))
    }

    /// A JWT for `subject` granting `access`, signed ES256.
    fn sign(&self, subject: &str, access: Vec<serde_json::Value>) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        let serial = self.serial.fetch_add(1, Ordering::Relaxed);
        let header = serde_json::json!({"typ": "JWT", "alg": "ES256", "x5c": [self.x5c]});
        let claims = serde_json::json!({
            "iss": ISSUER,
            "sub": subject,
            "aud": self.service,
            "exp": now + LIFETIME,
            "nbf": now,
            "iat": now,
            "jti": format!("{now}-{serial}"),
            "access": access,
        });
        let signed = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .signer
            .sign(&SystemRandom::new(), signed.as_bytes())
            .map(|s| URL_SAFE_NO_PAD.encode(s.as_ref()))
            .unwrap_or_default();
        format!("{signed}.{signature}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A token request as a container host sends it (the query escaped), with `login`.
    fn ask(state: &State, login: Option<&str>) -> (StatusCode, serde_json::Value) {
        let mut request = Request::builder()
            .uri("/token?service=registry.example.com%3A5000&scope=repository%3Aokd%2Fx%3Apull");
        if let Some(login) = login {
            request = request.header(
                hyper::header::AUTHORIZATION,
                format!("Basic {}", STANDARD.encode(login)),
            );
        }
        let response = token_answer(state, &request.body(()).expect("request"));
        let status = response.status();
        let body = body_of(response);
        (status, serde_json::from_slice(&body).unwrap_or_default())
    }

    fn body_of(response: Response<Full<Bytes>>) -> Bytes {
        use http_body_util::BodyExt as _;
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
            .block_on(response.into_body().collect())
            .map(|c| c.to_bytes())
            .unwrap_or_default()
    }

    /// The claims of a JWT, its header's certificate, and its ES256 signature checked
    /// with that certificate's key.
    fn verified_claims(token: &str) -> serde_json::Value {
        let parts: Vec<&str> = token.split('.').collect();
        assert_eq!(parts.len(), 3, "{token}");
        let decode = |p: &str| URL_SAFE_NO_PAD.decode(p).expect("base64url");
        let header: serde_json::Value = serde_json::from_slice(&decode(parts[0])).unwrap();
        assert_eq!(header["alg"], "ES256");
        let der = STANDARD
            .decode(header["x5c"][0].as_str().expect("x5c"))
            .expect("x5c base64");
        let (_, cert) = x509_parser::parse_x509_certificate(&der).expect("x5c certificate");
        let key = aws_lc_rs::signature::UnparsedPublicKey::new(
            &aws_lc_rs::signature::ECDSA_P256_SHA256_FIXED,
            cert.public_key().subject_public_key.data.to_vec(),
        );
        key.verify(
            format!("{}.{}", parts[0], parts[1]).as_bytes(),
            &decode(parts[2]),
        )
        .expect("signature by the x5c certificate's key");
        serde_json::from_slice(&decode(parts[1])).unwrap()
    }

    /// The right login gets a signed token for pull on the repository, for the service;
    /// no login a token granting nothing; a wrong one 401 and no token.
    #[test]
    fn logins_get_what_a_token_service_gives() {
        let (state, _) = State::new("registry.example.com:5000", "u", "s3cret").expect("state");
        let (status, body) = ask(&state, Some("u:s3cret"));
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["token"], body["access_token"]);
        let claims = verified_claims(body["token"].as_str().expect("token"));
        assert_eq!(claims["aud"], "registry.example.com:5000");
        assert_eq!(claims["iss"], ISSUER);
        assert_eq!(
            claims["access"],
            serde_json::json!([{"type": "repository", "name": "okd/x", "actions": ["pull"]}])
        );
        let (status, body) = ask(&state, None);
        assert_eq!(status, StatusCode::OK);
        let claims = verified_claims(body["token"].as_str().expect("token"));
        assert_eq!(claims["access"], serde_json::json!([]));
        let (status, body) = ask(&state, Some("u:bad-guess"));
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(body.get("token").is_none(), "{body}");
        let requests = lock(&state.requests).clone();
        assert_eq!(requests.len(), 3, "{requests:?}");
        assert!(
            requests
                .iter()
                .all(|r| !r.contains("s3cret") && !r.contains("bad-guess")),
            "{requests:?}"
        );
    }

    #[test]
    fn only_pull_is_granted() {
        let grants = pull_grants(&[
            "repository:okd/x:pull,push",
            "repository:okd/y:push",
            "registry:catalog:*",
        ]);
        assert_eq!(
            grants,
            vec![serde_json::json!({"type": "repository", "name": "okd/x", "actions": ["pull"]})]
        );
    }
}
