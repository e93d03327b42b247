//! The bundle reader's fuzz targets, as proptests: arbitrary bytes (raw, or gzip-compressed,
//! which reaches the tar reader), a real bundle cut short, and archives of crafted entries
//! (wanted names at any depth, with control characters and `..`, links, directories, files
//! over the budget, records of arbitrary text). Whatever the input, reading never panics,
//! keeps within its budget, and the analysis of what was read renders nothing that steers
//! a terminal.
//!
//! Each runs proptest's default number of cases (256), quick enough for every `cargo test`;
//! `PROPTEST_CASES=100000` runs a longer search locally.

use std::io::Write;

use flate2::Compression;
use flate2::write::GzEncoder;
use proptest::prelude::*;
use testkit::terminal::{steering, steering_in_json};

use crate::reader::{Budget, BundleContents, read_archive};

/// A budget small enough for generated archives to reach every limit.
const SMALL: Budget = Budget {
    archive: 24 * 1024,
    kept: 6000,
    file: 1500,
    files: 6,
};

/// Names the analysis wants, below any top directory.
const WANTED: &[&str] = &[
    "bootstrap/services/bootkube.json",
    "bootstrap/services/release-image.json",
    "bootstrap/services/node-image-pull.json",
    "bootstrap/journals/bootkube.log",
    "bootstrap/journals/release-image.log",
    "failed-units.txt",
    "bootstrap/containers/etcd-0a1b.inspect",
    "bootstrap/containers/etcd-0a1b.log",
    "bootstrap/etcd/member-list.txt",
    "resources/nodes.json",
    "resources/api-unreachable.txt",
    "resources/machineconfigs.json",
    "rendered-assets/openshift/manifests/x.yaml",
    "rendered-assets/openshift/.bootkube.done",
    "bootstrap/os-image/bootc-status.json",
];

/// Tops an entry name may have, hostile ones among them.
const TOPS: &[&str] = &[
    "log-bundle-1/",
    "",
    "./",
    "../../",
    "/",
    "a/\u{1b}]0;t\u{7}/",
    "log-bundle-1/log-bundle-bootstrap/",
];

/// Text pieces that make record, journal and inspect contents interesting.
const PIECES: &[&str] = &[
    "[",
    "]",
    "{",
    "}",
    ",",
    "\"phase\": \"service start\"",
    "\"phase\": \"service end\"",
    "\"phase\": \"stage end\"",
    "\"result\": \"failure\"",
    "\"result\": \"success\"",
    "\"stage\": \"cb-bootstrap\"",
    "\"errorMessage\": \"",
    "\"",
    "\\u001b]0;owned\\u0007",
    "\u{1b}[2K\r",
    "\u{9b}2J",
    "\u{202e}",
    "\n",
    "Error: initializing source docker://quay.io/x: unauthorized",
    "no space left on device",
    "x509: certificate has expired or is not yet valid",
];

#[derive(Debug, Clone)]
enum Kind {
    File,
    Symlink,
    Hardlink,
    Directory,
}

#[derive(Debug, Clone)]
struct Entry {
    name: Vec<u8>,
    kind: Kind,
    data: Vec<u8>,
}

fn content() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..600),
        prop::collection::vec(0..PIECES.len(), 0..60).prop_map(|ix| ix
            .iter()
            .map(|&i| PIECES[i])
            .collect::<String>()
            .into_bytes()),
        // Over one file's budget, or several together over the bundle's.
        (1usize..4000, any::<u8>()).prop_map(|(n, b)| vec![b; n]),
    ]
}

fn entry() -> impl Strategy<Value = Entry> {
    let name = (
        0..TOPS.len(),
        0..WANTED.len(),
        prop::option::of("[a-z.\u{1b}]{0,6}"),
    )
        .prop_map(|(t, w, odd)| {
            let mut name = format!("{}{}", TOPS[t], WANTED[w]);
            if let Some(odd) = odd {
                name.push_str(&odd);
            }
            name.into_bytes()
        });
    let kind = prop_oneof![
        6 => Just(Kind::File),
        1 => Just(Kind::Symlink),
        1 => Just(Kind::Hardlink),
        1 => Just(Kind::Directory),
    ];
    (name, kind, content()).prop_map(|(name, kind, data)| Entry { name, kind, data })
}

/// A tar.gz of `entries`, their names written into the header as they are (the tar crate's
/// own path setter would refuse `..`), truncated to 100 bytes.
fn archive(entries: &[Entry]) -> Vec<u8> {
    let mut tar = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
    for e in entries {
        let mut header = tar::Header::new_old();
        let name = &e.name[..e.name.len().min(100)];
        header.as_old_mut().name[..name.len()].copy_from_slice(name);
        header.set_mode(0o644);
        let data: &[u8] = match e.kind {
            Kind::File => &e.data,
            _ => &[],
        };
        header.set_entry_type(match e.kind {
            Kind::File => tar::EntryType::Regular,
            Kind::Symlink => tar::EntryType::Symlink,
            Kind::Hardlink => tar::EntryType::Link,
            Kind::Directory => tar::EntryType::Directory,
        });
        if !matches!(e.kind, Kind::File | Kind::Directory) {
            header.set_link_name("/etc/shadow").unwrap();
        }
        header.set_size(data.len() as u64);
        header.set_cksum();
        tar.append(&header, data).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// Reads `input` within [`SMALL`]: an error says why, what was read keeps within the budget,
/// and the analysis of it renders nothing that steers a terminal.
fn check(input: &[u8]) -> Result<(), TestCaseError> {
    let contents = match read_archive(input, &SMALL) {
        Ok(contents) => contents,
        Err(reason) => {
            prop_assert!(!reason.is_empty());
            return Ok(());
        }
    };
    within_budget(&contents)?;
    let analysis = crate::analyze_contents(std::path::Path::new("b.tar.gz"), &contents);
    let text = analysis.render();
    prop_assert_eq!(steering(&text), None, "{}", text);
    let mut json = serde_json::to_value(&analysis).unwrap();
    crate::escape_json_strings(&mut json);
    prop_assert_eq!(steering_in_json(&json), None);
    Ok(())
}

fn within_budget(contents: &BundleContents) -> Result<(), TestCaseError> {
    let kept: u64 = contents.files.iter().map(|f| f.text.len() as u64).sum();
    prop_assert_eq!(kept, contents.kept);
    prop_assert!(kept <= SMALL.kept, "{} bytes kept", kept);
    prop_assert!(contents.files.len() <= SMALL.files);
    if !contents.skipped.is_empty() {
        prop_assert!(!contents.budget_notes().is_empty());
    }
    Ok(())
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        check(&bytes)?;
        check(&gzip(&bytes))?;
    }

    #[test]
    fn crafted_entries_are_read_within_the_budget(entries in prop::collection::vec(entry(), 0..14)) {
        check(&archive(&entries))?;
    }

    #[test]
    fn a_bundle_cut_short_is_read_as_far_as_it_goes(
        entries in prop::collection::vec(entry(), 1..6),
        cut in any::<prop::sample::Index>(),
    ) {
        let whole = archive(&entries);
        check(&whole[..cut.index(whole.len() + 1)])?;
    }
}
