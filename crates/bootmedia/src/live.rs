//! What goes into the archive the live system unpacks: the Ignition config, NetworkManager
//! keyfiles, and for media that install to a disk the live config that makes the live
//! image's installer service run.
//!
//! The installing form matches `coreos-installer iso customize --dest-device D
//! --dest-ignition F`: the live Ignition config writes the destination config to
//! `/etc/coreos/dest.ign` and an installer config to `/etc/coreos/installer.d/`, whose
//! `*.yaml` files the live system's `coreos-installer.service` runs `coreos-installer
//! install` with, then reboots. Unlike coreos-installer, the destination config is embedded
//! byte for byte as given (coreos-installer re-serializes it), so it can be compared with the
//! file it came from.

use std::io::{Read as _, Write as _};
use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Value, json};

use crate::areas::Features;
use crate::error::{Error, Result};
use crate::initrd::{CONFIG_PATH, Initrd};

/// Where the live initramfs looks for NetworkManager keyfiles to apply.
pub const NETWORK_DIR: &str = "etc/coreos-firstboot-network";
/// Where the live config puts the destination config.
pub const DEST_CONFIG_PATH: &str = "/etc/coreos/dest.ign";
/// The directory of installer configs the live installer service reads.
pub const INSTALLER_DIR: &str = "/etc/coreos/installer.d/";
/// The installer config written, named as coreos-installer names its own.
pub const INSTALLER_CONFIG_PATH: &str = "/etc/coreos/installer.d/0000-customize.yaml";
/// The Ignition spec of the live config (the one coreos-installer writes).
const LIVE_SPEC: &str = "3.3.0";
/// Mode of the written files: they hold the destination config and its secrets.
const SECRET_MODE: u32 = 0o600;

/// What the boot media should do.
#[derive(Debug, Clone, Default)]
pub struct Customization {
    /// The role's Ignition config, as written by `create ignition-configs`.
    pub config: Vec<u8>,
    /// Install to a disk with `config` as the installed system's config, then reboot.
    pub dest: Option<Destination>,
    /// NetworkManager keyfiles (file name, contents) for the live system; with `dest` also
    /// copied to the installed system.
    pub keyfiles: Vec<(String, Vec<u8>)>,
}

/// Where and how the live system installs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Destination {
    /// The disk, such as `/dev/sda` or `/dev/disk/by-id/...`.
    pub device: String,
    /// Kernel arguments added to the installed system.
    pub append_kargs: Vec<String>,
}

/// Larger than any NetworkManager keyfile: a file this size is not one.
const MAX_KEYFILE: u64 = 1 << 20;

/// Reads the keyfile the user named with `--network-keyfile`: its name and bytes (links
/// followed, but a regular file of at most 1 MiB).
pub fn read_keyfile(path: &Path) -> Result<(String, Vec<u8>)> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| Error::Input(format!("{} has no file name", path.display())))?;
    let data = atomic_file::input::read_named(path, MAX_KEYFILE).map_err(|e| {
        Error::Input(format!(
            "cannot read keyfile given with --network-keyfile: {e}"
        ))
    })?;
    Ok((name.to_string(), data))
}

impl Destination {
    /// Refuses a device or kernel argument that a boot could not use as given: a device
    /// that is not an absolute path, anything with whitespace or a control character (a
    /// newline would end the line it is written on).
    pub fn check(&self) -> Result<()> {
        if !self.device.starts_with('/') || crate::pxe::has_space_or_control(&self.device) {
            return Err(Error::Input(format!(
                "--dest-device {:?} is not a disk's path; give one such as /dev/sda or \
                 /dev/disk/by-id/..., without spaces or control characters",
                self.device
            )));
        }
        for arg in &self.append_kargs {
            crate::pxe::check_karg("--dest-karg-append", arg)?;
        }
        Ok(())
    }
}

