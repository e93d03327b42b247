//! Reading the bootstrap template tree and rendering its `.j2` files.
//!
//! Layout (per variant directory `common`, `single-node`, `pivot`):
//! `files/<node path>[.j2]`, `units/<unit>[.j2]`, `units/<unit>.d/<name>.conf[.j2]`. Names are
//! plain file names, never templates; the one unit whose name is the release's is mapped by
//! [`unit_name`].
//! Files named `README.md` or `CONTEXT.md` document the tree and are never shipped.

use std::path::{Path, PathBuf};

use include_dir::Dir;
use minijinja::syntax::SyntaxConfig;
use minijinja::{AutoEscape, Environment, UndefinedBehavior};

use crate::{Error, Result, TemplateContext};

/// Suffix marking a file as a minijinja template; it is dropped from the target name.
const TEMPLATE_SUFFIX: &str = ".j2";

/// File names that document the tree and are skipped.
const DOC_FILES: [&str; 2] = ["README.md", "CONTEXT.md"];

/// Where the bootstrap templates come from.
#[derive(Debug, Clone)]
pub enum TemplateTree {
    /// Compiled into the binary (the normal case; see [`embedded_templates`]).
    Embedded(&'static Dir<'static>),
    /// A directory on disk: tests use fixture trees, developers can try template edits.
    Disk(PathBuf),
}

/// One file of the tree after rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedFile {
    /// Absolute path on the node.
    pub path: String,
    /// Permission bits.
    pub mode: u32,
    /// Append to an existing file instead of replacing it.
    pub append: bool,
    /// Final contents.
    pub contents: Vec<u8>,
}

/// One systemd unit of the tree after rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedUnit {
    /// Unit name, e.g. `kubelet.service`.
    pub name: String,
    /// Full unit text, if the tree has the unit file itself.
    pub contents: Option<String>,
    /// Drop-ins as (`name.conf`, text), from `<unit>.d/`.
    pub dropins: Vec<(String, String)>,
}

/// Several template directories rendered and merged, as a bootstrap config ships them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderedDirs {
    /// Node files in order; see [`TemplateTree::render_dirs`] for the replacement rule.
    pub files: Vec<RenderedFile>,
    /// Units in order, merged by name the same way.
    pub units: Vec<RenderedUnit>,
}

/// A file read from the tree: path relative to the directory listed, and its bytes.
struct SourceEntry {
    rel: String,
    bytes: Vec<u8>,
}

#[cfg(okd_templates)]
static EMBEDDED: Dir<'static> =
    include_dir::include_dir!("$CARGO_MANIFEST_DIR/../../templates/bootstrap");

/// The template tree compiled into this build from `templates/bootstrap/`.
pub fn embedded_templates() -> Result<TemplateTree> {
    #[cfg(okd_templates)]
    {
        Ok(TemplateTree::Embedded(&EMBEDDED))
    }
    #[cfg(not(okd_templates))]
    {
        Err(Error::NoEmbeddedTemplates)
    }
}

/// Mode and append flag of a file from the tree, from its node path.
///
/// Scripts (parent directory `bin` or `dispatcher.d`) are executable by everyone but
/// writable by no one; `motd` and `containers.conf` extend the OS's own file; the registry
/// configuration must be readable by unprivileged podman; everything else may hold secrets
/// and stays private to root.
pub fn file_mode(node_path: &str) -> (u32, bool) {
    let path = Path::new(node_path);
    let parent = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str());
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    if matches!(parent, Some("bin" | "dispatcher.d" | "system-generators")) {
        (0o555, false)
    } else if matches!(name, "motd" | "containers.conf") {
        (0o644, true)
    } else if name == "registries.conf" {
        (0o644, false)
    } else {
        (0o600, false)
    }
}

