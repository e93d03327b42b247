//! Writing a target's files without losing user edits.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use super::{Resolved, Store};
use crate::asset::File;
use crate::crash_hook;
use crate::error::GraphError;
use crate::fsutil;
use crate::report::{Event, FileAction, FileReport, RunReport, Source};
use crate::state;

impl Store {
    /// Writes the files of the target's assets as one commit: plan every file, write each
    /// new one to a synced temporary file, save the journal (the state, see
    /// [`Store::journal`]), then rename the outputs into place; the
    /// caller saves the final state. After a kill at any point the next run reuses the
    /// stored values and recognises every file it wrote, so it never makes a new PKI nor
    /// calls its own file a hand edit.
    pub(super) fn write_target(
        &mut self,
        roots: &[usize],
        report: &mut RunReport,
    ) -> Result<(), GraphError> {
        let mut owners: HashMap<PathBuf, &'static str> = HashMap::new();
        let mut files: Vec<(Arc<Resolved>, &'static str, File)> = Vec::new();
        for &r in roots {
            let node = &self.graph.nodes[r];
            let Some(res) = self.resolved[r].clone() else {
                continue;
            };
            for file in node.ops.files(&res.value) {
                if !fsutil::is_safe_relative(&file.path) || is_bookkeeping(&file.path) {
                    return Err(GraphError::BadFilePath {
                        asset: node.dep.name,
                        path: file.path,
                    });
                }
                // Before anything is staged: a directory linked out of DIR stops the run
                // with nothing written (and, as invalid input, no state saved).
                atomic_file::input::output_dirs_inside(&self.dir, &file.path)
                    .map_err(GraphError::Input)?;
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
        let plans = files
            .iter()
            .map(|(res, _, file)| self.plan_file(res, file))
            .collect::<Result<Vec<_>, _>>()?;
        // Every new output is written and synced before anything changes: a full disk fails
        // here, and the dropped temporary files leave the directory as it was.
        let staged = files
            .iter()
            .zip(&plans)
            .map(|((_, _, file), plan)| match plan {
                Plan::Write { .. } => {
                    fsutil::stage(&self.dir.join(&file.path), &file.data, file.mode).map(Some)
                }
                Plan::Unchanged | Plan::Kept => Ok(None),
            })
            .collect::<Result<Vec<_>, _>>()?;
        if staged.iter().any(Option::is_some) {
            crash_hook::staged();
        }
        let committed = self
            .journal(&files, &plans, &staged)
            .and_then(|()| self.commit_all(files, plans, staged, report));
        // Renamed, or removed when dropped: no temporary file of this run is left to list.
        self.state.staged.clear();
        committed
    }

    /// Renames every staged output into place, in order, reporting each file.
    fn commit_all(
        &mut self,
        files: Vec<(Arc<Resolved>, &'static str, File)>,
        plans: Vec<Plan>,
        staged: Vec<Option<atomic_file::Staged>>,
        report: &mut RunReport,
    ) -> Result<(), GraphError> {
        for (((_, asset, file), plan), staged) in files.into_iter().zip(plans).zip(staged) {
            let action = self.commit_file(&file, plan, staged)?;
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

    /// Decides what to do with one file (nothing is written yet): leave it when already
    /// identical; keep the user's own copy of a loaded asset that was reused; otherwise write
    /// it, moving it aside to `<name>.user-edit-<secs>` first when its bytes are not ours
    /// (neither what we last wrote there nor what an interrupted commit was replacing).
    fn plan_file(&self, res: &Resolved, file: &File) -> Result<Plan, GraphError> {
        let key = file.path.to_string_lossy().into_owned();
        Ok(match fsutil::read_if_exists(&self.dir, &file.path)? {
            Some(old) if old == file.data => Plan::Unchanged,
            Some(_) if res.on_disk && res.source != Source::Generated => Plan::Kept,
            Some(old) if self.state.is_ours(&key, &old) => Plan::Write {
                replaces: Some(fsutil::sha256_hex(&old)),
                preserve: false,
            },
            Some(_) => Plan::Write {
                replaces: None,
                preserve: true,
            },
            None => Plan::Write {
                replaces: None,
                preserve: false,
            },
        })
    }

    /// The commit's journal: before any output is renamed, the state is saved with every
    /// resolved value, the hash of every file about to be written, the hash of each file
    /// of ours it replaces ([`crate::state::StateFile::superseded`]) and the staged
    /// temporary files ([`crate::state::StateFile::staged`]). A run killed after
    /// this finds its keys in the state and recognises both generations of its files; a
    /// run killed before it has written no output (user edits moved aside stay so).
    fn journal(
        &mut self,
        files: &[(Arc<Resolved>, &'static str, File)],
        plans: &[Plan],
        staged: &[Option<atomic_file::Staged>],
    ) -> Result<(), GraphError> {
        // Relative to the install dir: the temporary file sits next to its output (its own
        // path is absolute even when the install dir is given as a relative path).
        self.state.staged = files
            .iter()
            .zip(staged)
            .filter_map(|((_, _, file), s)| {
                let name = s.as_ref()?.temp_path().file_name()?;
                let rel = file.path.parent().unwrap_or(Path::new("")).join(name);
                Some(rel.to_string_lossy().into_owned())
            })
            .collect();
        let mut writes = false;
        for ((_, _, file), plan) in files.iter().zip(plans) {
            let key = file.path.to_string_lossy().into_owned();
            match plan {
                Plan::Kept => continue,
                Plan::Unchanged => {}
                Plan::Write { replaces, .. } => {
                    writes = true;
                    if let Some(old) = replaces {
                        self.state.superseded.insert(key.clone(), old.clone());
                    }
                    self.state.pending.insert(key.clone());
                }
            }
            self.state.files.insert(key, fsutil::sha256_hex(&file.data));
        }
        if writes {
            self.journaled = state::save(&self.state_path, &self.state)?;
        }
        Ok(())
    }

    /// Carries out one file's [`Plan`] after the journal is saved.
    fn commit_file(
        &mut self,
        file: &File,
        plan: Plan,
        staged: Option<atomic_file::Staged>,
    ) -> Result<FileAction, GraphError> {
        let path = self.dir.join(&file.path);
        let key = file.path.to_string_lossy().into_owned();
        let action = match plan {
            Plan::Unchanged => {
                fsutil::ensure_mode(&path, file.mode)?;
                FileAction::Unchanged
            }
            Plan::Kept => {
                // The user's own file stays as written, but a file that must be private
                // (their own Secret manifest) becomes so, as the generated ones are.
                if file.mode == crate::asset::MODE_SECRET {
                    fsutil::ensure_mode(&path, file.mode)?;
                }
                return Ok(FileAction::Kept);
            }
            Plan::Write { preserve, .. } => {
                let backup = if preserve {
                    Some(self.preserve(&path)?)
                } else {
                    None
                };
                match staged {
                    Some(staged) => staged.commit().map_err(|e| GraphError::io(&path, e))?,
                    None => fsutil::write_atomic(&path, &file.data, file.mode)?,
                }
                FileAction::Written { backup }
            }
        };
        self.state.superseded.remove(&key);
        self.state.pending.remove(&key);
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
        // The caller's report lists the backup; the console says it once, from there.
        tracing::debug!(file = %path.display(), backup = %backup.display(), "preserved a user-edited file");
        Ok(backup
            .strip_prefix(&self.dir)
            .map(Path::to_path_buf)
            .unwrap_or(backup))
    }
}

/// What the commit does with one output file.
enum Plan {
    /// Already identical.
    Unchanged,
    /// The user's own copy of a loaded asset: left as it is.
    Kept,
    /// Written; `replaces` is the hash of our earlier file there, `preserve` moves a file
    /// that is not ours aside first.
    Write {
        replaces: Option<String>,
        preserve: bool,
    },
}

/// The state and lock files at the top of the install dir belong to the store; an asset that
/// wrote one would corrupt the state or replace the lock file under a running store.
fn is_bookkeeping(rel: &Path) -> bool {
    rel.parent() == Some(Path::new("")) && rel.to_str().is_some_and(crate::reserved::is_reserved)
}
