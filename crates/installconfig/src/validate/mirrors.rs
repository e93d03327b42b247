//! Mirrors, publishing strategy and credentials mode.

use super::Validation;
use super::secrets::pull_secret_registries;
use crate::errors::FieldError;
use crate::types::{InstallConfig, PublishingStrategy};

/// Why `s` is not a repository name (`host[:port][/path]`, no tag or digest), if it is not.
pub fn repository_problem(s: &str) -> Option<String> {
    if s.is_empty() {
        return Some("must not be empty".into());
    }
    if s.contains('@')
        || s.rsplit('/')
            .next()
            .is_some_and(|last| last.contains(':') && s.contains('/'))
    {
        return Some(
            "names an image (with a tag or digest), not a repository; remove the :tag or @digest"
                .into(),
        );
    }
    let mut parts = s.split('/');
    let host = parts.next().unwrap_or_default();
    let (name, port) = host.split_once(':').unwrap_or((host, ""));
    let host_ok = !name.is_empty()
        && name
            .split('.')
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        && (port.is_empty() || port.parse::<u16>().is_ok());
    if !host_ok {
        return Some(format!("{host:?} is not a registry host[:port]"));
    }
    for comp in parts {
        let ok = !comp.is_empty()
            && comp
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c))
            && comp.starts_with(|c: char| c.is_ascii_alphanumeric())
            && comp.ends_with(|c: char| c.is_ascii_alphanumeric());
        if !ok {
            return Some(format!(
                "path component {comp:?} is invalid; use lower-case letters, digits, '.', '_' and '-'"
            ));
        }
    }
    None
}

/// Mirror rules.
pub fn mirrors(cfg: &InstallConfig, v: &mut Validation) {
    if !cfg.image_content_sources.is_empty() {
        v.warn(
            "imageContentSources",
            "imageContentSources is deprecated; move the entries to imageDigestSources",
        );
        if !cfg.image_digest_sources.is_empty() {
            v.err(FieldError::forbidden("imageContentSources", "imageContentSources and imageDigestSources cannot both be set; keep imageDigestSources"));
        }
    }
    let ics = cfg
        .image_content_sources
        .iter()
        .map(|s| (&s.source, &s.mirrors));
    let ids = cfg
        .image_digest_sources
        .iter()
        .map(|s| (&s.source, &s.mirrors));
    let registries = pull_secret_registries(&cfg.pull_secret);
    for (field, list) in [
        ("imageContentSources", ics.collect::<Vec<_>>()),
        ("imageDigestSources", ids.collect()),
    ] {
        for (i, (source, mirrors)) in list.into_iter().enumerate() {
            let base = format!("{field}[{i}]");
            if let Some(p) = repository_problem(source) {
                v.err(FieldError::invalid(
                    format!("{base}.source"),
                    source,
                    format!("the source {p}"),
                ));
            }
            for (j, m) in mirrors.iter().enumerate() {
                if let Some(p) = repository_problem(m) {
                    v.err(FieldError::invalid(
                        format!("{base}.mirrors[{j}]"),
                        m,
                        format!("the mirror {p}"),
                    ));
                    continue;
                }
                let host = m.split('/').next().unwrap_or_default();
                if !registries.is_empty()
                    && !registries
                        .iter()
                        .any(|r| r == host || m.starts_with(r.as_str()))
                {
                    v.warn(
                        &format!("{base}.mirrors[{j}]"),
                        format!("the pull secret has no credentials for mirror host {host}"),
                    );
                }
            }
        }
    }
}

/// Publishing strategy rules (none, baremetal and vsphere only support External).
pub fn publish(cfg: &InstallConfig, v: &mut Validation) {
    let platform = cfg.platform_name();
    match cfg.publish {
        PublishingStrategy::External => {}
        PublishingStrategy::Internal => v.err(FieldError::invalid(
            "publish",
            "Internal",
            format!("the Internal strategy needs a cloud platform; it is not available on {platform:?}, use External"),
        )),
        PublishingStrategy::Mixed => v.err(FieldError::invalid(
            "publish",
            "Mixed",
            format!("the Mixed strategy exists only on Azure; it is not available on {platform:?}, use External"),
        )),
    }
    if cfg.operator_publishing_strategy.is_some() && cfg.publish != PublishingStrategy::Mixed {
        v.err(FieldError::forbidden(
            "operatorPublishingStrategy",
            "operatorPublishingStrategy is only used with publish: Mixed; remove it",
        ));
    }
}

/// Credentials mode rule: the supported platforms have no cloud credentials.
pub fn credentials_mode(cfg: &InstallConfig, v: &mut Validation) {
    if let Some(mode) = cfg.credentials_mode {
        v.err(FieldError::invalid(
            "credentialsMode",
            format!("{mode:?}"),
            format!(
                "credentialsMode cannot be set on the {:?} platform; remove it",
                cfg.platform_name()
            ),
        ));
    }
}
