//! YAML rendering shared by every generator.

use serde::Serialize;

/// Render `value` as one YAML document.
///
/// Multi-line strings (PEM bundles, install-config) become literal blocks; long single-line
/// strings (base64, SSH keys) stay on one plain line instead of being folded, so a user who
/// greps or edits a manifest sees the value as it is. serde-saphyr quotes YAML 1.1 look-alikes
/// such as `yes`/`no`, which matters because the cluster reads these files with a 1.1 parser.
pub fn to_yaml<T: Serialize>(value: &T) -> Result<String, serde_saphyr::SerializeError> {
    let mut options = serde_saphyr::SerializerOptions::default();
    options.folded_wrap_chars = usize::MAX;
    serde_saphyr::to_string_with_options(value, options)
}
