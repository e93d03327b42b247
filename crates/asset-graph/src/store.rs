//! The [`Store`]: resolves assets (state, disk, generation) in parallel and writes targets.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant, UNIX_EPOCH};

use crate::asset::{AnyValue, Asset, Dep, Fetcher, File, Parents};
use crate::context::Context;
use crate::error::GraphError;
use crate::fsutil;
use crate::graph::{Graph, Kind, Node};
use crate::report::{
    AssetReport, Event, FileAction, FileReport, Observer, Reason, RunReport, Source,
};
use crate::state::{self, Entry, Origin, StateFile};

/// One resolved value with its fingerprints and provenance.
#[derive(Clone)]
pub(crate) struct Resolved {
    value: AnyValue,
    json: serde_json::Value,
    content: String,
    input: String,
    parents: BTreeMap<String, String>,
    source: Source,
    origin: Origin,
    reason: Option<Reason>,
    /// `load()` found the user's copy in this run.
    on_disk: bool,
    warnings: Vec<String>,
    elapsed: Duration,
}

/// A value with its canonical JSON and content hash.
struct Candidate {
    value: AnyValue,
    json: serde_json::Value,
    content: String,
}

/// What to do with one asset, decided from disk, state and fingerprints.
enum Choice<'a> {
    Reuse(&'a Entry, AnyValue, Vec<String>),
    Disk(Candidate, Reason, Vec<String>),
    Generate(Reason),
}

/// Resolves assets against one install dir and its state file.
///
/// Values resolved by one `run` are kept for the next, so running several targets with one
/// store generates shared parents only once.
pub struct Store {
    graph: Arc<Graph>,
    dir: PathBuf,
    state_path: PathBuf,
    ctx: Context,
    jobs: usize,
    observer: Option<Arc<dyn Observer>>,
    state: StateFile,
    provided: HashMap<usize, Arc<Resolved>>,
    resolved: Vec<Option<Arc<Resolved>>>,
}

impl Store {
    /// Opens the install dir `dir` (which need not exist yet) and reads its state file.
    pub fn open(
        graph: impl Into<Arc<Graph>>,
        dir: impl Into<PathBuf>,
        ctx: Context,
    ) -> Result<Store, GraphError> {
        let graph = graph.into();
        let dir = dir.into();
        let state_path = state::path_in(&dir);
        let state = state::load(&state_path)?;
        let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
        Ok(Store {
            resolved: vec![None; graph.nodes.len()],
            graph,
            dir,
            state_path,
            ctx,
            jobs,
            observer: None,
            state,
            provided: HashMap::new(),
        })
    }

    /// Sets how many assets may generate at once (default: the number of CPUs).
    pub fn set_jobs(&mut self, jobs: usize) {
        self.jobs = jobs.max(1);
    }

    /// Sends progress [`Event`]s to `observer`.
    pub fn set_observer(&mut self, observer: impl Observer + 'static) {
        self.observer = Some(Arc::new(observer));
    }

    /// The install dir.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Path of the state file.
    pub fn state_path(&self) -> &Path {
        &self.state_path
    }

    /// The graph this store resolves.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Injects the value of `T`, typically a root input such as run options. It is never
    /// generated and never stored, but its content hash feeds its dependants' fingerprints.
    /// Values resolved earlier by this store are forgotten, since they may depend on it.
    pub fn provide<T: Asset>(&mut self, value: T) -> Result<(), GraphError> {
        let dep = Dep::of::<T>();
        let i = self
            .graph
            .index_of(&dep)
            .ok_or(GraphError::UnknownDependency {
                asset: "Store::provide".into(),
                dependency: T::NAME,
                id: T::ID,
            })?;
        let cand = candidate(&self.graph.nodes[i], Arc::new(value))?;
        let resolved = Resolved {
            input: cand.content.clone(),
            value: cand.value,
            json: cand.json,
            content: cand.content,
            parents: BTreeMap::new(),
            source: Source::Provided,
            origin: Origin::Generated,
            reason: None,
            on_disk: false,
            warnings: Vec::new(),
            elapsed: Duration::ZERO,
        };
        self.provided.insert(i, Arc::new(resolved));
        self.resolved.iter_mut().for_each(|r| *r = None);
        Ok(())
    }