/// Render one template text against the context with the same settings the tree uses.
///
/// Settings: strict undefined (a typo is an error), no auto-escaping (these are scripts and
/// config files, not HTML; use `|tojson` where JSON quoting is wanted), the trailing newline
/// of the template is kept, and `replace(s, from, to)` is available as a function as well as
/// minijinja's `|replace` filter.
pub fn render_template(name: &str, source: &str, ctx: &TemplateContext) -> Result<String> {
    let env = environment();
    env.render_named_str(name, source, minijinja::value::Serde(ctx))
        .map_err(|e| Error::Template {
            template: name.to_string(),
            source: Box::new(e),
        })
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_auto_escape_callback(|_| AutoEscape::None);
    let syntax = SyntaxConfig::builder()
        .keep_trailing_newline(true)
        .build()
        .expect("default delimiters are valid");
    env.set_syntax(syntax);
    env.add_function("replace", |s: String, from: String, to: String| {
        s.replace(&from, &to)
    });
    env
}

impl TemplateTree {
    /// Rendered files of one variant directory, in tree order (sorted per directory).
    pub fn render_files(&self, variant: &str, ctx: &TemplateContext) -> Result<Vec<RenderedFile>> {
        self.require(variant)?;
        let entries = self.list(&format!("{variant}/files"))?.unwrap_or_default();
        let mut out = Vec::with_capacity(entries.len());
        for entry in entries {
            let tree_path = format!("{variant}/files/{}", entry.rel);
            let (target, contents) = render_entry(&tree_path, &entry.rel, entry.bytes, ctx)?;
            let path = format!("/{target}");
            let (mode, append) = file_mode(&path);
            out.push(RenderedFile {
                path,
                mode,
                append,
                contents,
            });
        }
        Ok(out)
    }

    /// Rendered units of one variant directory, sorted by (rendered) name; drop-in directories
    /// are merged into the entry of their unit.
    pub fn render_units(&self, variant: &str, ctx: &TemplateContext) -> Result<Vec<RenderedUnit>> {
        self.require(variant)?;
        let entries = self.list(&format!("{variant}/units"))?.unwrap_or_default();
        let mut units: Vec<RenderedUnit> = Vec::new();
        for entry in entries {
            let tree_path = format!("{variant}/units/{}", entry.rel);
            let (target, bytes) = render_entry(&tree_path, &entry.rel, entry.bytes, ctx)?;
            let text = String::from_utf8(bytes).map_err(|_| Error::NotUtf8 {
                path: tree_path.clone(),
            })?;
            add_unit_part(&mut units, &tree_path, &target, text, ctx)?;
        }
        // The live mount sorts by the unit name it gets, not by its file name in the tree.
        units.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(units)
    }

    /// Render `dirs` in order and merge them the way a bootstrap config does: a file of a
    /// later directory with the node path of an earlier one replaces it in the earlier
    /// position, and a unit (with its drop-ins) replaces an earlier unit of the same name.
    ///
    /// The one place that merge happens, so that [`crate::bootstrap_config_from`] and the
    /// template tests see the same content for a variant's
    /// [`template_dirs`](crate::Variant::template_dirs).
    pub fn render_dirs(&self, dirs: &[&str], ctx: &TemplateContext) -> Result<RenderedDirs> {
        let mut out = RenderedDirs::default();
        for dir in dirs {
            for file in self.render_files(dir, ctx)? {
                upsert_by(&mut out.files, file, |f| f.path.as_str());
            }
            for unit in self.render_units(dir, ctx)? {
                upsert_by(&mut out.units, unit, |u| u.name.as_str());
            }
        }
        Ok(out)
    }

    fn require(&self, variant: &str) -> Result<()> {
        let present = match self {
            TemplateTree::Embedded(dir) => dir.get_dir(variant).is_some(),
            TemplateTree::Disk(root) => root.join(variant).is_dir(),
        };
        if present {
            Ok(())
        } else {
            Err(Error::MissingVariant {
                variant: variant.to_string(),
            })
        }
    }

