//! Reading a bundle's archive within one budget.
//!
//! A bundle comes from a host that may be broken or hostile, and its size says nothing about
//! what is in it (a gigabyte of zeros packs into a megabyte). So the archive is read entry by
//! entry as raw tar records: a long name (GNU `L`, pax `path`) is read by us, up to the
//! longest name a file system takes, never by the tar library, which would hold a long name
//! of any size in memory. Memory stays near [`Budget::kept`] plus a few times
//! [`Budget::file`] whatever the bundle holds, reading ends after [`Budget::archive`] bytes,
//! and what the budget left out is said in one line.

use std::cell::Cell;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;
use std::rc::Rc;

use flate2::read::GzDecoder;

use crate::AnalysisError;
use crate::bundle::{BundleFile, Wanted, classify, kept_text};

/// How much of a bundle the analysis reads (see the module).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    /// Bytes of the unpacked archive read in all: headers and every entry, wanted or not.
    pub archive: u64,
    /// Bytes of the wanted files kept, all together.
    pub kept: u64,
    /// Bytes read of one file: a journal's last bytes, any other file whole or not at all.
    pub file: u64,
    /// Wanted files kept.
    pub files: usize,
}

/// The budget of every analysis: far above what a real bundle holds (its journals are some
/// MiB, its largest cluster dump some tens), far below what would hurt the machine reading it.
pub(crate) const BUDGET: Budget = Budget {
    archive: 4 << 30,
    kept: 48 << 20,
    file: 16 << 20,
    files: 20_000,
};

/// How many bytes of a container log are read: its last lines are kept.
const CONTAINER_LOG_BYTES: u64 = 1 << 20;

/// The longest entry name read from a GNU long-name record: longer than any path a Linux
/// file system takes (`PATH_MAX`).
const NAME_MAX_BYTES: u64 = 4096;

/// The largest pax extended header read (it holds the name and a few short fields).
const PAX_MAX_BYTES: u64 = 64 * 1024;

/// How many left-out files, and how many journals read for their end only, are listed one by
/// one; the rest are counted.
const LISTED: usize = 100;

/// How many of the listed files a note names.
const NAMED: usize = 10;

/// A wanted file the budget left out, and why.
#[derive(Debug, Clone)]
pub(crate) struct Skipped {
    pub path: String,
    pub kind: Wanted,
    pub reason: String,
}

/// All interesting files, plus what was left out and why.
#[derive(Debug, Default)]
pub(crate) struct BundleContents {
    pub files: Vec<BundleFile>,
    /// Bytes of text kept in [`BundleContents::files`].
    pub kept: u64,
    /// Wanted files not read since they did not fit the budget (the first [`LISTED`]).
    pub skipped: Vec<Skipped>,
    /// How many more were left out, and how many of those were service records.
    pub skipped_unlisted: usize,
    pub records_unlisted: usize,
    /// Journals read for their end only, with their whole size (the first [`LISTED`]), and
    /// how many more.
    pub cut: Vec<(String, u64)>,
    pub cut_unlisted: usize,
    /// How much of the end of each of those was read.
    pub tail_bytes: u64,
    /// Why reading stopped before the end of the archive, when the budget ended it.
    pub stopped: Option<String>,
    /// Why reading stopped before the end of the archive, when the archive is damaged.
    pub damaged: Option<String>,
}

/// Reads the interesting regular files of the bundle at `path`, within [`BUDGET`].
pub(crate) fn read_bundle(path: &Path) -> Result<BundleContents, AnalysisError> {
    read_bundle_within(path, &BUDGET)
}

