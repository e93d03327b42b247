//! YAML output settings shared by kubeconfigs and the secrets bundle.

use serde::Serialize;

use crate::error::{Error, Result};

/// Serialises with long single-line values (base64 data) as plain scalars rather than folded
/// blocks, and multi-line values (PEM) as literal blocks: the shapes kubectl users expect.
pub(crate) fn to_yaml(value: &impl Serialize, what: &'static str) -> Result<String> {
    let mut options = serde_saphyr::SerializerOptions::default();
    options.folded_wrap_chars = usize::MAX;
    serde_saphyr::to_string_with_options(value, options).map_err(|e| Error::Yaml {
        what,
        reason: e.to_string(),
    })
}
