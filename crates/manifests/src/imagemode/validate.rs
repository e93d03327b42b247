//! Validation of the image-mode objects among the manifests a run will deliver.

use std::path::PathBuf;

use serde_json::Value;

use super::reference::image_reference;
use super::{
    ImageModeFlow, KIND, PLACEHOLDER, PRE_BUILT_IMAGE, machine_os_configs, objects_of,
    os_image_file_name, pool_of, pre_built_image_of,
};
use crate::Dir;
use crate::error::ManifestError;
use crate::generate::machineconfigs::ROLE_LABEL;
use crate::objects::MCO_V1;
use crate::user::{ObjectRef, UserFile};

/// Result of [`validate_machine_os_configs`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ImageModeReport {
    /// Problems that must be fixed before creating ignition configs.
    pub errors: Vec<ManifestError>,
    /// Things the user should know.
    pub warnings: Vec<String>,
    /// Pools whose MachineOSConfig and OS-image MachineConfigs name the same image.
    pub agreed: Vec<AgreedPool>,
}

/// A pool whose first-boot OS image and MachineOSConfig agree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgreedPool {
    /// The pool.
    pub pool: String,
    /// The image both name.
    pub image: String,
    /// File of the MachineOSConfig.
    pub machine_os_config: String,
    /// Files of the MachineConfigs that set the pool's osImageURL.
    pub machine_configs: Vec<String>,
}

/// A MachineOSConfig that passed its own checks, reduced to what the agreement check needs.
struct PoolImageRef {
    pool: String,
    image: String,
    file: String,
}

/// Check the image-mode objects among the manifests.
///
/// `pools` are the pools that exist (master, worker and custom compute pool names). With
/// image mode off on a release whose bootstrap ignores MachineOSConfigs, MOSCs are legal but
/// only take effect after install, which is worth a warning. Where the MCO bootstrap applies
/// them ([`ImageModeFlow::BootstrapMachineOsConfig`]) each one is held to its rules whatever
/// install-config says, since a bad one stops the bootstrap. With image mode on, every rule of
/// the install-time flow is enforced, including (before 4.21) that each pool's OS-image
/// MachineConfigs set the MachineOSConfig's image as `osImageURL`. A MachineConfig whose
/// `osImageURL` still holds the placeholder is an error either way: the pool's nodes could
/// not boot it.
pub fn validate_machine_os_configs(
    files: &[UserFile],
    image_mode_enabled: bool,
    pools: &[&str],
    flow: ImageModeFlow,
) -> ImageModeReport {
    let mut report = ImageModeReport::default();
    if !image_mode_enabled && flow == ImageModeFlow::OsImageMachineConfig {
        placeholder_os_images(files, &mut report);
        for (file, o) in machine_os_configs(files) {
            report.warnings.push(format!(
                "{}: image mode is off in install-config, so {KIND} {:?} is not used during \
                 bootstrap; the cluster applies it after install as a normal on-cluster build",
                file.rel_path(),
                o.name
            ));
        }
        return report;
    }
    let (images, seen) = check_machine_os_configs(files, pools, &mut report);
    if image_mode_enabled {
        missing_pools(&mut report, &seen, pools);
    }
    placeholder_os_images(files, &mut report);
    for image in &images {
        agreement(files, image, flow, &mut report);
    }
    report
}

/// Every MachineOSConfig's own rules, one per pool; returns the pools whose MachineOSConfig
/// names a usable image, and every (file, pool) seen.
fn check_machine_os_configs(
    files: &[UserFile],
    pools: &[&str],
    report: &mut ImageModeReport,
) -> (Vec<PoolImageRef>, Vec<(String, String)>) {
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut images = Vec::new();
    for (file, o) in machine_os_configs(files) {
        let problems = check(o, pools);
        let usable = problems.is_empty();
        report
            .errors
            .extend(problems.into_iter().map(|message| error(file, o, message)));
        let Some(pool) = pool_of(o) else { continue };
        if let Some((other, _)) = seen.iter().find(|(_, p)| p == pool) {
            let message =
                format!("pool {pool:?} already has a {KIND} in {other}; keep exactly one per pool");
            report.errors.push(error(file, o, message));
        } else if let (true, Some(image)) = (usable, pre_built_image_of(o)) {
            images.push(PoolImageRef {
                pool: pool.to_string(),
                image: image.to_string(),
                file: file.rel_path(),
            });
        }
        seen.push((file.rel_path(), pool.to_string()));
    }
    (images, seen)
}

