//! Just enough ISO 9660 to find where a file's bytes are: the primary volume descriptor and
//! its directory tree, with the names as stored in the primary tree (no Rock Ridge, no
//! Joliet), as coreos-installer reads them too. Paths are matched case-insensitively, and a
//! name longer than ISO level 1 allows also matches its 8.3 form (`igninfo.json` is stored as
//! `IGNINFO.JSO`).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Bytes per logical sector; the only size CoreOS images use.
pub const SECTOR: u64 = 2048;
/// The first volume descriptor is at sector 16, after the system area.
const FIRST_DESCRIPTOR: u64 = 16;
/// Volume descriptors read before giving up on finding the primary one.
const MAX_DESCRIPTORS: u64 = 64;
/// Directories larger than this are not a CoreOS ISO's (guards memory on garbage input).
const MAX_DIRECTORY: u32 = 1 << 20;

/// Where a file's bytes are in the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    /// Byte offset from the start of the image.
    pub offset: u64,
    /// Length in bytes.
    pub length: u64,
}

/// An opened ISO 9660 image: its volume id and root directory.
#[derive(Debug)]
pub struct Iso9660 {
    path: PathBuf,
    volume_id: String,
    root: Extent,
    /// The image's size in bytes.
    size: u64,
    /// The first byte after the volume descriptor set: no area may start before it.
    data_start: u64,
}

/// One directory entry.
struct Record {
    name: String,
    extent: Extent,
    is_dir: bool,
}

impl Iso9660 {
    /// Reads the primary volume descriptor of `file` (opened from `path`, which names it in
    /// errors).
    pub fn open(file: &mut File, path: &Path) -> Result<Iso9660> {
        let size = file.metadata().map_err(|e| Error::read(path, e))?.len();
        let mut primary = None;
        let mut data_start = FIRST_DESCRIPTOR * SECTOR;
        for index in 0..MAX_DESCRIPTORS {
            let offset = (FIRST_DESCRIPTOR + index) * SECTOR;
            if offset + SECTOR > size {
                break;
            }
            let sector = read_at(file, path, offset, SECTOR as usize)?;
            if &sector[1..6] != b"CD001" {
                break;
            }
            data_start = offset + SECTOR;
            match sector[0] {
                1 if primary.is_none() => primary = Some(sector),
                255 => break,
                _ => continue,
            }
        }
        match primary {
            Some(sector) => Self::primary(path, &sector, size, data_start),
            None => Err(Error::NotIso {
                path: path.to_path_buf(),
                reason: "no primary volume descriptor at sector 16".into(),
            }),
        }
    }

    fn primary(path: &Path, sector: &[u8], size: u64, data_start: u64) -> Result<Iso9660> {
        let volume_id = String::from_utf8_lossy(&sector[40..72])
            .trim_end_matches([' ', '\0'])
            .to_string();
        let blocks = u64::from(le32(&sector[80..84]));
        if blocks * SECTOR > size {
            return Err(Error::NotIso {
                path: path.to_path_buf(),
                reason: format!(
                    "it is incomplete: {} bytes of {} declared",
                    size,
                    blocks * SECTOR
                ),
            });
        }
        let root = parse_record(&sector[156..190]).ok_or_else(|| Error::NotIso {
            path: path.to_path_buf(),
            reason: "the root directory record is malformed".into(),
        })?;
        Ok(Iso9660 {
            path: path.to_path_buf(),
            volume_id,
            root: root.extent,
            size,
            data_start,
        })
    }

    /// Whether `area` lies wholly in the image's data, after the system area and the volume
    /// descriptors (which a write there would destroy) and before the end of the file.
    pub fn holds(&self, area: Extent) -> bool {
        area.offset >= self.data_start
            && area
                .offset
                .checked_add(area.length)
                .is_some_and(|end| end <= self.size)
    }

    /// An image of `size` bytes whose data starts at `data_start`, for tests of area checks.
    #[cfg(test)]
    pub(crate) fn for_tests(size: u64, data_start: u64) -> Iso9660 {
        Iso9660 {
            path: PathBuf::from("live.iso"),
            volume_id: String::new(),
            root: Extent {
                offset: 0,
                length: 0,
            },
            size,
            data_start,
        }
    }

    /// The volume id (the live ISO's kernel arguments name it in `coreos.liveiso=`).
    pub fn volume_id(&self) -> &str {
        &self.volume_id
    }

