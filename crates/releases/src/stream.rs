//! The CoreOS stream metadata of each release: where its live ISO and PXE files are, and
//! their sha256.
//!
//! Upstream's installer embeds one stream file per release (`data/data/coreos/scos.json`) and
//! prints it with `coreos print-stream-json`. We keep those files byte for byte under
//! `data/coreos-streams/`, embedded at build time, so that [`Stream::raw`] is the text upstream
//! embeds, and boot-media commands read the artifacts of a release from the same data.
//!
//! Only what boot media need is typed (the metal ISO and PXE artifacts); everything else in
//! the file (cloud images, AMIs, …) is left to [`Stream::raw`]. We parse with our own serde
//! types rather than the `coreos-stream-metadata` crate: its one release (0.1.0, 2021) pins
//! `strum` below 0.25 and knows no stream newer than RHCOS 4.10, while what we read is four
//! nested maps.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

/// The stream files of `data/coreos-streams/`, by file name. A test checks that this list and
/// the directory agree, and that every file the table names is here.
const FILES: &[(&str, &str)] = &[
    (
        "scos-9.0.20250510-0.json",
        include_str!("../../../data/coreos-streams/scos-9.0.20250510-0.json"),
    ),
    (
        "scos-10.0.20250628-0.json",
        include_str!("../../../data/coreos-streams/scos-10.0.20250628-0.json"),
    ),
    (
        "scos-10.0.20251103-0.json",
        include_str!("../../../data/coreos-streams/scos-10.0.20251103-0.json"),
    ),
];

/// One downloadable file of the stream.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Artifact {
    /// Where to download it (an `https://` URL).
    pub location: String,
    /// The sha256 of the file as downloaded, lowercase hex.
    pub sha256: String,
}

impl Artifact {
    /// The last path segment of [`Self::location`] (`scos-…-live-iso.x86_64.iso`): the name
    /// users know the file by.
    pub fn file_name(&self) -> &str {
        let path = self.location.split(['?', '#']).next().unwrap_or_default();
        path.rsplit('/').next().unwrap_or_default()
    }
}

/// The bare-metal live artifacts of one architecture: what `create live-iso` and
/// `create pxe-files` start from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetalArtifacts {
    /// The CoreOS build they belong to (`10.0.20251103-0`).
    pub release: String,
    /// The live ISO.
    pub iso: Artifact,
    /// The PXE kernel.
    pub kernel: Artifact,
    /// The PXE initramfs.
    pub initramfs: Artifact,
    /// The PXE root file system image (fetched by the initramfs, or appended to it).
    pub rootfs: Artifact,
}

/// One parsed stream file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stream {
    file: &'static str,
    raw: &'static str,
    name: String,
    metal: BTreeMap<String, MetalArtifacts>,
    architectures: Vec<String>,
}

impl Stream {
    /// The file under `data/coreos-streams/`.
    pub fn file(&self) -> &'static str {
        self.file
    }

    /// The file's text exactly as stored (and as upstream embeds it).
    pub fn raw(&self) -> &'static str {
        self.raw
    }

    /// The stream's name (`c9s`, `c10s`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Every architecture of the stream, as upstream names them (`aarch64`, `ppc64le`,
    /// `s390x`, `x86_64`), sorted.
    pub fn architectures(&self) -> impl Iterator<Item = &str> {
        self.architectures.iter().map(String::as_str)
    }

    /// The live ISO and PXE files of `arch` (upstream's name, see [`coreos_arch`]); `None`
    /// when the stream has no complete set of them for it.
    pub fn artifacts(&self, arch: &str) -> Option<&MetalArtifacts> {
        self.metal.get(arch)
    }
}

/// The stream's name for an install-config architecture (`amd64`, `arm64`, `ppc64le`,
/// `s390x`) or a Rust/uname one (`x86_64`, `aarch64`, `powerpc64`): install-config speaks Go's
/// names, the stream files speak the kernel's.
pub fn coreos_arch(arch: &str) -> Option<&'static str> {
    match arch {
        "amd64" | "x86_64" => Some("x86_64"),
        "arm64" | "aarch64" => Some("aarch64"),
        "ppc64le" | "powerpc64" | "powerpc64le" => Some("ppc64le"),
        "s390x" => Some("s390x"),
        _ => None,
    }
}

