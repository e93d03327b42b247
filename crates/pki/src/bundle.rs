//! CA bundles: the first certificate of each member, re-encoded and concatenated.

use crate::error::{Error, Result};
use crate::pem;

/// Builds a CA bundle from its members' PEM texts, in order. Only the **first** certificate
/// of each member is used (as the installer does), so a member that is itself a multi-cert
/// bundle contributes one certificate. `bundle` names the result in errors.
pub fn bundle_pem(members: &[&str], bundle: &str) -> Result<String> {
    let mut out = String::new();
    for (index, text) in members.iter().enumerate() {
        let der = pem::first_certificate(text, bundle).map_err(|_| {
            Error::parse(
                bundle,
                format!("member {} holds no PEM certificate", index + 1),
            )
        })?;
        out.push_str(&pem::encode("CERTIFICATE", &der));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_only_the_first_certificate_of_each_member() {
        let a = pem::encode("CERTIFICATE", b"a");
        let b = pem::encode("CERTIFICATE", b"b");
        let c = pem::encode("CERTIFICATE", b"c");
        let chained = format!("{b}\n{c}");
        let out = bundle_pem(&[&a, &chained], "x").expect("bundle");
        assert_eq!(out, format!("{a}{b}"));
    }

    #[test]
    fn empty_member_is_an_error_naming_the_bundle() {
        let err = bundle_pem(&["nothing"], "tls/x.crt")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("tls/x.crt") && err.contains("member 1"),
            "{err}"
        );
    }
}
