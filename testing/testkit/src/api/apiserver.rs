//! A small Kubernetes API server over real TLS for testing the waits.
//!
//! What it does: TLS with the given serving certificate; REQUIRES a client certificate signed
//! by the given client CA (others fail the handshake with a TLS alert); `GET /version`; GET,
//! LIST and WATCH (`?watch=true`, `resourceVersion`, `fieldSelector=metadata.name=X`,
//! `timeoutSeconds`) of configmaps, nodes, `config.openshift.io/v1` clusterversions and
//! clusteroperators, `operator.openshift.io/v1` etcds, `route.openshift.io/v1` routes and
//! `certificates.k8s.io/v1` certificatesigningrequests. PATCH with
//! `application/merge-patch+json` (RFC 7386) of a named object: on the object itself it
//! merges everything but `status`; on the `status` or `approval` subresource (GET works there
//! too) it merges only `status`, so approving a CSR works as with `oc adm certificate
//! approve`. Every PATCH is kept, in order, for [`TestApiServer::patches`].
//! Watch events are JSON lines (`{"type":"ADDED","object":{...}}`); a watch from a
//! resourceVersion older than the last [`TestApiServer::compact`] gets an `ERROR` event with a
//! 410 `Expired` Status, as a real server does. Tests can drop all watch connections
//! mid-stream, stop and restart the server on the same port, force an HTTP status for every
//! request (401/403 tests), and script a timeline ("at t=N ms apply object X").
//!
//! What it leaves out: API discovery (`/api`, `/apis` group lists), authentication beyond the
//! client-certificate CA check, authorization, create/update/apply/delete over HTTP and
//! JSON or strategic-merge patches (tests change objects through [`TestApiServer::apply`]),
//! label selectors, field selectors other than `metadata.name`, pagination
//! (`limit`/`continue`), bookmarks, protobuf, HTTP/2, table output, and admission/validation
//! of object contents (a CSR approval is not checked against the signer, for example).

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{broadcast, watch};
use tokio::task::{JoinHandle, JoinSet};

type Body = UnsyncBoxBody<Bytes, io::Error>;

/// One resource type the server knows.
struct Res {
    plural: &'static str,
    /// `v1` or `group/version`.
    api_version: &'static str,
    kind: &'static str,
    namespaced: bool,
}

const RESOURCES: &[Res] = &[
    Res {
        plural: "configmaps",
        api_version: "v1",
        kind: "ConfigMap",
        namespaced: true,
    },
    Res {
        plural: "events",
        api_version: "v1",
        kind: "Event",
        namespaced: true,
    },
    Res {
        plural: "nodes",
        api_version: "v1",
        kind: "Node",
        namespaced: false,
    },
    Res {
        plural: "clusterversions",
        api_version: "config.openshift.io/v1",
        kind: "ClusterVersion",
        namespaced: false,
    },
    Res {
        plural: "clusteroperators",
        api_version: "config.openshift.io/v1",
        kind: "ClusterOperator",
        namespaced: false,
    },
    Res {
        plural: "etcds",
        api_version: "operator.openshift.io/v1",
        kind: "Etcd",
        namespaced: false,
    },
    Res {
        plural: "routes",
        api_version: "route.openshift.io/v1",
        kind: "Route",
        namespaced: true,
    },
    Res {
        plural: "certificatesigningrequests",
        api_version: "certificates.k8s.io/v1",
        kind: "CertificateSigningRequest",
        namespaced: false,
    },
];

/// (plural, namespace or "", name)
type Key = (String, String, String);

#[derive(Clone, Debug)]
struct Change {
    rv: u64,
    key: Key,
    kind: &'static str,
    object: Value,
}

#[derive(Default)]
struct Store {
    rv: u64,
    objects: BTreeMap<Key, Value>,
    history: Vec<Change>,
    /// Watches from a resourceVersion below this get 410 Gone.
    oldest: u64,
}

/// A scripted change, see [`TestApiServer::timeline`].
#[derive(Debug, Clone)]
pub enum Action {
    /// Create or replace an object (JSON with apiVersion, kind, metadata.name).
    Apply(Value),
    /// Delete `plural`, `namespace` (empty for cluster-scoped), `name`.
    Delete(String, String, String),
    /// Cut every open watch connection without a clean end.
    DropWatches,
    /// Forget history: older resourceVersions now get 410 Gone.
    Compact,
    /// Stop listening and close every connection.
    Stop,
    /// Listen again on the same port.
    Start,
}

