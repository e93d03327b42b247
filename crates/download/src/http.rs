//! One GET, from a byte offset, following redirects (mirrors answer with one).

use std::sync::Arc;

use http_body_util::Empty;
use hyper::body::{Bytes, Incoming};
use hyper::header::{LOCATION, RANGE};
use hyper::{Request, Response, StatusCode, Uri};
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::Client as LegacyClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

use crate::DownloadError;

/// HTTP and HTTPS; HTTPS verified against the system's CA certificates.
pub(crate) type Client = LegacyClient<HttpsConnector<HttpConnector>, Empty<Bytes>>;

/// The most redirects followed for one request.
const MAX_REDIRECTS: usize = 10;

/// A client on rustls with the aws-lc-rs provider given explicitly, so no process-wide
/// default provider has to be installed first.
pub(crate) fn client() -> Result<Client, DownloadError> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let https = HttpsConnectorBuilder::new()
        .with_provider_and_native_roots(provider)
        .map_err(DownloadError::Tls)?
        .https_or_http()
        .enable_http1()
        .build();
    Ok(LegacyClient::builder(TokioExecutor::new()).build(https))
}

/// An http or https URL, or why not.
pub(crate) fn parse(url: &str) -> Result<Uri, DownloadError> {
    let bad = |reason: &str| DownloadError::BadUrl {
        url: url.to_string(),
        reason: reason.to_string(),
    };
    let uri: Uri = url.parse().map_err(|_| bad("not a URL"))?;
    match uri.scheme_str() {
        Some("http" | "https") if uri.host().is_some() => Ok(uri),
        Some("http" | "https") => Err(bad("no host")),
        _ => Err(bad("only http:// and https:// URLs are downloaded")),
    }
}

/// What a request ended with, short of a usable response.
#[derive(Debug)]
pub(crate) enum RequestError {
    /// Worth another attempt (connection refused or cut, 5xx, timeouts).
    Transient(Box<dyn std::error::Error + Send + Sync>),
    /// Not worth one.
    Fatal(DownloadError),
}

/// GETs `uri`, from byte `from` when it is not 0; returns the final URI and its response.
pub(crate) async fn get(
    client: &Client,
    uri: Uri,
    from: u64,
) -> Result<(Uri, Response<Incoming>), RequestError> {
    let mut uri = uri;
    for _ in 0..=MAX_REDIRECTS {
        let mut request = Request::get(uri.clone());
        if from > 0 {
            request = request.header(RANGE, format!("bytes={from}-"));
        }
        let request = request
            .body(Empty::new())
            .map_err(|e| RequestError::Transient(e.into()))?;
        let response = client
            .request(request)
            .await
            .map_err(|e| match tls_refusal(&e) {
                Some(reason) => RequestError::Fatal(DownloadError::Untrusted {
                    url: uri.to_string(),
                    reason,
                }),
                None => RequestError::Transient(e.into()),
            })?;
        if !response.status().is_redirection() {
            return Ok((uri, response));
        }
        uri = redirect_target(&uri, &response)?;
    }
    Err(RequestError::Fatal(DownloadError::BadUrl {
        url: uri.to_string(),
        reason: format!("more than {MAX_REDIRECTS} redirects"),
    }))
}

/// The TLS verdict inside a failed request (a certificate no trusted CA signed, a name it
/// does not cover, ...): retrying cannot change it. hyper wraps it in `io::Error`s, whose
/// `source` skips the error they hold, so each one is opened with `get_ref`.
fn tls_refusal(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut next = Some(error);
    while let Some(e) = next {
        if let Some(tls) = e.downcast_ref::<rustls::Error>() {
            return Some(tls.to_string());
        }
        next = match e.downcast_ref::<std::io::Error>() {
            Some(io) => io.get_ref().map(|inner| inner as _),
            None => e.source(),
        };
    }
    None
}

/// Where a redirect points, resolved against the URI that answered it.
fn redirect_target(base: &Uri, response: &Response<Incoming>) -> Result<Uri, RequestError> {
    let fatal = |reason: &str| {
        RequestError::Fatal(DownloadError::BadUrl {
            url: base.to_string(),
            reason: reason.to_string(),
        })
    };
    let location = response
        .headers()
        .get(LOCATION)
        .and_then(|l| l.to_str().ok())
        .ok_or_else(|| fatal("a redirect without a Location"))?;
    let target = resolve(base, location);
    parse(&target).map_err(RequestError::Fatal)
}

/// `location` (absolute, host-relative or path-relative) against `base`.
fn resolve(base: &Uri, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let scheme = base.scheme_str().unwrap_or("https");
    let authority = base.authority().map(|a| a.as_str()).unwrap_or_default();
    if let Some(rest) = location.strip_prefix("//") {
        return format!("{scheme}://{rest}");
    }
    if location.starts_with('/') {
        return format!("{scheme}://{authority}{location}");
    }
    let dir = base.path().rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    format!("{scheme}://{authority}{dir}/{location}")
}

/// Statuses worth another attempt.
pub(crate) fn is_transient(status: StatusCode) -> bool {
    status.is_server_error()
        || status == StatusCode::REQUEST_TIMEOUT
        || status == StatusCode::TOO_MANY_REQUESTS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_resolve_like_a_browser() {
        let base: Uri = "https://m.example/a/b/file.iso".parse().unwrap();
        assert_eq!(resolve(&base, "https://cdn/x"), "https://cdn/x");
        assert_eq!(resolve(&base, "//cdn/x"), "https://cdn/x");
        assert_eq!(resolve(&base, "/x/y"), "https://m.example/x/y");
        assert_eq!(resolve(&base, "y.iso"), "https://m.example/a/b/y.iso");
    }

    #[test]
    fn only_http_urls_with_a_host_are_fetched() {
        assert!(parse("https://h/x").is_ok());
        assert!(parse("http://127.0.0.1:8/x").is_ok());
        assert!(matches!(
            parse("ftp://h/x"),
            Err(DownloadError::BadUrl { .. })
        ));
        assert!(matches!(parse("/tmp/x"), Err(DownloadError::BadUrl { .. })));
    }
}
