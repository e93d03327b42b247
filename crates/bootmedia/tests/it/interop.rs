//! The real coreos-installer reads what bootmedia writes, bootmedia reads what
//! coreos-installer writes, and an installing ISO matches `iso customize --dest-device`.

use std::path::Path;
use std::process::Command;

use bootmedia::inspect;
use bootmedia::media::{KargsEdit, write_config_image, write_iso};
use serde_json::Value;
use testkit::liveiso::LiveIsoSpec;

use crate::{config, fixture, installing, plain};

fn have_coreos_installer() -> bool {
    testkit::require_tool(
        "coreos-installer",
        "coreos-installer; or: cargo install --locked coreos-installer",
    )
}

fn coreos_installer(args: &[&str]) -> Vec<u8> {
    let out = Command::new("coreos-installer")
        .args(args)
        .output()
        .expect("running coreos-installer");
    assert!(
        out.status.success(),
        "coreos-installer {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// A config coreos-installer's Ignition parser keeps whole.
fn role_config() -> Vec<u8> {
    br#"{"ignition":{"version":"3.2.0"},"passwd":{"users":[{"name":"core","sshAuthorizedKeys":["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO0 test"]}]}}"#.to_vec()
}

fn without_nulls(v: Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_nulls).collect()),
        other => other,
    }
}

#[test]
fn coreos_installer_reads_our_iso_config_kargs_and_pxe_image() {
    let Some((dir, iso)) = fixture(&LiveIsoSpec::default()) else {
        return;
    };
    if !have_coreos_installer() {
        return;
    }
    let output = dir.path().join("master.iso");
    let edit = KargsEdit {
        append: vec!["console=ttyS0,115200n8".into()],
        delete: vec![],
    };
    write_iso(&iso.path, &output, &plain(config("master")), &edit, 0o600).unwrap();
    let shown = coreos_installer(&["iso", "ignition", "show", s(&output)]);
    assert_eq!(shown, config("master"), "byte for byte");
    let kargs = coreos_installer(&["iso", "kargs", "show", s(&output)]);
    assert_eq!(
        String::from_utf8(kargs).unwrap().trim(),
        format!("{} console=ttyS0,115200n8", iso.default_kargs)
    );
    let image = dir.path().join("master.ign.img");
    write_config_image(&image, &plain(config("pxe")), 0o600).unwrap();
    let unwrapped = coreos_installer(&["pxe", "ignition", "unwrap", s(&image)]);
    assert_eq!(unwrapped, config("pxe"));
}

#[test]
fn we_read_what_coreos_installer_embeds() {
    let Some((dir, iso)) = fixture(&LiveIsoSpec::default()) else {
        return;
    };
    if !have_coreos_installer() {
        return;
    }
    let cfg = dir.path().join("worker.ign");
    std::fs::write(&cfg, config("worker")).unwrap();
    let embedded_iso = dir.path().join("embedded.iso");
    coreos_installer(&[
        "iso",
        "ignition",
        "embed",
        "-i",
        s(&cfg),
        "-o",
        s(&embedded_iso),
        s(&iso.path),
    ]);
    let embedded = inspect::read_iso(&embedded_iso).unwrap();
    assert_eq!(embedded.config().unwrap(), config("worker"));
    assert_eq!(embedded.kargs.unwrap(), iso.default_kargs);
    let kargs_iso = dir.path().join("kargs.iso");
    coreos_installer(&[
        "iso",
        "kargs",
        "modify",
        "-a",
        "nosmt",
        "-o",
        s(&kargs_iso),
        s(&embedded_iso),
    ]);
    let back = inspect::read_iso(&kargs_iso).unwrap();
    assert_eq!(back.kargs.unwrap(), format!("{} nosmt", iso.default_kargs));
    let image = dir.path().join("wrapped.img");
    coreos_installer(&["pxe", "ignition", "wrap", "-i", s(&cfg), "-o", s(&image)]);
    let pxe = inspect::read_config_image(&image).unwrap();
    assert_eq!(pxe.config().unwrap(), config("worker"));
}

#[test]
fn an_installing_iso_matches_iso_customize_dest_device() {
    let Some((dir, iso)) = fixture(&LiveIsoSpec::default()) else {
        return;
    };
    if !have_coreos_installer() {
        return;
    }
    let cfg = dir.path().join("master.ign");
    std::fs::write(&cfg, role_config()).unwrap();
    let keyfile = dir.path().join("eth0.nmconnection");
    std::fs::write(&keyfile, "[connection]\nid=eth0\ntype=ethernet\n").unwrap();
    let theirs_iso = dir.path().join("customized.iso");
    coreos_installer(&[
        "iso",
        "customize",
        "--dest-device",
        "/dev/sda",
        "--dest-ignition",
        s(&cfg),
        "--dest-karg-append",
        "nosmt",
        "--network-keyfile",
        s(&keyfile),
        "-o",
        s(&theirs_iso),
        s(&iso.path),
    ]);
    let ours_iso = dir.path().join("master.iso");
    let mut custom = installing(role_config(), "/dev/sda");
    if let Some(dest) = custom.dest.as_mut() {
        dest.append_kargs = vec!["nosmt".into()];
    }
    custom.keyfiles = vec![("eth0.nmconnection".into(), std::fs::read(&keyfile).unwrap())];
    write_iso(&iso.path, &ours_iso, &custom, &KargsEdit::default(), 0o600).unwrap();

    let theirs = inspect::read_iso(&theirs_iso).unwrap();
    let ours = inspect::read_iso(&ours_iso).unwrap();
    assert_eq!(ours.keyfiles(), theirs.keyfiles());
    let (t, o) = (theirs.install().unwrap(), ours.install().unwrap());
    let paths = |i: &inspect::Install| i.configs.iter().map(|c| c.0.clone()).collect::<Vec<_>>();
    assert_eq!(paths(&o), paths(&t), "the same installer config file");
    let yaml = |i: &inspect::Install| -> Value {
        serde_saphyr::from_str(&i.configs[0].1).expect("installer config YAML")
    };
    assert_eq!(yaml(&o), yaml(&t), "the same installer options");
    assert_eq!(o.dest_device, t.dest_device);
    assert_eq!(
        o.dest_config.clone().unwrap(),
        role_config(),
        "ours byte for byte"
    );
    let json = |b: Vec<u8>| without_nulls(serde_json::from_slice::<Value>(&b).unwrap());
    assert_eq!(json(o.dest_config.unwrap()), json(t.dest_config.unwrap()));
    let live =
        |e: &inspect::Embedded| -> Value { serde_json::from_slice(e.config().unwrap()).unwrap() };
    let shape = |v: Value| -> Vec<(String, Value)> {
        v["storage"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["path"].as_str().unwrap().to_string(), f["mode"].clone()))
            .collect()
    };
    assert_eq!(
        shape(live(&ours)),
        shape(live(&theirs)),
        "same files, same modes"
    );
    assert_eq!(
        live(&ours)["ignition"]["version"],
        live(&theirs)["ignition"]["version"]
    );
}