/// One PATCH request the server received.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchRequest {
    /// The request path, e.g. `/apis/operator.openshift.io/v1/etcds/cluster`.
    pub path: String,
    /// The `content-type` header.
    pub content_type: String,
    /// The body, parsed as JSON (`Value::Null` if it was not JSON).
    pub body: Value,
}

struct Inner {
    port: u16,
    tls: Arc<rustls::ServerConfig>,
    store: Mutex<Store>,
    patches: Mutex<Vec<PatchRequest>>,
    changes: broadcast::Sender<Change>,
    drop_watches: watch::Sender<u64>,
    forced_status: Mutex<Option<u16>>,
    running: tokio::sync::Mutex<Option<Running>>,
}

struct Running {
    accept: JoinHandle<()>,
    conns: Arc<Mutex<JoinSet<()>>>,
}

/// Handle to the server; clones share it.
#[derive(Clone)]
pub struct TestApiServer {
    inner: Arc<Inner>,
}

fn server_tls(cert_chain_pem: &str, key_pem: &str, client_ca_pem: &str) -> rustls::ServerConfig {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_slice_iter(client_ca_pem.as_bytes()) {
        roots.add(c.expect("client CA PEM")).expect("client CA");
    }
    let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .expect("client verifier");
    let chain: Vec<CertificateDer<'static>> =
        CertificateDer::pem_slice_iter(cert_chain_pem.as_bytes())
            .collect::<Result<_, _>>()
            .expect("serving cert PEM");
    let key = PrivateKeyDer::from_pem_slice(key_pem.as_bytes()).expect("serving key PEM");
    rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain, key)
        .expect("serving cert and key")
}

impl TestApiServer {
    /// Reserve a port on 127.0.0.1 without listening yet (for "the API comes up later").
    pub async fn stopped(
        cert_chain_pem: &str,
        key_pem: &str,
        client_ca_pem: &str,
    ) -> TestApiServer {
        let probe = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = probe.local_addr().expect("addr").port();
        drop(probe);
        let (changes, _) = broadcast::channel(1024);
        TestApiServer {
            inner: Arc::new(Inner {
                port,
                tls: Arc::new(server_tls(cert_chain_pem, key_pem, client_ca_pem)),
                store: Mutex::new(Store::default()),
                patches: Mutex::new(Vec::new()),
                changes,
                drop_watches: watch::channel(0).0,
                forced_status: Mutex::new(None),
                running: tokio::sync::Mutex::new(None),
            }),
        }
    }

    /// Start serving on a fresh port.
    pub async fn start(cert_chain_pem: &str, key_pem: &str, client_ca_pem: &str) -> TestApiServer {
        let s = Self::stopped(cert_chain_pem, key_pem, client_ca_pem).await;
        s.listen().await.expect("listen");
        s
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.inner.port
    }

