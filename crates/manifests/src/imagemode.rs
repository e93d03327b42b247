//! Install-time image mode (On-Cluster Layering with a pre-built image).
//!
//! With image mode on, each target pool gets a `MachineOSConfig` in `manifests/` whose
//! `pre-built-image` annotation names an image the user built and pushed beforehand. The
//! bootstrap MCO points the pool's `osImageURL` at it, so nodes rebase onto it on first boot;
//! after install the build controller seeds a successful build from it. Nothing is built
//! during bootstrap, hence the strict checks here: a wrong reference surfaces only as nodes
//! that never become ready.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::error::ManifestError;
use crate::generate::{Dir, ManifestFile};
use crate::objects::MCO_V1;
use crate::user::{ObjectRef, UserFile};
use crate::yaml::to_yaml;

/// Annotation holding the digest-pinned pre-built image.
pub const PRE_BUILT_IMAGE: &str = "machineconfiguration.openshift.io/pre-built-image";
/// Marker for values only the user can supply; validation rejects any field containing it.
pub const PLACEHOLDER: &str = "REPLACE-ME";
const KIND: &str = "MachineOSConfig";
/// Comment at the top of every skeleton: what to do with it.
const SKELETON_HEADER: &str = "\
# Install-time image mode: nodes of this pool rebase onto a pre-built OS image on first boot.
# Build and push that image first, add its registry credentials to the pull secret, then
# replace every REPLACE-ME value below. Validation refuses the file until all are filled in.
";

/// File name of the skeleton for `pool` in `manifests/`.
pub fn skeleton_name(pool: &str) -> String {
    format!("machineosconfig-{pool}.yaml")
}

/// Skeleton MachineOSConfigs for every pool in `pools` that has none in `existing`.
///
/// Each skeleton has every required field; the values only the user knows (the image, the
/// Containerfile, where later builds push, the push secret) say `REPLACE-ME: ...` so that
/// [`validate_machine_os_configs`] names each one still to fill in.
pub fn image_mode_skeletons(existing: &[UserFile], pools: &[&str]) -> Vec<ManifestFile> {
    let covered: Vec<String> = machine_os_configs(existing)
        .filter_map(|(_, o)| pool_of(o).map(String::from))
        .collect();
    pools
        .iter()
        .filter(|p| !covered.iter().any(|c| c == *p))
        .map(|pool| ManifestFile {
            dir: Dir::Manifests,
            name: skeleton_name(pool),
            data: format!(
                "{SKELETON_HEADER}{}",
                to_yaml(&skeleton(pool)).expect("a JSON value always renders as YAML")
            )
            .into_bytes(),
        })
        .collect()
}

fn skeleton(pool: &str) -> Value {
    json!({
        "apiVersion": MCO_V1,
        "kind": KIND,
        "metadata": {
            "name": pool,
            "annotations": {
                PRE_BUILT_IMAGE: format!(
                    "{PLACEHOLDER}: <registry>/<repository>@sha256:<64 hex digits> of the image \
                     you built and pushed for pool {pool}"
                ),
            },
        },
        "spec": {
            "machineConfigPool": {"name": pool},
            "imageBuilder": {"imageBuilderType": "Job"},
            "containerFile": [{
                "containerfileArch": "NoArch",
                "content": format!(
                    "# {PLACEHOLDER}: the Containerfile the pre-built image was built from\n\
                     FROM configs AS final\n"
                ),
            }],
            "renderedImagePushSpec": format!(
                "{PLACEHOLDER}: <registry>/<repository>:<tag> that later on-cluster builds push to"
            ),
            "renderedImagePushSecret": {
                "name": format!(
                    "{PLACEHOLDER}: secret in openshift-machine-config-operator with push credentials"
                ),
            },
        },
    })
}

/// Result of [`validate_machine_os_configs`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ImageModeReport {
    /// Problems that must be fixed before creating ignition configs.
    pub errors: Vec<ManifestError>,
    /// Things the user should know.
    pub warnings: Vec<String>,
}

fn machine_os_configs(files: &[UserFile]) -> impl Iterator<Item = (&UserFile, &ObjectRef)> {
    files
        .iter()
        .flat_map(|f| f.objects.iter().map(move |o| (f, o)))
        .filter(|(_, o)| o.kind == KIND && o.group() == "machineconfiguration.openshift.io")
}

fn pool_of(o: &ObjectRef) -> Option<&str> {
    o.value
        .pointer("/spec/machineConfigPool/name")
        .and_then(Value::as_str)
}

/// Check the MachineOSConfigs among the user's manifests.
///
/// `pools` are the pools that exist (master, worker and custom compute pool names). With
/// image mode off, MOSCs are legal but only take effect after install, which is worth a
/// warning; with it on, every rule of the install-time flow is enforced.
pub fn validate_machine_os_configs(
    files: &[UserFile],
    image_mode_enabled: bool,
    pools: &[&str],
) -> ImageModeReport {
    let mut report = ImageModeReport::default();
    let mut seen: Vec<(String, String)> = Vec::new();
    for (file, o) in machine_os_configs(files) {
        if !image_mode_enabled {
            report.warnings.push(format!(
                "{}: image mode is off in install-config, so {KIND} {:?} is not used during \
                 bootstrap; the cluster applies it after install as a normal on-cluster build",
                file.rel_path(),
                o.name
            ));
            continue;
        }
        let problems = check(o, pools);
        report
            .errors
            .extend(problems.into_iter().map(|message| ManifestError {
                path: PathBuf::from(file.rel_path()),
                position: o.position,
                message: format!("{KIND} {:?}: {message}", o.name),
            }));
        if let Some(pool) = pool_of(o) {
            if let Some((other, _)) = seen.iter().find(|(_, p)| p == pool) {
                report.errors.push(ManifestError {
                    path: PathBuf::from(file.rel_path()),
                    position: o.position,
                    message: format!(
                        "pool {pool:?} already has a {KIND} in {other}; keep exactly one per pool"
                    ),
                });
            }
            seen.push((file.rel_path(), pool.to_string()));
        }
    }
    if image_mode_enabled {
        missing_pools(&mut report, &seen, pools);
    }
    report
}

