//! Assembly of `bootstrap.ign` and its single-node and pivot variants.

use ignition_config::v3_2::{
    Dropin, File, NodeUser, Passwd, Resource, Storage, Systemd, Unit, User,
};

use contract::ENABLED_UNITS;

use crate::render::{RenderedFile, RenderedUnit, TemplateTree, embedded_templates, upsert_by};
use crate::{Config, Result, TemplateContext, encode_data_url};

/// Which bootstrap config to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// `bootstrap.ign` for the temporary bootstrap machine.
    Bootstrap,
    /// `bootstrap-in-place-for-live-iso.ign`: a single node that installs itself to disk.
    SingleNode,
    /// The bootstrap host later pivots into a control-plane node.
    Pivot,
}

impl Variant {
    /// Template directories processed for this variant and context, in order.
    ///
    /// `on-prem` (the local DNS set-up) joins when the context says so
    /// ([`TemplateContext::on_prem`]): there the bootstrap host resolves the cluster's names
    /// through its own CoreDNS.
    pub fn template_dirs(self, ctx: &TemplateContext) -> Vec<&'static str> {
        let mut dirs = vec!["common"];
        if ctx.on_prem {
            dirs.push("on-prem");
        }
        match self {
            Variant::Bootstrap => {}
            Variant::SingleNode => dirs.push("single-node"),
            Variant::Pivot => dirs.push("pivot"),
        }
        dirs
    }

    /// Name of the output file this variant is written to (the asset directory's layout).
    pub const fn file_name(self) -> &'static str {
        match self {
            Variant::Bootstrap => contract::BOOTSTRAP_IGN_FILE,
            Variant::SingleNode => contract::SINGLE_NODE_IGN_FILE,
            Variant::Pivot => contract::PIVOT_IGN_FILE,
        }
    }

    /// Every variant, in the order their outputs are listed.
    pub const ALL: [Variant; 3] = [Variant::Bootstrap, Variant::SingleNode, Variant::Pivot];

    /// The variant a context is made for, read from its installation disk settings
    /// (`bootstrap_in_place` for single-node, `bootstrap_pivot` for pivot, neither for the
    /// plain bootstrap); `None` when it sets both, which no variant accepts.
    pub fn for_context(ctx: &TemplateContext) -> Option<Variant> {
        match (
            ctx.bootstrap_in_place.is_some(),
            ctx.bootstrap_pivot.is_some(),
        ) {
            (false, false) => Some(Variant::Bootstrap),
            (true, false) => Some(Variant::SingleNode),
            (false, true) => Some(Variant::Pivot),
            (true, true) => None,
        }
    }

    /// The context must carry exactly the installation disk this variant needs: templates
    /// switch behaviour on `bootstrap_in_place`/`bootstrap_pivot`, so a mismatch would give
    /// a config that runs steps whose files are missing.
    fn check_context(self, ctx: &TemplateContext) -> Result<()> {
        if Variant::for_context(ctx) == Some(self) {
            return Ok(());
        }
        let message = match self {
            Variant::Bootstrap => "bootstrap_in_place and bootstrap_pivot must both be unset",
            Variant::SingleNode => "bootstrap_in_place must be set and bootstrap_pivot unset",
            Variant::Pivot => "bootstrap_pivot must be set and bootstrap_in_place unset",
        };
        Err(crate::Error::VariantContext {
            variant: self.file_name(),
            message,
        })
    }
}

/// A file from another asset (manifest, certificate, kubeconfig) to place on the node.
///
/// The caller decides the mode (manifests 0644, keys and kubeconfigs 0600, the root CA
/// certificate 0644) because only it knows what the bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeFile {
    /// Absolute path on the node.
    pub path: String,
    /// Permission bits, e.g. `0o644`.
    pub mode: u32,
    /// Bytes of the file.
    pub contents: Vec<u8>,
    /// Append to an existing file instead of replacing it.
    pub append: bool,
}

impl NodeFile {
    /// A root-owned file that replaces whatever is at `path`.
    pub fn new(path: impl Into<String>, mode: u32, contents: impl Into<Vec<u8>>) -> Self {
        Self {
            path: path.into(),
            mode,
            contents: contents.into(),
            append: false,
        }
    }
}

