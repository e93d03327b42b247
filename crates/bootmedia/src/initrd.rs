//! The archive the kernel unpacks over the live initramfs: a newc cpio of regular files
//! (mode 0600, with their parent directories, 0755, since the kernel creates no missing
//! parents), compressed as one xz stream with the CRC32 check, the only integrity check the
//! kernel's xz decoder accepts.
//!
//! Reading accepts what the kernel accepts: xz or plain cpio archives one after the other,
//! with zero padding between and after them.

use std::collections::BTreeMap;
use std::path::Path;

use liblzma::stream::{Action, Check, Status, Stream};

use crate::error::{Error, Result};

/// Where the live system's Ignition reads its config from inside the initramfs.
pub const CONFIG_PATH: &str = "config.ign";
/// xz preset: the archive is small, so the slowest, best level costs little.
const XZ_PRESET: u32 = 9;
/// Upper bound on what one embedded archive may unpack to (guards against xz bombs).
const MAX_UNPACKED: usize = 256 << 20;
const XZ_MAGIC: &[u8] = &[0xfd, b'7', b'z', b'X', b'Z', 0];
const NEWC_MAGIC: &[u8] = b"070701";
const TRAILER: &str = "TRAILER!!!";
const S_IFREG: u32 = 0o100_000;
const S_IFDIR: u32 = 0o040_000;

/// Regular files by path (relative, like `config.ign` or `etc/coreos-firstboot-network/x`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Initrd {
    files: BTreeMap<String, Vec<u8>>,
}

impl Initrd {
    /// Adds a file; a path given twice is an error.
    pub fn add(&mut self, path: &str, data: Vec<u8>) -> Result<()> {
        let path = path.trim_start_matches('/');
        if path.is_empty() || path.split('/').any(|p| p.is_empty() || p == "..") {
            return Err(Error::Input(format!("{path:?} is not a valid initrd path")));
        }
        if self.files.insert(path.to_string(), data).is_some() {
            return Err(Error::Input(format!("{path} is given twice")));
        }
        Ok(())
    }

    /// The file at `path`.
    pub fn get(&self, path: &str) -> Option<&[u8]> {
        self.files.get(path).map(Vec::as_slice)
    }

    /// Every file, by path.
    pub fn files(&self) -> &BTreeMap<String, Vec<u8>> {
        &self.files
    }

    /// Whether there is no file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The uncompressed newc cpio archive.
    pub fn to_cpio(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut made: Vec<String> = Vec::new();
        let mut ino = 0u32;
        for (path, data) in &self.files {
            let parts: Vec<&str> = path.split('/').collect();
            for depth in 1..parts.len() {
                let dir = parts[..depth].join("/");
                if !made.contains(&dir) {
                    ino += 1;
                    push_entry(&mut out, ino, &dir, S_IFDIR | 0o755, &[]);
                    made.push(dir);
                }
            }
            ino += 1;
            push_entry(&mut out, ino, path, S_IFREG | 0o600, data);
        }
        push_entry(&mut out, 0, TRAILER, 0, &[]);
        out
    }

    /// The archive as the kernel takes it: newc cpio in one xz stream with CRC32.
    pub fn to_xz(&self) -> Result<Vec<u8>> {
        let cpio = self.to_cpio();
        let mut stream = Stream::new_easy_encoder(XZ_PRESET, Check::Crc32)
            .map_err(|e| Error::Input(format!("creating the xz encoder: {e}")))?;
        let mut out = Vec::with_capacity(cpio.len() / 2 + 4096);
        loop {
            if out.len() == out.capacity() {
                out.reserve(64 << 10);
            }
            let consumed = stream.total_in() as usize;
            let status = stream
                .process_vec(&cpio[consumed..], &mut out, Action::Finish)
                .map_err(|e| Error::Input(format!("xz compression failed: {e}")))?;
            if status == Status::StreamEnd {
                return Ok(out);
            }
        }
    }

    /// Reads archives as the kernel would, from `data` (the contents of an Ignition area or
    /// of a config image; `path` names it in errors). An all-zero `data` is an empty initrd.
    pub fn parse(path: &Path, data: &[u8]) -> Result<Initrd> {
        let mut initrd = Initrd::default();
        let mut rest = skip_zeros(data);
        while !rest.is_empty() {
            let (cpio, used) = if rest.starts_with(XZ_MAGIC) {
                let (cpio, used) = unxz(path, rest)?;
                (std::borrow::Cow::Owned(cpio), used)
            } else if rest.starts_with(NEWC_MAGIC) {
                (std::borrow::Cow::Borrowed(rest), 0)
            } else {
                return Err(Error::format(
                    path,
                    "holds neither an xz stream nor a newc cpio archive",
                ));
            };
            let cpio_used = read_cpio(path, &cpio, &mut initrd)?;
            let used = if used == 0 { cpio_used } else { used };
            rest = skip_zeros(&rest[used..]);
        }
        Ok(initrd)
    }
}

fn skip_zeros(data: &[u8]) -> &[u8] {
    let start = data.iter().position(|b| *b != 0).unwrap_or(data.len());
    &data[start..]
}

fn push_entry(out: &mut Vec<u8>, ino: u32, name: &str, mode: u32, data: &[u8]) {
    let nlink = if mode & S_IFDIR != 0 { 2 } else { 1 };
    let fields = [
        ino,
        mode,
        0,
        0,
        nlink,
        0,
        data.len() as u32,
        0,
        0,
        0,
        0,
        name.len() as u32 + 1,
        0,
    ];
    out.extend_from_slice(NEWC_MAGIC);
    for f in fields {
        out.extend_from_slice(format!("{f:08x}").as_bytes());
    }
    out.extend_from_slice(name.as_bytes());
    out.push(0);
    pad4(out);
    out.extend_from_slice(data);
    pad4(out);
}

