//! The versioned state file `<dir>/.okd-install-state.json`.
//!
//! It keeps every resolved asset value (including private keys, hence mode 0600) with two
//! fingerprints, and the hash of every file we last wrote, so a later run can tell "unchanged"
//! from "edited by the user".

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::asset::{Asset, decode};
use crate::error::GraphError;
use crate::fsutil;
use crate::reserved::STATE_FILE;
/// The state format version this crate reads and writes.
pub const STATE_VERSION: u64 = 1;

/// Where a stored value originally came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Origin {
    /// Produced by the asset's generator.
    #[default]
    Generated,
    /// Read from the user's files: the user's input, never replaced behind their back.
    Disk,
}

/// One asset's stored value and fingerprints.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Entry {
    /// Fingerprint of the id and the parents' content hashes when the value was made.
    pub input: String,
    /// Hash of the value (canonical JSON).
    pub content: String,
    /// Generated or supplied by the user.
    #[serde(default)]
    pub origin: Origin,
    /// Generator version ([`crate::Asset::VERSION`]) that made the value.
    #[serde(default = "first_version", skip_serializing_if = "is_first_version")]
    pub version: u32,
    /// Content hash of each parent by id, to say which input changed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub parents: BTreeMap<String, String>,
    /// The value itself.
    pub value: serde_json::Value,
}

fn first_version() -> u32 {
    1
}

fn is_first_version(v: &u32) -> bool {
    *v == 1
}

/// The whole state file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StateFile {
    pub version: u64,
    #[serde(default)]
    pub assets: BTreeMap<String, Entry>,
    /// Relative path -> SHA-256 of the bytes we last wrote there.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// Relative path -> SHA-256 of the bytes an earlier run wrote there, which a commit in
    /// progress is replacing (the commit's journal, see `Store::write_target`). The state is
    /// saved with the new `files` and these before any output is renamed into place, and the
    /// entry goes when the path is written: after a kill half-way, a file holding either hash
    /// is still ours, never a hand edit.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub superseded: BTreeMap<String, String>,
    /// Relative paths of the outputs the commit in progress writes, saved in its journal; each
    /// goes when its file is renamed into place. While any is left, a commit was interrupted:
    /// the files already in place are that commit's outputs (a partial set of manifests is
    /// not the user's edit), and the next run writes the rest from the stored values.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub pending: BTreeSet<String>,
    /// Temporary files (relative paths) holding the outputs of the commit in progress,
    /// written before the journal: a run killed before renaming them all leaves these, and
    /// the next run removes exactly them (other temporary files only once they are stale).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub staged: Vec<String>,
}

impl StateFile {
    /// Whether `bytes` at relative path `key` are ours: what the state says we wrote there
    /// last, or what an interrupted commit was replacing.
    pub(crate) fn is_ours(&self, key: &str, bytes: &[u8]) -> bool {
        let hash = fsutil::sha256_hex(bytes);
        self.files.get(key) == Some(&hash) || self.superseded.get(key) == Some(&hash)
    }

    /// Whether a commit was interrupted: its journal was saved and some output of it is
    /// not in place yet.
    pub(crate) fn interrupted(&self) -> bool {
        !self.pending.is_empty() || !self.superseded.is_empty()
    }
}

impl Default for StateFile {
    fn default() -> Self {
        StateFile {
            version: STATE_VERSION,
            assets: BTreeMap::new(),
            files: BTreeMap::new(),
            superseded: BTreeMap::new(),
            pending: BTreeSet::new(),
            staged: Vec::new(),
        }
    }
}

/// The bytes of the state file at `path` (read as an input of its directory: never through
/// a link out of it, never a FIFO), or `None`.
fn read_state_file(path: &Path) -> Result<Option<Vec<u8>>, GraphError> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().map_or(Path::new(STATE_FILE), Path::new);
    fsutil::read_if_exists(dir, name)
}

/// Path of the state file in `dir`.
pub(crate) fn path_in(dir: &Path) -> PathBuf {
    dir.join(STATE_FILE)
}

/// Reads the state file; an absent file is an empty state, anything unreadable is an error.
pub(crate) fn load(path: &Path) -> Result<StateFile, GraphError> {
    let Some(bytes) = read_state_file(path)? else {
        return Ok(StateFile::default());
    };
    let bad = |reason: String| GraphError::State {
        path: path.to_path_buf(),
        reason,
    };
    // Check the version before the shape, so a newer format gets the version error rather
    // than a confusing field error.
    let raw: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| bad(format!("invalid JSON: {e}")))?;
    let found = raw
        .get("version")
        .and_then(serde_json::Value::as_u64)
        .ok_or_else(|| bad("no numeric \"version\" field at the top level".into()))?;
    if found != STATE_VERSION {
        return Err(GraphError::UnsupportedStateVersion {
            path: path.to_path_buf(),
            found,
            supported: STATE_VERSION,
        });
    }
    // Parse the bytes again (not `raw`) so errors carry line and column.
    serde_json::from_slice(&bytes).map_err(|e| bad(format!("unexpected content: {e}")))
}