    /// Where the file at `iso_path` (like `/coreos/igninfo.json`) is, or `None` when there is
    /// no such file.
    pub fn find(&self, file: &mut File, iso_path: &str) -> Result<Option<Extent>> {
        let mut dir = self.root;
        let parts: Vec<&str> = iso_path.split('/').filter(|p| !p.is_empty()).collect();
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            let found = self
                .list(file, dir)?
                .into_iter()
                .find(|r| r.is_dir != last && name_matches(&r.name, part));
            match found {
                Some(record) => dir = record.extent,
                None => return Ok(None),
            }
        }
        Ok((!parts.is_empty()).then_some(dir))
    }

    /// Reads the whole file at `iso_path`, or `None` when there is none. For the small JSON
    /// files only: the length is capped.
    pub fn read_small(&self, file: &mut File, iso_path: &str) -> Result<Option<Vec<u8>>> {
        let Some(extent) = self.find(file, iso_path)? else {
            return Ok(None);
        };
        if extent.length > u64::from(MAX_DIRECTORY) {
            return Err(Error::format(
                &self.path,
                format!("{iso_path} is {} bytes, too large", extent.length),
            ));
        }
        read_at(file, &self.path, extent.offset, extent.length as usize).map(Some)
    }

    fn list(&self, file: &mut File, dir: Extent) -> Result<Vec<Record>> {
        if dir.length > u64::from(MAX_DIRECTORY) {
            return Err(Error::format(
                &self.path,
                "a directory is implausibly large",
            ));
        }
        let data = read_at(file, &self.path, dir.offset, dir.length as usize)?;
        let mut records = Vec::new();
        let mut pos = 0usize;
        while pos < data.len() {
            let len = data[pos] as usize;
            if len == 0 {
                // Records do not cross sectors: the rest of this sector is padding.
                pos = (pos / SECTOR as usize + 1) * SECTOR as usize;
                continue;
            }
            let record = data
                .get(pos..pos + len)
                .and_then(parse_record)
                .ok_or_else(|| Error::format(&self.path, "malformed ISO 9660 directory record"))?;
            if !matches!(record.name.as_str(), "\u{0}" | "\u{1}") {
                records.push(record);
            }
            pos += len;
        }
        Ok(records)
    }
}

/// A directory record: extent, length, flags and name (`;1` version and a trailing dot
/// dropped).
fn parse_record(bytes: &[u8]) -> Option<Record> {
    if bytes.len() < 34 {
        return None;
    }
    let name_len = bytes[32] as usize;
    let raw = bytes.get(33..33 + name_len)?;
    let mut name = String::from_utf8_lossy(raw).into_owned();
    if let Some((base, version)) = name.rsplit_once(';')
        && version.chars().all(|c| c.is_ascii_digit())
    {
        name = base.to_string();
    }
    if name.len() > 1 {
        name = name.trim_end_matches('.').to_string();
    }
    Some(Record {
        name,
        extent: Extent {
            offset: u64::from(le32(&bytes[2..6])) * SECTOR,
            length: u64::from(le32(&bytes[10..14])),
        },
        is_dir: bytes[25] & 2 != 0,
    })
}

/// Whether the stored `name` is `wanted`, directly or as wanted's ISO level 1 (8.3) form.
fn name_matches(name: &str, wanted: &str) -> bool {
    name.eq_ignore_ascii_case(wanted) || name.eq_ignore_ascii_case(&level1(wanted))
}

/// `igninfo.json` → `IGNINFO.JSO`: what mkisofs/xorriso store at ISO level 1.
fn level1(name: &str) -> String {
    let (base, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    let clean = |s: &str, n: usize| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_uppercase()
                } else {
                    '_'
                }
            })
            .take(n)
            .collect()
    };
    if ext.is_empty() {
        clean(base, 8)
    } else {
        format!("{}.{}", clean(base, 8), clean(ext, 3))
    }
}

fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Reads exactly `len` bytes at `offset`.
pub(crate) fn read_at(file: &mut File, path: &Path, offset: u64, len: usize) -> Result<Vec<u8>> {
    let mut buf = vec![0; len];
    file.seek(SeekFrom::Start(offset))
        .and_then(|_| file.read_exact(&mut buf))
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => Error::format(
                path,
                format!("{len} bytes at offset {offset} lie beyond the end of the file"),
            ),
            _ => Error::read(path, e),
        })?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_area_must_lie_after_the_descriptors_and_inside_the_image() {
        let iso = Iso9660 {
            path: PathBuf::from("live.iso"),
            volume_id: String::new(),
            root: Extent {
                offset: 0,
                length: 0,
            },
            size: 100 * SECTOR,
            data_start: 19 * SECTOR,
        };
        let area = |offset, length| Extent { offset, length };
        assert!(iso.holds(area(19 * SECTOR, SECTOR)));
        assert!(iso.holds(area(99 * SECTOR, SECTOR)));
        assert!(
            !iso.holds(area(16 * SECTOR, 10)),
            "over the primary descriptor"
        );
        assert!(!iso.holds(area(0, 10)), "over the system area");
        assert!(!iso.holds(area(99 * SECTOR, SECTOR + 1)), "past the end");
        assert!(!iso.holds(area(u64::MAX - 5, 10)), "wrapping");
    }

    #[test]
    fn long_names_match_their_level1_form() {
        assert!(name_matches("IGNINFO.JSO", "igninfo.json"));
        assert!(name_matches("IGNITION.IMG", "ignition.img"));
        assert!(name_matches("isolinux.cfg", "ISOLINUX.CFG"));
        assert!(!name_matches("KARGS.JSO", "igninfo.json"));
        assert_eq!(level1("features.json"), "FEATURES.JSO");
        assert_eq!(level1("EFI"), "EFI");
    }

    #[test]
    fn a_file_that_is_not_an_iso_is_refused() {
        let mut tmp = tempfile::NamedTempFile::new().unwrap();
        std::io::Write::write_all(&mut tmp, &vec![0u8; 40 * 2048]).unwrap();
        let path = tmp.path().to_path_buf();
        let err = Iso9660::open(tmp.as_file_mut(), &path).unwrap_err();
        assert!(matches!(err, Error::NotIso { .. }), "{err}");
        assert!(err.to_string().contains("--iso"), "{err}");
    }
}