/// Reads the interesting regular files of the bundle at `path`, within `budget`: what does
/// not fit is listed in [`BundleContents::skipped`], never read.
pub(crate) fn read_bundle_within(
    path: &Path,
    budget: &Budget,
) -> Result<BundleContents, AnalysisError> {
    let bundle_err = |reason: String| AnalysisError::Bundle {
        path: path.to_path_buf(),
        reason: crate::shown::escape_line(&reason).into_owned(),
    };
    let file = File::open(path).map_err(|e| bundle_err(format!("cannot open it: {e}")))?;
    // What a gather leaves when the host could not write its bundle (tar's empty file on a
    // full disk, downloaded as it was): no archive, and no reason to read it as a broken one.
    if file.metadata().is_ok_and(|m| m.len() == 0) {
        return Err(bundle_err(
            "it is empty (0 bytes), so no log bundle: the bootstrap host could not write it \
             (a full disk leaves an empty file); gather again, and read what the gather \
             command on the host said"
                .to_string(),
        ));
    }
    read_archive(BufReader::new(file), budget).map_err(bundle_err)
}

/// Reads the interesting files of a gzip-compressed tar archive (see [`read_bundle_within`]);
/// the error says why not even its first entry could be read.
pub(crate) fn read_archive(input: impl Read, budget: &Budget) -> Result<BundleContents, String> {
    let counted = Counted::new(GzDecoder::new(input), budget.archive);
    let read_so_far = counted.total.clone();
    let mut archive = tar::Archive::new(counted);
    let entries = archive
        .entries()
        .map_err(|e| format!("not a tar.gz archive: {e}"))?
        .raw(true);
    let mut reader = Reader {
        budget,
        contents: BundleContents::default(),
        next_name: NextName::Header,
    };
    let mut seen = 0usize;
    for entry in entries {
        let result = entry.and_then(|mut entry| {
            seen += 1;
            reader.entry(&mut entry)
        });
        match result {
            Ok(()) => {}
            Err(_) if read_so_far.get() > budget.archive => {
                reader.contents.stopped = Some(format!(
                    "the analysis reads at most {} of an unpacked bundle; it stopped there, \
                     after {seen} entries, and did not analyse the rest",
                    in_units(budget.archive)
                ));
                break;
            }
            Err(e) if seen == 0 => return Err(format!("not a readable tar.gz archive: {e}")),
            Err(e) => {
                let note = format!(
                    "the archive is damaged after {seen} entries ({e}); only that part was \
                     analysed"
                );
                reader.contents.damaged = Some(crate::shown::escape_line(&note).into_owned());
                break;
            }
        }
    }
    Ok(reader.contents)
}

/// The name of the next file entry, as the records before it give it.
enum NextName {
    /// Its own header's.
    Header,
    /// A long name read from a GNU long-name record or a pax header.
    Given(Vec<u8>),
    /// Longer than any path: the entry is not one the analysis wants.
    Unusable,
}

struct Reader<'b> {
    budget: &'b Budget,
    contents: BundleContents,
    next_name: NextName,
}

