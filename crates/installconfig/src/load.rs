//! Reading install-config.yaml: parse with positions, schema walk, conversion, defaults,
//! validation, all problems collected into one [`LoadError`].

use std::path::{Path, PathBuf};

use crate::errors::{FieldError, LoadError, Warning};
use crate::types::{API_VERSION, InstallConfig};
use crate::yaml_tree::{self, Node, Value};
use crate::{convert, defaults, schema_check, validate};

/// A loaded, defaulted and validated install config.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The config after conversion and defaulting.
    pub config: InstallConfig,
    /// Non-fatal findings to show the user.
    pub warnings: Vec<Warning>,
    /// The file's text as read.
    pub raw: String,
}

/// Larger than any install config (the largest real ones, with a trust bundle of many CAs,
/// are a few hundred KiB): a file this size is refused before it is read.
pub(crate) const MAX_FILE: u64 = 16 << 20;

/// Reads and checks an install-config.yaml file, as data of its directory: a link out of
/// it, a FIFO or device, or a file over [`MAX_FILE`] is refused before it is read.
pub fn load(path: impl AsRef<Path>) -> Result<Loaded, LoadError> {
    let path = path.as_ref();
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().map_or(path, Path::new);
    let bytes = atomic_file::input::read_in_dir(dir, name, MAX_FILE).map_err(|e| match e {
        atomic_file::input::InputError::Io { source, .. } => LoadError::Io {
            file: path.to_path_buf(),
            error: source,
        },
        other => LoadError::Unusable(other),
    })?;
    let text = String::from_utf8(bytes).map_err(|_| LoadError::Io {
        file: path.to_path_buf(),
        error: std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "it is not UTF-8 text, so not an install config",
        ),
    })?;
    parse_path(&text, path.to_path_buf())
}

/// Parses and checks install-config text; `file_name` is used in messages.
pub fn parse_str(text: &str, file_name: &str) -> Result<Loaded, LoadError> {
    parse_path(text, PathBuf::from(file_name))
}

fn parse_path(text: &str, file: PathBuf) -> Result<Loaded, LoadError> {
    let tree = yaml_tree::parse(text).map_err(|e| LoadError::Syntax {
        file: file.clone(),
        position: e.position,
        message: e.message,
    })?;
    match check_tree(tree) {
        Ok((config, warnings)) => Ok(Loaded {
            config,
            warnings,
            raw: text.to_string(),
        }),
        Err(errors) => Err(LoadError::Invalid { file, errors }),
    }
}

/// Every stage after YAML parsing; returns the config and warnings, or all problems found.
fn check_tree(mut tree: Node) -> Result<(InstallConfig, Vec<Warning>), Vec<FieldError>> {
    if !matches!(tree.value, Value::Map(_)) {
        let mut e = FieldError::invalid(
            "",
            tree.value.type_name(),
            "the file must contain a YAML mapping of install-config fields",
        );
        e.position = Some(tree.pos);
        return Err(vec![e]);
    }
    if let Some(e) = not_an_install_config(&tree) {
        return Err(vec![e]);
    }
    // A missing apiVersion is reported with everything else (the file is checked as v1);
    // another version has another schema, so nothing else is worth reporting.
    let missing_version = match check_api_version(&tree) {
        Some(e) if e.kind == crate::ErrorKind::Required => Some(e),
        Some(e) => return Err(vec![e]),
        None => None,
    };
    empty_platforms_to_maps(&mut tree);
    let walked = schema_check::walk(&tree);
    let mut errors: Vec<FieldError> = missing_version
        .into_iter()
        .chain(walked.errors)
        .chain(capabilities_without_baseline(&tree))
        .collect();
    let mut config: InstallConfig = serde_json::from_value(walked.value).map_err(|e| {
        let mut err = FieldError::invalid("", "install-config", format!("cannot be read: {e}"));
        err.position = Some(tree.pos);
        errors.push(err);
        errors.clone()
    })?;
    let converted = convert::convert(&mut config);
    defaults::apply(&mut config);
    let checked = validate::validate(&config);
    let found = converted.errors.into_iter().chain(checked.errors);
    errors.extend(found.filter(|e| !under_dropped(&e.path, &walked.dropped)));
    for e in errors.iter_mut().filter(|e| e.position.is_none()) {
        e.position = tree.position_of(&e.path);
    }
    let mut warnings = converted.warnings;
    warnings.extend(checked.warnings);
    if errors.is_empty() {
        Ok((config, warnings))
    } else {
        Err(errors)
    }
}

