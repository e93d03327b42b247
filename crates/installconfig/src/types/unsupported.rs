//! The platform keys install-config.yaml may set that okd-install recognises but does not
//! implement, in one table: [`UNSUPPORTED_PLATFORMS`]. The `platform` section and a machine
//! pool's `platform` accept them ([`UnsupportedPlatforms`]) so that validation can name the
//! platform instead of reporting an unknown field.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A platform okd-install recognises but does not implement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnsupportedPlatform {
    /// Its key under `platform` in install-config.yaml.
    pub key: &'static str,
    /// What it is, for the schema's description of the key (`explain`).
    pub title: &'static str,
    /// The key is also recognised under a machine pool's `platform`.
    pub in_pools: bool,
}

const fn row(key: &'static str, title: &'static str, in_pools: bool) -> UnsupportedPlatform {
    UnsupportedPlatform {
        key,
        title,
        in_pools,
    }
}

/// Every platform key okd-install recognises without implementing it, in the order they
/// follow the implemented platforms in the schema and in the keys a section reports set.
pub const UNSUPPORTED_PLATFORMS: [UnsupportedPlatform; 13] = [
    row("aws", "Amazon Web Services", true),
    row("azure", "Microsoft Azure", true),
    row("gcp", "Google Cloud", true),
    row("ibmcloud", "IBM Cloud", true),
    row("nutanix", "Nutanix", true),
    row("openstack", "OpenStack", true),
    row("powervc", "PowerVC", true),
    row("powervs", "IBM Power Virtual Server", true),
    row("external", "external platform integration", false),
    row("ovirt", "oVirt, historic", true),
    row("libvirt", "libvirt, historic", false),
    row("kubevirt", "KubeVirt, historic", false),
    row("alibabacloud", "Alibaba Cloud, historic", false),
];

/// The keys of [`UNSUPPORTED_PLATFORMS`] set in a `platform` section, with their values
/// (never read). `POOL` is a machine pool's section, which recognises the rows `in_pools`
/// only. Flattened into the section: serde and the schema see one optional key per row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UnsupportedPlatforms<const POOL: bool> {
    set: BTreeMap<&'static str, serde_json::Value>,
}

impl<const POOL: bool> UnsupportedPlatforms<POOL> {
    /// The rows this section recognises, in table order.
    pub fn rows() -> impl Iterator<Item = &'static UnsupportedPlatform> {
        UNSUPPORTED_PLATFORMS.iter().filter(|p| !POOL || p.in_pools)
    }

    /// The section with only `key` set to `value`; `None` when the section does not
    /// recognise `key`.
    pub fn with(key: &str, value: serde_json::Value) -> Option<Self> {
        let row = Self::rows().find(|p| p.key == key)?;
        Some(Self {
            set: BTreeMap::from([(row.key, value)]),
        })
    }

    /// The keys set, in table order.
    pub fn set_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        Self::rows()
            .map(|p| p.key)
            .filter(|k| self.set.contains_key(k))
    }

    /// The keys this section recognises, as serde wants them.
    fn keys() -> &'static [&'static str] {
        static SECTION: OnceLock<Vec<&'static str>> = OnceLock::new();
        static POOLS: OnceLock<Vec<&'static str>> = OnceLock::new();
        let cell = if POOL { &POOLS } else { &SECTION };
        cell.get_or_init(|| Self::rows().map(|p| p.key).collect())
    }
}

impl<const POOL: bool> Serialize for UnsupportedPlatforms<POOL> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.set_names().map(|k| (k, &self.set[k])))
    }
}

impl<'de, const POOL: bool> Deserialize<'de> for UnsupportedPlatforms<POOL> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Keys<const POOL: bool>;
        impl<'de, const POOL: bool> Visitor<'de> for Keys<POOL> {
            type Value = UnsupportedPlatforms<POOL>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("platform keys")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut set = BTreeMap::new();
                while let Some(key) = map.next_key::<String>()? {
                    let keys = UnsupportedPlatforms::<POOL>::keys();
                    let Some(key) = keys.iter().copied().find(|k| *k == key) else {
                        return Err(serde::de::Error::unknown_field(&key, keys));
                    };
                    // As an `Option` field: a null value leaves the key unset.
                    if let Some(value) = map.next_value::<Option<serde_json::Value>>()? {
                        set.insert(key, value);
                    }
                }
                Ok(UnsupportedPlatforms { set })
            }
        }
        deserializer.deserialize_struct("UnsupportedPlatforms", Self::keys(), Keys::<POOL>)
    }
}

impl<const POOL: bool> JsonSchema for UnsupportedPlatforms<POOL> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed(if POOL {
            "UnsupportedPoolPlatforms"
        } else {
            "UnsupportedPlatforms"
        })
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let properties: serde_json::Map<String, serde_json::Value> = Self::rows()
            .map(|p| {
                let description = if POOL {
                    "Not supported by okd-install.".to_string()
                } else {
                    format!("Not supported by okd-install ({}).", p.title)
                };
                (
                    p.key.to_string(),
                    serde_json::json!({ "description": description }),
                )
            })
            .collect();
        schemars::json_schema!({
            "type": "object",
            "properties": properties,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{MachinePoolPlatform, PlatformSection};

    /// The keys read and written as the `Option` fields they replace: set keys in table
    /// order, a null value leaves its key unset, a pool knows only the rows `in_pools`.
    #[test]
    fn keys_read_and_write_as_optional_fields() {
        let yaml = "alibabacloud: {}\naws:\n  region: x\ngcp: ~\n";
        let section: PlatformSection = serde_saphyr::from_str(yaml).unwrap();
        assert_eq!(section.set_names(), ["aws", "alibabacloud"]);
        assert_eq!(
            serde_json::to_string(&section).unwrap(),
            r#"{"aws":{"region":"x"},"alibabacloud":{}}"#
        );
        let pool: MachinePoolPlatform = serde_saphyr::from_str("ovirt: {}\n").unwrap();
        assert_eq!(pool.set_names(), ["ovirt"]);
        assert!(serde_saphyr::from_str::<MachinePoolPlatform>("external: {}\n").is_err());
        assert!(serde_saphyr::from_str::<PlatformSection>("ec2: {}\n").is_err());
        assert_eq!(
            UnsupportedPlatforms::<true>::with("external", serde_json::json!({})),
            None
        );
    }
}
