//! What a pull fetches after the manifest it asks for first: for a manifest list (or OCI
//! index) the bootstrap host's platform's manifest, and for the image manifest its config
//! and every layer. A mirror left incomplete serves the manifest and lacks a layer; the host
//! finds out when it fetches that layer, so the preflight asks for each blob too.
//!
//! Manifests are fetched whole, as the host fetches them, and checked against the digest
//! they are pulled by. Blobs are asked with `HEAD` (the registry's redirects followed, as
//! the host follows them for a `GET`): their bytes are not fetched, so a blob whose stored
//! bytes are damaged, but whose size and digest header are right, is seen only by a pull.

use std::sync::{Arc, PoisonError};

use contract::registry_error::RegistryFault;
use hyper::{Method, StatusCode};
use sha2::{Digest as _, Sha256};

use crate::{Failure, ImageRef, MAX_SMALL_BODY, Pin, Prober, Target};

/// The bootstrap host's platform, which picks its manifest from a list.
pub const PLATFORM: (&str, &str) = ("linux", "amd64");
/// Redirects followed for one blob before giving up, as Go's HTTP client does.
const MAX_REDIRECTS: usize = 10;

/// Manifest lists and OCI indexes: one manifest per platform.
const LIST_TYPES: &[&str] = &[
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
];
/// Image manifests: a config and layers.
const IMAGE_TYPES: &[&str] = &[
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
];

/// One blob a pull fetches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blob {
    /// `sha256:...`.
    pub digest: String,
    /// Its size as the manifest gives it.
    pub size: Option<u64>,
}

/// An image as the host's pull resolves it: the platform's manifest and its blobs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contents {
    /// The image manifest the host pulls (the platform's, when the reference names a list).
    pub manifest: ImageRef,
    /// Its parsed body.
    pub json: serde_json::Value,
    /// The config first, then the layers in order.
    pub blobs: Vec<Blob>,
}

impl Prober {
    /// The manifests a pull of `image` fetches, checked against their digests, and the
    /// blobs it would fetch next.
    pub async fn contents(&self, image: &ImageRef) -> Result<Contents, Failure> {
        let json = self.checked_manifest(image).await?;
        if json["manifests"].is_array() {
            let chosen = platform_entry(&json).ok_or_else(|| platform_missing(image, &json))?;
            let one = ImageRef {
                pin: Pin::Digest(chosen),
                ..image.clone()
            };
            let inner = self.checked_manifest(&one).await?;
            if inner["manifests"].is_array() {
                return Err(unsupported(&one, "a manifest list inside a manifest list"));
            }
            return Ok(Contents {
                blobs: blobs_of(&inner),
                json: inner,
                manifest: one,
            });
        }
        Ok(Contents {
            blobs: blobs_of(&json),
            json,
            manifest: image.clone(),
        })
    }

    /// `GET` of a manifest: served, by digest when pinned so, of a type a host pulls.
    async fn checked_manifest(&self, image: &ImageRef) -> Result<serde_json::Value, Failure> {
        let (media, body) = self.manifest(image).await?;
        if let Pin::Digest(d) = &image.pin
            && let Some(hex) = d.strip_prefix("sha256:")
        {
            let got = format!("{:x}", Sha256::digest(&body));
            if got != hex {
                return Err(Failure::new(
                    &image.registry,
                    Some(RegistryFault::DigestMismatch),
                    Some(format!(
                        "the manifest it served for {image} has digest sha256:{got}"
                    )),
                ));
            }
        }
        let json: serde_json::Value = serde_json::from_slice(&body).map_err(|e| {
            Failure::new(
                &image.registry,
                None,
                Some(format!(
                    "served a manifest for {image} that is not JSON: {e}"
                )),
            )
        })?;
        let media = media
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        let declared = json["mediaType"].as_str().unwrap_or_default();
        let known = |t: &str| LIST_TYPES.contains(&t) || IMAGE_TYPES.contains(&t);
        let is_docker_v1 = media.starts_with("application/vnd.docker.distribution.manifest.v1");
        if known(&media)
            || is_docker_v1
            || (media.is_empty() || media == "application/json")
                && (known(declared) || json["schemaVersion"] == 2)
        {
            return Ok(json);
        }
        Err(unsupported(image, &format!("media type `{media}`")))
    }