fn pad4(out: &mut Vec<u8>) {
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
}

/// Decompresses the one xz stream at the start of `data`; returns it and the bytes it took.
fn unxz(path: &Path, data: &[u8]) -> Result<(Vec<u8>, usize)> {
    let broken = |e: String| Error::format(path, format!("the xz stream is broken: {e}"));
    let mut stream = Stream::new_stream_decoder(u64::MAX, 0).map_err(|e| broken(e.to_string()))?;
    let mut out = Vec::with_capacity(data.len() * 4);
    loop {
        if out.len() == out.capacity() {
            if out.len() >= MAX_UNPACKED {
                return Err(broken(format!(
                    "it unpacks to more than {MAX_UNPACKED} bytes"
                )));
            }
            out.reserve(out.len().max(64 << 10));
        }
        let (before_in, before_out) = (stream.total_in() as usize, out.len());
        let status = stream
            .process_vec(&data[before_in..], &mut out, Action::Run)
            .map_err(|e| broken(e.to_string()))?;
        if status == Status::StreamEnd {
            return Ok((out, stream.total_in() as usize));
        }
        if stream.total_in() as usize == before_in && out.len() == before_out {
            return Err(broken("it is truncated".into()));
        }
    }
}

/// Reads newc entries up to the trailer into `initrd`; returns the bytes used.
fn read_cpio(path: &Path, data: &[u8], initrd: &mut Initrd) -> Result<usize> {
    let bad = |what: &str| Error::format(path, format!("the cpio archive is broken: {what}"));
    let mut pos = 0usize;
    loop {
        let header = data
            .get(pos..pos + 110)
            .ok_or_else(|| bad("truncated header"))?;
        if &header[..6] != NEWC_MAGIC {
            return Err(bad("not a newc header"));
        }
        let field = |i: usize| -> Result<usize> {
            let hex = std::str::from_utf8(&header[6 + i * 8..14 + i * 8]).unwrap_or("");
            usize::from_str_radix(hex, 16).map_err(|_| bad("a header field is not hex"))
        };
        let (mode, size, name_len) = (field(1)?, field(6)?, field(11)?);
        let name_start = pos + 110;
        let name = data
            .get(name_start..name_start + name_len)
            .ok_or_else(|| bad("truncated name"))?;
        let name = String::from_utf8_lossy(name.strip_suffix(&[0]).unwrap_or(name)).into_owned();
        let data_start = (name_start + name_len).next_multiple_of(4);
        let end = data_start + size;
        let body = data
            .get(data_start..end)
            .ok_or_else(|| bad("truncated file"))?;
        pos = end.next_multiple_of(4);
        if name == TRAILER {
            return Ok(pos.min(data.len()));
        }
        if mode as u32 & 0o170_000 == S_IFREG {
            let name = name.trim_start_matches("./").to_string();
            initrd.files.insert(name, body.to_vec());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_round_trips_with_parent_directories_and_crc32() {
        let mut initrd = Initrd::default();
        initrd.add(CONFIG_PATH, b"{}".to_vec()).unwrap();
        initrd
            .add(
                "etc/coreos-firstboot-network/eth0.nmconnection",
                b"[c]".to_vec(),
            )
            .unwrap();
        let cpio = initrd.to_cpio();
        let text = String::from_utf8_lossy(&cpio);
        let etc = text.find("etc\0").unwrap();
        let dir = text.find("etc/coreos-firstboot-network\0").unwrap();
        let file = text.find("eth0.nmconnection\0").unwrap();
        assert!(etc < dir && dir < file, "parents come first");
        assert!(text.contains("000081800"), "config.ign is 0100600: {text}");
        let xz = initrd.to_xz().unwrap();
        assert_eq!(&xz[..6], XZ_MAGIC);
        assert_eq!(xz[7] & 0x0f, 1, "check type CRC32");
        let mut padded = xz.clone();
        padded.resize(xz.len() + 1001, 0);
        let back = Initrd::parse(Path::new("area"), &padded).unwrap();
        assert_eq!(back, initrd);
        assert!(
            Initrd::parse(Path::new("area"), &[0; 64])
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn concatenated_and_plain_archives_are_read_and_garbage_is_refused() {
        let mut a = Initrd::default();
        a.add("a", b"1".to_vec()).unwrap();
        let mut b = Initrd::default();
        b.add("b", b"2".to_vec()).unwrap();
        let mut data = a.to_xz().unwrap();
        data.extend_from_slice(&[0; 3]);
        data.extend_from_slice(&b.to_cpio());
        let back = Initrd::parse(Path::new("x"), &data).unwrap();
        assert_eq!(back.get("a"), Some(&b"1"[..]));
        assert_eq!(back.get("b"), Some(&b"2"[..]));
        let err = Initrd::parse(Path::new("x"), b"garbage").unwrap_err();
        assert!(err.to_string().contains("neither"), "{err}");
        let xz = a.to_xz().unwrap();
        let err = Initrd::parse(Path::new("x"), &xz[..xz.len() / 2]).unwrap_err();
        assert!(err.to_string().contains("xz"), "{err}");
        assert!(a.clone().add("a", vec![]).is_err());
    }
}