/// Read-only, typed access to the values a run stored in an install dir.
///
/// For tools that inspect a run's results (e.g. checks of an asset directory, or log
/// collection that needs a generated key): they read a value by its asset type
/// (`state.get::<RootCa>()`), never by JSON field names, so a renamed serde field changes
/// writer and readers together. A reader takes no lock and never writes.
///
/// Values are returned as stored: the content hash is not checked, because deciding whether
/// a hand-edited value may be reused is the [`crate::Store`]'s job, and an inspection tool
/// should see what is actually there.
#[derive(Debug, Clone)]
pub struct State {
    path: PathBuf,
    file: StateFile,
}

impl State {
    /// Reads the state file of install dir `dir`.
    ///
    /// Errors: [`GraphError::NoState`] when there is none, [`GraphError::State`] or
    /// [`GraphError::UnsupportedStateVersion`] when it cannot be read.
    pub fn open(dir: &Path) -> Result<State, GraphError> {
        let path = path_in(dir);
        if !path.exists() {
            return Err(GraphError::NoState { path });
        }
        let file = load(&path)?;
        Ok(State { path, file })
    }

    /// True when the file records no value at all.
    pub fn is_empty(&self) -> bool {
        self.file.assets.is_empty()
    }

    /// The stored value of `A`; [`GraphError::NotStored`] when absent.
    pub fn get<A: Asset>(&self) -> Result<A, GraphError> {
        self.find::<A>()?.ok_or_else(|| GraphError::NotStored {
            path: self.path.clone(),
            asset: A::NAME,
            id: A::ID,
        })
    }

    /// The stored value of `A`, `None` when absent; [`GraphError::StoredUnreadable`] when the
    /// value does not deserialize as `A`.
    pub fn find<A: Asset>(&self) -> Result<Option<A>, GraphError> {
        let Some(entry) = self.file.assets.get(A::ID) else {
            return Ok(None);
        };
        decode::<A>(&entry.value)
            .map(Some)
            .map_err(|reason| GraphError::StoredUnreadable {
                path: self.path.clone(),
                asset: A::NAME,
                id: A::ID,
                reason,
            })
    }
}

/// Writes the state atomically with mode 0600; skips the write when the bytes on disk are
/// already identical. Returns whether it wrote.
pub(crate) fn save(path: &Path, state: &StateFile) -> Result<bool, GraphError> {
    let mut bytes = serde_json::to_vec_pretty(state).map_err(|e| GraphError::State {
        path: path.to_path_buf(),
        reason: format!("cannot serialize: {e}"),
    })?;
    bytes.push(b'\n');
    let empty = state.assets.is_empty() && state.files.is_empty();
    if empty && !path.exists() {
        // Nothing to remember (e.g. the run failed before resolving anything).
        return Ok(false);
    }
    if read_state_file(path)?.as_deref() == Some(&bytes[..]) {
        fsutil::ensure_mode(path, 0o600)?;
        return Ok(false);
    }
    fsutil::write_atomic(path, &bytes, 0o600)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> StateFile {
        let mut s = StateFile::default();
        s.assets.insert(
            "tls/root-ca".into(),
            Entry {
                input: "aa".into(),
                content: "bb".into(),
                origin: Origin::Generated,
                version: 1,
                parents: BTreeMap::new(),
                value: serde_json::json!({"key": "k", "cert": "c"}),
            },
        );
        s.files.insert("tls/root-ca.crt".into(), "cc".into());
        s
    }

    #[test]
    fn round_trips_with_mode_0600_and_no_temp_left() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path());
        assert!(save(&path, &sample()).unwrap());
        assert_eq!(fsutil::mode_of(&path), Some(0o600));
        let back = load(&path).unwrap();
        assert_eq!(
            back.assets["tls/root-ca"].value,
            sample().assets["tls/root-ca"].value
        );
        assert_eq!(back.files, sample().files);
        assert!(
            !save(&path, &back).unwrap(),
            "identical state must not be rewritten"
        );
        let names = fsutil::list_files(dir.path()).unwrap();
        assert_eq!(names, vec![STATE_FILE.to_string()]);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("{\n  \"version\": 1,"), "{text}");
    }

    #[test]
    fn existing_loose_mode_is_tightened() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path());
        std::fs::write(&path, "{\"version\": 1}").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let state = load(&path).unwrap();
        save(&path, &state).unwrap();
        assert_eq!(fsutil::mode_of(&path), Some(0o600));
    }

    #[test]
    fn absent_file_is_empty_state() {
        let dir = tempfile::tempdir().unwrap();
        let state = load(&path_in(dir.path())).unwrap();
        assert!(state.assets.is_empty());
    }

    #[test]
    fn unknown_version_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path());
        std::fs::write(&path, r#"{"version": 7, "assets": {}}"#).unwrap();
        let err = load(&path).unwrap_err();
        assert!(
            matches!(
                err,
                GraphError::UnsupportedStateVersion {
                    found: 7,
                    supported: 1,
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("version 7"), "{err}");
    }

    #[test]
    fn corrupt_file_names_path_and_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path());
        std::fs::write(&path, "{\n  \"version\": 1,\n  \"assets\": {,\n}").unwrap();
        let err = load(&path).unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, GraphError::State { .. }), "{msg}");
        assert!(msg.contains(&path.display().to_string()), "{msg}");
        assert!(msg.contains("line 3"), "{msg}");
    }

    #[test]
    fn wrong_shape_is_rejected_with_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path());
        std::fs::write(&path, "{\"version\": 1,\n\"assets\": {\"x\": 3}}").unwrap();
        let msg = load(&path).unwrap_err().to_string();
        assert!(msg.contains("line 2"), "{msg}");
    }
}