/// Why a release's stream is not available.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// The table names no stream file for the release.
    #[error(
        "no CoreOS stream metadata is known for OKD {release} (data/releases.toml names none); \
         give the boot media files yourself"
    )]
    None {
        /// The release.
        release: String,
    },
    /// The table names a file that is not embedded.
    #[error(
        "data/releases.toml names CoreOS stream {file} for OKD {release}, which is not in data/coreos-streams/"
    )]
    Missing {
        /// The release.
        release: String,
        /// The file named.
        file: String,
    },
    /// The file is not stream metadata.
    #[error("data/coreos-streams/{file} is not CoreOS stream metadata: {message}")]
    Parse {
        /// The file.
        file: String,
        /// What the parser said.
        message: String,
    },
}

/// The typed part of a stream file.
#[derive(Deserialize)]
struct RawStream {
    stream: String,
    architectures: BTreeMap<String, RawArch>,
}

#[derive(Deserialize)]
struct RawArch {
    #[serde(default)]
    artifacts: BTreeMap<String, RawPlatform>,
}

#[derive(Deserialize)]
struct RawPlatform {
    release: String,
    formats: BTreeMap<String, BTreeMap<String, Artifact>>,
}

impl RawPlatform {
    /// The metal ISO and PXE set, if complete.
    fn metal(&self) -> Option<MetalArtifacts> {
        let iso = self.formats.get("iso")?.get("disk")?;
        let pxe = self.formats.get("pxe")?;
        Some(MetalArtifacts {
            release: self.release.clone(),
            iso: iso.clone(),
            kernel: pxe.get("kernel")?.clone(),
            initramfs: pxe.get("initramfs")?.clone(),
            rootfs: pxe.get("rootfs")?.clone(),
        })
    }
}

/// Parses one embedded file.
fn parse(file: &'static str, raw: &'static str) -> Result<Stream, StreamError> {
    let parsed: RawStream = serde_json::from_str(raw).map_err(|e| StreamError::Parse {
        file: file.to_string(),
        message: e.to_string(),
    })?;
    let metal = parsed
        .architectures
        .iter()
        .filter_map(|(arch, a)| Some((arch.clone(), a.artifacts.get("metal")?.metal()?)))
        .collect();
    Ok(Stream {
        file,
        raw,
        name: parsed.stream,
        metal,
        architectures: parsed.architectures.into_keys().collect(),
    })
}

/// Every embedded file, parsed once.
fn streams() -> &'static BTreeMap<&'static str, Result<Stream, StreamError>> {
    static CELL: OnceLock<BTreeMap<&'static str, Result<Stream, StreamError>>> = OnceLock::new();
    CELL.get_or_init(|| {
        FILES
            .iter()
            .map(|(file, raw)| (*file, parse(file, raw)))
            .collect()
    })
}

/// The embedded stream file `file` (a name of `data/coreos-streams/`).
pub(crate) fn by_file(release: &str, file: &str) -> Result<&'static Stream, StreamError> {
    match streams().get(file) {
        Some(Ok(stream)) => Ok(stream),
        Some(Err(e)) => Err(e.clone()),
        None => Err(StreamError::Missing {
            release: release.to_string(),
            file: file.to_string(),
        }),
    }
}

