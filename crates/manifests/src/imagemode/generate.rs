//! The two objects of each pool, from one set of values.

use serde_json::{Value, json};

use super::{ImageModeFlow, KIND, PLACEHOLDER, PRE_BUILT_IMAGE};
use crate::generate::machineconfigs::{IGNITION_VERSION, file_name, machine_config};
use crate::generate::{Dir, ManifestFile};
use crate::objects::MCO_V1;
use crate::yaml::to_yaml;

/// One pool's image-mode values. Both objects of the pool are rendered from it, so the
/// image of the MachineOSConfig and the osImageURL of the MachineConfig cannot drift apart
/// at generation time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolImage {
    /// `master` or `worker`.
    pub pool: String,
    /// Digest-pinned image the pool's nodes boot into.
    pub pre_built_image: String,
    /// The Containerfile the image was built from; on-cluster builds reuse it.
    pub containerfile: String,
    /// Where on-cluster builds push.
    pub rendered_image_push_spec: String,
    /// Secret in openshift-machine-config-operator with the push credentials.
    pub rendered_image_push_secret: String,
}

impl PoolImage {
    /// Values only the user can supply, each saying `REPLACE-ME: ...` so that validation
    /// names every field still to fill in.
    pub fn placeholders(pool: &str) -> PoolImage {
        PoolImage {
            pool: pool.to_string(),
            pre_built_image: format!(
                "{PLACEHOLDER}: <registry>/<repository>@sha256:<64 hex digits> of the image you \
                 built and pushed for pool {pool}"
            ),
            containerfile: format!(
                "# {PLACEHOLDER}: the Containerfile the pre-built image was built from\n\
                 FROM configs AS final\n"
            ),
            rendered_image_push_spec: format!(
                "{PLACEHOLDER}: <registry>/<repository>:<tag> that later on-cluster builds push to"
            ),
            rendered_image_push_secret: format!(
                "{PLACEHOLDER}: secret in openshift-machine-config-operator with push credentials"
            ),
        }
    }
}

/// File name of the MachineOSConfig of `pool` in `manifests/`.
pub fn skeleton_name(pool: &str) -> String {
    format!("machineosconfig-{pool}.yaml")
}

/// Name of the MachineConfig that sets the OS image of `pool`.
pub fn os_image_config_name(pool: &str) -> String {
    contract::os_image_config_name(pool)
}

/// File name of that MachineConfig in `openshift/`.
pub fn os_image_file_name(pool: &str) -> String {
    file_name(&os_image_config_name(pool))
}

/// The MachineOSConfig and (with [`ImageModeFlow::OsImageMachineConfig`]) the OS-image
/// MachineConfig of every pool in `pools`: filled from the entry of `given` for that pool,
/// skeletons with placeholders for a pool without one.
pub fn image_mode_manifests(
    pools: &[&str],
    given: &[PoolImage],
    flow: ImageModeFlow,
) -> Vec<ManifestFile> {
    pools
        .iter()
        .flat_map(|pool| match given.iter().find(|g| g.pool == *pool) {
            Some(values) => pool_files(values, false, flow),
            None => pool_files(&PoolImage::placeholders(pool), true, flow),
        })
        .collect()
}

fn pool_files(values: &PoolImage, skeleton: bool, flow: ImageModeFlow) -> Vec<ManifestFile> {
    let pool = values.pool.as_str();
    let mosc = machine_os_config(values);
    if flow == ImageModeFlow::BootstrapMachineOsConfig {
        let data = with_header(&bootstrap_header(pool, skeleton), &mosc);
        return vec![ManifestFile::rendered(
            Dir::Manifests,
            skeleton_name(pool),
            &mosc,
            data,
        )];
    }
    let (mosc_header, mc_header) = headers(pool, skeleton);
    let config = json!({"ignition": {"version": IGNITION_VERSION}});
    let mut mc = machine_config(&os_image_config_name(pool), pool, config, false, &[]);
    mc.spec.os_image_url = Some(values.pre_built_image.clone());
    let mosc_data = with_header(&mosc_header, &mosc);
    vec![
        ManifestFile::rendered(Dir::Manifests, skeleton_name(pool), &mosc, mosc_data),
        ManifestFile::rendered(
            Dir::Openshift,
            os_image_file_name(pool),
            &mc,
            with_header(&mc_header, &mc),
        ),
    ]
}