impl Reader<'_> {
    /// One raw tar record: a long name for the next one, or a file the analysis may want.
    fn entry(&mut self, entry: &mut tar::Entry<impl Read>) -> std::io::Result<()> {
        let kind = entry.header().entry_type();
        if kind.is_gnu_longname() {
            self.next_name = match read_small(entry, NAME_MAX_BYTES)? {
                Some(mut name) => {
                    while name.last() == Some(&0) {
                        name.pop();
                    }
                    NextName::Given(name)
                }
                None => NextName::Unusable,
            };
            return Ok(());
        }
        if kind.is_pax_local_extensions() {
            self.next_name = match read_small(entry, PAX_MAX_BYTES)? {
                Some(pax) => pax_path(&pax).map_or(NextName::Header, NextName::Given),
                None => NextName::Unusable,
            };
            return Ok(());
        }
        if kind.is_gnu_longlink() || kind.is_pax_global_extensions() {
            return Ok(()); // A link's target, or defaults for all: nothing the analysis reads.
        }
        let given = std::mem::replace(&mut self.next_name, NextName::Header);
        if !kind.is_file() {
            return Ok(());
        }
        let raw = match given {
            NextName::Header => entry.header().path_bytes().into_owned(),
            NextName::Given(name) => name,
            NextName::Unusable => return Ok(()),
        };
        let name = crate::shown::escape_line(&String::from_utf8_lossy(&raw)).into_owned();
        match classify(&name) {
            Some(wanted) => self.file(entry, name, wanted),
            None => Ok(()),
        }
    }

    /// Keeps a wanted file when it fits the budget; lists it as skipped when it does not.
    fn file(
        &mut self,
        entry: &mut tar::Entry<impl Read>,
        name: String,
        kind: Wanted,
    ) -> std::io::Result<()> {
        let (budget, size) = (self.budget, entry.size());
        // A log is read for its end, the rest whole or not at all (half a JSON document is none).
        let tail = match kind {
            Wanted::ContainerLog => Some(budget.file.min(CONTAINER_LOG_BYTES)),
            Wanted::Journal(_) => Some(budget.file),
            _ => None,
        };
        let cost = tail.map_or(size, |t| size.min(t));
        let kept_so_far = self.contents.kept;
        let unread = if tail.is_none() && size > budget.file {
            Some(format!(
                "{}, more than the {} the analysis reads of one file",
                in_units(size),
                in_units(budget.file)
            ))
        } else if self.contents.files.len() >= budget.files {
            Some(format!(
                "the analysis reads at most {} files of a bundle",
                budget.files
            ))
        } else if kept_so_far + cost > budget.kept {
            Some(over_total(in_units(cost), budget))
        } else {
            None
        };
        if let Some(reason) = unread {
            self.skip(name, kind, reason);
            return Ok(());
        }
        let bytes = match tail {
            Some(limit) => read_tail(entry, limit)?,
            None => {
                let mut bytes = Vec::new();
                entry.take(budget.file).read_to_end(&mut bytes)?;
                bytes
            }
        };
        let text = kept_text(&kind, &bytes);
        // Escaped control characters take more room than they did: charged as kept.
        let kept = text.len() as u64;
        if kept_so_far + kept > budget.kept {
            let size = format!("{} once its control characters are escaped", in_units(kept));
            self.skip(name, kind, over_total(size, budget));
            return Ok(());
        }
        if matches!(kind, Wanted::Journal(_)) && size > budget.file {
            self.cut(&name, size, budget.file);
        }
        self.contents.kept += kept;
        self.contents.files.push(BundleFile {
            path: name,
            kind,
            text,
        });
        Ok(())
    }

    fn skip(&mut self, path: String, kind: Wanted, reason: String) {
        let c = &mut self.contents;
        if c.skipped.len() < LISTED {
            c.skipped.push(Skipped { path, kind, reason });
        } else {
            c.skipped_unlisted += 1;
            if matches!(kind, Wanted::ServiceRecord(_)) {
                c.records_unlisted += 1;
            }
        }
    }

    fn cut(&mut self, path: &str, size: u64, kept: u64) {
        let c = &mut self.contents;
        c.tail_bytes = kept;
        if c.cut.len() < LISTED {
            c.cut.push((path.to_string(), size));
        } else {
            c.cut_unlisted += 1;
        }
    }
}

/// The whole data of a small record (a long name, a pax header), or `None` when it is larger
/// than `limit` (then it is not read at all).
fn read_small(entry: &mut tar::Entry<impl Read>, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    if entry.size() > limit {
        return Ok(None);
    }
    let mut data = Vec::new();
    entry.take(limit).read_to_end(&mut data)?;
    Ok(Some(data))
}

/// The `path` a pax header gives, if any.
fn pax_path(pax: &[u8]) -> Option<Vec<u8>> {
    tar::PaxExtensions::new(pax)
        .filter_map(Result::ok)
        .find(|e| e.key_bytes() == b"path")
        .map(|e| e.value_bytes().to_vec())
}