    /// The value of `T` if this store has resolved it.
    pub fn get<T: Asset>(&self) -> Option<&T> {
        let i = self.graph.index_of(&Dep::of::<T>())?;
        self.resolved[i].as_ref()?.value.downcast_ref::<T>()
    }

    /// Resolves every asset of `target` and writes the files of the target's assets, then
    /// saves the state file. Values resolved before a failure are saved too, so a re-run does
    /// not regenerate them.
    pub fn run(&mut self, target: &str) -> Result<RunReport, GraphError> {
        let graph = Arc::clone(&self.graph);
        let roots = graph.target_nodes(target)?;
        let mut report = RunReport::default();
        let outcome = self
            .resolve_nodes(roots, &mut report)
            .and_then(|()| self.write_target(roots, &mut report));
        self.finish(outcome, report)
    }

    /// Resolves `assets` and their parents and saves the state file; writes no output files.
    pub fn resolve(&mut self, assets: &[Dep]) -> Result<RunReport, GraphError> {
        let mut roots = Vec::with_capacity(assets.len());
        for dep in assets {
            roots.push(
                self.graph
                    .index_of(dep)
                    .ok_or(GraphError::UnknownDependency {
                        asset: "Store::resolve".into(),
                        dependency: dep.name,
                        id: dep.id,
                    })?,
            );
        }
        let mut report = RunReport::default();
        let outcome = self.resolve_nodes(&roots, &mut report);
        self.finish(outcome, report)
    }

    /// Saves state whatever happened; the first error wins.
    fn finish(
        &mut self,
        outcome: Result<(), GraphError>,
        mut report: RunReport,
    ) -> Result<RunReport, GraphError> {
        let saved = state::save(&self.state_path, &self.state);
        match (outcome, saved) {
            (Err(e), Err(save_err)) => {
                tracing::error!("saving the state after a failure also failed: {save_err}");
                Err(e)
            }
            (Err(e), Ok(_)) | (Ok(()), Err(e)) => Err(e),
            (Ok(()), Ok(written)) => {
                report.state_written = written;
                Ok(report)
            }
        }
    }

    fn emit(&self, event: Event<'_>) {
        if let Some(observer) = &self.observer {
            observer.event(&event);
        }
    }

