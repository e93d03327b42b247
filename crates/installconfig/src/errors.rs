//! Field errors, warnings and the load error.

use std::fmt;
use std::path::PathBuf;

/// A line/column position in install-config.yaml (both 1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    /// Line, 1-based.
    pub line: u64,
    /// Column, 1-based.
    pub column: u64,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// What is wrong with a field (the Kubernetes field-error vocabulary plus `Unknown`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The value is not acceptable.
    Invalid,
    /// A value is missing.
    Required,
    /// The value is not one of a fixed set.
    NotSupported,
    /// The field may not be used here.
    Forbidden,
    /// The value repeats an earlier one.
    Duplicate,
    /// The list has too many items.
    TooMany,
    /// The field does not exist in the schema.
    Unknown,
}

/// One problem with one field of the install config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// Field path, e.g. `networking.clusterNetwork[0].hostPrefix`.
    pub path: String,
    /// Kind of problem.
    pub kind: ErrorKind,
    /// The offending value, rendered as text, when there is one worth showing.
    pub value: Option<String>,
    /// What is wrong and how to fix it.
    pub detail: String,
    /// Where the field is in the file, when it is known.
    pub position: Option<Position>,
}

impl FieldError {
    /// Creates an error without a position.
    pub fn new(
        path: impl Into<String>,
        kind: ErrorKind,
        value: Option<String>,
        detail: impl Into<String>,
    ) -> Self {
        let path = path.into();
        let mut detail = detail.into();
        let value = if is_secret_path(&path) {
            // The value of a secret field is never shown, in whatever form it was written.
            if let Some(v) = value.as_deref().filter(|v| !v.is_empty()) {
                detail = detail.replace(v, "(the value, not shown)");
            }
            None
        } else {
            value
        };
        FieldError {
            path,
            kind,
            value,
            detail,
            position: None,
        }
    }

    /// An `Invalid` error with a value.
    pub fn invalid(
        path: impl Into<String>,
        value: impl fmt::Display,
        detail: impl Into<String>,
    ) -> Self {
        Self::new(path, ErrorKind::Invalid, Some(value.to_string()), detail)
    }

    /// A `Required` error.
    pub fn required(path: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(path, ErrorKind::Required, None, detail)
    }

    /// A `Forbidden` error.
    pub fn forbidden(path: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::new(path, ErrorKind::Forbidden, None, detail)
    }

    /// A `NotSupported` error listing the supported values.
    pub fn not_supported(
        path: impl Into<String>,
        value: impl fmt::Display,
        supported: &[&str],
    ) -> Self {
        let list: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
        Self::new(
            path,
            ErrorKind::NotSupported,
            Some(value.to_string()),
            format!("use one of {}", list.join(", ")),
        )
    }

    /// A `Duplicate` error.
    pub fn duplicate(
        path: impl Into<String>,
        value: impl fmt::Display,
        detail: impl Into<String>,
    ) -> Self {
        Self::new(path, ErrorKind::Duplicate, Some(value.to_string()), detail)
    }

    /// A `TooMany` error.
    pub fn too_many(path: impl Into<String>, count: usize, max: usize) -> Self {
        Self::new(
            path,
            ErrorKind::TooMany,
            Some(count.to_string()),
            format!("at most {max} items are allowed; remove the extra ones"),
        )
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "<root>"
        } else {
            &self.path
        };
        let value = self.value.as_deref().map(|v| {
            if v.parse::<f64>().is_ok() {
                v.to_string()
            } else {
                format!("{v:?}")
            }
        });
        match (self.kind, value) {
            (ErrorKind::Invalid, Some(v)) => {
                write!(f, "{path}: Invalid value: {v}: {}", self.detail)
            }
            (ErrorKind::Invalid, None) => write!(f, "{path}: Invalid value: {}", self.detail),
            (ErrorKind::Required, _) => write!(f, "{path}: Required value: {}", self.detail),
            (ErrorKind::NotSupported, Some(v)) => {
                write!(f, "{path}: Unsupported value: {v}: {}", self.detail)
            }
            (ErrorKind::NotSupported, None) => {
                write!(f, "{path}: Unsupported value: {}", self.detail)
            }
            (ErrorKind::Forbidden, _) => write!(f, "{path}: Forbidden: {}", self.detail),
            (ErrorKind::Duplicate, Some(v)) => {
                write!(f, "{path}: Duplicate value: {v}: {}", self.detail)
            }
            (ErrorKind::Duplicate, None) => write!(f, "{path}: Duplicate value: {}", self.detail),
            (ErrorKind::TooMany, _) => {
                let n = self.value.as_deref().unwrap_or_default();
                write!(f, "{path}: Too many: {n}: {}", self.detail)
            }
            (ErrorKind::Unknown, _) => write!(f, "{path}: {}", self.detail),
        }?;
        if let Some(pos) = self.position {
            write!(f, " (line {}, column {})", pos.line, pos.column)?;
        }
        Ok(())
    }
}

/// Whether the field at `path` holds a secret (a password, the pull secret, a token or a
/// key): its value never appears in an error, a warning or a log, so that a message pasted
/// into a support case leaks nothing. The rule goes by the field's name, so it also covers
/// fields added later under the same names.
pub fn is_secret_path(path: &str) -> bool {
    let last = path
        .rsplit('.')
        .next()
        .unwrap_or(path)
        .split('[')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    last.ends_with("password")
        || last == "pullsecret"
        || last == "auth"
        || last.ends_with("token")
        || last.ends_with("privatekey")
}

/// A non-fatal finding the user should see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Field path the warning is about.
    pub path: String,
    /// What to look at.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Why install-config.yaml could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("cannot read {}: {error}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The OS error, part of the message rather than a source.
        error: std::io::Error,
    },
    /// The file is a link out of its directory, a special file or far too large.
    #[error("{0}")]
    Unusable(atomic_file::input::InputError),
    /// The file is not well-formed YAML.
    #[error("{}:{}:{}: invalid YAML: {message}; fix the syntax at that position", file.display(), position.line, position.column)]
    Syntax {
        /// The file.
        file: PathBuf,
        /// Where the parser stopped.
        position: Position,
        /// The parser's message.
        message: String,
    },
    /// The file parsed but has problems; every one of them is listed.
    #[error("invalid {:?} file ({} problem{}):{}", file.display().to_string(), errors.len(), if errors.len() == 1 { "" } else { "s" }, render_list(errors))]
    Invalid {
        /// The file.
        file: PathBuf,
        /// Every problem found.
        errors: Vec<FieldError>,
    },
}

fn render_list(errors: &[FieldError]) -> String {
    errors.iter().map(|e| format!("\n  {e}")).collect()
}
