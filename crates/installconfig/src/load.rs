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

/// Reads and checks an install-config.yaml file.
pub fn load(path: impl AsRef<Path>) -> Result<Loaded, LoadError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|error| LoadError::Io {
        file: path.to_path_buf(),
        error,
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
    // A missing apiVersion is reported with everything else (the file is checked as v1);
    // another version has another schema, so nothing else is worth reporting.
    let missing_version = match check_api_version(&tree) {
        Some(e) if e.kind == crate::ErrorKind::Required => Some(e),
        Some(e) => return Err(vec![e]),
        None => None,
    };
    empty_platforms_to_maps(&mut tree);
    let walked = schema_check::walk(&tree);
    let mut errors: Vec<FieldError> = missing_version.into_iter().chain(walked.errors).collect();
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
