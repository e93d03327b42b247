//! Mirrors, publishing strategy and credentials mode.

use super::Validation;
use super::secrets::pull_secret_registries;
use crate::errors::FieldError;
use crate::types::{InstallConfig, PublishingStrategy};

/// Longest repository name a container registry accepts.
const MAX_REPOSITORY_LEN: usize = 255;

/// Why `s` is not a repository name, if it is not one.
///
/// A repository is `host[:port]/path` with a registry host (a name with a `.` or a `:port`,
/// or `localhost`), or a bare `host[:port]`. A path without a registry host, such as
/// `openshift/release`, would silently mean docker.io and is refused, as is any tag or
/// digest.
pub fn repository_problem(s: &str) -> Option<String> {
    if s.is_empty() {
        return Some("must not be empty".into());
    }
    if s.len() > MAX_REPOSITORY_LEN {
        return Some(format!("is longer than {MAX_REPOSITORY_LEN} characters"));
    }
    if s.contains('@') {
        return Some(
            "names an image (with a tag or digest), not a repository; remove the :tag or @digest"
                .into(),
        );
    }
    let Some((host, path)) = s.split_once('/') else {
        return host_port_problem(s);
    };
    if !is_registry_host(host) {
        return Some(format!(
            "has no registry host: {host:?} would be read as a docker.io namespace; write the registry first, e.g. quay.io/{s} or mirror.example.com:5000/{s}"
        ));
    }
    if let Some(p) = host_port_problem(host) {
        return Some(p);
    }
    path_problem(path)
}

/// True when the first component names a registry rather than a docker.io namespace.
fn is_registry_host(first: &str) -> bool {
    first.contains(['.', ':'])
        || first == "localhost"
        || first.chars().any(|c| c.is_ascii_uppercase())
}

fn host_port_problem(hostport: &str) -> Option<String> {
    let (name, port) = match hostport.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((ip, rest)) if ip.parse::<std::net::Ipv6Addr>().is_ok() => {
                ("", rest.strip_prefix(':').unwrap_or(rest))
            }
            _ => return Some(format!("{hostport:?} is not a registry host[:port]")),
        },
        None => hostport.split_once(':').unwrap_or((hostport, "")),
    };
    let name_ok = name.is_empty() && hostport.starts_with('[')
        || !name.is_empty()
            && name.split('.').all(|l| {
                !l.is_empty()
                    && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    && !l.starts_with('-')
                    && !l.ends_with('-')
            });
    let port_ok = port.is_empty() && !hostport.ends_with(':') || port.parse::<u16>().is_ok();
    (!name_ok || !port_ok).then(|| format!("{hostport:?} is not a registry host[:port]"))
}

fn path_problem(path: &str) -> Option<String> {
    let comps: Vec<&str> = path.split('/').collect();
    if comps.last().is_some_and(|last| last.contains(':')) {
        return Some(
            "names an image (with a tag or digest), not a repository; remove the :tag or @digest"
                .into(),
        );
    }
    comps.into_iter().find(|c| !is_path_component(c)).map(|comp| {
        format!(
            "path component {comp:?} is invalid; use lower-case letters and digits, separated by '.', '_', '__' or dashes"
        )
    })
}

/// A path component: lower-case alphanumeric runs joined by `.`, `_`, `__` or one or more
/// `-`.
fn is_path_component(c: &str) -> bool {
    let bytes = c.as_bytes();
    if bytes.is_empty()
        || !bytes[0].is_ascii_alphanumeric()
        || !bytes[bytes.len() - 1].is_ascii_alphanumeric()
    {
        return false;
    }
    let mut sep = String::new();
    for &b in bytes {
        if b.is_ascii_lowercase() || b.is_ascii_digit() {
            if !matches!(sep.as_str(), "" | "." | "_" | "__") && !sep.bytes().all(|s| s == b'-') {
                return false;
            }
            sep.clear();
        } else if matches!(b, b'.' | b'_' | b'-') {
            sep.push(char::from(b));
        } else {
            return false;
        }
    }
    true
}

/// Mirror rules.
pub(super) fn mirrors(cfg: &InstallConfig, v: &mut Validation) {
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
pub(super) fn publish(cfg: &InstallConfig, v: &mut Validation) {
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
pub(super) fn credentials_mode(cfg: &InstallConfig, v: &mut Validation) {
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
