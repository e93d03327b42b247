//! The live ISO's reserved areas, as its build describes them in the image itself:
//! `/coreos/igninfo.json` names the Ignition area (`file`, optional `offset` and `length`;
//! without them the whole file, a zero-filled `images/ignition.img`), `/coreos/kargs.json`
//! the kernel-argument areas (`size` bytes at `offset` in each of `files`), and
//! `/coreos/features.json` what the live system's installer supports.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::iso9660::{Extent, Iso9660, read_at};
use crate::kargs;

/// Where the Ignition area is when the ISO has no igninfo.json (the oldest live ISOs).
const DEFAULT_IGNITION_FILE: &str = "images/ignition.img";
/// coreos-installer's sanity limit on kernel-argument areas.
const MAX_KARGS_AREA: usize = 2048;

/// Everything needed to patch or read a live ISO, found without reading the image whole.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The ISO file.
    pub path: PathBuf,
    /// The ISO 9660 volume id.
    pub volume_id: String,
    /// The Ignition area.
    pub ignition: Extent,
    /// The kernel-argument areas; `None` on ISOs without kargs.json.
    pub kargs: Option<KargsAreas>,
    /// What the live system supports.
    pub features: Features,
}

/// The kernel-argument areas: all the same size, all holding the same arguments.
#[derive(Debug, Clone)]
pub struct KargsAreas {
    /// Bytes per area.
    pub size: usize,
    /// The arguments the ISO was built with.
    pub default: String,
    /// Each area.
    pub areas: Vec<KargsArea>,
}

/// One kernel-argument area.
#[derive(Debug, Clone)]
pub struct KargsArea {
    /// The file it is in, as kargs.json names it.
    pub file: String,
    /// Byte offset in the image.
    pub offset: u64,
    /// Padding character after the end character.
    pub pad: char,
    /// Character after the arguments.
    pub end: char,
}

/// Features of the live system (`/coreos/features.json`); all false when the file is absent.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(default, rename_all = "kebab-case")]
pub struct Features {
    /// The live installer service reads `/etc/coreos/installer.d/*.yaml`.
    pub installer_config: bool,
    /// The live initramfs applies keyfiles from `/etc/coreos-firstboot-network`.
    pub live_initrd_network: bool,
}

#[derive(Deserialize)]
struct IgnInfo {
    file: String,
    offset: Option<u64>,
    length: Option<u64>,
}

#[derive(Deserialize)]
struct KargsInfo {
    default: String,
    files: Vec<KargsFile>,
    size: usize,
}

#[derive(Deserialize)]
struct KargsFile {
    path: String,
    offset: u64,
    pad: Option<char>,
    end: Option<char>,
}

impl Layout {
    /// Reads the layout of the live ISO `file` (opened from `path`).
    pub fn read(file: &mut File, path: &Path) -> Result<Layout> {
        let iso = Iso9660::open(file, path)?;
        let ignition = ignition_area(&iso, file, path)?;
        let kargs = kargs_areas(&iso, file, path)?;
        let features = match iso.read_small(file, "/coreos/features.json")? {
            Some(json) => parse_json(path, "/coreos/features.json", &json)?,
            None => Features::default(),
        };
        Ok(Layout {
            path: path.to_path_buf(),
            volume_id: iso.volume_id().to_string(),
            ignition,
            kargs,
            features,
        })
    }

    /// Opens and reads the layout of the ISO at `path`.
    pub fn open(path: &Path) -> Result<(File, Layout)> {
        let mut file = File::open(path).map_err(|e| Error::read(path, e))?;
        let layout = Layout::read(&mut file, path)?;
        Ok((file, layout))
    }

    /// The Ignition area's bytes.
    pub fn ignition_bytes(&self, file: &mut File) -> Result<Vec<u8>> {
        read_at(
            file,
            &self.path,
            self.ignition.offset,
            self.ignition.length as usize,
        )
    }

    /// The kernel arguments the areas hold now (an error when they disagree).
    pub fn current_kargs(&self, file: &mut File) -> Result<Option<String>> {
        let Some(k) = &self.kargs else {
            return Ok(None);
        };
        let mut found: Option<String> = None;
        for area in &k.areas {
            let bytes = read_at(file, &self.path, area.offset, k.size)?;
            let args = kargs::parse_area(&bytes, area.pad, area.end);
            match &found {
                Some(first) if *first != args => {
                    return Err(Error::format(
                        &self.path,
                        format!(
                            "the kernel-argument areas disagree: {first:?} vs {args:?} in {}",
                            area.file
                        ),
                    ));
                }
                _ => found = Some(args),
            }
        }
        Ok(found)
    }
}

fn ignition_area(iso: &Iso9660, file: &mut File, path: &Path) -> Result<Extent> {
    let info = match iso.read_small(file, "/coreos/igninfo.json")? {
        Some(json) => parse_json::<IgnInfo>(path, "/coreos/igninfo.json", &json)?,
        None => IgnInfo {
            file: DEFAULT_IGNITION_FILE.into(),
            offset: None,
            length: None,
        },
    };
    let extent = iso.find(file, &info.file)?.ok_or_else(|| {
        Error::not_live(
            path,
            format!("it has no /coreos/igninfo.json and no /{}", info.file),
        )
    })?;
    let offset = info.offset.unwrap_or(0);
    let length = info.length.unwrap_or(extent.length.saturating_sub(offset));
    if offset + length > extent.length || length == 0 {
        return Err(Error::not_live(
            path,
            format!(
                "igninfo.json names {length} bytes at offset {offset} of {}, which has {} bytes",
                info.file, extent.length
            ),
        ));
    }
    Ok(Extent {
        offset: extent.offset + offset,
        length,
    })
}

fn kargs_areas(iso: &Iso9660, file: &mut File, path: &Path) -> Result<Option<KargsAreas>> {
    let Some(json) = iso.read_small(file, "/coreos/kargs.json")? else {
        return Ok(None);
    };
    let info: KargsInfo = parse_json(path, "/coreos/kargs.json", &json)?;
    if info.size == 0 || info.size > MAX_KARGS_AREA || info.files.is_empty() {
        return Err(Error::not_live(
            path,
            format!(
                "kargs.json declares {} areas of {} bytes",
                info.files.len(),
                info.size
            ),
        ));
    }
    let mut areas = Vec::new();
    for f in info.files {
        let extent = iso.find(file, &f.path)?.ok_or_else(|| {
            Error::not_live(
                path,
                format!("kargs.json names {}, which is absent", f.path),
            )
        })?;
        if f.offset + info.size as u64 > extent.length {
            return Err(Error::not_live(
                path,
                format!("the kernel-argument area lies beyond the end of {}", f.path),
            ));
        }
        areas.push(KargsArea {
            file: f.path,
            offset: extent.offset + f.offset,
            pad: f.pad.unwrap_or('#'),
            end: f.end.unwrap_or('\n'),
        });
    }
    areas.sort_by_key(|a| a.offset);
    Ok(Some(KargsAreas {
        size: info.size,
        default: info.default,
        areas,
    }))
}

fn parse_json<T: serde::de::DeserializeOwned>(path: &Path, name: &str, json: &[u8]) -> Result<T> {
    // A JSON file in an ISO may be padded with spaces or zeros up to its allocated size.
    let text = String::from_utf8_lossy(json);
    serde_json::from_str(text.trim_end_matches(['\0', ' ', '\n']))
        .map_err(|e| Error::not_live(path, format!("{name} is not valid: {e}")))
}