/// The comment on top of a MachineOSConfig that the release's MCO bootstrap applies.
fn bootstrap_header(pool: &str, skeleton: bool) -> String {
    let head = format!(
        "# Install-time image mode: the machine-config operator's bootstrap applies this\n\
         # MachineOSConfig, so nodes of pool {pool} boot its pre-built image (the annotation,\n\
         # pinned by sha256 digest) from their first boot; on-cluster builds reuse it later.\n"
    );
    if skeleton {
        format!(
            "{head}# Build and push that image first, add its registry credentials to the pull\n\
             # secret, then replace every REPLACE-ME value below. Validation refuses the file\n\
             # until then: the bootstrap would stop on it. Simpler: give the values in\n\
             # install-config.yaml under imageMode.pools.\n"
        )
    } else {
        format!("{head}# Generated from imageMode.pools in install-config.yaml.\n")
    }
}

fn with_header<T: serde::Serialize>(header: &str, object: &T) -> Vec<u8> {
    let yaml = to_yaml(object).expect("a manifest object always renders as YAML");
    format!("{header}{yaml}").into_bytes()
}

/// Comments on top of the two files: what they are for, and that they go together.
fn headers(pool: &str, skeleton: bool) -> (String, String) {
    let mosc = Dir::Manifests.file(&skeleton_name(pool));
    let mc = Dir::Openshift.file(&os_image_file_name(pool));
    if skeleton {
        (
            format!(
                "# Install-time image mode: nodes of pool {pool} boot into a pre-built OS image.\n\
                 # Build and push that image first, add its registry credentials to the pull\n\
                 # secret, then replace every REPLACE-ME value below, and put the same image in\n\
                 # spec.osImageURL of\n\
                 #   {mc}\n\
                 # Validation refuses both files until they are filled in and agree. Simpler:\n\
                 # give the values in install-config.yaml under imageMode.pools and run\n\
                 # `okd-install create manifests` in a new directory.\n"
            ),
            format!(
                "# Install-time image mode: the bootstrap machine-config controller renders this\n\
                 # osImageURL into the first-boot config of pool {pool}. Replace REPLACE-ME with\n\
                 # the pre-built image of {mosc} (the same digest).\n"
            ),
        )
    } else {
        (
            format!(
                "# Install-time image mode, from imageMode.pools in install-config.yaml: used by\n\
                 # on-cluster builds of pool {pool} after install. Its pre-built image is also the\n\
                 # osImageURL of\n\
                 #   {mc}\n\
                 # Change both together.\n"
            ),
            format!(
                "# Install-time image mode, from imageMode.pools in install-config.yaml: the\n\
                 # bootstrap machine-config controller renders this osImageURL into the first-boot\n\
                 # config of pool {pool}, so its nodes boot the pre-built image. It must equal the\n\
                 # pre-built-image annotation of {mosc}.\n"
            ),
        )
    }
}

fn machine_os_config(values: &PoolImage) -> Value {
    let pool = values.pool.as_str();
    json!({
        "apiVersion": MCO_V1,
        "kind": KIND,
        "metadata": {
            "name": pool,
            "annotations": {PRE_BUILT_IMAGE: values.pre_built_image},
        },
        "spec": {
            "machineConfigPool": {"name": pool},
            "imageBuilder": {"imageBuilderType": "Job"},
            "containerFile": [{
                "containerfileArch": "NoArch",
                "content": values.containerfile,
            }],
            "renderedImagePushSpec": values.rendered_image_push_spec,
            "renderedImagePushSecret": {"name": values.rendered_image_push_secret},
        },
    })
}