impl Customization {
    /// The archive for the live system. `features` are the live ISO's, with its path (None
    /// for PXE, where the initramfs is not at hand): a flag the image cannot honour is refused.
    pub fn initrd(&self, features: Option<(&Path, &Features)>) -> Result<Initrd> {
        let mut initrd = Initrd::default();
        for (name, data) in &self.keyfiles {
            check_feature(features, |f| f.live_initrd_network, "--network-keyfile")?;
            if name.is_empty() || name.contains('/') || name.starts_with('.') {
                return Err(Error::Input(format!("{name:?} is not a keyfile name")));
            }
            initrd
                .add(&format!("{NETWORK_DIR}/{name}"), data.clone())
                .map_err(|_| Error::Input(format!("keyfile {name} is given twice")))?;
        }
        let config = match &self.dest {
            None => self.config.clone(),
            Some(dest) => {
                dest.check()?;
                check_feature(features, |f| f.installer_config, "--dest-device")?;
                live_config(&self.config, dest, !self.keyfiles.is_empty())?
            }
        };
        initrd.add(CONFIG_PATH, config)?;
        Ok(initrd)
    }
}

fn check_feature(
    features: Option<(&Path, &Features)>,
    has: impl Fn(&Features) -> bool,
    flag: &'static str,
) -> Result<()> {
    match features {
        Some((path, f)) if !has(f) => Err(Error::Unsupported {
            path: path.to_path_buf(),
            flag,
            reason: "its /coreos/features.json does not list it".into(),
        }),
        _ => Ok(()),
    }
}

/// The live Ignition config that installs `dest_config` to `dest.device`.
pub fn live_config(dest_config: &[u8], dest: &Destination, copy_network: bool) -> Result<Vec<u8>> {
    let yaml = installer_yaml(dest, copy_network);
    let config = json!({
        "ignition": {"version": LIVE_SPEC},
        "storage": {"files": [
            file_entry(DEST_CONFIG_PATH, dest_config)?,
            file_entry(INSTALLER_CONFIG_PATH, yaml.as_bytes())?,
        ]},
    });
    let mut out = serde_json::to_vec(&config).map_err(|e| Error::Input(e.to_string()))?;
    out.push(b'\n');
    Ok(out)
}

/// The installer config (coreos-installer's `install` options by their long names), each
/// string JSON-quoted, which YAML reads as is.
pub fn installer_yaml(dest: &Destination, copy_network: bool) -> String {
    let q = |s: &str| Value::String(s.to_string()).to_string();
    let mut yaml = format!("ignition-file: {}\n", q(DEST_CONFIG_PATH));
    if !dest.append_kargs.is_empty() {
        yaml.push_str("append-karg:\n");
        for k in &dest.append_kargs {
            yaml.push_str(&format!("- {}\n", q(k)));
        }
    }
    if copy_network {
        yaml.push_str("copy-network: true\n");
    }
    yaml.push_str(&format!("dest-device: {}\n", q(&dest.device)));
    yaml
}

fn file_entry(path: &str, data: &[u8]) -> Result<Value> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(data)
        .and_then(|_| gz.finish())
        .map(|compressed| {
            json!({
                "path": path,
                "contents": {
                    "compression": "gzip",
                    "source": format!("data:;base64,{}", BASE64.encode(compressed)),
                },
                "mode": SECRET_MODE,
            })
        })
        .map_err(|e| Error::Input(format!("compressing {path}: {e}")))
}

/// The inline contents of `path` in the Ignition config `config` (data URLs, base64 or
/// plain, gzip or not); `None` when the config has no such file or it is remote.
pub fn config_file(config: &Value, path: &str) -> Option<Vec<u8>> {
    let file = config
        .pointer("/storage/files")?
        .as_array()?
        .iter()
        .find(|f| f["path"] == path)?;
    let contents = &file["contents"];
    let source = contents["source"].as_str()?;
    let (meta, payload) = source.strip_prefix("data:")?.split_once(',')?;
    let raw = if meta.ends_with(";base64") {
        BASE64.decode(payload).ok()?
    } else {
        percent_decode(payload)
    };
    match contents["compression"].as_str() {
        Some("gzip") => {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(raw.as_slice())
                .read_to_end(&mut out)
                .ok()?;
            Some(out)
        }
        None | Some("") => Some(raw),
        Some(_) => None,
    }
}