/// Mode of a parent-asset file on the bootstrap node, from its path.
///
/// Manifests (`/opt/openshift/manifests`, `/opt/openshift/openshift`) and the CVO override
/// patch are readable by all (other tools on the node read them); kubeconfigs and anything
/// else stay private to root. TLS files do not come through here: the certificate table
/// (pki's `TlsFile::bootstrap_host_mode`) gives their modes.
pub fn asset_file_mode(path: &str) -> u32 {
    let public = path.starts_with("/opt/openshift/manifests/")
        || path.starts_with("/opt/openshift/openshift/")
        || path == "/opt/openshift/original_cvo_overrides.patch";
    if public { 0o644 } else { 0o600 }
}

impl NodeFile {
    /// A parent-asset file with the mode [`asset_file_mode`] gives its path.
    pub fn asset(path: impl Into<String>, contents: impl Into<Vec<u8>>) -> Self {
        let path = path.into();
        let mode = asset_file_mode(&path);
        Self::new(path, mode, contents)
    }
}

impl From<RenderedFile> for NodeFile {
    fn from(f: RenderedFile) -> Self {
        Self {
            path: f.path,
            mode: f.mode,
            contents: f.contents,
            append: f.append,
        }
    }
}

/// Build a bootstrap config from the templates embedded in this build.
///
/// Order: template files of each processed directory (`common`, then the variant's), then
/// `extra_files`; a later file with the same path replaces the earlier one in its original
/// position. Units follow the same rule by name. `ssh_keys` become the `core` user's
/// authorized keys in the given order (empty strings are skipped). Context values that
/// would break the quoting of the scripts are refused ([`TemplateContext::unsafe_values`]),
/// and so is a context whose installation disk settings do not fit the variant.
pub fn bootstrap_config(
    variant: Variant,
    ctx: &TemplateContext,
    extra_files: Vec<NodeFile>,
    ssh_keys: Vec<String>,
) -> Result<Config> {
    let tree = embedded_templates()?;
    bootstrap_config_from(&tree, variant, ctx, extra_files, ssh_keys)
}

/// [`bootstrap_config`] with an explicit template tree (fixtures, or templates on disk).
pub fn bootstrap_config_from(
    tree: &TemplateTree,
    variant: Variant,
    ctx: &TemplateContext,
    extra_files: Vec<NodeFile>,
    ssh_keys: Vec<String>,
) -> Result<Config> {
    variant.check_context(ctx)?;
    let keys = ctx.unsafe_values();
    if !keys.is_empty() {
        return Err(crate::Error::UnsafeValue { keys });
    }
    let rendered = tree.render_dirs(&variant.template_dirs(ctx), ctx)?;
    let mut files: Vec<NodeFile> = rendered.files.into_iter().map(NodeFile::from).collect();
    for file in extra_files {
        upsert_by(&mut files, file, |f| f.path.as_str());
    }
    let units = rendered.units;
    let config = Config {
        passwd: Some(Passwd {
            groups: None,
            users: Some(vec![core_user(ssh_keys)]),
        }),
        storage: Some(Storage {
            files: Some(files.iter().map(ignition_file).collect()),
            ..Storage::default()
        }),
        systemd: Some(Systemd {
            units: Some(units.into_iter().map(ignition_unit).collect()),
        }),
        ..Config::default()
    };
    Ok(config)
}

/// The `core` user with the given authorized keys (empty entries dropped, order kept).
pub fn core_user(ssh_keys: Vec<String>) -> User {
    let keys: Vec<String> = ssh_keys
        .into_iter()
        .filter(|k| !k.trim().is_empty())
        .collect();
    let mut user = User::new("core".to_string());
    user.ssh_authorized_keys = (!keys.is_empty()).then_some(keys);
    user
}

/// Root-owned file; appended files carry their data in `append` and do not set
/// `overwrite` (Ignition rejects `overwrite: true` without `contents`).
fn ignition_file(f: &NodeFile) -> File {
    let mut file = File::new(f.path.clone());
    file.user = Some(NodeUser {
        id: None,
        name: Some("root".to_string()),
    });
    file.mode = Some(i64::from(f.mode));
    let resource = Resource {
        source: Some(encode_data_url(&f.contents)),
        ..Resource::default()
    };
    if f.append {
        file.append = Some(vec![resource]);
    } else {
        file.overwrite = Some(true);
        file.contents = Some(resource);
    }
    file
}

fn ignition_unit(u: RenderedUnit) -> Unit {
    let mut unit = Unit::new(u.name);
    unit.enabled = ENABLED_UNITS.contains(&unit.name.as_str()).then_some(true);
    unit.contents = u.contents;
    if !u.dropins.is_empty() {
        let dropins = u.dropins.into_iter().map(|(name, contents)| Dropin {
            contents: Some(contents),
            name,
        });
        unit.dropins = Some(dropins.collect());
    }
    unit
}