fn check_api_version(tree: &Node) -> Option<FieldError> {
    let Some(v) = tree.get("apiVersion") else {
        let detail = format!("add `apiVersion: {API_VERSION}` at the top of the file");
        return Some(FieldError::required("apiVersion", detail));
    };
    match &v.value {
        Value::Str(s) if s == API_VERSION => None,
        other => {
            let mut e = FieldError::invalid(
                "apiVersion",
                other.scalar_text(),
                format!(
                    "okd-install reads install-config version {API_VERSION:?} only; change apiVersion to {API_VERSION} and update the fields to the v1 schema (`okd-install explain installconfig`)"
                ),
            );
            e.position = Some(v.pos);
            Some(e)
        }
    }
}

/// A mapping none of whose keys is an install-config field is some other file (a
/// Kubernetes manifest, a password file read through a link): one line says so, instead of
/// an "unknown field" line per key that would echo the file back.
fn not_an_install_config(tree: &Node) -> Option<FieldError> {
    let Value::Map(entries) = &tree.value else {
        return None;
    };
    let fields = schema_check::root_schema().get("properties")?.as_object()?;
    let known = entries
        .iter()
        .any(|(k, _)| matches!(&k.value, Value::Str(s) if fields.contains_key(s)));
    if known || entries.is_empty() {
        return None;
    }
    let mut e = FieldError::invalid(
        "",
        format!("a mapping of {} unknown keys", entries.len()),
        "none of its keys is an install-config field (apiVersion, baseDomain, metadata, \
         platform, pullSecret, ...): this is not an install-config.yaml; put the install \
         config there (`okd-install create install-config` writes one)",
    );
    e.position = Some(tree.pos);
    Some(e)
}

/// A `capabilities` section must name its baseline: upstream refuses one without it (the
/// empty set is not one of the known sets) rather than assume vCurrent, and so do we, so
/// that a config is read the same way by both.
fn capabilities_without_baseline(tree: &Node) -> Option<FieldError> {
    let caps = tree.get("capabilities")?;
    if !matches!(caps.value, Value::Map(_)) || caps.get("baselineCapabilitySet").is_some() {
        return None;
    }
    let mut e = FieldError::required(
        "capabilities.baselineCapabilitySet",
        "a capabilities section needs its baseline; add `baselineCapabilitySet: vCurrent` \
         (or None, v4.11 ... v4.18) under capabilities, or remove the section",
    );
    e.position = Some(caps.pos);
    Some(e)
}

/// `platform: {none: }` means "the none platform with no settings", not "unset".
fn empty_platforms_to_maps(tree: &mut Node) {
    let Value::Map(entries) = &mut tree.value else {
        return;
    };
    for (k, v) in entries.iter_mut() {
        if matches!(&k.value, Value::Str(s) if s == "platform")
            && let Value::Map(platforms) = &mut v.value
        {
            for (_, p) in platforms.iter_mut() {
                if matches!(p.value, Value::Null) {
                    p.value = Value::Map(Vec::new());
                }
            }
        }
    }
}

fn under_dropped(path: &str, dropped: &[String]) -> bool {
    dropped.iter().any(|d| {
        path == d
            || path
                .strip_prefix(d.as_str())
                .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
    })
}
