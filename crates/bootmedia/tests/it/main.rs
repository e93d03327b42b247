//! Boot media on a live ISO in the real layout (built with xorriso), and the real
//! coreos-installer reading what bootmedia writes and the other way round.

mod interop;

use std::path::{Path, PathBuf};

use bootmedia::inspect;
use bootmedia::live::{Customization, Destination};
use bootmedia::media::{KargsEdit, write_iso};
use testkit::liveiso::{LiveIso, LiveIsoSpec};

/// A fresh fixture ISO in a temp dir, or None (skip) without xorriso.
pub(crate) fn fixture(spec: &LiveIsoSpec) -> Option<(tempfile::TempDir, LiveIso)> {
    if !testkit::require_tool("xorriso", "xorriso") {
        return None;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let iso = spec.build(dir.path(), "live.iso");
    Some((dir, iso))
}

pub(crate) fn config(text: &str) -> Vec<u8> {
    format!("{{\"ignition\":{{\"version\":\"3.2.0\"}},\"x\":{text:?}}}\n").into_bytes()
}

pub(crate) fn plain(config: Vec<u8>) -> Customization {
    Customization {
        config,
        dest: None,
        keyfiles: vec![],
    }
}

pub(crate) fn installing(config: Vec<u8>, device: &str) -> Customization {
    Customization {
        config,
        dest: Some(Destination {
            device: device.into(),
            append_kargs: vec![],
        }),
        keyfiles: vec![],
    }
}

fn sha(path: &Path) -> Vec<u8> {
    std::fs::read(path).expect("read")
}

fn out(dir: &Path, name: &str) -> PathBuf {
    dir.join(name)
}

#[test]
fn the_config_and_kargs_read_back_and_the_input_is_unchanged() {
    let Some((dir, iso)) = fixture(&LiveIsoSpec::default()) else {
        return;
    };
    let before = sha(&iso.path);
    let output = out(dir.path(), "master.iso");
    let edit = KargsEdit {
        append: vec!["console=ttyS0".into()],
        delete: vec![],
    };
    let written = write_iso(&iso.path, &output, &plain(config("m")), &edit, 0o600).unwrap();
    assert_eq!(sha(&iso.path), before, "the input ISO is never changed");
    assert_eq!(written.capacity, 256 << 10);
    assert!(!written.replaced_customization);
    let embedded = inspect::read_iso(&output).unwrap();
    assert_eq!(embedded.config().unwrap(), config("m"));
    let kargs = embedded.kargs.unwrap();
    assert_eq!(kargs, format!("{} console=ttyS0", iso.default_kargs));
    assert_eq!(
        std::fs::metadata(&output).unwrap().len(),
        before.len() as u64
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&output).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let again = write_iso(
        &output,
        &out(dir.path(), "b.iso"),
        &plain(config("w")),
        &KargsEdit::default(),
        0o600,
    )
    .unwrap();
    assert!(
        again.replaced_customization,
        "an embedded config is noticed"
    );
}

#[test]
fn a_config_that_does_not_fit_is_refused_with_both_sizes_and_no_output() {
    let spec = LiveIsoSpec {
        ignition_area: 4096,
        ..LiveIsoSpec::default()
    };
    let Some((dir, iso)) = fixture(&spec) else {
        return;
    };
    // Incompressible: a pseudo-random text.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let noise: String = (0..20_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'a' + (x % 26) as u8)
        })
        .collect();
    let output = out(dir.path(), "bootstrap.iso");
    let err = write_iso(
        &iso.path,
        &output,
        &plain(config(&noise)),
        &KargsEdit::default(),
        0o600,
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, bootmedia::Error::TooLarge { capacity: 4096, .. }),
        "{text}"
    );
    assert!(
        text.contains("4096 bytes") && text.contains("is 1"),
        "{text}"
    );
    assert!(!output.exists());
    let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(leftovers, 1, "only the input ISO is there");
}