    /// Whether the registry holds `blob` of `image`'s repository: asked once per registry,
    /// repository and digest however many images share it.
    pub async fn blob_present(&self, image: &ImageRef, blob: &Blob) -> Result<(), Failure> {
        let key = (
            image.registry.clone(),
            image.repository.clone(),
            blob.digest.clone(),
        );
        let cell = self
            .blobs
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key)
            .or_default()
            .clone();
        let cell: Arc<_> = cell;
        cell.get_or_init(|| self.head_blob(image, blob))
            .await
            .clone()
    }

    /// `HEAD` of a blob, following the registry's redirects (to its storage, or to itself).
    async fn head_blob(&self, image: &ImageRef, blob: &Blob) -> Result<(), Failure> {
        let path = format!("/v2/{}/blobs/{}", image.repository, blob.digest);
        let target = Target::Blob(&blob.digest);
        let mut answer = self
            .authorized(image, Method::HEAD, &path, MAX_SMALL_BODY)
            .await?;
        let mut hops = 0;
        while answer.status.is_redirection() && answer.status != StatusCode::NOT_MODIFIED {
            hops += 1;
            let location = crate::header(&answer.headers, hyper::header::LOCATION);
            let Some(location) = location.filter(|_| hops <= MAX_REDIRECTS) else {
                return Err(Failure::new(
                    &image.registry,
                    None,
                    Some(match hops > MAX_REDIRECTS {
                        true => format!(
                            "redirected blob {} more than {MAX_REDIRECTS} times",
                            blob.digest
                        ),
                        false => format!("redirected blob {} without a location", blob.digest),
                    }),
                ));
            };
            answer = match location.strip_prefix('/') {
                Some(_) => {
                    self.authorized(image, Method::HEAD, &location, MAX_SMALL_BODY)
                        .await?
                }
                None => {
                    self.fetch_url(&image.registry, Method::HEAD, &location, None, 0)
                        .await?
                }
            };
        }
        self.judge(image, &answer, target)?;
        let said_digest = crate::header(
            &answer.headers,
            hyper::header::HeaderName::from_static("docker-content-digest"),
        );
        let said_size = crate::header(&answer.headers, hyper::header::CONTENT_LENGTH)
            .and_then(|s| s.parse::<u64>().ok());
        let mismatch = |what: String| {
            Err(Failure::new(
                &image.registry,
                Some(RegistryFault::DigestMismatch),
                Some(what),
            ))
        };
        if let Some(d) = said_digest.filter(|d| *d != blob.digest) {
            return mismatch(format!(
                "it names blob {} of {} {d}",
                blob.digest,
                image.name()
            ));
        }
        match (said_size, blob.size) {
            (Some(got), Some(want)) if got != want => mismatch(format!(
                "blob {} of {} is {got} bytes there, the manifest says {want}",
                blob.digest,
                image.name()
            )),
            _ => Ok(()),
        }
    }
}

/// The digest of the platform's entry of a manifest list, as the host picks it.
fn platform_entry(list: &serde_json::Value) -> Option<String> {
    list["manifests"]
        .as_array()?
        .iter()
        .find(|m| m["platform"]["os"] == PLATFORM.0 && m["platform"]["architecture"] == PLATFORM.1)
        .and_then(|m| m["digest"].as_str())
        .map(str::to_string)
}

fn platform_missing(image: &ImageRef, list: &serde_json::Value) -> Failure {
    let offered: Vec<String> = list["manifests"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            format!(
                "{}/{}",
                m["platform"]["os"].as_str().unwrap_or("?"),
                m["platform"]["architecture"].as_str().unwrap_or("?")
            )
        })
        .collect();
    Failure::new(
        &image.registry,
        Some(RegistryFault::PlatformMissing),
        Some(format!(
            "the manifest list of {image} has no {}/{} image, only {}",
            PLATFORM.0,
            PLATFORM.1,
            if offered.is_empty() {
                "none".to_string()
            } else {
                offered.join(", ")
            }
        )),
    )
}

fn unsupported(image: &ImageRef, what: &str) -> Failure {
    Failure::new(
        &image.registry,
        Some(RegistryFault::UnsupportedMediaType),
        Some(format!("it served {what} for {image}")),
    )
}

/// The config and layers of an image manifest (schema 2 and OCI; schema 1's `fsLayers`).
fn blobs_of(manifest: &serde_json::Value) -> Vec<Blob> {
    let descriptor = |d: &serde_json::Value| {
        Some(Blob {
            digest: d["digest"].as_str()?.to_string(),
            size: d["size"].as_u64(),
        })
    };
    let mut out: Vec<Blob> = Vec::new();
    out.extend(descriptor(&manifest["config"]));
    for layer in manifest["layers"].as_array().into_iter().flatten() {
        out.extend(descriptor(layer));
    }
    for layer in manifest["fsLayers"].as_array().into_iter().flatten() {
        if let Some(d) = layer["blobSum"].as_str() {
            out.push(Blob {
                digest: d.to_string(),
                size: None,
            });
        }
    }
    out.dedup_by(|a, b| a.digest == b.digest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_platforms_entry_is_picked_and_its_absence_named_with_what_is_there() {
        let list = serde_json::json!({"manifests": [
            {"digest": "sha256:a", "platform": {"os": "linux", "architecture": "arm64"}},
            {"digest": "sha256:b", "platform": {"os": "linux", "architecture": "amd64"}},
        ]});
        assert_eq!(platform_entry(&list).as_deref(), Some("sha256:b"));
        let arm_only = serde_json::json!({"manifests": [
            {"digest": "sha256:a", "platform": {"os": "linux", "architecture": "arm64"}},
        ]});
        assert_eq!(platform_entry(&arm_only), None);
        let image = ImageRef::parse("r.example.com/a/b@sha256:c").unwrap();
        let f = platform_missing(&image, &arm_only);
        assert_eq!(f.fault, Some(RegistryFault::PlatformMissing));
        assert!(f.detail.unwrap().contains("only linux/arm64"));
    }

    #[test]
    fn a_manifest_names_its_config_then_its_layers() {
        let m = serde_json::json!({
            "config": {"digest": "sha256:c", "size": 2},
            "layers": [{"digest": "sha256:l1", "size": 5}, {"digest": "sha256:l2"}],
        });
        let digests: Vec<String> = blobs_of(&m).into_iter().map(|b| b.digest).collect();
        assert_eq!(digests, ["sha256:c", "sha256:l1", "sha256:l2"]);
    }
}
