//! Cluster name and DNS domain rules.

use super::Validation;
use crate::errors::FieldError;
use crate::types::{InstallConfig, Platform};

/// Longest cluster name: a DNS label is 63 bytes and 9 are taken by the `\052.apps.` prefix
/// that wildcard records need.
pub const MAX_NAME_LEN: usize = 54;

/// Why `s` is not a DNS-1123 subdomain, if it is not one.
pub fn dns_subdomain_problem(s: &str) -> Option<String> {
    if s.is_empty() {
        return Some("must not be empty".into());
    }
    if s.len() > 253 {
        return Some(format!(
            "is {} characters long; a DNS name has at most 253",
            s.len()
        ));
    }
    for label in s.split('.') {
        if label.is_empty() {
            return Some("contains an empty label (two dots in a row, or a leading dot)".into());
        }
        let ok_chars = label
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        let ends_ok = label
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
            && label
                .bytes()
                .last()
                .is_some_and(|b| b.is_ascii_alphanumeric());
        if !ok_chars || !ends_ok {
            return Some(format!(
                "label {label:?} is not valid: use only lower-case letters, digits and '-', starting and ending with a letter or digit"
            ));
        }
    }
    None
}

/// Checks `metadata.name`, `baseDomain` and the cluster domain built from both.
pub(super) fn names(cfg: &InstallConfig, v: &mut Validation) {
    let name = &cfg.metadata.name;
    let mut name_ok = false;
    if name.is_empty() {
        v.err(FieldError::required(
            "metadata.name",
            "set the cluster name, e.g. `metadata: {name: mycluster}`",
        ));
    } else {
        if let Some(p) = dns_subdomain_problem(name) {
            v.err(FieldError::invalid(
                "metadata.name",
                name,
                format!("the cluster name {p}"),
            ));
        }
        if name.len() > MAX_NAME_LEN {
            v.err(FieldError::invalid(
                "metadata.name",
                name,
                format!("the cluster name may have at most {MAX_NAME_LEN} characters; shorten it"),
            ));
        }
        name_ok = dns_subdomain_problem(name).is_none();
        let platform = cfg.platform_name();
        let dots_ok = cfg
            .platform_kind()
            .is_none_or(Platform::allows_dotted_cluster_name);
        if name.contains('.') && !dots_ok {
            v.err(FieldError::invalid(
                "metadata.name",
                name,
                format!(
                    "on platform {platform} the cluster name must not contain '.'; use '-' instead"
                ),
            ));
        }
    }
    let base = &cfg.base_domain;
    if base.is_empty() {
        v.err(FieldError::required(
            "baseDomain",
            "set the DNS base domain, e.g. example.com",
        ));
        return;
    }
    if let Some(p) = dns_subdomain_problem(base) {
        v.err(FieldError::invalid(
            "baseDomain",
            base,
            format!("the base domain {p}"),
        ));
    } else if name_ok {
        let full = cfg.cluster_domain();
        if let Some(p) = dns_subdomain_problem(&full) {
            v.err(FieldError::invalid(
                "baseDomain",
                &full,
                format!("the cluster domain <metadata.name>.<baseDomain> {p}; shorten the name or the base domain"),
            ));
        }
    }
}