fn missing_pools(report: &mut ImageModeReport, seen: &[(String, String)], pools: &[&str]) {
    if seen.is_empty() {
        report.errors.push(ManifestError {
            path: PathBuf::from("manifests"),
            position: None,
            message: format!(
                "image mode is on but there is no {KIND}; re-run create manifests to get \
                 skeletons and fill them in, or turn image mode off"
            ),
        });
        return;
    }
    for pool in pools.iter().filter(|p| !seen.iter().any(|(_, s)| s == *p)) {
        report.warnings.push(format!(
            "pool {pool:?} has no {KIND}: its nodes run the stock OS image"
        ));
    }
}

/// Every rule for one MachineOSConfig, as messages naming the field.
fn check(o: &ObjectRef, pools: &[&str]) -> Vec<String> {
    let mut errs = Vec::new();
    if o.api_version != MCO_V1 {
        let found = &o.api_version;
        errs.push(format!("apiVersion must be {MCO_V1}, not {found:?}"));
    }
    placeholders(&o.value, "", &mut errs);
    pool_reference(o, pools, &mut errs);
    let annotation = o
        .value
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(PRE_BUILT_IMAGE))
        .and_then(Value::as_str);
    let what = format!("annotation {PRE_BUILT_IMAGE}");
    image_field(&what, annotation, true, &mut errs);
    if text(o, "/spec/imageBuilder/imageBuilderType") != Some("Job") {
        errs.push("spec.imageBuilder.imageBuilderType must be Job".into());
    }
    containerfiles(o, &mut errs);
    let push_spec = text(o, "/spec/renderedImagePushSpec");
    image_field("spec.renderedImagePushSpec", push_spec, false, &mut errs);
    if text(o, "/spec/renderedImagePushSecret/name").is_none() {
        errs.push("spec.renderedImagePushSecret.name is required".into());
    }
    errs
}

/// A non-blank string at JSON pointer `ptr`.
fn text<'a>(o: &'a ObjectRef, ptr: &str) -> Option<&'a str> {
    o.value
        .pointer(ptr)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// `spec.machineConfigPool.name` must name an existing pool and equal `metadata.name`.
fn pool_reference(o: &ObjectRef, pools: &[&str], errs: &mut Vec<String>) {
    match text(o, "/spec/machineConfigPool/name") {
        None => errs.push("spec.machineConfigPool.name is required".into()),
        Some(p) if !pools.contains(&p) => errs.push(format!(
            "spec.machineConfigPool.name {p:?} is not a pool of this cluster (pools: {})",
            pools.join(", ")
        )),
        // The API server rejects a MachineOSConfig whose name differs from its pool's.
        Some(p) if p != o.name => errs.push(format!(
            "metadata.name must equal spec.machineConfigPool.name ({p:?})"
        )),
        Some(_) => {}
    }
}

/// A required image reference; placeholders are reported by [`placeholders`] instead.
fn image_field(what: &str, value: Option<&str>, need_digest: bool, errs: &mut Vec<String>) {
    match value {
        None => errs.push(format!("{what} is required")),
        Some(v) if v.contains(PLACEHOLDER) => {}
        Some(v) => {
            if let Err(why) = image_reference(v, need_digest) {
                errs.push(format!("{what}: {why}"));
            }
        }
    }
}

/// Architectures a Containerfile entry may target.
const ARCHES: &[&str] = &["NoArch", "AMD64", "ARM64", "PPC64LE", "S390X"];

/// `spec.containerFile`: at least one entry with content, each with a known architecture.
fn containerfiles(o: &ObjectRef, errs: &mut Vec<String>) {
    let entries = o
        .value
        .pointer("/spec/containerFile")
        .and_then(Value::as_array);
    let entries = entries.map(Vec::as_slice).unwrap_or_default();
    let has_content = |c: &Value| {
        c.get("content")
            .and_then(Value::as_str)
            .is_some_and(|s| !s.trim().is_empty())
    };
    if !entries.iter().any(has_content) {
        errs.push("spec.containerFile needs an entry with the Containerfile content".into());
    }
    for (i, c) in entries.iter().enumerate() {
        let arch = c
            .get("containerfileArch")
            .and_then(Value::as_str)
            .unwrap_or("NoArch");
        if !ARCHES.contains(&arch) {
            errs.push(format!(
                "spec.containerFile[{i}].containerfileArch {arch:?} must be one of {}",
                ARCHES.join(", ")
            ));
        }
    }
}

/// Report every string still holding the placeholder, by field path.
fn placeholders(v: &Value, path: &str, errs: &mut Vec<String>) {
    match v {
        Value::String(s) if s.contains(PLACEHOLDER) => errs.push(format!(
            "{path} still contains the {PLACEHOLDER} placeholder; fill it in"
        )),
        Value::Object(m) => m.iter().for_each(|(k, v)| {
            let p = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            placeholders(v, &p, errs)
        }),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, v)| placeholders(v, &format!("{path}[{i}]"), errs)),
        _ => {}
    }
}

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
            let image = o
                .value
                .pointer("/metadata/annotations")?
                .get(PRE_BUILT_IMAGE)?
                .as_str()?;
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