    /// Resolves `roots` and their ancestors, records them, fills `report.assets`.
    fn resolve_nodes(&mut self, roots: &[usize], report: &mut RunReport) -> Result<(), GraphError> {
        let plan = self.graph.closure(roots);
        for &i in &plan {
            let node = &self.graph.nodes[i];
            if node.kind == Kind::Input && !self.provided.contains_key(&i) {
                return Err(GraphError::MissingInput {
                    name: node.dep.name,
                    id: node.dep.id,
                });
            }
        }
        let todo: Vec<usize> = plan
            .iter()
            .copied()
            .filter(|&i| self.resolved[i].is_none())
            .collect();
        self.emit(Event::Planned { total: todo.len() });
        let mut results = self.schedule(&todo);
        let order: HashMap<usize, usize> = plan.iter().enumerate().map(|(k, &i)| (i, k)).collect();
        results.sort_by_key(|(i, _)| order[i]);
        let mut first_error = None;
        for (i, result) in results {
            match result {
                Ok(res) => {
                    report.warnings.extend(res.warnings.iter().cloned());
                    self.record(i, res);
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        report.assets = todo.iter().filter_map(|&i| self.asset_report(i)).collect();
        first_error.map_or(Ok(()), Err)
    }

    fn asset_report(&self, i: usize) -> Option<AssetReport> {
        let res = self.resolved[i].as_ref()?;
        let dep = self.graph.nodes[i].dep;
        Some(AssetReport {
            id: dep.id,
            name: dep.name,
            source: res.source,
            reason: res.reason.clone(),
            elapsed: res.elapsed,
        })
    }

    /// Keeps a resolved value for this store and in the state (provided values stay out).
    fn record(&mut self, i: usize, res: Arc<Resolved>) {
        if res.source != Source::Provided {
            let entry = Entry {
                input: res.input.clone(),
                content: res.content.clone(),
                origin: res.origin,
                parents: res.parents.clone(),
                value: res.json.clone(),
            };
            self.state
                .assets
                .insert(self.graph.nodes[i].dep.id.to_string(), entry);
        }
        self.resolved[i] = Some(res);
    }
}

/// Ready-queue scheduling: an asset starts as soon as all its parents are done.
struct Queue {
    ready: VecDeque<usize>,
    waiting: HashMap<usize, usize>,
    done: HashMap<usize, Arc<Resolved>>,
    results: Vec<(usize, Result<Arc<Resolved>, GraphError>)>,
    remaining: usize,
    failed: bool,
}

impl Store {
    /// Resolves `todo` (in dependency order) on up to `jobs` threads. After the first failure
    /// no new asset starts; running ones finish so their (costly) values are kept.
    fn schedule(&self, todo: &[usize]) -> Vec<(usize, Result<Arc<Resolved>, GraphError>)> {
        let mut queue = Queue {
            ready: VecDeque::new(),
            waiting: HashMap::new(),
            done: HashMap::new(),
            results: Vec::new(),
            remaining: todo.len(),
            failed: false,
        };
        for &i in todo {
            let pending = self.graph.parents[i]
                .iter()
                .filter(|&&p| self.resolved[p].is_none())
                .count();
            if pending == 0 {
                queue.ready.push_back(i);
            } else {
                queue.waiting.insert(i, pending);
            }
        }
        let shared = (Mutex::new(queue), Condvar::new());
        let workers = self.jobs.min(todo.len());
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| self.work(&shared));
            }
        });
        let queue = shared
            .0
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        queue.results
    }

    fn work(&self, (lock, wake): &(Mutex<Queue>, Condvar)) {
        loop {
            let (i, parents) = {
                let mut q = lock.lock().unwrap_or_else(PoisonError::into_inner);
                let i = loop {
                    if q.failed || q.remaining == 0 {
                        return;
                    }
                    if let Some(i) = q.ready.pop_front() {
                        break i;
                    }
                    q = wake.wait(q).unwrap_or_else(PoisonError::into_inner);
                };
                let parents: Vec<Arc<Resolved>> = self.graph.parents[i]
                    .iter()
                    .filter_map(|&p| self.resolved[p].clone().or_else(|| q.done.get(&p).cloned()))
                    .collect();
                (i, parents)
            };
            let result = self.resolve_guarded(i, &parents).map(Arc::new);
            let mut q = lock.lock().unwrap_or_else(PoisonError::into_inner);
            q.remaining -= 1;
            match &result {
                Ok(res) => {
                    q.done.insert(i, Arc::clone(res));
                    for &c in &self.graph.children[i] {
                        if let Some(n) = q.waiting.get_mut(&c) {
                            *n -= 1;
                            if *n == 0 {
                                q.waiting.remove(&c);
                                q.ready.push_back(c);
                            }
                        }
                    }
                }
                Err(_) => q.failed = true,
            }
            q.results.push((i, result));
            wake.notify_all();
        }
    }

    /// Resolves one asset; a panicking generator becomes an error instead of a hang.
    fn resolve_guarded(&self, i: usize, parents: &[Arc<Resolved>]) -> Result<Resolved, GraphError> {
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
        let input = input_fingerprint(node.dep.id, &parent_hashes);
        let disk = self.load_disk(node)?;
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
        let fetcher = Fetcher::new(&self.dir);
        let loaded = node.ops.load(&fetcher).map_err(|source| GraphError::Load {
            asset: node.dep.name,
            file: fetcher.blame(),
            source,
        })?;
        loaded.map(|value| candidate(node, value)).transpose()
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
            (Some(d), Some((e, Ok(v)))) if d.content == e.content => {
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

    /// Which parents' content differs from what the stored entry was made from.
    fn changed_inputs(
        &self,
        i: usize,
        entry: &Entry,
        current: &BTreeMap<String, String>,
    ) -> Reason {
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

impl Store {
    /// Writes the files of the target's assets (see [`Store::write_file`] for the rules).
    fn write_target(&mut self, roots: &[usize], report: &mut RunReport) -> Result<(), GraphError> {
        let mut owners: HashMap<PathBuf, &'static str> = HashMap::new();
        let mut files: Vec<(Arc<Resolved>, &'static str, File)> = Vec::new();
        for &r in roots {
            let node = &self.graph.nodes[r];
            let Some(res) = self.resolved[r].clone() else {
                continue;
            };
            for file in node.ops.files(&res.value) {
                if !fsutil::is_safe_relative(&file.path)
                    || file.path == Path::new(state::STATE_FILE)
                {
                    return Err(GraphError::BadFilePath {
                        asset: node.dep.name,
                        path: file.path,
                    });
                }
                if let Some(first) = owners.insert(file.path.clone(), node.dep.name) {
                    return Err(GraphError::FileConflict {
                        path: file.path,
                        first,
                        second: node.dep.name,
                    });
                }
                files.push((Arc::clone(&res), node.dep.name, file));
            }
        }
        for (res, asset, file) in files {
            let action = self.write_file(&res, &file)?;
            self.emit(Event::File {
                path: &file.path,
                action: &action,
            });
            if let FileAction::Written { backup: Some(b) } = &action {
                report.warnings.push(format!(
                    "{} was edited outside okd-install; your version is saved as {}",
                    file.path.display(),
                    b.display()
                ));
            }
            report.files.push(FileReport {
                path: file.path,
                asset,
                action,
            });
        }
        Ok(())
    }

    /// Writes one file unless it is already identical. The user's own copy of a loaded asset
    /// that was reused stays untouched; a file that differs from what we last wrote there is
    /// moved aside to `<name>.user-edit-<secs>` before the new content is written.
    fn write_file(&mut self, res: &Resolved, file: &File) -> Result<FileAction, GraphError> {
        let path = self.dir.join(&file.path);
        let key = file.path.to_string_lossy().into_owned();
        let action = match fsutil::read_if_exists(&path)? {
            Some(old) if old == file.data => {
                fsutil::ensure_mode(&path, file.mode)?;
                FileAction::Unchanged
            }
            Some(_) if res.on_disk && res.source != Source::Generated => {
                return Ok(FileAction::Kept);
            }
            Some(old) => {
                let ours = self.state.files.get(&key) == Some(&fsutil::sha256_hex(&old));
                let backup = if ours {
                    None
                } else {
                    Some(self.preserve(&path)?)
                };
                fsutil::write_atomic(&path, &file.data, file.mode)?;
                FileAction::Written { backup }
            }
            None => {
                fsutil::write_atomic(&path, &file.data, file.mode)?;
                FileAction::Written { backup: None }
            }
        };
        self.state.files.insert(key, fsutil::sha256_hex(&file.data));
        Ok(action)
    }

    /// Moves a user-edited file aside, returning the backup path relative to the install dir.
    fn preserve(&self, path: &Path) -> Result<PathBuf, GraphError> {
        let secs = self
            .ctx
            .now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let backup = fsutil::preserve(path, secs)?;
        tracing::info!(file = %path.display(), backup = %backup.display(), "preserved a user-edited file");
        Ok(backup
            .strip_prefix(&self.dir)
            .map(Path::to_path_buf)
            .unwrap_or(backup))
    }
}

/// Serializes a value and hashes its canonical JSON.
fn candidate(node: &Node, value: AnyValue) -> Result<Candidate, GraphError> {
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

/// `sha256(id + each parent's id and content hash, sorted by id)`.
fn input_fingerprint(id: &str, parents: &BTreeMap<String, String>) -> String {
    let mut text = format!("okd-asset-input v1\n{id}\n");
    for (parent, hash) in parents {
        text.push_str(parent);
        text.push('=');
        text.push_str(hash);
        text.push('\n');
    }
    fsutil::sha256_hex(text.as_bytes())
}