    /// All files below `sub`, recursively, or `None` if `sub` does not exist.
    fn list(&self, sub: &str) -> Result<Option<Vec<SourceEntry>>> {
        let mut out = Vec::new();
        match self {
            TemplateTree::Embedded(dir) => match dir.get_dir(sub) {
                Some(d) => walk_embedded(d, Path::new(sub), &mut out),
                None => return Ok(None),
            },
            TemplateTree::Disk(root) => {
                let start = root.join(sub);
                if !start.is_dir() {
                    return Ok(None);
                }
                walk_disk(&start, "", &mut out)?;
            }
        }
        Ok(Some(out))
    }
}

/// Put `item` in place of the element with the same key, or append it.
///
/// A linear search: lists hold a few hundred entries at most.
pub(crate) fn upsert_by<T>(list: &mut Vec<T>, item: T, key: impl Fn(&T) -> &str) {
    match list.iter().position(|old| key(old) == key(&item)) {
        Some(i) => list[i] = item,
        None => list.push(item),
    }
}

fn walk_embedded(dir: &Dir<'static>, base: &Path, out: &mut Vec<SourceEntry>) {
    let mut entries: Vec<_> = dir.entries().iter().collect();
    entries.sort_by_key(|e| e.path().file_name().map(|n| n.to_os_string()));
    for entry in entries {
        if let Some(sub) = entry.as_dir() {
            walk_embedded(sub, base, out);
        } else if let Some(file) = entry.as_file() {
            let rel = file.path().strip_prefix(base).unwrap_or(file.path());
            let rel = rel.to_string_lossy().replace('\\', "/");
            if !is_doc_file(&rel) {
                out.push(SourceEntry {
                    rel,
                    bytes: file.contents().to_vec(),
                });
            }
        }
    }
}

fn walk_disk(dir: &Path, rel: &str, out: &mut Vec<SourceEntry>) -> Result<()> {
    let io = |error| Error::Io {
        path: dir.to_path_buf(),
        error,
    };
    let mut entries = std::fs::read_dir(dir)
        .map_err(io)?
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(io)?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let child_rel = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let path = entry.path();
        if path.is_dir() {
            walk_disk(&path, &child_rel, out)?;
        } else if !is_doc_file(&child_rel) {
            let bytes = std::fs::read(&path).map_err(|error| Error::Io { path, error })?;
            out.push(SourceEntry {
                rel: child_rel,
                bytes,
            });
        }
    }
    Ok(())
}

fn is_doc_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    DOC_FILES.contains(&name)
}

/// Render a `.j2` entry (dropping the suffix from the target) or pass bytes through.
fn render_entry(
    tree_path: &str,
    rel: &str,
    bytes: Vec<u8>,
    ctx: &TemplateContext,
) -> Result<(String, Vec<u8>)> {
    let Some(target) = rel.strip_suffix(TEMPLATE_SUFFIX) else {
        return Ok((rel.to_string(), bytes));
    };
    let source = String::from_utf8(bytes).map_err(|_| Error::NotUtf8 {
        path: tree_path.to_string(),
    })?;
    let text = render_template(tree_path, &source, ctx)?;
    Ok((target.to_string(), text.into_bytes()))
}

/// The file name in `units/` (`.j2` dropped) of the live system's node-image tmpfs.
///
/// systemd names a mount unit after the path it mounts (systemd.mount(5)), and that path is
/// the release's choice (`release.node_image_live_dir`: `/var/ostree-container` before 4.21,
/// `/var/ostreecontainer` from it). So the template keeps this plain file name in the tree,
/// and [`unit_name`] writes it as the release's unit,
/// [`ReleaseContext::node_image_live_unit`](crate::ReleaseContext::node_image_live_unit): the
/// path through [`crate::mount_unit_name`] (`var-ostree\x2dcontainer.mount`,
/// `var-ostreecontainer.mount`). Drop-ins in `node-image-live.mount.d/` follow their unit.
const NODE_IMAGE_LIVE_MOUNT: &str = "node-image-live.mount";

/// The unit a file of `units/` (its name in the tree, `.j2` dropped) is written as: its own
/// name, except the live mount, which is named after the release's path
/// ([`NODE_IMAGE_LIVE_MOUNT`]).
fn unit_name<'a>(name: &'a str, ctx: &'a TemplateContext) -> &'a str {
    if name == NODE_IMAGE_LIVE_MOUNT {
        &ctx.release.node_image_live_unit
    } else {
        name
    }
}