    /// `https://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.inner.port)
    }

    /// (Re)start listening on the same port.
    pub async fn listen(&self) -> io::Result<()> {
        let mut running = self.inner.running.lock().await;
        if running.is_some() {
            return Ok(());
        }
        let listener = TcpListener::bind(("127.0.0.1", self.inner.port)).await?;
        let conns = Arc::new(Mutex::new(JoinSet::new()));
        let inner = self.inner.clone();
        let conns2 = conns.clone();
        let accept = tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let inner = inner.clone();
                let mut set = conns2.lock().expect("conns");
                while set.try_join_next().is_some() {}
                set.spawn(serve_connection(inner, tcp));
            }
        });
        *running = Some(Running { accept, conns });
        Ok(())
    }

    /// Stop listening and close every connection (watches end abruptly).
    pub async fn stop(&self) {
        if let Some(r) = self.inner.running.lock().await.take() {
            r.accept.abort();
            let _ = r.accept.await;
            r.conns.lock().expect("conns").abort_all();
        }
    }

    /// Answer every request with this HTTP status (e.g. 401) instead of serving it.
    pub fn force_status(&self, status: Option<u16>) {
        *self.inner.forced_status.lock().expect("status") = status;
    }

    /// Every PATCH received so far, oldest first.
    pub fn patches(&self) -> Vec<PatchRequest> {
        self.inner.patches.lock().expect("patches").clone()
    }

    /// The stored object `plural`/`namespace` (empty for cluster-scoped)/`name`, if any.
    pub fn object(&self, plural: &str, namespace: &str, name: &str) -> Option<Value> {
        let key = (plural.to_string(), namespace.to_string(), name.to_string());
        self.inner
            .store
            .lock()
            .expect("store")
            .objects
            .get(&key)
            .cloned()
    }

    /// Create or replace an object; bumps the resourceVersion and notifies watches.
    pub fn apply(&self, mut object: Value) {
        let res = resource_of(&object);
        let name = object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .expect("metadata.name")
            .to_string();
        let ns = if res.namespaced {
            object
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                .unwrap_or("default")
                .to_string()
        } else {
            String::new()
        };
        let key = (res.plural.to_string(), ns, name);
        let mut store = self.inner.store.lock().expect("store");
        store.rv += 1;
        let rv = store.rv;
        object["metadata"]["resourceVersion"] = Value::String(rv.to_string());
        object["metadata"]["uid"] = Value::String(format!("uid-{}-{}", key.0, key.2));
        let kind = if store.objects.contains_key(&key) {
            "MODIFIED"
        } else {
            "ADDED"
        };
        store.objects.insert(key.clone(), object.clone());
        self.record(
            &mut store,
            Change {
                rv,
                key,
                kind,
                object,
            },
        );
    }

    /// Delete an object if present.
    pub fn delete(&self, plural: &str, namespace: &str, name: &str) {
        let key = (plural.to_string(), namespace.to_string(), name.to_string());
        let mut store = self.inner.store.lock().expect("store");
        if let Some(mut object) = store.objects.remove(&key) {
            store.rv += 1;
            let rv = store.rv;
            object["metadata"]["resourceVersion"] = Value::String(rv.to_string());
            self.record(
                &mut store,
                Change {
                    rv,
                    key,
                    kind: "DELETED",
                    object,
                },
            );
        }
    }

    fn record(&self, store: &mut Store, change: Change) {
        store.history.push(change.clone());
        let _ = self.inner.changes.send(change);
    }

    /// Forget history; watches from older resourceVersions get 410 Gone.
    pub fn compact(&self) {
        let mut store = self.inner.store.lock().expect("store");
        store.oldest = store.rv;
        store.history.clear();
    }

    /// Cut every open watch connection mid-stream.
    pub fn drop_watches(&self) {
        self.inner.drop_watches.send_modify(|g| *g += 1);
    }

    /// Run `steps` (milliseconds from now, action) in the background.
    pub fn timeline(&self, steps: Vec<(u64, Action)>) -> JoinHandle<()> {
        let server = self.clone();
        tokio::spawn(async move {
            let t0 = tokio::time::Instant::now();
            for (at, action) in steps {
                tokio::time::sleep_until(t0 + Duration::from_millis(at)).await;
                server.act(action).await;
            }
        })
    }

    /// Perform one action now.
    pub async fn act(&self, action: Action) {
        match action {
            Action::Apply(o) => self.apply(o),
            Action::Delete(p, ns, n) => self.delete(&p, &ns, &n),
            Action::DropWatches => self.drop_watches(),
            Action::Compact => self.compact(),
            Action::Stop => self.stop().await,
            Action::Start => self.listen().await.expect("restart on the same port"),
        }
    }
}

fn resource_of(object: &Value) -> &'static Res {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let kind = object["kind"].as_str().unwrap_or_default();
    RESOURCES
        .iter()
        .find(|r| r.api_version == api_version && r.kind == kind)
        .unwrap_or_else(|| panic!("test API server does not serve {api_version} {kind}"))
}

async fn serve_connection(inner: Arc<Inner>, tcp: tokio::net::TcpStream) {
    let acceptor = tokio_rustls::TlsAcceptor::from(inner.tls.clone());
    // A rejected client certificate fails here; rustls has already sent the alert.
    let Ok(tls) = acceptor.accept(tcp).await else {
        return;
    };
    let service = hyper::service::service_fn(move |req| {
        let inner = inner.clone();
        async move { Ok::<_, Infallible>(handle(&inner, req).await) }
    });
    let _ = hyper::server::conn::http1::Builder::new()
        .serve_connection(TokioIo::new(tls), service)
        .await;
}

fn full(status: StatusCode, body: Value) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(
            Full::new(Bytes::from(body.to_string()))
                .map_err(|never| match never {})
                .boxed_unsync(),
        )
        .expect("response")
}

fn status_body(code: u16, reason: &str, message: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
           "message": message, "reason": reason, "code": code})
}

