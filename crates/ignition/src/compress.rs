//! Gzip compression of file contents inside a config (`compression: "gzip"`, Ignition ≥ 3.1).

use std::io::{Read, Write};

use flate2::Compression;
use flate2::GzBuilder;
use flate2::read::GzDecoder;
use ignition_config::v3_2::Resource;

use crate::Config;
use crate::dataurl::{decode_data_url, encode_binary_data_url};

/// Fixed level so the output only depends on the input.
const LEVEL: u32 = 9;

/// Gzip bytes deterministically: no file name, modification time 0, fixed level.
pub fn gzip_bytes(data: &[u8]) -> Vec<u8> {
    let mut encoder = GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), Compression::new(LEVEL));
    encoder
        .write_all(data)
        .expect("writing into a Vec cannot fail");
    encoder.finish().expect("writing into a Vec cannot fail")
}

/// Gunzip bytes (used by checks, explain and tests).
pub fn decompress_bytes(data: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    GzDecoder::new(data).read_to_end(&mut out)?;
    Ok(out)
}

/// Why an inline resource's bytes could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InlineError {
    /// The source is not a valid data URL.
    #[error(transparent)]
    DataUrl(#[from] crate::DataUrlError),
    /// `compression: gzip`, but the data does not decompress.
    #[error("bad gzip data: {0}")]
    Gzip(std::io::Error),
}

/// The bytes of a resource (`{"source": ..., "compression": ...}`) of a config read as JSON,
/// gzip undone; `Ok(None)` when its source is missing or not a data URL (a remote file). One
/// reader for explain, verify and the tests, so they all see what Ignition would write.
pub fn inline_contents(resource: &serde_json::Value) -> Result<Option<Vec<u8>>, InlineError> {
    let Some(source) = resource["source"]
        .as_str()
        .filter(|s| s.starts_with("data:"))
    else {
        return Ok(None);
    };
    let bytes = decode_data_url(source)?;
    if resource["compression"].as_str() == Some("gzip") {
        return decompress_bytes(&bytes)
            .map(Some)
            .map_err(InlineError::Gzip);
    }
    Ok(Some(bytes))
}

/// Store each file's data gzip-compressed where that makes the config smaller.
///
/// Only uncompressed data URLs are touched (remote sources and already compressed data
/// stay as they are); a file whose compressed data URL would not be shorter keeps its
/// original form. Applies to `contents` and every `append` entry.
pub fn compress(mut config: Config) -> Config {
    let files = config
        .storage
        .as_mut()
        .and_then(|s| s.files.as_mut())
        .map(|f| f.iter_mut());
    for file in files.into_iter().flatten() {
        if let Some(contents) = file.contents.as_mut() {
            compress_resource(contents);
        }
        for entry in file.append.iter_mut().flatten() {
            compress_resource(entry);
        }
    }
    config
}

fn compress_resource(resource: &mut Resource) {
    if resource
        .compression
        .as_deref()
        .is_some_and(|c| !c.is_empty())
    {
        return;
    }
    let Some(source) = resource.source.as_deref() else {
        return;
    };
    let Ok(raw) = decode_data_url(source) else {
        return;
    };
    let candidate = encode_binary_data_url(&gzip_bytes(&raw));
    if candidate.len() < source.len() {
        resource.source = Some(candidate);
        resource.compression = Some("gzip".to_string());
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{InlineError, gzip_bytes, inline_contents};
    use crate::dataurl::{encode_binary_data_url, encode_data_url};

    #[test]
    fn inline_contents_undoes_the_data_url_and_gzip() {
        let plain = json!({"source": encode_data_url(b"hello\n")});
        assert_eq!(inline_contents(&plain).unwrap().unwrap(), b"hello\n");
        let gz = json!({"source": encode_binary_data_url(&gzip_bytes(b"hello\n")), "compression": "gzip"});
        assert_eq!(inline_contents(&gz).unwrap().unwrap(), b"hello\n");
        let remote = json!({"source": "https://example.com/x"});
        assert!(inline_contents(&remote).unwrap().is_none());
        assert!(inline_contents(&json!({})).unwrap().is_none());
        let broken = json!({"source": encode_data_url(b"not gzip"), "compression": "gzip"});
        assert!(matches!(
            inline_contents(&broken),
            Err(InlineError::Gzip(_))
        ));
    }
}