fn error(file: &UserFile, o: &ObjectRef, message: String) -> ManifestError {
    ManifestError {
        path: PathBuf::from(file.rel_path()),
        position: o.position,
        message: format!("{} {:?}: {message}", o.kind, o.name),
    }
}

fn missing_pools(report: &mut ImageModeReport, seen: &[(String, String)], pools: &[&str]) {
    if seen.is_empty() {
        report.errors.push(ManifestError {
            path: PathBuf::from(Dir::Manifests.as_str()),
            position: None,
            message: format!(
                "image mode is on but there is no {KIND}; set imageMode.pools in \
                 install-config.yaml (or re-run create manifests to get skeletons and fill them \
                 in), or turn image mode off"
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

/// The MachineConfigs that set an OS image for `pool` (by their role label), with the image.
fn os_image_configs<'a>(
    files: &'a [UserFile],
    pool: &'a str,
) -> impl Iterator<Item = (&'a UserFile, &'a ObjectRef, &'a str)> {
    objects_of(files, "MachineConfig").filter_map(move |(file, o)| {
        let role = o.value.pointer("/metadata/labels")?.get(ROLE_LABEL)?;
        let image = o.value.pointer("/spec/osImageURL")?.as_str()?;
        (role == pool && !image.trim().is_empty()).then_some((file, o, image))
    })
}

/// The pool's MachineConfigs must set exactly the MachineOSConfig's image as osImageURL: the
/// bootstrap controller renders whichever one it finds, and nodes boot that.
/// Where the bootstrap applies the MachineOSConfig ([`ImageModeFlow::BootstrapMachineOsConfig`])
/// no MachineConfig is needed, but one that sets another image would still win over it.
fn agreement(
    files: &[UserFile],
    mosc: &PoolImageRef,
    flow: ImageModeFlow,
    report: &mut ImageModeReport,
) {
    let pool = mosc.pool.as_str();
    let configs: Vec<_> = os_image_configs(files, pool)
        .filter(|(_, _, image)| !image.contains(PLACEHOLDER))
        .collect();
    let placeholder = os_image_configs(files, pool).any(|(_, _, i)| i.contains(PLACEHOLDER));
    let needs_config = flow == ImageModeFlow::OsImageMachineConfig;
    if configs.is_empty() && !placeholder && needs_config {
        report.errors.push(ManifestError {
            path: PathBuf::from(&mosc.file),
            position: None,
            message: format!(
                "pool {pool:?}: no MachineConfig sets spec.osImageURL, so the bootstrap \
                 machine-config controller renders the stock OS image and nodes boot it instead \
                 of {:?}; add openshift/{} with that osImageURL (create manifests writes it \
                 from imageMode.pools)",
                mosc.image,
                os_image_file_name(pool)
            ),
        });
        return;
    }
    let mut agreeing = Vec::new();
    let mut differ = false;
    for (file, o, image) in configs {
        if image == mosc.image {
            agreeing.push(file.rel_path());
            continue;
        }
        differ = true;
        let message = format!(
            "spec.osImageURL {image:?} differs from {:?}, the pre-built image of the {KIND} of \
             pool {pool:?} in {}; nodes would boot one and on-cluster builds assume the other. \
             Make both name the same image",
            mosc.image, mosc.file
        );
        report.errors.push(error(file, o, message));
    }
    if !placeholder && !differ {
        report.agreed.push(AgreedPool {
            pool: pool.to_string(),
            image: mosc.image.clone(),
            machine_os_config: mosc.file.clone(),
            machine_configs: agreeing,
        });
    }
}

/// MachineConfigs whose osImageURL is still a placeholder, whatever the image mode.
fn placeholder_os_images(files: &[UserFile], report: &mut ImageModeReport) {
    for (file, o) in objects_of(files, "MachineConfig") {
        let image = o.value.pointer("/spec/osImageURL").and_then(Value::as_str);
        if image.is_some_and(|i| i.contains(PLACEHOLDER)) {
            let message = format!(
                "spec.osImageURL still contains the {PLACEHOLDER} placeholder; fill in the \
                 pre-built image of the pool's {KIND}"
            );
            report.errors.push(error(file, o, message));
        }
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
    let annotation = pre_built_image_of(o);
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