fn error(code: u16, reason: &str, message: &str) -> Response<Body> {
    full(
        StatusCode::from_u16(code).expect("status"),
        status_body(code, reason, message),
    )
}

/// The parsed request path: resource, namespace, optional name and subresource.
struct Target {
    res: &'static Res,
    namespace: String,
    name: Option<String>,
    subresource: Option<String>,
}

fn parse_path(path: &str) -> Option<Target> {
    let (api_version, rest) = if let Some(rest) = path.strip_prefix("/api/v1/") {
        ("v1".to_string(), rest)
    } else {
        let rest = path.strip_prefix("/apis/")?;
        let mut it = rest.splitn(3, '/');
        let (g, v, rest) = (it.next()?, it.next()?, it.next()?);
        (format!("{g}/{v}"), rest)
    };
    let segs: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
    let (namespace, segs) = match segs.as_slice() {
        ["namespaces", ns, tail @ ..] if !tail.is_empty() => (ns.to_string(), tail.to_vec()),
        _ => (String::new(), segs),
    };
    let (plural, name, subresource) = match segs.as_slice() {
        [p] => (*p, None, None),
        [p, n] => (*p, Some(n.to_string()), None),
        [p, n, sub @ ("status" | "approval")] => (*p, Some(n.to_string()), Some(sub.to_string())),
        _ => return None,
    };
    let res = RESOURCES
        .iter()
        .find(|r| r.plural == plural && r.api_version == api_version)?;
    if res.namespaced == namespace.is_empty() && name.is_some() {
        return None;
    }
    Some(Target {
        res,
        namespace,
        name,
        subresource,
    })
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => out.push(b),
                    Err(_) => out.extend_from_slice(&bytes[i..i + 3]),
                }
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).to_string()
}

fn query(req: &Request<Incoming>) -> BTreeMap<String, String> {
    req.uri()
        .query()
        .unwrap_or_default()
        .split('&')
        .filter_map(|kv| kv.split_once('=').or(Some((kv, ""))))
        .filter(|(k, _)| !k.is_empty())
        .map(|(k, v)| (percent_decode(k), percent_decode(v)))
        .collect()
}

fn version() -> Value {
    json!({"major": "1", "minor": "34", "gitVersion": "v1.34.1-okd-test",
           "gitCommit": "0000000000000000000000000000000000000000", "gitTreeState": "clean",
           "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.24", "compiler": "gc",
           "platform": "linux/amd64"})
}

async fn handle(inner: &Arc<Inner>, req: Request<Incoming>) -> Response<Body> {
    if let Some(code) = *inner.forced_status.lock().expect("status") {
        let reason = if code == 401 {
            "Unauthorized"
        } else {
            "Forbidden"
        };
        return error(code, reason, "forced by the test");
    }
    let path = req.uri().path().to_string();
    let method = req.method().clone();
    if method != hyper::Method::GET && method != hyper::Method::PATCH {
        return error(
            405,
            "MethodNotAllowed",
            "the test API server only serves GET and PATCH",
        );
    }
    if path == "/version" && method == hyper::Method::GET {
        return full(StatusCode::OK, version());
    }
    let Some(target) = parse_path(&path) else {
        return error(
            404,
            "NotFound",
            &format!("the server could not find {path}"),
        );
    };
    if method == hyper::Method::PATCH {
        return patch(inner, &target, path, req).await;
    }
    if target.subresource.is_some() {
        // GET of a subresource answers with the whole object, as the real server does.
        return get_named(inner, &target);
    }
    let q = query(&req);
    let name_filter = q
        .get("fieldSelector")
        .and_then(|f| f.strip_prefix("metadata.name="))
        .map(str::to_string)
        .or_else(|| target.name.clone());
    if matches!(q.get("watch").map(String::as_str), Some("true" | "1")) {
        return watch_response(inner, &target, name_filter, &q);
    }
    if target.name.is_some() {
        return get_named(inner, &target);
    }
    let store = inner.store.lock().expect("store");
    let items: Vec<Value> = store
        .objects
        .iter()
        .filter(|(k, _)| matches_key(k, &target, name_filter.as_deref()))
        .map(|(_, v)| v.clone())
        .collect();
    full(
        StatusCode::OK,
        json!({
        "kind": format!("{}List", target.res.kind), "apiVersion": target.res.api_version,
        "metadata": {"resourceVersion": store.rv.to_string()}, "items": items}),
    )
}

fn key_of(target: &Target) -> Option<Key> {
    let name = target.name.clone()?;
    Some((
        target.res.plural.to_string(),
        target.namespace.clone(),
        name,
    ))
}

