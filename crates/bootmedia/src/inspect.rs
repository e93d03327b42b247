//! Reading boot media back: the archive in an ISO's Ignition area or in a PXE config image,
//! the live kernel arguments, and for installing media the destination config and disk.
//! Reads what okd-install writes and what `coreos-installer iso customize` / `iso ignition
//! embed` / `pxe customize` write.

use std::path::Path;

use serde_json::Value;

use crate::areas::Layout;
use crate::error::{Error, Result};
use crate::initrd::{CONFIG_PATH, Initrd};
use crate::live::{INSTALLER_DIR, config_file, config_paths};

/// What boot media carry.
#[derive(Debug, Clone)]
pub struct Embedded {
    /// The archive the live system unpacks.
    pub initrd: Initrd,
    /// The live kernel arguments (ISOs with kernel-argument areas only).
    pub kargs: Option<String>,
}

/// The installer configuration of installing media.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    /// The installer config files (path, text) in the live config, in order.
    pub configs: Vec<(String, String)>,
    /// `dest-device` of the last config that sets it.
    pub dest_device: Option<String>,
    /// The destination config, when the installer's `ignition-file` is in the live config.
    pub dest_config: Option<Vec<u8>>,
}

/// Reads the live ISO at `path`.
pub fn read_iso(path: &Path) -> Result<Embedded> {
    let (mut file, layout) = Layout::open(path)?;
    let area = layout.ignition_bytes(&mut file)?;
    Ok(Embedded {
        initrd: Initrd::parse(path, &area)?,
        kargs: layout.current_kargs(&mut file)?,
    })
}

/// Reads the PXE config image at `path` (the cpio is small: read whole).
pub fn read_config_image(path: &Path) -> Result<Embedded> {
    let data = std::fs::read(path).map_err(|e| Error::read(path, e))?;
    Ok(Embedded {
        initrd: Initrd::parse(path, &data)?,
        kargs: None,
    })
}

impl Embedded {
    /// The live system's Ignition config (`config.ign`), if any.
    pub fn config(&self) -> Option<&[u8]> {
        self.initrd.get(CONFIG_PATH)
    }

    /// NetworkManager keyfile names for the live system.
    pub fn keyfiles(&self) -> Vec<String> {
        let prefix = format!("{}/", crate::live::NETWORK_DIR);
        self.initrd
            .files()
            .keys()
            .filter_map(|p| p.strip_prefix(&prefix).map(str::to_string))
            .collect()
    }

    /// The installer configuration, when the live config runs the installer.
    pub fn install(&self) -> Option<Install> {
        let live: Value = serde_json::from_slice(self.config()?).ok()?;
        let configs: Vec<(String, String)> = config_paths(&live)
            .into_iter()
            .filter(|p| p.starts_with(INSTALLER_DIR) && p.ends_with(".yaml"))
            .filter_map(|p| {
                let text = String::from_utf8(config_file(&live, &p)?).ok()?;
                Some((p, text))
            })
            .collect();
        if configs.is_empty() {
            return None;
        }
        let last = |key: &str| configs.iter().rev().find_map(|(_, t)| yaml_value(t, key));
        let dest_config = last("ignition-file").and_then(|f| config_file(&live, &f));
        Some(Install {
            dest_device: last("dest-device"),
            dest_config,
            configs,
        })
    }

    /// The config a machine booted from these media ends up with: the destination config of
    /// installing media, else the live config itself.
    pub fn machine_config(&self) -> Option<Vec<u8>> {
        match self.install() {
            Some(install) => install.dest_config,
            None => self.config().map(<[u8]>::to_vec),
        }
    }
}

/// The string value of top-level `key` in a flat YAML mapping (plain, single- or
/// double-quoted scalars).
fn yaml_value(text: &str, key: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let value = line.strip_prefix(key)?.strip_prefix(':')?.trim();
        let value = value.split(" #").next().unwrap_or(value).trim();
        if value.starts_with('"') {
            serde_json::from_str(value).ok()
        } else if let Some(inner) = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
            Some(inner.replace("''", "'"))
        } else {
            (!value.is_empty()).then(|| value.to_string())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::{Customization, Destination};

    #[test]
    fn yaml_values_in_each_quoting() {
        let text = "ignition-file: /etc/coreos/dest.ign\ndest-device: \"/dev/sda\"\n\
                    platform: 'metal'\ncopy-network: true\n";
        assert_eq!(
            yaml_value(text, "ignition-file").unwrap(),
            "/etc/coreos/dest.ign"
        );
        assert_eq!(yaml_value(text, "dest-device").unwrap(), "/dev/sda");
        assert_eq!(yaml_value(text, "platform").unwrap(), "metal");
        assert_eq!(yaml_value(text, "dest"), None);
    }

    #[test]
    fn installing_media_give_back_the_disk_and_the_destination_config() {
        let custom = Customization {
            config: b"{\"ignition\":{\"version\":\"3.2.0\"}}".to_vec(),
            dest: Some(Destination {
                device: "/dev/vda".into(),
                append_kargs: vec![],
            }),
            keyfiles: vec![],
        };
        let embedded = Embedded {
            initrd: custom.initrd(None).unwrap(),
            kargs: None,
        };
        let install = embedded.install().unwrap();
        assert_eq!(install.dest_device.as_deref(), Some("/dev/vda"));
        assert_eq!(embedded.machine_config().unwrap(), custom.config);
        let plain = Embedded {
            initrd: Customization {
                dest: None,
                ..custom.clone()
            }
            .initrd(None)
            .unwrap(),
            kargs: None,
        };
        assert_eq!(plain.install(), None);
        assert_eq!(plain.machine_config().unwrap(), custom.config);
    }
}