/// The last `limit` bytes of `input` (from the first line that starts in them), holding at
/// most twice that in memory.
fn read_tail(input: &mut impl Read, limit: u64) -> std::io::Result<Vec<u8>> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut kept: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut cut = false;
    loop {
        let n = input.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        kept.extend_from_slice(&chunk[..n]);
        if kept.len() > limit.saturating_mul(2) {
            kept.drain(..kept.len() - limit);
            cut = true;
        }
    }
    if kept.len() > limit {
        kept.drain(..kept.len() - limit);
        cut = true;
    }
    if cut && let Some(first_end) = kept.iter().position(|&b| b == b'\n') {
        kept.drain(..=first_end);
    }
    Ok(kept)
}

/// A reader that counts what passed through it and fails once `limit` is passed.
struct Counted<R> {
    inner: R,
    limit: u64,
    total: Rc<Cell<u64>>,
}

impl<R> Counted<R> {
    fn new(inner: R, limit: u64) -> Self {
        Counted {
            inner,
            limit,
            total: Rc::default(),
        }
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let over = || std::io::Error::other("over the bundle's size budget");
        if self.total.get() > self.limit {
            return Err(over());
        }
        let n = self.inner.read(buf)?;
        self.total.set(self.total.get() + n as u64);
        if self.total.get() > self.limit {
            return Err(over());
        }
        Ok(n)
    }
}

/// `bytes` in the largest unit that keeps it a whole number or one decimal: `64 MiB`.
fn in_units(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, scale) in UNITS {
        if bytes >= scale {
            return if bytes.is_multiple_of(scale) {
                format!("{} {unit}", bytes / scale)
            } else {
                format!("{:.1} {unit}", bytes as f64 / scale as f64)
            };
        }
    }
    format!("{bytes} bytes")
}

/// Why a file of `size` (in words) was left out when the bundle's total is reached.
fn over_total(size: String, budget: &Budget) -> String {
    format!(
        "{size}, more than is left of the {} the analysis reads of a bundle's files",
        in_units(budget.kept)
    )
}

/// `names` joined, the first [`NAMED`] of them, then how many more (with `unlisted`).
fn named(names: &[String], unlisted: usize) -> String {
    let shown: Vec<&str> = names.iter().take(NAMED).map(String::as_str).collect();
    match names.len().saturating_sub(NAMED) + unlisted {
        0 => shown.join(", "),
        n => format!("{} and {n} more", shown.join(", ")),
    }
}

impl BundleContents {
    /// The lines that say what the budget left out, when it left something out.
    pub(crate) fn budget_notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.skipped.is_empty() {
            let names: Vec<String> = self
                .skipped
                .iter()
                .map(|s| format!("{} ({})", s.path, s.reason))
                .collect();
            notes.push(format!(
                "the bundle holds more than the analysis reads, so it skipped {} file(s) and \
                 nothing they show is in this analysis: {}",
                self.skipped.len() + self.skipped_unlisted,
                named(&names, self.skipped_unlisted)
            ));
        }
        if !self.cut.is_empty() {
            let names: Vec<String> = self
                .cut
                .iter()
                .map(|(path, size)| format!("{path} ({})", in_units(*size)))
                .collect();
            notes.push(format!(
                "only the last {} of each of these journals was read, so what the analysis \
                 counts in them covers that end only: {}",
                in_units(self.tail_bytes),
                named(&names, self.cut_unlisted)
            ));
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_file_is_said_to_be_no_bundle_not_a_broken_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log-bundle-1.tar.gz");
        std::fs::write(&path, b"").unwrap();
        let said = read_bundle(&path).unwrap_err().to_string();
        assert!(
            said.contains("it is empty (0 bytes), so no log bundle"),
            "{said}"
        );
        assert!(!said.contains("tar.gz archive"), "{said}");
    }

    const SMALL: Budget = Budget {
        archive: 1 << 20,
        kept: 3000,
        file: 1000,
        files: 4,
    };

    fn read_small(bundle: testkit::gather::bundle::Bundle, budget: &Budget) -> BundleContents {
        let dir = tempfile::tempdir().unwrap();
        let path = bundle.write(dir.path(), "b.tar.gz");
        read_bundle_within(&path, budget).unwrap()
    }

