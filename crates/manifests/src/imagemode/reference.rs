//! Container image references and the pull-secret check of pre-built images.

use serde_json::Value;

use super::{KIND, PLACEHOLDER, machine_os_configs, pre_built_image_of};
use crate::user::UserFile;

/// Check a container image reference; `need_digest` demands the `@sha256:<64 hex>` form.
pub fn image_reference(reference: &str, need_digest: bool) -> Result<(), String> {
    let (name, digest) = match reference.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (reference, None),
    };
    match digest {
        Some(d) => {
            let hex = d
                .strip_prefix("sha256:")
                .ok_or_else(|| format!("{reference:?}: digest must start with sha256:"))?;
            if hex.len() != 64
                || !hex
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            {
                return Err(format!(
                    "{reference:?}: a sha256 digest is 64 lowercase hex digits"
                ));
            }
        }
        None if need_digest => {
            return Err(format!(
                "{reference:?} must be pinned by digest (<image>@sha256:<digest>), not by tag"
            ));
        }
        None => {}
    }
    repository_with_tag(name).map_err(|why| format!("{reference:?}: {why}"))
}

fn repository_with_tag(name: &str) -> Result<(), String> {
    let (first, rest) = name.split_once('/').unwrap_or(("", name));
    let is_host = first.contains('.') || first.contains(':') || first == "localhost";
    let path = if is_host || first.is_empty() {
        rest
    } else {
        name
    };
    if is_host && first.starts_with(':') {
        return Err("registry host is empty".into());
    }
    let (path, tag) = match path.rsplit_once(':') {
        Some((p, t)) => (p, Some(t)),
        None => (path, None),
    };
    if let Some(t) = tag {
        let ok = !t.is_empty()
            && t.len() <= 128
            && !t.starts_with(['.', '-'])
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if !ok {
            return Err(format!("tag {t:?} is not valid"));
        }
    }
    if path.is_empty() || !path.split('/').all(path_component) {
        return Err(
            "repository path must be lowercase letters, digits and . _ - separated by /".into(),
        );
    }
    Ok(())
}

fn path_component(c: &str) -> bool {
    !c.is_empty()
        && c.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
        && c.starts_with(|ch: char| ch.is_ascii_alphanumeric())
        && c.ends_with(|ch: char| ch.is_ascii_alphanumeric())
}

/// Warnings for pre-built images whose registry has no entry in the pull secret.
///
/// Nodes pull the pre-built image with the cluster's global pull secret on first boot; a
/// missing entry works only for anonymous registries, so this warns rather than fails.
pub fn pre_built_image_credentials(files: &[UserFile], pull_secret: &str) -> Vec<String> {
    let auths: Vec<String> = serde_json::from_str::<Value>(pull_secret)
        .ok()
        .and_then(|v| v.get("auths").and_then(Value::as_object).cloned())
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    machine_os_configs(files)
        .filter_map(|(file, o)| {
            let image = pre_built_image_of(o)?;
            if image.contains(PLACEHOLDER) {
                return None;
            }
            let repo = image.split('@').next().unwrap_or(image);
            let covered = auths
                .iter()
                .any(|a| repo == a || repo.starts_with(&format!("{a}/")));
            (!covered).then(|| {
                format!(
                    "{}: the pull secret has no credentials for {:?} (pre-built image of {KIND} \
                     {:?}); add them unless that registry allows anonymous pulls",
                    file.rel_path(),
                    registry_of(repo),
                    o.name
                )
            })
        })
        .collect()
}

/// Registry host of a repository reference (`docker.io` when none is given).
fn registry_of(repo: &str) -> &str {
    match repo.split_once('/') {
        Some((first, _)) if first.contains(['.', ':']) || first == "localhost" => first,
        _ => "docker.io",
    }
}