fn not_found(target: &Target) -> Response<Body> {
    let name = target.name.as_deref().unwrap_or_default();
    error(
        404,
        "NotFound",
        &format!("{} \"{name}\" not found", target.res.plural),
    )
}

fn get_named(inner: &Arc<Inner>, target: &Target) -> Response<Body> {
    let store = inner.store.lock().expect("store");
    match key_of(target).and_then(|k| store.objects.get(&k).cloned()) {
        Some(o) => full(StatusCode::OK, o),
        None => not_found(target),
    }
}

/// RFC 7386 JSON merge patch: objects merge key by key, `null` deletes, anything else
/// replaces.
fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(fields) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = json!({});
    }
    let map = target.as_object_mut().expect("object");
    for (key, value) in fields {
        if value.is_null() {
            map.remove(key);
        } else {
            merge_patch(map.entry(key.clone()).or_insert(Value::Null), value);
        }
    }
}

/// A merge patch of a named object (everything but `status`) or of its `status` /
/// `approval` subresource (only `status`); recorded for [`TestApiServer::patches`].
async fn patch(
    inner: &Arc<Inner>,
    target: &Target,
    path: String,
    req: Request<Incoming>,
) -> Response<Body> {
    let content_type = req
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let bytes = match req.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => return error(400, "BadRequest", &format!("reading the body: {e}")),
    };
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    inner.patches.lock().expect("patches").push(PatchRequest {
        path,
        content_type: content_type.clone(),
        body: body.clone(),
    });
    if content_type != "application/merge-patch+json" {
        return error(
            415,
            "UnsupportedMediaType",
            &format!("the test API server only applies merge patches, not {content_type}"),
        );
    }
    let Some(mut object) =
        key_of(target).and_then(|k| inner.store.lock().expect("store").objects.get(&k).cloned())
    else {
        return not_found(target);
    };
    let mut body = body;
    match (&target.subresource, body.as_object_mut()) {
        (Some(_), Some(fields)) => fields.retain(|k, _| k == "status"),
        (None, Some(fields)) => {
            fields.remove("status");
        }
        (_, None) => return error(400, "BadRequest", "a merge patch must be a JSON object"),
    }
    merge_patch(&mut object, &body);
    let server = TestApiServer {
        inner: inner.clone(),
    };
    server.apply(object);
    get_named(inner, target)
}

fn matches_key(k: &Key, target: &Target, name: Option<&str>) -> bool {
    k.0 == target.res.plural
        && (target.namespace.is_empty() || k.1 == target.namespace)
        && name.is_none_or(|n| k.2 == n)
}

fn line(kind: &str, object: &Value) -> Bytes {
    let mut s = json!({"type": kind, "object": object}).to_string();
    s.push('\n');
    Bytes::from(s)
}

/// Build the initial events and a live stream for one watch request.
fn watch_response(
    inner: &Arc<Inner>,
    target: &Target,
    name: Option<String>,
    q: &BTreeMap<String, String>,
) -> Response<Body> {
    let from: Option<u64> = q
        .get("resourceVersion")
        .and_then(|v| v.parse().ok())
        .filter(|v| *v > 0);
    let timeout = q
        .get("timeoutSeconds")
        .and_then(|t| t.parse().ok())
        .map_or(Duration::from_secs(300), Duration::from_secs);
    let store = inner.store.lock().expect("store");
    let live = inner.changes.subscribe();
    let mut initial = Vec::new();
    let mut last = store.rv;
    let target_match = |k: &Key| matches_key(k, target, name.as_deref());
    match from {
        Some(rv) if rv < store.oldest => {
            let msg = format!("too old resource version: {rv} ({})", store.oldest);
            initial.push(line("ERROR", &status_body(410, "Expired", &msg)));
            last = u64::MAX;
        }
        Some(rv) => {
            initial.extend(
                store
                    .history
                    .iter()
                    .filter(|c| c.rv > rv && target_match(&c.key))
                    .map(|c| line(c.kind, &c.object)),
            );
        }
        None => initial.extend(
            store
                .objects
                .iter()
                .filter(|(k, _)| target_match(k))
                .map(|(_, o)| line("ADDED", o)),
        ),
    }
    drop(store);
    let filter = {
        let plural = target.res.plural.to_string();
        let ns = target.namespace.clone();
        move |c: &Change| {
            c.key.0 == plural
                && (ns.is_empty() || c.key.1 == ns)
                && name.as_deref().is_none_or(|n| c.key.2 == n)
        }
    };
    let body = event_stream(
        initial,
        last,
        live,
        inner.drop_watches.subscribe(),
        timeout,
        filter,
    );
    Response::builder()
        .status(StatusCode::OK)
        .header("content-type", "application/json")
        .body(body)
        .expect("response")
}

