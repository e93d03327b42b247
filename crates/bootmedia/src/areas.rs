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
/// The file naming the Ignition area.
const IGNINFO: &str = "/coreos/igninfo.json";
/// The file naming the kernel-argument areas.
const KARGS: &str = "/coreos/kargs.json";
/// Larger than any live ISO's Ignition area (256 KiB on Fedora CoreOS and SCOS): the area is
/// read into memory whole, so a crafted length must not ask for gigabytes.
const MAX_IGNITION_AREA: u64 = 64 << 20;
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
        let (mut file, _) = atomic_file::input::open_named(path).map_err(Error::from_input)?;
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
    let info = match iso.read_small(file, IGNINFO)? {
        Some(json) => parse_json::<IgnInfo>(path, IGNINFO, &json)?,
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
    let length = match info.length {
        Some(length) => length,
        None => extent.length.saturating_sub(offset),
    };
    let field = if info.length.is_some() {
        "offset and length"
    } else {
        "offset"
    };
    if length == 0 || length > MAX_IGNITION_AREA {
        return Err(Error::not_live(
            path,
            format!(
                "{IGNINFO}'s Ignition area is {length} bytes (field `length` or the size of \
                 {}); a live ISO's area holds 1 byte to {MAX_IGNITION_AREA} bytes",
                info.file
            ),
        ));
    }
    let area = sub_area(iso, extent, offset, length).ok_or_else(|| {
        Error::not_live(
            path,
            format!(
                "{IGNINFO}'s {field} name {length} bytes at offset {offset} of {}, which \
                     does not hold them ({} bytes at byte {} of the image)",
                info.file, extent.length, extent.offset
            ),
        )
    })?;
    Ok(area)
}

fn kargs_areas(iso: &Iso9660, file: &mut File, path: &Path) -> Result<Option<KargsAreas>> {
    let Some(json) = iso.read_small(file, KARGS)? else {
        return Ok(None);
    };
    let info: KargsInfo = parse_json(path, KARGS, &json)?;
    if info.size == 0 || info.size > MAX_KARGS_AREA || info.files.is_empty() {
        return Err(Error::not_live(
            path,
            format!(
                "{KARGS} declares {} areas (`files`) of {} bytes (`size`); a live ISO has at \
                 least one, of 1 to {MAX_KARGS_AREA} bytes",
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
                format!("{KARGS} names {} (`files`), which is absent", f.path),
            )
        })?;
        let area = sub_area(iso, extent, f.offset, info.size as u64).ok_or_else(|| {
            Error::not_live(
                path,
                format!(
                    "{KARGS}'s `offset` {} with `size` {} lies beyond the end of {} ({} bytes \
                         at byte {} of the image)",
                    f.offset, info.size, f.path, extent.length, extent.offset
                ),
            )
        })?;
        areas.push(KargsArea {
            file: f.path,
            offset: area.offset,
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

/// The `length` bytes at `offset` of the file at `file`, as an extent of the image; `None`
/// unless they lie wholly inside that file and inside the image's data (the sums are
/// checked: a crafted offset must not wrap around onto the volume descriptors).
fn sub_area(iso: &Iso9660, file: Extent, offset: u64, length: u64) -> Option<Extent> {
    let end = offset.checked_add(length)?;
    if end > file.length {
        return None;
    }
    let area = Extent {
        offset: file.offset.checked_add(offset)?,
        length,
    };
    iso.holds(area).then_some(area)
}

fn parse_json<T: serde::de::DeserializeOwned>(path: &Path, name: &str, json: &[u8]) -> Result<T> {
    // A JSON file in an ISO may be padded with spaces or zeros up to its allocated size.
    let text = String::from_utf8_lossy(json);
    serde_json::from_str(text.trim_end_matches(['\0', ' ', '\n']))
        .map_err(|e| Error::not_live(path, format!("{name} is not valid: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iso9660::SECTOR;
    use proptest::prelude::*;

    proptest! {
        /// Whatever igninfo.json or kargs.json say, an accepted area lies inside the file
        /// that holds it and inside the image, after the volume descriptors.
        #[test]
        fn accepted_areas_lie_inside_their_file_and_the_image(
            file_offset in prop_oneof![any::<u64>(), 0u64..(1 << 20)],
            file_length in prop_oneof![any::<u64>(), 0u64..(1 << 20)],
            offset in prop_oneof![any::<u64>(), 0u64..(1 << 20)],
            length in prop_oneof![any::<u64>(), 0u64..(1 << 20)],
            size in prop_oneof![any::<u64>(), 0u64..(1 << 21)],
        ) {
            let data_start = 18 * SECTOR;
            let iso = Iso9660::for_tests(size, data_start);
            let file = Extent { offset: file_offset, length: file_length };
            if let Some(area) = sub_area(&iso, file, offset, length) {
                prop_assert!(area.offset >= data_start);
                prop_assert!(area.offset >= file.offset);
                let end = area.offset as u128 + area.length as u128;
                prop_assert!(end <= size as u128);
                prop_assert!(end <= file.offset as u128 + file.length as u128);
                prop_assert_eq!(area.length, length);
            }
        }
    }

    #[test]
    fn an_area_that_fits_is_placed_in_its_file() {
        let iso = Iso9660::for_tests(100 * SECTOR, 18 * SECTOR);
        let file = Extent {
            offset: 20 * SECTOR,
            length: 10 * SECTOR,
        };
        assert_eq!(
            sub_area(&iso, file, 100, 50),
            Some(Extent {
                offset: 20 * SECTOR + 100,
                length: 50
            })
        );
        assert_eq!(sub_area(&iso, file, u64::MAX - 10, 50), None);
        assert_eq!(sub_area(&iso, file, 10 * SECTOR - 10, 50), None);
    }
}