/// Every file path of the Ignition config `config`.
pub fn config_paths(config: &Value) -> Vec<String> {
    config
        .pointer("/storage/files")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|f| f["path"].as_str().map(str::to_string))
        .collect()
}

fn percent_decode(s: &str) -> Vec<u8> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| {
            std::str::from_utf8(h)
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        });
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dest() -> Destination {
        Destination {
            device: "/dev/sda".into(),
            append_kargs: vec!["console=ttyS0,115200".into()],
        }
    }

    #[test]
    fn the_live_config_carries_the_destination_config_byte_for_byte() {
        let role = br#"{"ignition":{"version":"3.2.0"}}"#.to_vec();
        let live = live_config(&role, &dest(), true).unwrap();
        let value: Value = serde_json::from_slice(&live).unwrap();
        assert_eq!(value["ignition"]["version"], "3.3.0");
        assert_eq!(config_file(&value, DEST_CONFIG_PATH).unwrap(), role);
        let yaml = String::from_utf8(config_file(&value, INSTALLER_CONFIG_PATH).unwrap()).unwrap();
        assert_eq!(
            yaml,
            "ignition-file: \"/etc/coreos/dest.ign\"\nappend-karg:\n- \"console=ttyS0,115200\"\n\
             copy-network: true\ndest-device: \"/dev/sda\"\n"
        );
        let files = value["storage"]["files"].as_array().unwrap();
        assert!(files.iter().all(|f| f["mode"] == 0o600));
        assert_eq!(
            live,
            live_config(&role, &dest(), true).unwrap(),
            "reproducible"
        );
    }

    #[test]
    fn a_destination_with_a_newline_or_no_path_is_refused() {
        for device in ["sda", "/dev/sda\nshell", "/dev/sd a", ""] {
            let d = Destination {
                device: device.into(),
                append_kargs: vec![],
            };
            let err = d.check().unwrap_err().to_string();
            assert!(err.contains("--dest-device"), "{err}");
        }
        let d = Destination {
            device: "/dev/disk/by-id/wwn-0x5000".into(),
            append_kargs: vec!["console=ttyS0\n".into()],
        };
        let err = d.check().unwrap_err().to_string();
        assert!(err.contains("--dest-karg-append"), "{err}");
        assert!(dest().check().is_ok());
    }

    #[test]
    fn features_the_iso_lacks_are_refused_by_flag() {
        let custom = Customization {
            config: b"{}".to_vec(),
            dest: Some(dest()),
            keyfiles: vec![("eth0.nmconnection".into(), b"[connection]".to_vec())],
        };
        let none = Features::default();
        let err = custom
            .initrd(Some((Path::new("live.iso"), &none)))
            .unwrap_err();
        assert!(err.to_string().contains("--network-keyfile"), "{err}");
        let all = Features {
            installer_config: true,
            live_initrd_network: true,
        };
        let initrd = custom.initrd(Some((Path::new("live.iso"), &all))).unwrap();
        assert!(
            initrd
                .get("etc/coreos-firstboot-network/eth0.nmconnection")
                .is_some()
        );
        let plain = Customization {
            dest: None,
            keyfiles: vec![],
            ..custom
        };
        assert_eq!(
            plain.initrd(None).unwrap().get(CONFIG_PATH),
            Some(&b"{}"[..])
        );
    }

    #[test]
    fn data_urls_decode_in_every_form() {
        let config = json!({"storage": {"files": [
            {"path": "/a", "contents": {"source": "data:,a%20b"}},
            {"path": "/b", "contents": {"source": "data:text/plain;base64,aGk="}},
            {"path": "/c", "contents": {"source": "https://example.com/x"}},
        ]}});
        assert_eq!(config_file(&config, "/a").unwrap(), b"a b");
        assert_eq!(config_file(&config, "/b").unwrap(), b"hi");
        assert_eq!(config_file(&config, "/c"), None);
        assert_eq!(config_paths(&config), ["/a", "/b", "/c"]);
    }
}