struct WatchState<F> {
    initial: std::vec::IntoIter<Bytes>,
    after: u64,
    live: broadcast::Receiver<Change>,
    dropped: watch::Receiver<u64>,
    deadline: tokio::time::Instant,
    filter: F,
}

/// Initial lines, then live changes after `after`; an error frame when watches are dropped
/// (hyper then cuts the connection without the final chunk); a clean end at the timeout or
/// after an ERROR (410) event.
fn event_stream<F>(
    initial: Vec<Bytes>,
    after: u64,
    live: broadcast::Receiver<Change>,
    mut dropped: watch::Receiver<u64>,
    timeout: Duration,
    filter: F,
) -> Body
where
    F: Fn(&Change) -> bool + Send + Sync + 'static,
{
    dropped.mark_unchanged();
    let expired = after == u64::MAX;
    let state = WatchState {
        initial: initial.into_iter(),
        after,
        live,
        dropped,
        deadline: tokio::time::Instant::now() + timeout,
        filter,
    };
    let stream = futures::stream::unfold((state, expired), |(mut st, expired)| async move {
        if let Some(b) = st.initial.next() {
            return Some((Ok(Frame::data(b)), (st, expired)));
        }
        if expired {
            return None;
        }
        loop {
            tokio::select! {
                _ = st.dropped.changed() => {
                    return Some((Err(io::Error::other("watch dropped by the test")), (st, true)));
                }
                () = tokio::time::sleep_until(st.deadline) => return None,
                change = st.live.recv() => match change {
                    Ok(c) if c.rv > st.after && (st.filter)(&c) => {
                        st.after = c.rv;
                        return Some((Ok(Frame::data(line(c.kind, &c.object))), (st, false)));
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
            }
        }
    });
    BodyExt::boxed_unsync(StreamBody::new(stream.boxed()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_to_resources() {
        let t = parse_path("/api/v1/namespaces/kube-system/configmaps/bootstrap").expect("cm");
        assert_eq!(
            (t.res.plural, t.namespace.as_str(), t.name.as_deref()),
            ("configmaps", "kube-system", Some("bootstrap"))
        );
        let t = parse_path("/apis/config.openshift.io/v1/clusteroperators").expect("list");
        assert_eq!((t.res.plural, t.name), ("clusteroperators", None));
        assert!(parse_path("/apis/config.openshift.io/v2/clusteroperators").is_none());
        assert!(
            parse_path("/api/v1/configmaps/x").is_none(),
            "namespaced get needs a namespace"
        );
    }

    #[test]
    fn subresource_paths_parse() {
        let t = parse_path("/apis/certificates.k8s.io/v1/certificatesigningrequests/c1/approval")
            .expect("approval");
        assert_eq!(
            (t.res.plural, t.name.as_deref(), t.subresource.as_deref()),
            ("certificatesigningrequests", Some("c1"), Some("approval"))
        );
        assert!(parse_path("/api/v1/nodes/n1/proxy").is_none());
    }

    #[test]
    fn merge_patch_follows_rfc_7386() {
        let mut doc = json!({"a": "b", "c": {"d": "e", "f": "g"}, "keep": [1]});
        merge_patch(
            &mut doc,
            &json!({"a": "z", "c": {"f": null}, "new": {"x": 1}, "keep": [2]}),
        );
        assert_eq!(
            doc,
            json!({"a": "z", "c": {"d": "e"}, "new": {"x": 1}, "keep": [2]})
        );
        let mut spec = json!({"spec": {"unsupportedConfigOverrides": {"k": true}, "m": "Managed"}});
        merge_patch(
            &mut spec,
            &json!({"spec": {"unsupportedConfigOverrides": null}}),
        );
        assert_eq!(spec, json!({"spec": {"m": "Managed"}}));
    }

    #[test]
    fn query_values_are_percent_decoded() {
        assert_eq!(
            percent_decode("metadata.name%3Dbootstrap"),
            "metadata.name=bootstrap"
        );
        assert_eq!(percent_decode("a+b%2"), "a b%2");
    }
}
