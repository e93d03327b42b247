//! Platform selection rules.

use super::Validation;
use crate::errors::FieldError;
use crate::types::{InstallConfig, Platform};

/// Exactly one platform, and one okd-install implements.
pub(super) fn platform(cfg: &InstallConfig, v: &mut Validation) {
    let names = cfg.platform.set_names();
    match names.as_slice() {
        [] => v.err(FieldError::required(
            "platform",
            format!(
                "set exactly one platform; okd-install supports {}",
                supported()
            ),
        )),
        [one] if Platform::from_name(one).is_none() => {
            v.err(FieldError::not_supported_platform(one))
        }
        [_] => {}
        [first, rest @ ..] => {
            for other in rest {
                v.err(FieldError::invalid(
                    "platform",
                    first,
                    format!("only one platform may be set, but both {first:?} and {other:?} are; remove one"),
                ));
            }
        }
    }
}

fn supported() -> String {
    Platform::ALL.map(Platform::name).join(", ")
}

impl FieldError {
    /// The error for a platform key okd-install does not implement.
    pub fn not_supported_platform(name: &str) -> FieldError {
        FieldError::new(
            format!("platform.{name}"),
            crate::errors::ErrorKind::NotSupported,
            Some(name.to_string()),
            format!(
                "platform {name} is not supported by okd-install; supported: {}",
                supported()
            ),
        )
    }
}
