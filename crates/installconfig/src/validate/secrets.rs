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
        if let Some(auth) = entry.get("auth").and_then(|v| v.as_str())
            && !auth.is_empty()
            && !is_user_password(auth)
        {
            // Never the value itself: it is a credential.
            return Some(format!(
                "entry for {registry:?} has an \"auth\" that is not the base64 encoding of \
                 user:password; paste the pull secret unchanged, or encode the credentials \
                 with `printf %s USER:PASSWORD | base64 -w0`"
            ));
        }
    }
    None
}

/// Whether `auth` is standard base64 (padded or not) of `user:password` text.
fn is_user_password(auth: &str) -> bool {
    use base64::Engine as _;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    LENIENT
        .decode(auth.trim())
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .is_some_and(|text| text.contains(':'))
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
    if let Some(bundle) = &cfg.additional_trust_bundle {
        if let Some(p) = trust_bundle_problem(bundle) {
            v.err(FieldError::new(
                "additionalTrustBundle",
                crate::ErrorKind::Invalid,
                None,
                p,
            ));
        } else {
            // The system clock, not a deterministic run's: whether the machines will trust
            // the certificate depends on the real time they boot at.
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64);
            for p in trust_bundle_validity(bundle, now) {
                v.warn("additionalTrustBundle", p);
            }
        }
    }
}

/// The certificates of a PEM bundle that are not valid at `now` (Unix seconds): expired or
/// not yet valid, each with its position and subject and what to do. A machine trusts
/// nothing such a certificate signed, so `create` warns and `verify` fails on these.
pub fn trust_bundle_validity(text: &str, now: i64) -> Vec<String> {
    let mut out = Vec::new();
    for (i, pem) in x509_parser::pem::Pem::iter_from_buffer(text.as_bytes()).enumerate() {
        let Ok(pem) = pem else { continue };
        let Ok(cert) = pem.parse_x509() else { continue };
        let validity = cert.validity();
        let (from, to) = (validity.not_before, validity.not_after);
        let subject = cert.subject().to_string();
        let which = format!("certificate {} ({subject})", i + 1);
        if to.timestamp() < now {
            out.push(format!(
                "{which} expired on {to}; nothing it signed is trusted any more: replace it \
                 with the current CA certificate"
            ));
        } else if from.timestamp() > now {
            out.push(format!(
                "{which} is not valid before {from}; check this machine's clock, or wait, or \
                 use a certificate that is valid now"
            ));
        }
    }
    out
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
        if pem.parse_x509().is_err() {
            return Some(format!(
                "PEM block {} is not a valid X.509 certificate (its data is cut short or \
                 corrupt); paste the whole certificate again from where you got it",
                i + 1
            ));
        }
        count += 1;
    }
    (count == 0).then(|| {
        "contains no PEM certificate; paste one or more BEGIN/END CERTIFICATE blocks".to_string()
    })
}
