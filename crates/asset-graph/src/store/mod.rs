//! The [`Store`]: resolves assets (state, disk, generation) in parallel and writes targets.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::asset::{AnyValue, Asset, Dep};
use crate::context::Context;
use crate::error::GraphError;
use crate::graph::{Graph, Kind};
use crate::lock::{self, DirLock};
use crate::report::{AssetReport, Event, Observer, Reason, RunReport, Source};
use crate::state::{self, Entry, Origin, StateFile};

mod output;
mod resolve;
mod schedule;

use resolve::candidate;

/// Removes a temporary file an interrupted commit recorded (see
/// [`crate::state::StateFile::staged`]); anything but one of our temporary files inside `dir`
/// is left alone.
fn remove_staged(dir: &Path, rel: &str) {
    let path = Path::new(rel);
    let ours = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(atomic_file::TEMP_PREFIX));
    if !ours || !crate::fsutil::is_safe_relative(path) {
        return;
    }
    let full = dir.join(path);
    let is_file = std::fs::symlink_metadata(&full).is_ok_and(|m| m.is_file());
    if is_file && std::fs::remove_file(&full).is_ok() {
        tracing::info!("removed {rel}, left over from an interrupted write");
    }
}

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
    /// Generator version of the value (the stored one when reused).
    version: u32,
    reason: Option<Reason>,
    /// `load()` found the user's copy in this run.
    on_disk: bool,
    warnings: Vec<String>,
    elapsed: Duration,
}

/// Resolves assets against one install dir and its state file.
///
/// Values resolved by one `run` are kept for the next, so running several targets with one
/// store generates shared parents only once.
///
/// A store holds an exclusive lock on its install dir ([`crate::LOCK_FILE`]) from
/// [`Store::open`] until it is dropped, so two runs can never interleave their state saves.
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
    /// The current run saved the state as a commit's journal (see `Store::journal`).
    journaled: bool,
    /// Held, never read: dropping the store releases the install dir.
    _lock: DirLock,
}

impl Store {
    /// Opens the install dir `dir` (created with mode 0750 if missing), locks it and reads its
    /// state file.
    ///
    /// The lock is taken before the state is read, so the state seen here is the one this
    /// store will later extend and save. If another process or another live `Store` holds the
    /// lock, this fails at once with [`GraphError::Busy`] rather than waiting: a run that
    /// blocks silently looks hung, and the user can simply retry.
    pub fn open(
        graph: impl Into<Arc<Graph>>,
        dir: impl Into<PathBuf>,
        ctx: Context,
    ) -> Result<Store, GraphError> {
        let graph = graph.into();
        let dir = dir.into();
        let lock = lock::acquire(&dir)?;
        // A temporary file whose writer no longer holds its lock is the leftover of a write
        // that was killed; one of a command still writing here (a boot ISO) is kept.
        for leftover in atomic_file::remove_abandoned_below(&dir) {
            tracing::info!(
                "removed {}, left over from an interrupted write",
                leftover.display()
            );
        }
        let state_path = state::path_in(&dir);
        let mut state = state::load(&state_path)?;
        for temp in std::mem::take(&mut state.staged) {
            remove_staged(&dir, &temp);
        }
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
            journaled: false,
            _lock: lock,
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
            version: self.graph.nodes[i].version,
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
    /// not regenerate them, unless the failure is invalid input (see `finish`).
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

    /// Saves state whatever happened, except after invalid input; the first error wins.
    ///
    /// A run stopped by an input the user must fix (an invalid install-config.yaml or
    /// manifest, a link out of the directory) saves nothing: keys generated meanwhile in
    /// parallel never reach the disk, and the state stays what the last good run left.
    fn finish(
        &mut self,
        outcome: Result<(), GraphError>,
        mut report: RunReport,
    ) -> Result<RunReport, GraphError> {
        let invalid_input = matches!(
            &outcome,
            Err(GraphError::Load { .. }) | Err(GraphError::Input(_))
        );
        let journaled = std::mem::take(&mut self.journaled);
        let saved = if invalid_input {
            Ok(false)
        } else {
            state::save(&self.state_path, &self.state)
        };
        match (outcome, saved) {
            (Err(e), Err(save_err)) => {
                tracing::error!("saving the state after a failure also failed: {save_err}");
                Err(e)
            }
            (Err(e), Ok(_)) | (Ok(()), Err(e)) => Err(e),
            (Ok(()), Ok(written)) => {
                report.state_written = written || journaled;
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
                version: res.version,
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
