//! Per-asset decisions: reuse from state, take the user's copy, or generate.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Resolved, Store};
use crate::asset::{AnyValue, Fetcher, Parents};
use crate::error::GraphError;
use crate::fsutil;
use crate::graph::Node;
use crate::report::{Event, Reason, Source};
use crate::state::{Entry, Origin};

/// A value with its canonical JSON and content hash.
pub(super) struct Candidate {
    pub(super) value: AnyValue,
    pub(super) json: serde_json::Value,
    pub(super) content: String,
}

/// What to do with one asset, decided from disk, state and fingerprints.
enum Choice<'a> {
    Reuse(&'a Entry, AnyValue, Vec<String>),
    Disk(Candidate, Reason, Vec<String>),
    Generate(Reason),
}

impl Store {
    /// Resolves one asset; a panicking generator becomes an error instead of a hang.
    pub(super) fn resolve_guarded(
        &self,
        i: usize,
        parents: &[Arc<Resolved>],
    ) -> Result<Resolved, GraphError> {
        let node = &self.graph.nodes[i];
        let start = Instant::now();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.resolve_one(node, i, parents)
        }));
        let mut res = outcome.unwrap_or_else(|panic| {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(GraphError::Generate {
                asset: node.dep.name,
                source: format!("the generator panicked: {msg}").into(),
            })
        })?;
        res.elapsed = start.elapsed();
        tracing::debug!(asset = node.dep.name, source = %res.source, reason = ?res.reason.as_ref().map(ToString::to_string), "resolved");
        self.emit(Event::Resolved {
            name: node.dep.name,
            source: res.source,
            reason: res.reason.as_ref(),
        });
        Ok(res)
    }

    fn resolve_one(
        &self,
        node: &Node,
        i: usize,
        parents: &[Arc<Resolved>],
    ) -> Result<Resolved, GraphError> {
        if let Some(p) = self.provided.get(&i) {
            return Ok((**p).clone());
        }
        let parent_hashes: BTreeMap<String, String> = self.graph.parents[i]
            .iter()
            .zip(parents)
            .map(|(&p, r)| (self.graph.nodes[p].dep.id.to_string(), r.content.clone()))
            .collect();
        let input = input_fingerprint(node.dep.id, node.version, &parent_hashes);
        let disk = self
            .load_disk(node)?
            .filter(|d| !self.interrupted_leftover(node, d));
        let on_disk = disk.is_some();
        let stored = self.stored(node);
        let choice = self.decide(node, i, &input, &parent_hashes, disk, stored);
        let fresh = |cand: Candidate, source, origin, reason, warnings| Resolved {
            value: cand.value,
            json: cand.json,
            content: cand.content,
            input: input.clone(),
            parents: parent_hashes.clone(),
            source,
            origin,
            version: node.version,
            reason,
            on_disk,
            warnings,
            elapsed: Duration::ZERO,
        };
        Ok(match choice {
            Choice::Reuse(entry, value, warnings) => Resolved {
                value,
                json: entry.value.clone(),
                content: entry.content.clone(),
                input: entry.input.clone(),
                parents: entry.parents.clone(),
                source: Source::State,
                origin: entry.origin,
                version: entry.version,
                reason: None,
                on_disk,
                warnings,
                elapsed: Duration::ZERO,
            },
            Choice::Disk(cand, reason, warnings) => {
                fresh(cand, Source::Disk, Origin::Disk, Some(reason), warnings)
            }
            Choice::Generate(reason) => {
                let cand = self.generate(node, i, parents, &reason)?;
                fresh(
                    cand,
                    Source::Generated,
                    Origin::Generated,
                    Some(reason),
                    Vec::new(),
                )
            }
        })
    }

    fn generate(
        &self,
        node: &Node,
        i: usize,
        parents: &[Arc<Resolved>],
        reason: &Reason,
    ) -> Result<Candidate, GraphError> {
        tracing::debug!(asset = node.dep.name, %reason, "generating");
        self.emit(Event::Generating {
            name: node.dep.name,
            reason,
        });
        let values = self.graph.parents[i]
            .iter()
            .zip(parents)
            .map(|(&p, r)| (self.graph.nodes[p].dep.id, r.value.as_ref()))
            .collect();
        let value = node
            .ops
            .generate(&self.ctx, &Parents::new(node.dep.name, values))
            .map_err(|source| GraphError::Generate {
                asset: node.dep.name,
                source,
            })?;
        candidate(node, value)
    }

    /// The user's on-disk version, if the asset loads one.
    fn load_disk(&self, node: &Node) -> Result<Option<Candidate>, GraphError> {
        let fetcher = Fetcher::new(&self.dir, &self.ctx);
        let loaded = node.ops.load(&fetcher).map_err(|source| GraphError::Load {
            asset: node.dep.name,
            file: fetcher.blame(),
            source,
        })?;
        loaded.map(|value| candidate(node, value)).transpose()
    }

    /// Whether the files of a loaded value are all ours (see
    /// [`crate::state::StateFile::is_ours`]) while a commit was interrupted (see
    /// [`crate::state::StateFile::interrupted`]): then they are the killed run's outputs, or
    /// the earlier ones it was replacing, maybe only some of them, not the user's input; the
    /// stored value stands and the commit writes the rest.
    fn interrupted_leftover(&self, node: &Node, disk: &Candidate) -> bool {
        if !self.state.interrupted() {
            return false;
        }
        let files = node.ops.files(&disk.value);
        !files.is_empty()
            && files.iter().all(|f| {
                let key = f.path.to_string_lossy();
                matches!(
                    fsutil::read_if_exists(&self.dir, &f.path),
                    Ok(Some(bytes)) if self.state.is_ours(&key, &bytes)
                )
            })
    }

    /// The state entry and its decoded value (or why it cannot be used).
    fn stored(&self, node: &Node) -> Option<(&Entry, Result<AnyValue, String>)> {
        let entry = self.state.assets.get(node.dep.id)?;
        let decoded = if fsutil::content_hash(&entry.value) == entry.content {
            node.ops.decode(&entry.value)
        } else {
            Err("the stored value does not match its content hash (edited by hand?)".into())
        };
        Some((entry, decoded))
    }

    fn decide<'s>(
        &'s self,
        node: &Node,
        i: usize,
        input: &str,
        current: &BTreeMap<String, String>,
        disk: Option<Candidate>,
        stored: Option<(&'s Entry, Result<AnyValue, String>)>,
    ) -> Choice<'s> {
        let name = node.dep.name;
        match (disk, stored) {
            (Some(d), Some((e, Ok(v)))) if d.content == e.content || same_files(node, &d, &v) => {
                self.reuse_or_regenerate(node, i, e, v, input, current, true)
            }
            (Some(d), stored) => {
                let mut warnings = Vec::new();
                let reason = match stored {
                    Some((e, Ok(_))) => {
                        if e.origin == Origin::Generated && e.input != input {
                            let why = self.changed_inputs(i, e, current);
                            warnings.push(format!("kept your edited {name} although {why}; move its files away to regenerate it"));
                        }
                        Reason::EditedOnDisk
                    }
                    _ => Reason::FoundOnDisk,
                };
                if let Some(why) = node.ops.refresh_reason(&d.value, &self.ctx) {
                    warnings.push(format!(
                        "{name} (supplied by you): {why}; it is not replaced automatically"
                    ));
                }
                Choice::Disk(d, reason, warnings)
            }
            (None, Some((e, Ok(v)))) => {
                self.reuse_or_regenerate(node, i, e, v, input, current, false)
            }
            (None, Some((_, Err(why)))) => Choice::Generate(Reason::StateUnreadable(why)),
            (None, None) => Choice::Generate(Reason::NotInState),
        }
    }

    /// A state entry is reused when its inputs are unchanged and it needs no refresh. Values
    /// the user supplied are never replaced while their files exist; problems are reported.
    #[allow(clippy::too_many_arguments)]
    fn reuse_or_regenerate<'s>(
        &self,
        node: &Node,
        i: usize,
        entry: &'s Entry,
        value: AnyValue,
        input: &str,
        current: &BTreeMap<String, String>,
        on_disk: bool,
    ) -> Choice<'s> {
        let name = node.dep.name;
        let user_owned = entry.origin == Origin::Disk;
        let mut warnings = Vec::new();
        if entry.input != input {
            let why = self.changed_inputs(i, entry, current);
            if !(user_owned && on_disk) {
                return Choice::Generate(why);
            }
            warnings.push(format!(
                "kept {name} from your files although {why}; move its files away to regenerate it"
            ));
        }
        match node.ops.refresh_reason(&value, &self.ctx) {
            Some(why) if user_owned => {
                warnings.push(format!(
                    "{name} (supplied by you): {why}; it is not replaced automatically"
                ));
            }
            Some(why) => return Choice::Generate(Reason::Refresh(why)),
            None => {}
        }
        Choice::Reuse(entry, value, warnings)
    }

    /// Why a stored entry's input fingerprint differs: another generator version, or which
    /// parents' content changed.
    fn changed_inputs(
        &self,
        i: usize,
        entry: &Entry,
        current: &BTreeMap<String, String>,
    ) -> Reason {
        let version = self.graph.nodes[i].version;
        if entry.version != version {
            return Reason::NewVersion {
                stored: entry.version,
                current: version,
            };
        }
        if entry.parents.is_empty() {
            return Reason::InputChanged(Vec::new());
        }
        let names = self.graph.parents[i]
            .iter()
            .map(|&p| self.graph.nodes[p].dep)
            .filter(|d| entry.parents.get(d.id) != current.get(d.id))
            .map(|d| d.name)
            .collect();
        Reason::InputChanged(names)
    }
}

