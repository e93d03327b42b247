//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong while building, parsing or explaining a config.
///
/// Each variant names the template, file or position involved so that the message alone is
/// enough to find and fix the cause.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A template failed to render (syntax error, undefined variable, failing filter).
    #[error("rendering template {template}")]
    Template {
        /// Path of the template inside the template tree.
        template: String,
        /// minijinja's error, which carries the line number; a source, not part of the
        /// message, because it may have causes of its own (a failing filter).
        #[source]
        source: Box<minijinja::Error>,
    },
    /// A template or unit is not UTF-8; only static files may be binary.
    #[error("{path} is not UTF-8 text; templates and systemd units must be text")]
    NotUtf8 {
        /// Path of the offending file inside the template tree.
        path: String,
    },
    /// The template directory given on disk could not be read.
    #[error("reading template directory {path}: {error}")]
    Io {
        /// The directory or file that failed.
        path: PathBuf,
        /// The underlying I/O error, part of the message rather than a source.
        error: std::io::Error,
    },
    /// The template tree lacks the directory of a variant that was asked for.
    #[error(
        "the bootstrap template tree has no `{variant}` directory; \
         expected templates/bootstrap/{variant}/ with files/ and units/"
    )]
    MissingVariant {
        /// Directory name of the variant.
        variant: String,
    },
    /// An entry in the template tree does not fit the documented layout.
    #[error("template tree entry {path}: {message}")]
    Layout {
        /// Path of the entry inside the template tree.
        path: String,
        /// What is wrong and what is expected instead.
        message: String,
    },
    /// Context values that would break out of single-quoted shell strings.
    #[error(
        "template context values {} contain a quote (') or a line break; \
         these values are embedded in shell scripts, remove the character",
        keys.join(", ")
    )]
    UnsafeValue {
        /// The offending keys, e.g. `proxy.http_proxy`.
        keys: Vec<String>,
    },
    /// The context's installation-disk settings do not fit the requested variant.
    #[error("template context does not fit {variant}: {message}")]
    VariantContext {
        /// Output file of the variant.
        variant: &'static str,
        /// Which settings must be set or unset.
        message: &'static str,
    },
    /// The binary was built from a checkout without templates/bootstrap.
    #[error(
        "this build embeds no bootstrap templates: templates/bootstrap was missing when it was \
         compiled; rebuild from a complete checkout"
    )]
    NoEmbeddedTemplates,
    /// The text is not a well-formed Ignition config.
    #[error("ignition config, line {line} column {column}: {message}")]
    Parse {
        /// 1-based line of the error (0 when unknown).
        line: usize,
        /// 1-based column of the error (0 when unknown).
        column: usize,
        /// What the parser expected or found.
        message: String,
    },
    /// The config declares a version this crate cannot read.
    #[error("ignition config: {message}; okd-install reads Ignition spec 3.0.0 to 3.6.0")]
    Version {
        /// The parser's description of the version problem.
        message: String,
    },
}