fn layout(tree_path: &str, message: &str) -> Error {
    Error::Layout {
        path: tree_path.to_string(),
        message: message.to_string(),
    }
}

/// File `units/<unit>` sets the unit text; `units/<unit>.d/<name>` adds a drop-in. The unit
/// is named by [`unit_name`].
fn add_unit_part(
    units: &mut Vec<RenderedUnit>,
    tree_path: &str,
    target: &str,
    text: String,
    ctx: &TemplateContext,
) -> Result<()> {
    let layout = |message: &str| layout(tree_path, message);
    let (name, dropin) = match target.split_once('/') {
        None => (target, None),
        Some((dir, file)) => {
            let unit = dir
                .strip_suffix(".d")
                .ok_or_else(|| layout("sub-directories of units/ must be named <unit>.d"))?;
            if file.contains('/') {
                return Err(layout("drop-in directories must not contain directories"));
            }
            (unit, Some(file.to_string()))
        }
    };
    let name = unit_name(name, ctx);
    let index = match units.iter().position(|u| u.name == name) {
        Some(i) => i,
        None => {
            units.push(RenderedUnit {
                name: name.to_string(),
                contents: None,
                dropins: Vec::new(),
            });
            units.len() - 1
        }
    };
    match dropin {
        Some(file) => units[index].dropins.push((file, text)),
        None => units[index].contents = Some(text),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_follow_the_rules() {
        assert_eq!(file_mode("/usr/local/bin/bootkube.sh"), (0o555, false));
        assert_eq!(
            file_mode("/etc/NetworkManager/dispatcher.d/30-x"),
            (0o555, false)
        );
        assert_eq!(file_mode("/etc/motd"), (0o644, true));
        assert_eq!(file_mode("/etc/containers/containers.conf"), (0o644, true));
        assert_eq!(file_mode("/etc/containers/registries.conf"), (0o644, false));
        assert_eq!(file_mode("/root/.docker/config.json"), (0o600, false));
        assert_eq!(file_mode("/opt/bin-data/x"), (0o600, false));
    }

    #[test]
    fn render_keeps_newline_and_is_strict() {
        let ctx = TemplateContext::example();
        let out =
            render_template("t", "{{ replace(names.cluster_name, 'de', 'DE') }}\n", &ctx).unwrap();
        assert_eq!(out, "DEmo\n");
        let out =
            render_template("t", "{{ names.cluster_name|replace('mo', 'MO') }}", &ctx).unwrap();
        assert_eq!(out, "deMO");
        let err = render_template("t.j2", "{{ no_such_key }}", &ctx).unwrap_err();
        assert!(err.to_string().contains("t.j2"), "{err}");
        let out = render_template("x.json.j2", "{{ pull_secret }}", &ctx).unwrap();
        assert_eq!(out, ctx.pull_secret, "no JSON auto-escaping");
    }

    #[test]
    fn the_live_mount_is_written_as_each_releases_unit() {
        let mut names = std::collections::BTreeSet::new();
        for release in &releases::table().releases {
            let mut ctx = TemplateContext::example();
            ctx.release = crate::ReleaseContext::of(release, "");
            let mut units = Vec::new();
            for target in [
                "node-image-live.mount",
                "node-image-live.mount.d/a.conf",
                "kubelet.service",
            ] {
                add_unit_part(&mut units, "t", target, target.into(), &ctx).unwrap();
            }
            let live = crate::mount_unit_name(release.node_image_live_dir());
            let got: Vec<&str> = units.iter().map(|u| u.name.as_str()).collect();
            assert_eq!(
                got,
                [live.as_str(), "kubelet.service"],
                "{}",
                release.version
            );
            assert_eq!(units[0].dropins.len(), 1);
            names.insert(live);
        }
        // Both of the releases' paths occur, so both mappings are exercised.
        assert_eq!(names.len(), 2, "{names:?}");
    }
}