    #[test]
    fn a_bundle_is_read_within_its_budget_and_says_what_it_left_out() {
        use testkit::gather::bundle::Bundle;
        let journal: String = (0..100).map(|i| format!("journal line {i:04}\n")).collect();
        let contents = read_small(
            Bundle::new("1")
                .file("bootstrap/services/bootkube.json", "[]")
                .file("bootstrap/services/huge.json", vec![b' '; 1001])
                .file("bootstrap/journals/bootkube.log", &journal)
                .file("bootstrap/journals/release-image.log", &journal)
                .file("bootstrap/journals/node-image-pull.log", &journal)
                .file("resources/nodes.json", "{}"),
            &SMALL,
        );
        assert!(contents.kept <= SMALL.kept, "{} kept", contents.kept);
        let kept: Vec<&str> = contents.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            kept,
            [
                "log-bundle-1/bootstrap/services/bootkube.json",
                "log-bundle-1/bootstrap/journals/bootkube.log",
                "log-bundle-1/bootstrap/journals/release-image.log",
                "log-bundle-1/bootstrap/journals/node-image-pull.log",
            ]
        );
        let journal = &contents.files[1].text;
        assert!(journal.len() <= 1000);
        assert!(
            journal.ends_with("journal line 0099\n"),
            "a journal's end is kept"
        );
        assert!(
            journal.starts_with("journal line "),
            "from a whole line: {journal}"
        );
        let skipped: Vec<(&str, &str)> = contents
            .skipped
            .iter()
            .map(|s| (s.path.as_str(), s.reason.as_str()))
            .collect();
        assert_eq!(
            skipped,
            [
                (
                    "log-bundle-1/bootstrap/services/huge.json",
                    "1001 bytes, more than the 1000 bytes the analysis reads of one file"
                ),
                (
                    "log-bundle-1/resources/nodes.json",
                    "the analysis reads at most 4 files of a bundle"
                ),
            ]
        );
        let note = contents.budget_notes().remove(0);
        assert!(note.contains("skipped 2 file(s)"), "{note}");
    }

    #[test]
    fn files_over_the_bundles_total_are_skipped_even_after_escaping() {
        use testkit::gather::bundle::Bundle;
        // 800 escape characters take 3200 bytes once shown as `\x1b`.
        let hostile = vec![0x1bu8; 800];
        let contents = read_small(
            Bundle::new("1")
                .file("bootstrap/journals/bootkube.log", &hostile)
                .file("bootstrap/journals/release-image.log", "fits\n"),
            &SMALL,
        );
        assert!(contents.kept <= SMALL.kept);
        assert_eq!(contents.files.len(), 1);
        assert!(
            contents.skipped[0]
                .reason
                .contains("once its control characters are escaped"),
            "{:?}",
            contents.skipped
        );
    }

    /// A tar.gz of `(name, data)` files, long names as the tar library writes them (a GNU
    /// long-name record before the file).
    fn tar_gz(files: &[(String, Vec<u8>)]) -> Vec<u8> {
        use flate2::{Compression, write::GzEncoder};
        let mut tar = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
        for (name, data) in files {
            let mut header = tar::Header::new_gnu();
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            tar.append_data(&mut header, name, data.as_slice()).unwrap();
        }
        tar.into_inner().unwrap().finish().unwrap()
    }

    #[test]
    fn long_names_are_read_up_to_the_longest_path_and_no_further() {
        let long_dir = "d".repeat(150);
        let huge_dir = "h/".repeat(300_000);
        let archive = tar_gz(&[
            (
                format!("b/{long_dir}/bootstrap/services/bootkube.json"),
                b"[]".to_vec(),
            ),
            (
                format!("b/{huge_dir}/bootstrap/services/release-image.json"),
                b"[]".to_vec(),
            ),
            (
                "b/bootstrap/journals/bootkube.log".into(),
                b"end\n".to_vec(),
            ),
        ]);
        let budget = Budget {
            archive: 1 << 30,
            ..SMALL
        };
        let contents = read_archive(archive.as_slice(), &budget).unwrap();
        let kept: Vec<&str> = contents.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            kept,
            [
                format!("b/{long_dir}/bootstrap/services/bootkube.json").as_str(),
                "b/bootstrap/journals/bootkube.log",
            ],
            "a long name is read, one longer than any path is not (nor held in memory)"
        );
        assert!(contents.damaged.is_none());
    }

    #[test]
    fn a_pax_header_names_the_file_after_it() {
        use flate2::{Compression, write::GzEncoder};
        let mut tar = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
        let path = format!("b/{}/bootstrap/services/bootkube.json", "p".repeat(120));
        // Its length counts itself: three digits, " path=", the path and the line feed.
        let record = format!("{} path={path}\n", 3 + 6 + path.len() + 1);
        let mut pax = tar::Header::new_ustar();
        pax.set_entry_type(tar::EntryType::XHeader);
        pax.set_size(record.len() as u64);
        pax.set_cksum();
        tar.append(&pax, record.as_bytes()).unwrap();
        let mut file = tar::Header::new_ustar();
        file.set_path("b/short-name").unwrap();
        file.set_size(2);
        file.set_cksum();
        tar.append(&file, &b"[]"[..]).unwrap();
        let archive = tar.into_inner().unwrap().finish().unwrap();
        let contents = read_archive(archive.as_slice(), &SMALL).unwrap();
        assert_eq!(contents.files.len(), 1, "{:?}", contents.files);
        assert_eq!(contents.files[0].path, path);
    }

    #[test]
    fn a_journal_read_for_its_end_is_said_so() {
        let journal: Vec<u8> = (0..200)
            .flat_map(|i| format!("line {i:03}\n").into_bytes())
            .collect();
        let archive = tar_gz(&[("b/bootstrap/journals/bootkube.log".into(), journal)]);
        let contents = read_archive(archive.as_slice(), &SMALL).unwrap();
        let notes = contents.budget_notes();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].starts_with("only the last 1000 bytes of each of these journals was read"),
            "{notes:?}"
        );
        assert!(
            notes[0].ends_with("b/bootstrap/journals/bootkube.log (1.8 KiB)"),
            "{notes:?}"
        );
    }

    #[test]
    fn left_out_files_are_listed_up_to_a_point_and_counted_beyond() {
        let files: Vec<(String, Vec<u8>)> = (0..LISTED + 60)
            .map(|i| (format!("b/bootstrap/services/s{i}.json"), b"[]".to_vec()))
            .collect();
        let contents = read_archive(tar_gz(&files).as_slice(), &SMALL).unwrap();
        assert_eq!(contents.files.len(), SMALL.files);
        assert_eq!(contents.skipped.len(), LISTED);
        assert_eq!(contents.skipped_unlisted, 60 - SMALL.files);
        assert_eq!(contents.records_unlisted, 60 - SMALL.files);
        let note = &contents.budget_notes()[0];
        assert!(
            note.contains(&format!("skipped {} file(s)", LISTED + 60 - SMALL.files)),
            "{note}"
        );
        assert!(
            note.ends_with(&format!("and {} more", LISTED + 60 - SMALL.files - NAMED)),
            "{note}"
        );
    }

    #[test]
    fn reading_stops_at_the_archives_budget() {
        use testkit::gather::bundle::Bundle;
        let budget = Budget {
            archive: 64 * 1024,
            ..SMALL
        };
        let contents = read_small(
            Bundle::new("1")
                .file("bootstrap/services/bootkube.json", "[]")
                .file("padding.bin", vec![0u8; 128 * 1024])
                .file("bootstrap/services/release-image.json", "[]"),
            &budget,
        );
        assert_eq!(contents.files.len(), 1);
        let stopped = contents.stopped.unwrap();
        assert!(stopped.contains("at most 64 KiB"), "{stopped}");
        assert!(contents.damaged.is_none());
    }
}
