//! Writing a target's files without losing user edits.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use super::{Resolved, Store};
use crate::asset::File;
use crate::error::GraphError;
use crate::fsutil;
use crate::report::{Event, FileAction, FileReport, RunReport, Source};

impl Store {
    /// Writes the files of the target's assets (see [`Store::write_file`] for the rules).
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
        let action = match fsutil::read_if_exists(&self.dir, &file.path)? {
            Some(old) if old == file.data => {
                fsutil::ensure_mode(&path, file.mode)?;
                FileAction::Unchanged
            }
            Some(_) if res.on_disk && res.source != Source::Generated => {
                // The user's own file stays as written, but a file that must be private
                // (their own Secret manifest) becomes so, as the generated ones are.
                if file.mode == crate::asset::MODE_SECRET {
                    fsutil::ensure_mode(&path, file.mode)?;
                }
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
        // The caller's report lists the backup; the console says it once, from there.
        tracing::debug!(file = %path.display(), backup = %backup.display(), "preserved a user-edited file");
        Ok(backup
            .strip_prefix(&self.dir)
            .map(Path::to_path_buf)
            .unwrap_or(backup))
    }
}

/// The state and lock files at the top of the install dir belong to the store; an asset that
/// wrote one would corrupt the state or replace the lock file under a running store.
fn is_bookkeeping(rel: &Path) -> bool {
    rel.parent() == Some(Path::new("")) && rel.to_str().is_some_and(crate::reserved::is_reserved)
}
