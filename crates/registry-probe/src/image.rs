//! Reading one file out of an image in a registry: the release image's
//! `release-manifests/image-references`, which names every image the release pulls.

use std::io::Read;

use hyper::body::Bytes;
use hyper::{Method, StatusCode};

use crate::{Failure, ImageRef, Prober, Target};

/// Why a file could not be read from an image the registry serves.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// A step of the pull failed.
    #[error("{}", .0.reason(None))]
    Pull(Failure),
    /// The image is not what an image is (a manifest or layer that does not parse).
    #[error("{0}")]
    Image(String),
}

impl Prober {
    /// The content of `path` in `image`, looked for from the last layer back (where a
    /// release keeps its manifests), layers of at most `max_layer` bytes; `None` when no
    /// layer holds it.
    pub async fn read_file(
        &self,
        image: &ImageRef,
        path: &str,
        max_layer: usize,
    ) -> Result<Option<Vec<u8>>, ReadError> {
        let manifest = self.contents(image).await.map_err(ReadError::Pull)?.json;
        let layers: Vec<(String, String)> = manifest["layers"]
            .as_array()
            .ok_or_else(|| ReadError::Image(format!("the manifest of {image} lists no layers")))?
            .iter()
            .filter_map(|l| {
                Some((
                    l["digest"].as_str()?.to_string(),
                    l["mediaType"].as_str().unwrap_or_default().to_string(),
                ))
            })
            .collect();
        for (digest, media) in layers.iter().rev() {
            let blob = self.blob(image, digest, max_layer).await?;
            if let Some(found) = find_in_layer(&blob, media, path)
                .map_err(|e| ReadError::Image(format!("layer {digest} of {image}: {e}")))?
            {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    /// A blob of `image`'s repository, following the registry's redirect to its storage.
    async fn blob(&self, image: &ImageRef, digest: &str, limit: usize) -> Result<Bytes, ReadError> {
        let path = format!("/v2/{}/blobs/{digest}", image.repository);
        let answer = self
            .authorized(image, Method::GET, &path, limit)
            .await
            .map_err(ReadError::Pull)?;
        let answer = match answer.status {
            StatusCode::TEMPORARY_REDIRECT
            | StatusCode::FOUND
            | StatusCode::SEE_OTHER
            | StatusCode::MOVED_PERMANENTLY
            | StatusCode::PERMANENT_REDIRECT => {
                let location =
                    crate::header(&answer.headers, hyper::header::LOCATION).ok_or_else(|| {
                        ReadError::Image(format!("blob {digest}: a redirect without a location"))
                    })?;
                // A path is on the registry itself.
                let location = if location.starts_with('/') {
                    format!("https://{}{location}", image.registry)
                } else {
                    location
                };
                self.fetch_url(&image.registry, Method::GET, &location, None, limit)
                    .await
                    .map_err(ReadError::Pull)?
            }
            _ => answer,
        };
        self.judge(image, &answer, Target::Blob(digest))
            .map_err(ReadError::Pull)?;
        Ok(answer.body)
    }
}

/// `path` in a layer (a tar, gzipped or not); `None` when the layer does not hold it.
fn find_in_layer(blob: &[u8], media: &str, path: &str) -> Result<Option<Vec<u8>>, String> {
    let gzipped = blob.starts_with(&[0x1f, 0x8b]);
    if media.contains("zstd") {
        return Ok(None);
    }
    let reader: Box<dyn Read + '_> = if gzipped {
        Box::new(flate2::read::GzDecoder::new(blob))
    } else {
        Box::new(blob)
    };
    let mut archive = tar::Archive::new(reader);
    let wanted = path.trim_start_matches('/');
    for entry in archive.entries().map_err(|e| e.to_string())? {
        let mut entry = entry.map_err(|e| e.to_string())?;
        let name = entry.path().map_err(|e| e.to_string())?.into_owned();
        let name = name.to_string_lossy();
        if name.trim_start_matches("./").trim_start_matches('/') == wanted {
            let mut out = Vec::new();
            entry.read_to_end(&mut out).map_err(|e| e.to_string())?;
            return Ok(Some(out));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_found_in_a_gzipped_or_plain_layer() {
        let mut tar = tar::Builder::new(Vec::new());
        let data = b"{\"kind\":\"ImageStream\"}";
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(
            &mut header,
            "./release-manifests/image-references",
            &data[..],
        )
        .unwrap();
        let plain = tar.into_inner().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &plain).unwrap();
        let gzipped = gz.finish().unwrap();
        for blob in [&plain, &gzipped] {
            let found = find_in_layer(blob, "", "release-manifests/image-references").unwrap();
            assert_eq!(found.as_deref(), Some(&data[..]));
            assert_eq!(
                find_in_layer(blob, "", "release-manifests/other").unwrap(),
                None
            );
        }
    }
}
