//! Writing configs as compact JSON without nulls, and reading any 3.x config back.

use serde_json::Value;

use crate::{Config, Error, Result};

/// Compact JSON of a config (as upstream writes `.ign` files), with `null` fields removed.
///
/// `ignition-config` serializes unset optional scalars as `null`; Ignition accepts that, but
/// the files would be noisy and differ from what users know. Key order follows the typed
/// model, so the same config always gives the same bytes.
pub fn to_json(config: &Config) -> String {
    strip_nulls(to_value(config)).to_string()
}

/// Indented JSON without nulls, for people and golden files.
pub fn to_json_pretty(config: &Config) -> String {
    let value = strip_nulls(to_value(config));
    serde_json::to_string_pretty(&value).expect("a JSON value always serializes")
}

fn to_value(config: &Config) -> Value {
    serde_json::to_value(config).expect("the Ignition model has only string keys")
}

/// Every line of the `core` user's `sshAuthorizedKeys` in a config read as JSON (any 3.x
/// spec): the keys a node booted from it accepts. Entries holding several keys separated by
/// newlines count key by key, as sshd reads them from `authorized_keys`.
pub fn core_authorized_keys(config: &Value) -> Vec<String> {
    config
        .pointer("/passwd/users")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|user| user["name"] == "core")
        .filter_map(|user| user["sshAuthorizedKeys"].as_array())
        .flatten()
        .filter_map(Value::as_str)
        .flat_map(str::lines)
        .map(str::to_string)
        .collect()
}

/// Remove `null` members of objects, recursively (array elements are kept as they are).
fn strip_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, strip_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(strip_nulls).collect()),
        other => other,
    }
}

/// A config read back from text.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The declared `ignition.version`.
    pub version: String,
    /// The typed config, in the variant of its version.
    pub config: ignition_config::Config,
    /// Keys the spec does not know, as `$.path.to.key` (Ignition would ignore them too,
    /// but they are usually typos).
    pub warnings: Vec<String>,
}

impl Parsed {
    /// The config as spec 3.2.0, if that is its version.
    pub fn into_v3_2(self) -> Option<Config> {
        match self.config {
            ignition_config::Config::V3_2(config) => Some(config),
            _ => None,
        }
    }
}

/// Parse an Ignition config of any 3.x version.
///
/// Errors name the line and column (for malformed JSON or wrong types) or the version
/// problem.
pub fn parse(json: &str) -> Result<Parsed> {
    let (config, warnings) = ignition_config::Config::parse_str(json).map_err(map_error)?;
    let version = serde_json::from_str::<Value>(json)
        .ok()
        .and_then(|v| v["ignition"]["version"].as_str().map(str::to_string))
        .unwrap_or_default();
    Ok(Parsed {
        version,
        config,
        warnings: warnings.into_iter().map(|w| w.to_string()).collect(),
    })
}

/// serde_json appends " at line L column C"; the error carries those as fields already.
fn without_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

fn map_error(err: ignition_config::Error) -> Error {
    match err {
        ignition_config::Error::Serialization(e) => Error::Parse {
            line: e.line(),
            column: e.column(),
            message: without_position(&e.to_string()),
        },
        other => Error::Version {
            message: other.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn core_keys_are_read_line_by_line_and_only_for_core() {
        let config = json!({"passwd": {"users": [
            {"name": "root", "sshAuthorizedKeys": ["ssh-ed25519 ROOT"]},
            {"name": "core", "sshAuthorizedKeys": ["ssh-ed25519 A a@x\nssh-rsa B b@y", "ssh-ed25519 C"]}
        ]}});
        assert_eq!(
            super::core_authorized_keys(&config),
            ["ssh-ed25519 A a@x", "ssh-rsa B b@y", "ssh-ed25519 C"]
        );
        assert!(super::core_authorized_keys(&json!({})).is_empty());
    }
}
