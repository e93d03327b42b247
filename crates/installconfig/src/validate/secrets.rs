//! Pull secret, SSH keys and the additional trust bundle.

use super::Validation;
use super::sshkey::{fips_allowed, parse_authorized_keys};
use crate::errors::FieldError;
use crate::types::InstallConfig;

/// Checks the pull secret text; usable by the survey as well.
pub fn pull_secret_problem(text: &str) -> Option<String> {
    let json: serde_json::Value = match serde_json::from_str(text) {
        Ok(j) => j,
        Err(e) => {
            return Some(format!(
                "is not valid JSON ({e}); paste the pull secret file unchanged"
            ));
        }
    };
    let Some(auths) = json
        .get("auths")
        .and_then(|a| a.as_object())
        .filter(|a| !a.is_empty())
    else {
        return Some("needs a non-empty \"auths\" object with one entry per registry".into());
    };
    for (registry, entry) in auths {
        let has = |k: &str| {
            entry
                .get(k)
                .and_then(|v| v.as_str())
                .is_some_and(|s| !s.is_empty())
        };
        if !has("auth") && !has("credsStore") {
            return Some(format!(
                "the entry for {registry:?} needs an \"auth\" (base64 user:password) or \"credsStore\" value"
            ));
        }
    }
    None
}

/// Registries listed in the pull secret (empty if it does not parse).
pub(super) fn pull_secret_registries(text: &str) -> Vec<String> {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|j| {
            j.get("auths")
                .and_then(|a| a.as_object())
                .map(|a| a.keys().cloned().collect())
        })
        .unwrap_or_default()
}

/// Checks one or more authorized_keys lines; usable by the survey as well.
pub fn ssh_key_problem(text: &str, fips: bool) -> Option<String> {
    let keys = match parse_authorized_keys(text) {
        Ok(k) => k,
        Err(e) => return Some(e),
    };
    keys.iter()
        .find(|k| fips && !fips_allowed(&k.key_type))
        .map(|k| {
            format!(
                "key type {} cannot be used with FIPS enabled; use an RSA or ECDSA key",
                k.key_type
            )
        })
}

/// Pull secret, SSH key and trust bundle rules.
pub(super) fn secrets(cfg: &InstallConfig, v: &mut Validation) {
    if cfg.pull_secret.trim().is_empty() {
        v.err(FieldError::required("pullSecret", "paste the pull secret JSON (use '{\"auths\":{\"fake\":{\"auth\":\"aWQ6cGFzcwo=\"}}}' for OKD without a private registry)"));
    } else if let Some(p) = pull_secret_problem(&cfg.pull_secret) {
        v.err(FieldError::new(
            "pullSecret",
            crate::ErrorKind::Invalid,
            None,
            format!("the pull secret {p}"),
        ));
    }
    if !cfg.ssh_key.trim().is_empty()
        && let Some(p) = ssh_key_problem(&cfg.ssh_key, cfg.fips)
    {
        v.err(FieldError::new(
            "sshKey",
            crate::ErrorKind::Invalid,
            None,
            p,
        ));
    }
    if let Some(bundle) = &cfg.additional_trust_bundle
        && let Some(p) = trust_bundle_problem(bundle)
    {
        v.err(FieldError::new(
            "additionalTrustBundle",
            crate::ErrorKind::Invalid,
            None,
            p,
        ));
    }
}

/// Why a PEM bundle is not a list of X.509 certificates, if it is not.
pub fn trust_bundle_problem(text: &str) -> Option<String> {
    let mut count = 0;
    for (i, pem) in x509_parser::pem::Pem::iter_from_buffer(text.as_bytes()).enumerate() {
        let pem = match pem {
            Ok(p) => p,
            Err(e) => {
                return Some(format!(
                    "PEM block {} cannot be read ({e}); paste whole BEGIN/END CERTIFICATE blocks",
                    i + 1
                ));
            }
        };
        if pem.label != "CERTIFICATE" {
            return Some(format!(
                "PEM block {} is a {:?}, not a CERTIFICATE; remove it",
                i + 1,
                pem.label
            ));
        }
        if let Err(e) = pem.parse_x509() {
            return Some(format!(
                "PEM block {} is not a valid X.509 certificate ({e})",
                i + 1
            ));
        }
        count += 1;
    }
    (count == 0).then(|| {
        "contains no PEM certificate; paste one or more BEGIN/END CERTIFICATE blocks".to_string()
    })
}