/// Whether the user's copy would write exactly the files of the stored value (same paths and
/// bytes). Then the files are untouched even if `load` builds a value that serializes
/// differently from the generated one (e.g. a "read from disk" flag).
fn same_files(node: &Node, disk: &Candidate, stored: &AnyValue) -> bool {
    let files = |value: &AnyValue| {
        let mut files: Vec<(PathBuf, Vec<u8>)> = node
            .ops
            .files(value)
            .into_iter()
            .map(|f| (f.path, f.data))
            .collect();
        files.sort();
        files
    };
    let on_disk = files(&disk.value);
    !on_disk.is_empty() && on_disk == files(stored)
}

/// Serializes a value and hashes its canonical JSON.
pub(super) fn candidate(node: &Node, value: AnyValue) -> Result<Candidate, GraphError> {
    let json = node.ops.encode(&value).map_err(|e| GraphError::Generate {
        asset: node.dep.name,
        source: format!("the value cannot be stored as JSON: {e}").into(),
    })?;
    let content = fsutil::content_hash(&json);
    Ok(Candidate {
        value,
        json,
        content,
    })
}

/// `sha256(id + generator version + each parent's id and content hash, sorted by id)`.
fn input_fingerprint(id: &str, version: u32, parents: &BTreeMap<String, String>) -> String {
    let mut text = format!("okd-asset-input v1\n{id}\nversion={version}\n");
    for (parent, hash) in parents {
        text.push_str(parent);
        text.push('=');
        text.push_str(hash);
        text.push('\n');
    }
    fsutil::sha256_hex(text.as_bytes())
}