#[test]
fn a_plain_iso_and_a_non_iso_are_refused_clearly() {
    let spec = LiveIsoSpec {
        live: false,
        ..LiveIsoSpec::default()
    };
    let Some((dir, iso)) = fixture(&spec) else {
        return;
    };
    let output = out(dir.path(), "worker.iso");
    let err = write_iso(
        &iso.path,
        &output,
        &plain(config("w")),
        &KargsEdit::default(),
        0o600,
    )
    .unwrap_err();
    assert!(matches!(err, bootmedia::Error::NotLive { .. }), "{err}");
    assert!(
        err.to_string().contains("live.iso") && err.to_string().contains("--iso"),
        "{err}"
    );
    let text_file = dir.path().join("notes.txt");
    std::fs::write(&text_file, "hello").unwrap();
    let err = write_iso(
        &text_file,
        &output,
        &plain(config("w")),
        &KargsEdit::default(),
        0o600,
    )
    .unwrap_err();
    assert!(matches!(err, bootmedia::Error::NotIso { .. }), "{err}");
    assert!(!output.exists());
}

#[test]
fn an_installing_iso_keeps_keyfiles_and_the_destination_config() {
    let Some((dir, iso)) = fixture(&LiveIsoSpec::default()) else {
        return;
    };
    let mut custom = installing(config("worker"), "/dev/nvme0n1");
    custom.keyfiles = vec![(
        "bond0.nmconnection".into(),
        b"[connection]\nid=bond0\n".to_vec(),
    )];
    let output = out(dir.path(), "worker.iso");
    write_iso(&iso.path, &output, &custom, &KargsEdit::default(), 0o600).unwrap();
    let embedded = inspect::read_iso(&output).unwrap();
    let install = embedded.install().unwrap();
    assert_eq!(install.dest_device.as_deref(), Some("/dev/nvme0n1"));
    assert_eq!(install.dest_config.unwrap(), config("worker"));
    assert_eq!(embedded.keyfiles(), ["bond0.nmconnection"]);
    assert!(install.configs[0].1.contains("copy-network: true"));
}

/// Writes `worker.iso` from a live ISO built with `spec`; returns the error and checks that
/// nothing was written.
fn crafted_iso_error(spec: LiveIsoSpec) -> Option<String> {
    let (dir, iso) = fixture(&spec)?;
    let before = sha(&iso.path);
    let output = out(dir.path(), "worker.iso");
    let err = write_iso(
        &iso.path,
        &output,
        &plain(config("w")),
        &KargsEdit::default(),
        0o644,
    )
    .unwrap_err();
    assert!(matches!(err, bootmedia::Error::NotLive { .. }), "{err}");
    assert!(!output.exists(), "a crafted area is never written");
    assert_eq!(sha(&iso.path), before, "the input is unchanged");
    assert!(err.is_invalid_input());
    Some(err.to_string())
}

#[test]
fn crafted_ignition_areas_are_refused_naming_the_file_and_field() {
    for (igninfo, field) in [
        // offset + length wraps around u64.
        (
            format!(
                r#"{{"file": "images/ignition.img", "offset": {}, "length": 4096}}"#,
                u64::MAX - 100
            ),
            "offset and length",
        ),
        // Past the end of the area's file.
        (
            r#"{"file": "images/ignition.img", "offset": 262000, "length": 4096}"#.to_string(),
            "offset and length",
        ),
        (
            format!(
                r#"{{"file": "images/ignition.img", "offset": {}}}"#,
                u64::MAX
            ),
            "length",
        ),
        // A length that would make us read gigabytes.
        (
            r#"{"file": "images/ignition.img", "length": 18446744073709551615}"#.to_string(),
            "length",
        ),
    ] {
        let spec = LiveIsoSpec {
            igninfo: Some(igninfo.clone()),
            ..LiveIsoSpec::default()
        };
        let Some(err) = crafted_iso_error(spec) else {
            return;
        };
        assert!(err.contains("/coreos/igninfo.json"), "{igninfo}: {err}");
        assert!(err.contains(field), "{igninfo}: {err}");
    }
}

#[test]
fn crafted_kernel_argument_areas_are_refused_naming_the_file_and_field() {
    for offset in [u64::MAX - 10, 1 << 20] {
        let spec = LiveIsoSpec {
            kargs_offset: Some(offset),
            ..LiveIsoSpec::default()
        };
        let Some(err) = crafted_iso_error(spec) else {
            return;
        };
        assert!(err.contains("/coreos/kargs.json's `offset`"), "{err}");
        assert!(err.contains("EFI/fedora/grub.cfg"), "{err}");
    }
}
