//! Gzip compression of file contents.

use ignition::{
    Config, NodeFile, Variant, check, compress, decode_data_url, decompress_bytes, gzip_bytes,
    to_json,
};

use crate::util::build;

fn large_text() -> String {
    (0..400)
        .map(|i| format!("line {i}: the same words again and again\n"))
        .collect()
}

fn config() -> Config {
    let extra = vec![
        NodeFile::new("/opt/openshift/manifests/big.yaml", 0o644, large_text()),
        NodeFile::new("/opt/openshift/tiny", 0o600, "x"),
    ];
    build(Variant::Bootstrap, extra, vec![])
}

/// (path, compression, decoded bytes after undoing compression) of each file.
fn contents(config: &Config) -> Vec<(String, Option<String>, Vec<u8>)> {
    let files = config.storage.as_ref().unwrap().files.as_ref().unwrap();
    files
        .iter()
        .map(|f| {
            let r = f
                .contents
                .as_ref()
                .or(f.append.as_ref().map(|a| &a[0]))
                .unwrap();
            let raw = decode_data_url(r.source.as_deref().unwrap()).unwrap();
            let bytes = match r.compression.as_deref() {
                Some("gzip") => decompress_bytes(&raw).unwrap(),
                _ => raw,
            };
            (f.path.clone(), r.compression.clone(), bytes)
        })
        .collect()
}

#[test]
fn round_trip_restores_every_file() {
    let original = config();
    let compressed = compress(original.clone());
    let before = contents(&original);
    let after = contents(&compressed);
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(
            (&b.0, &b.2),
            (&a.0, &a.2),
            "{} differs after decompression",
            b.0
        );
    }
    assert_eq!(check(&compressed), vec![]);
    assert!(to_json(&compressed).len() < to_json(&original).len());
}

#[test]
fn only_files_that_get_smaller_are_compressed() {
    let compressed = compress(config());
    let by_path = |p: &str| {
        contents(&compressed)
            .into_iter()
            .find(|c| c.0 == p)
            .unwrap()
            .1
    };
    assert_eq!(
        by_path("/opt/openshift/manifests/big.yaml").as_deref(),
        Some("gzip")
    );
    assert_eq!(by_path("/opt/openshift/tiny"), None);
    let again = compress(compressed.clone());
    assert_eq!(again, compressed, "compressing twice changes nothing");
}

#[test]
fn gzip_is_deterministic() {
    let data = large_text();
    assert_eq!(gzip_bytes(data.as_bytes()), gzip_bytes(data.as_bytes()));
    let header = gzip_bytes(b"abc");
    assert_eq!(&header[4..8], &[0, 0, 0, 0], "mtime is zero");
    assert_eq!(to_json(&compress(config())), to_json(&compress(config())));
}