/// The names of the embedded files (tests).
#[cfg(test)]
pub(crate) fn file_names() -> impl Iterator<Item = &'static str> {
    FILES.iter().map(|(f, _)| *f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table;

    fn at(version: &str) -> &'static crate::Release {
        table().get(version.parse().unwrap()).unwrap()
    }

    /// The list in this file, the directory and the table name the same files: a file added
    /// to the directory without the list (or named by the table without either) is caught.
    #[test]
    fn the_embedded_list_the_directory_and_the_table_agree() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/coreos-streams");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        on_disk.sort();
        let mut listed: Vec<String> = file_names().map(String::from).collect();
        listed.sort();
        assert_eq!(on_disk, listed);
        for (file, raw) in FILES {
            let bytes = std::fs::read(format!("{dir}/{file}")).unwrap();
            assert_eq!(bytes, raw.as_bytes(), "{file} is embedded byte for byte");
        }
        for r in &table().releases {
            let stream = r.coreos_stream().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(Some(stream.file()), r.coreos_stream.as_deref());
        }
    }

    /// What upstream's branches pin (data/releases.toml says where each file was read).
    #[test]
    fn each_release_has_its_upstream_build() {
        for (version, stream, build, iso_sha256) in [
            (
                "4.19",
                "c9s",
                "9.0.20250510-0",
                "f74954b2b59ba1ff81a4944092e83fd17a0b537155a9487089d87db8a04223f5",
            ),
            (
                "4.20",
                "c10s",
                "10.0.20250628-0",
                "ec8cd7952a88ea72455bf0c464e44518c2005c69d4b5380c88af0d7488a9c8a1",
            ),
            (
                "4.21",
                "c10s",
                "10.0.20251103-0",
                "aff9c4a263d51356584d8334a20f13e24d04803e4eb9b49c2b499e0ad908e94a",
            ),
            (
                "4.22",
                "c10s",
                "10.0.20251103-0",
                "aff9c4a263d51356584d8334a20f13e24d04803e4eb9b49c2b499e0ad908e94a",
            ),
            (
                "5.0",
                "c10s",
                "10.0.20251103-0",
                "aff9c4a263d51356584d8334a20f13e24d04803e4eb9b49c2b499e0ad908e94a",
            ),
        ] {
            let s = at(version).coreos_stream().unwrap();
            assert_eq!(s.name(), stream, "{version}");
            let x86 = s.artifacts("x86_64").unwrap();
            assert_eq!(x86.release, build, "{version}");
            assert_eq!(x86.iso.sha256, iso_sha256, "{version}");
            assert_eq!(
                x86.iso.file_name(),
                format!("scos-{build}-live-iso.x86_64.iso")
            );
        }
    }

    /// Every architecture has the full live set, each file an https URL of its own build with
    /// a well-formed sha256: a download can rely on both.
    #[test]
    fn every_architecture_has_a_complete_live_set() {
        for r in &table().releases {
            let s = r.coreos_stream().unwrap();
            let archs: Vec<&str> = s.architectures().collect();
            assert_eq!(
                archs,
                ["aarch64", "ppc64le", "s390x", "x86_64"],
                "{}",
                r.version
            );
            for arch in archs {
                let m = s.artifacts(arch).unwrap();
                for a in [&m.iso, &m.kernel, &m.initramfs, &m.rootfs] {
                    assert!(a.location.starts_with("https://"), "{}", a.location);
                    assert!(a.location.contains(&format!("/{}/{arch}/", m.release)));
                    assert!(a.file_name().contains(arch), "{}", a.location);
                    assert_eq!(a.sha256.len(), 64, "{}", a.location);
                    assert!(
                        a.sha256
                            .bytes()
                            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
                    );
                }
            }
            assert!(s.artifacts("riscv64").is_none());
        }
    }

    #[test]
    fn the_raw_text_is_the_file_as_stored() {
        let s = at("4.19").coreos_stream().unwrap();
        assert!(s.raw().starts_with("{\n  \"stream\": \"c9s\",\n"));
        assert!(s.raw().contains("\"images\""), "untyped parts are kept");
    }

    #[test]
    fn architectures_map_from_install_config_and_uname_names() {
        assert_eq!(coreos_arch("amd64"), Some("x86_64"));
        assert_eq!(coreos_arch("x86_64"), Some("x86_64"));
        assert_eq!(coreos_arch("arm64"), Some("aarch64"));
        assert_eq!(coreos_arch("ppc64le"), Some("ppc64le"));
        assert_eq!(coreos_arch("s390x"), Some("s390x"));
        assert_eq!(coreos_arch("mips"), None);
    }

    #[test]
    fn a_missing_or_unnamed_stream_is_an_error_naming_the_release() {
        let e = by_file("4.30", "nope.json").unwrap_err();
        assert!(e.to_string().contains("nope.json") && e.to_string().contains("4.30"));
        let mut r = at("4.19").clone();
        r.coreos_stream = None;
        let e = r.coreos_stream().unwrap_err();
        assert!(matches!(e, StreamError::None { .. }), "{e}");
        assert!(e.to_string().contains("4.19"), "{e}");
    }

    #[test]
    fn file_names_ignore_queries() {
        let a = Artifact {
            location: "https://example.com/a/b/live.iso?x=1".into(),
            sha256: String::new(),
        };
        assert_eq!(a.file_name(), "live.iso");
    }
}
